"""Which stored rows a newer visible version supersedes, from the keys stored more than once.

Most statement keys hold one version (913,682 versions of 892,140 keys on the synthetic lake),
so "the newest version per key" needs no comparison for almost every row: only the rows of
keys with several stored versions can be superseded. Those rows (key, known_at, ingested_at;
~43k of the 913k) are a fact of the immutable files, found by one narrow scan and kept per
(path, size, mtime, inode) of every file, like `session_slices`: a rewritten partition has
another identity and is scanned again. The cutoff is applied per request, to the kept rows:
the rows a newer visible version supersedes are the visible ones that are not their key's
newest (newest known_at, ties to the later ingestion). A read then drops just those, by an
anti-join against a few thousand rows, instead of ranking every row of every key (the
window over 800k full-width rows cost about twice the scan). Answers are never cached.

Exact ties (two versions of one key with the same known_at and ingested_at; the store never
writes them, `pitlake.lake.versions` refuses a second version at the same known_at) leave no
newest to pick: then `None`, and the caller ranks the rows as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from pitlake.read.engine import DuckReader, Params, ident, same_as_next_row, visible_mask
from pitlake.read.kept import KeptByFiles
from pitlake.schemas import Dataset

if TYPE_CHECKING:
    pass

# File sets kept per process: a statements lake's multi-version rows are ~1 MB in Arrow.
MAX_SETS = 8
VERSION = ("known_at", "ingested_at")


class _Ties:
    """Marks a file set holding exact ties (no newest version to pick by the instants)."""


_TIES = _Ties()


class MultiVersionRows:
    """Per dataset and file identities, the stored rows (key, known_at, ingested_at) of the
    keys with more than one stored version (a bounded LRU, `kept.KeptByFiles`)."""

    def __init__(self, max_sets: int = MAX_SETS) -> None:
        self._kept: KeptByFiles[pa.Table | _Ties] = KeptByFiles(max_sets)

    def get(
        self, schema: Dataset, files: Sequence[Any], scan: Callable[[list[str]], pa.Table]
    ) -> pa.Table | None:
        """The kept rows (`scan(paths)` runs `multi_version_sql` on a miss); None when a
        file has no local identity (a remote lake) or the files hold exact ties."""

        def rows() -> pa.Table | _Ties:
            found = scan([str(f) for f in files])
            return _TIES if _has_exact_ties(found, schema) else found

        kept = self._kept.get(schema.name, files, rows)
        return None if kept is None or isinstance(kept, _Ties) else kept


MULTI_VERSION_ROWS = MultiVersionRows()  # immutable file facts: one store per process


def multi_version_sql(schema: Dataset, files: str = "$files") -> str:
    """Rows (key, known_at, ingested_at) of the keys stored more than once, over the files
    bound as `files` (a placeholder), in key-then-version order."""
    keys = ", ".join(ident(k) for k in schema.key)
    cols = ", ".join(ident(c) for c in (*schema.key, *VERSION))
    return (
        f"SELECT {cols} FROM read_parquet({files}, union_by_name = true, "
        f"hive_partitioning = false) QUALIFY count(*) OVER (PARTITION BY {keys}) > 1 "
        f"ORDER BY {cols}"
    )


def reader_scan(reader: DuckReader, schema: Dataset) -> Callable[[list[str]], pa.Table]:
    """The multi-version rows of some files, scanned by a `DuckReader` (file access on)."""

    def scan(paths: list[str]) -> pa.Table:
        p = Params()
        return reader.table(multi_version_sql(schema, p.add(paths)), p)

    return scan


def _has_exact_ties(rows: pa.Table, schema: Dataset) -> bool:
    if rows.num_rows < 2:
        return False
    return bool(pc.any(same_as_next_row(rows, [*schema.key, *VERSION])).as_py())


def superseded_at(
    rows: pa.Table, schema: Dataset, cutoff: datetime, as_ingested: datetime | None
) -> pa.Table:
    """Of the kept rows (key-then-version order), the visible ones (known_at <= cutoff, and
    ingested_at <= as_ingested when given) that are not the newest visible of their key."""

    visible = rows.filter(visible_mask(rows, cutoff, as_ingested))
    if visible.num_rows < 2:
        return visible.slice(0, 0)
    # sorted oldest first within a key: a row followed by a row of its key is superseded
    followed = pa.concat_arrays([same_as_next_row(visible, schema.key), pa.array([False])])
    return visible.filter(followed)


def anti_join(relation: str, alias: str, superseded: str, schema: Dataset) -> str:
    """`FROM` clause: `relation` without the rows listed in `superseded` (same key and
    instants)."""
    on = " AND ".join(f"{alias}.{ident(c)} = __s.{ident(c)}" for c in (*schema.key, *VERSION))
    return f"{relation} {alias} ANTI JOIN {superseded} __s ON {on}"


def register_superseded(
    con: duckdb.DuckDBPyConnection,
    schema: Dataset,
    files: Sequence[Any],
    cutoff: datetime,
    as_ingested: datetime | None,
    scan: Callable[[list[str]], pa.Table] | None = None,
) -> str | None:
    """Register on `con` the rows of `files` a newer visible version supersedes, as
    `_<dataset>_superseded`: its name, "" when no row is, None when they are not known (see
    `MultiVersionRows.get`). The files are scanned by `scan` on a miss (default: on `con`,
    whose file access must still be on)."""
    import pyarrow.dataset as ds

    if not files:
        return ""

    def on_con(paths: list[str]) -> pa.Table:
        return con.sql(multi_version_sql(schema), params={"files": paths}).to_arrow_table()

    rows = MULTI_VERSION_ROWS.get(schema, files, scan or on_con)
    if rows is None:
        return None
    gone = superseded_at(rows, schema, cutoff, as_ingested)
    if gone.num_rows == 0:
        return ""
    # An Arrow dataset, not a table: a dataset scan carries no row estimate (~1 row), so
    # with a table's true 15k rows DuckDB swapped the sides and built the anti-join's hash
    # table on the 800k full-width versions (1.6 s CPU in the join). With both sides at
    # ~1 row it builds on the narrower one.
    name = f"_{schema.name}_superseded"
    con.register(name, ds.dataset(gone))
    return name
