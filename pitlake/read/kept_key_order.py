"""The key order of a report-period dataset's stored versions, kept per set of file identities,
for bulk statement reads (more symbols than a snapshot asks for).

All statements as of a date (788k of 914k stored versions, 20 year files) spent ~40 % of the
read sorting the answer into key order: DuckDB's ORDER BY of full-width rows, after an
anti-join of the superseded versions. Which stored version comes where in key order (key,
then known_at, then ingested_at) is a fact of the immutable files, not of the cutoff, so it is
computed once per set of file identities from the files' kept indexes (`kept_reports`) and
kept. A request then applies the cutoff, `as_ingested` and its filters as masks over that
order, keeps each key's last visible version (newest known_at, ties to the later ingestion,
as the scans do), reads the files it needs whole and takes the answer's rows in one take,
already in key order. Answers are never kept. A read that cannot use it (a file without a
local identity or index, instants of differing types, files whose columns differ, a file
rewritten while read) answers None, and the caller scans as before."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from pitlake.read.cutoff import Ask
from pitlake.read.engine import Params
from pitlake.read.kept import BoundedLRU, FileIdentity, file_identity
from pitlake.read.kept_reports import EPOCH, PERIOD, FileIndex, indexes, shown
from pitlake.records import ARROW_WORKERS
from pitlake.schemas import Dataset

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

# The orders of a 5,000-symbol, 20-year statements lake take ~40 MB; two sets of files (all
# years, and the years one query names) fit.
MAX_ORDER_BYTES = 96 * 1024 * 1024
# Files read and columns taken two at a time (records.ARROW_WORKERS), each single-threaded:
# reading 19 statement files took 250 ms so against 324 ms one file after another with
# pyarrow's own threads.


@dataclass(frozen=True)
class KeyOrder:
    """Every stored version of a set of files in key order: `file` (its file's place in the
    set) and `row` (its row number there); the key as `keys` (codes ranked like their sorted
    `values`, so code order is value order; the period in days); `known` and `ingested`
    as integers of `instant_types`; `group` numbers each key, ascending; `schema` is the
    scans' Arrow schema of these files (their types as the DuckDB reader answers them)."""

    file: np.ndarray
    row: np.ndarray
    keys: dict[str, np.ndarray]
    values: dict[str, np.ndarray]
    known: np.ndarray
    ingested: np.ndarray
    group: np.ndarray
    instant_types: tuple[pa.DataType, pa.DataType]
    schema: pa.Schema

    @property
    def nbytes(self) -> int:
        arrays = [self.file, self.row, self.known, self.ingested, self.group, *self.keys.values()]
        return int(sum(a.nbytes for a in arrays))


def kept_orders() -> BoundedLRU[KeyOrder]:
    """A Lake's kept key orders, by dataset and the files' identities (byte-bounded)."""
    return BoundedLRU(max_bytes=MAX_ORDER_BYTES)


def versions(
    lake: Lake,
    schema: Dataset,
    files: list[Any],
    symbols: list[str],
    ask: Ask,
    statement: str | None,
    periods: list[date] | None,
) -> pa.Table | None:
    """The newest visible version of every key of `symbols` (and `statement`, `periods`)
    in key order, the scans' rows, columns and types; None: not answerable this way."""
    indexed = indexes(lake, schema, files, statement)
    if indexed is None:
        return None
    key = (schema.name, tuple(fid for fid, _ in indexed))
    order = lake.key_orders.get(key)
    if order is None:
        order = _key_order(lake, schema, files, indexed)
        if order is None:
            return None
        lake.key_orders.keep(key, order, order.nbytes)
    file, row = _answer_rows(order, ask, symbols, statement, periods)
    return _take(schema, files, [fid for fid, _ in indexed], order, file, row)


def _answer_rows(
    order: KeyOrder,
    ask: Ask,
    symbols: list[str],
    statement: str | None,
    periods: list[date] | None,
) -> tuple[np.ndarray, np.ndarray]:
    """The (file, row) of each key's last visible version, in key order."""
    visible = shown(order.known, order.ingested, order.instant_types, ask)
    names = order.values["symbol"]
    asked = np.isin(names, np.asarray(symbols, dtype=str))
    if not asked.all():
        visible &= asked[order.keys["symbol"]]
    if statement is not None:
        at = np.searchsorted(order.values["statement"], statement)
        found = at < len(order.values["statement"]) and order.values["statement"][at] == statement
        visible &= order.keys["statement"] == (at if found else -1)
    if periods is not None:
        wanted = np.asarray([d.toordinal() for d in periods]) - EPOCH
        visible &= np.isin(order.keys[PERIOD], wanted)
    at = np.flatnonzero(visible)
    if len(at) > 1:
        groups = order.group[at]
        at = at[np.append(groups[1:] != groups[:-1], True)]
    return order.file[at], order.row[at]


