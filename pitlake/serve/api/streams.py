"""The bodies of the columnar answers: an Arrow IPC stream or a Parquet file, written batch by
batch from the Result's Arrow table and handed out as they are written (streamed).

Compression. A bulk answer is mostly bytes to move: 788k statement versions are a 216 MiB
IPC stream, 76 MiB with LZ4 (the empty cells of the other statements' columns and the
repeated strings compress well). The Arrow stream's record batches are therefore
LZ4_FRAME-compressed by default (IPC body compression, part of the Arrow format: pyarrow and
polars read it transparently to the same table); `compression=none` asks for plain buffers,
for a reader without the codec (Arrow JS without its LZ4 codec registered, arrow-rs without
its `ipc_compression` feature), and `zstd` for the smallest body. Parquet stays zstd by
default and honours the same values. In one process (the TestClient benchmark) LZ4 costs about
as much CPU as the smaller body saves; over a socket, and more so over a network, it wins.

Copies. The IPC writer hands the sink each column buffer as a `pyarrow.Buffer` it never writes
to again, so the sink keeps references and copies each batch's bytes once, into the chunk it
hands out (copying every buffer on arrival as well cost a second pass over the whole body).
Batches follow the table's own chunks (slicing a chunk re-bases its string offsets and
bitmaps: more copies), split only above `BATCH_ROWS`.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

COMPRESSIONS = ("lz4", "zstd", "none")
DEFAULT_COMPRESSION = {"arrow": "lz4", "parquet": "zstd"}
BATCH_ROWS = 128 * 1024  # at most this many rows per record batch / Parquet row group


class _Drain(io.RawIOBase):
    """A write-only sink whose bytes are handed out as they arrive (for streaming). It keeps
    what the writer hands it (bytes, or buffers the writer does not reuse) and joins them
    once per chunk."""

    def __init__(self) -> None:
        self.chunks: list[Any] = []

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self.chunks.append(b)
        return len(b)

    def take(self) -> bytes:
        out, self.chunks = b"".join(self.chunks), []
        return out


def arrow_stream(table: pa.Table, compression: str = "lz4") -> Iterator[bytes]:
    """The table as an Arrow IPC stream, one chunk per record batch (the first with the
    schema, the last with the end-of-stream marker)."""
    import pyarrow as pa

    codec = None if compression == "none" else compression
    options = pa.ipc.IpcWriteOptions(compression=codec)
    sink = _Drain()
    with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
        for batch in table.to_batches(max_chunksize=BATCH_ROWS):
            writer.write_batch(batch)
            yield sink.take()
    yield sink.take()


def parquet_stream(table: pa.Table, compression: str = "zstd") -> Iterator[bytes]:
    """The table as one Parquet file, one chunk per row group (the footer in the last)."""
    import pyarrow.parquet as pq

    table = _without_empty_structs(table)
    sink = _Drain()
    with pq.ParquetWriter(sink, table.schema, compression=compression) as writer:
        for start in range(0, max(table.num_rows, 1), BATCH_ROWS):
            writer.write_table(table.slice(start, BATCH_ROWS))
            yield sink.take()
    yield sink.take()


def _without_empty_structs(table: pa.Table) -> pa.Table:
    """Parquet has no group without fields: a struct column with none (a JSON column null in
    every row of the answer, e.g. `extra` of statements without any) goes as a null column."""
    import pyarrow as pa

    for i, f in enumerate(table.schema):
        t = f.type
        if pa.types.is_struct(t) and t.num_fields == 0 and table.column(i).null_count == len(table):
            table = table.set_column(i, pa.field(f.name, pa.null()), pa.nulls(len(table)))
    return table