def _key_order(
    lake: Lake, schema: Dataset, files: Sequence[Any], indexed: list[tuple[FileIdentity, FileIndex]]
) -> KeyOrder | None:
    """Every stored version of the indexed files, sorted by key then version (None: their
    instants differ in type)."""
    instant_types = indexed[0][1].instant_types
    if any(idx.instant_types != instant_types for _, idx in indexed):
        return None
    others = [c for c in schema.key if c not in ("symbol", PERIOD)]
    values = {"symbol": np.unique(np.concatenate([idx.symbols for _, idx in indexed]))}
    for i, c in enumerate(others):
        values[c] = np.unique(np.asarray([v for _, idx in indexed for v in idx.values[i]]))
    parts: dict[str, list[np.ndarray]] = {c: [] for c in (*schema.key, "file", "row", "k", "i")}
    for n, (_, idx) in enumerate(indexed):
        by_place = np.argsort(idx.starts, kind="stable")
        ranks = np.searchsorted(values["symbol"], idx.symbols)
        lengths = (idx.stops - idx.starts)[by_place]
        parts["symbol"].append(np.repeat(ranks[by_place], lengths).astype(np.int32))
        for i, c in enumerate(others):
            lut = np.searchsorted(values[c], np.asarray(idx.values[i])).astype(np.int32)
            parts[c].append(lut[idx.codes[i]] if len(lut) else idx.codes[i].astype(np.int32))
        parts[PERIOD].append(idx.period)
        parts["k"].append(idx.known)
        parts["i"].append(idx.ingested)
        rows = idx.rows if idx.rows is not None else np.arange(len(idx.period), dtype=np.int64)
        parts["row"].append(rows)
        parts["file"].append(np.full(len(idx.period), n, dtype=np.int16))
    flat = {c: np.concatenate(v) for c, v in parts.items()}
    sort = np.lexsort([flat["i"], flat["k"], *(flat[c] for c in reversed(schema.key))])
    keys = {c: flat[c][sort] for c in schema.key}
    new_key = np.zeros(len(sort), dtype=bool)
    if len(sort):
        new_key[0] = True
    for c in schema.key:
        new_key[1:] |= keys[c][1:] != keys[c][:-1]
    p = Params()
    scanned = lake.reader.table(f"SELECT * FROM {lake.reader.source(files, p)} LIMIT 0", p)
    return KeyOrder(
        file=flat["file"][sort],
        row=flat["row"][sort],
        keys=keys,
        values=values,
        known=flat["k"][sort],
        ingested=flat["i"][sort],
        group=np.cumsum(new_key, dtype=np.int64),
        instant_types=instant_types,
        schema=scanned.schema,
    )


def _take(
    schema: Dataset,
    files: list[Any],
    ids: list[FileIdentity],
    order: KeyOrder,
    file: np.ndarray,
    row: np.ndarray,
) -> pa.Table | None:
    """The rows at (file, row), in that order, from the needed files read whole (None: a file
    was rewritten since its index, or its columns differ from the scans')."""
    if len(file) == 0:
        return schema.arrow_schema.empty_table()
    needed = [int(n) for n in np.unique(file)]
    as_read = _as_read(order.schema)
    tables = list(ARROW_WORKERS.map(lambda n: _read_whole(files[n], ids[n], as_read), needed))
    if any(t is None for t in tables):
        return None
    offsets = np.zeros(len(files), dtype=np.int64)
    offsets[needed] = np.cumsum([0, *(t.num_rows for t in tables[:-1])])  # type: ignore[union-attr]
    positions = pa.array(offsets[file] + row, type=pa.int64())
    # each column's stored values held once, and let go once taken: the read's peak is the
    # files' rows plus a column, not plus the answer
    stored: list[pa.ChunkedArray | None] = [
        pa.chunked_array([c for t in tables for c in t.column(i).chunks], type=f.type)  # type: ignore[union-attr]
        for i, f in enumerate(as_read)
    ]
    del tables

    def take(i: int) -> pa.ChunkedArray:
        column, stored[i] = stored[i], None
        return _decoded(column.take(positions), order.schema.field(i))  # type: ignore[union-attr]

    columns = list(ARROW_WORKERS.map(take, range(len(stored))))
    return pa.Table.from_arrays(columns, schema=order.schema)


def _read_whole(path: Any, fid: FileIdentity, as_read: pa.Schema) -> pa.Table | None:
    """The file's stored rows in file order, typed as `as_read` (the scans' types, text in
    the file's dictionaries)."""
    if file_identity(path) != fid:
        return None
    texts = [f.name for f in as_read if pa.types.is_dictionary(f.type)]
    import pyarrow.parquet as pq

    table = pq.read_table(str(path), use_threads=False, read_dictionary=texts)
    if file_identity(path) != fid or table.schema.names != as_read.names:
        return None
    try:
        return table.replace_schema_metadata(None).cast(as_read)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


def _as_read(scanned: pa.Schema) -> pa.Schema:
    """The scans' schema with each text column dictionary-encoded, as Parquet stores it.
    Decoding every stored version's text took ~40 % of reading the statement files (413 vs
    255 ms for 914k versions), and taking dictionary codes is cheaper than taking strings;
    only the answer's rows are decoded, after the take (`_decoded`)."""
    return pa.schema(
        [
            f.with_type(pa.dictionary(pa.int32(), f.type)) if pa.types.is_string(f.type) else f
            for f in scanned
        ]
    )


def _decoded(column: pa.ChunkedArray, field: pa.Field) -> pa.ChunkedArray:
    return column.cast(field.type) if column.type != field.type else column
