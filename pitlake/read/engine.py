"""DuckDB as-of SQL over the lake's Parquet files.

Every value is a bound parameter; identifiers come only from the schema registry, and file lists
from the store. "Latest version as known at T" is the newest visible row per key, whole (so a NULL in the newest
version is served as NULL, never filled from an older version): `QUALIFY row_number()` over the
key, newest known_at first, ties to the later ingestion. Per *key* most groups hold one version,
and there the window beats `arg_max(row struct) … GROUP BY key` (measured on 788k statement
versions: 5.2 s vs 8.0 s on a loaded machine, 1.3 s vs 2.4 s earlier). The opposite finding in
docs/stack-notes.md is for "latest row per *symbol*", where each group holds a symbol's whole history.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from pitlake.schemas import Dataset

# IN lists longer than this are bound as one list parameter (see Params.in_list).
MAX_INLINE_IN = 64


def ident(name: str) -> str:
    """A quoted identifier (names come from the schema registry, quoted anyway)."""
    return '"' + name.replace('"', '""') + '"'


def col(name: str) -> str:
    return f"t.{ident(name)}"


class Params:
    """Named placeholders for one statement."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def add(self, value: Any) -> str:
        name = f"p{len(self.values)}"
        self.values[name] = value
        return f"${name}"

    def in_list(self, values: Iterable[Any]) -> str:
        """`($p0, $p1, …)`: constants DuckDB can push into Parquet row-group statistics. A long
        list (a whole market's symbols) is one list parameter joined as a set instead: binding
        5,000 placeholders and testing each row against them took longer than the scan
        (measured: 0.4 s to bind, 0.9 s to run a one-session cross-section)."""
        items = list(values)
        if not items:
            raise ValueError("empty IN list")
        if len(items) > MAX_INLINE_IN:
            return f"(SELECT unnest({self.add(items)}))"
        return "(" + ", ".join(self.add(v) for v in items) + ")"


def visible(params: Params, cutoff: datetime, as_ingested: datetime | None) -> list[str]:
    """Rows public by the cutoff (and, optionally, stored by `as_ingested`)."""
    where = [f"{col('known_at')} <= {params.add(cutoff)}"]
    if as_ingested is not None:
        where.append(f"{col('ingested_at')} <= {params.add(as_ingested)}")
    return where


def visible_mask(table: pa.Table, cutoff: datetime, as_ingested: datetime | None) -> Any:
    """`visible`'s rule over rows in memory: a boolean per row, with SQL's three-valued
    logic (a NULL instant is neither shown nor, inverted, hidden, unless the other test is
    false), for `table.filter` and its `pc.invert`."""

    def at_or_before(name: str, instant: datetime) -> Any:
        column = table.column(name)
        return pc.less_equal(column, pa.scalar(instant, type=column.type))

    shown = at_or_before("known_at", cutoff)
    if as_ingested is not None:
        shown = pc.and_kleene(shown, at_or_before("ingested_at", as_ingested))
    return shown


def stored_by(params: Params, as_ingested: datetime | None, alias: str = "") -> str:
    """`visible`'s `as_ingested` half alone, a condition to AND onto a scan whose cutoff is
    each row's own (the panel's joins on each session's cutoff): TRUE without an instant."""
    if as_ingested is None:
        return "TRUE"
    return f"{alias + '.' if alias else ''}{ident('ingested_at')} <= {params.add(as_ingested)}"


def first_shown(params: Params, as_ingested: datetime | None) -> str:
    """The first known_at among the rows stored by `as_ingested` (an aggregate; all rows
    without one): beside `min(known_at)`, a scan tells "stored, not shown" from "none"."""
    if as_ingested is None:
        return "min(known_at)"
    return f"min(known_at) FILTER (WHERE {stored_by(params, as_ingested)})"


def hidden(params: Params, cutoff: datetime, as_ingested: datetime | None) -> str:
    """Rows that exist but are not visible at this cutoff."""
    return "NOT (" + " AND ".join(visible(params, cutoff, as_ingested)) + ")"


class DuckReader:
    """Runs read-only statements over Parquet files; one cursor per call (thread-safe).

    `filesystem` (an fsspec filesystem) is registered on the connection so `s3://` file URLs
    are read through it, without DuckDB's httpfs extension."""

    def __init__(self, filesystem: Any | None = None) -> None:
        self._filesystem = filesystem
        # Each database is opened on first use (~25 ms each): a read answered from kept
        # rows, the common one-symbol CLI call among them, never opens one.
        self._dbs: dict[bool, duckdb.DuckDBPyConnection] = {}
        self._lock = threading.Lock()

    def _open(self, point: bool) -> duckdb.DuckDBPyConnection:
        # Point reads (one symbol's year: one row group) run single-threaded on their own
        # database: scheduling a second thread costs more than it saves there (measured 1.3 ms
        # of a 13 ms read), and concurrent requests get the other core instead.
        # No temp directory: a read never writes, and DuckDB's default spills to `.tmp` under
        # the cwd when a query outgrows memory (a large panel could); it fails instead, as the
        # SQL sandbox's statements do (sql_shared.settings).
        config: dict[str, str | int] = {"temp_directory": ""}
        db = duckdb.connect(config={**config, "threads": 1} if point else config)
        if self._filesystem is not None:
            db.register_filesystem(self._filesystem)
        return db

    def close(self) -> None:
        with self._lock:
            dbs, self._dbs = list(self._dbs.values()), {}
        for db in dbs:
            db.close()

    def _cursor(self, point: bool = False) -> duckdb.DuckDBPyConnection:
        with self._lock:
            db = self._dbs.get(point)
            if db is None:
                db = self._dbs[point] = self._open(point)
            return db.cursor()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor on the bulk database: its own temp views and registered tables, none
        of the ~10 ms a new database costs (the panel's per-question SQL). The caller closes
        it."""
        return self._cursor()

    def table(
        self,
        sql: str,
        params: Params,
        *,
        point: bool = False,
        tables: dict[str, pa.Table] | None = None,
    ) -> pa.Table:
        """The statement's rows; `tables` are registered on its cursor by name first."""
        cur = self._cursor(point)
        try:
            for name, table in (tables or {}).items():
                cur.register(name, table)
            return cur.sql(sql, params=params.values).to_arrow_table()
        finally:
            cur.close()

    def rows(self, sql: str, params: Params, *, point: bool = False) -> list[tuple[Any, ...]]:
        cur = self._cursor(point)
        try:
            return cur.execute(sql, params.values).fetchall()
        finally:
            cur.close()

    @staticmethod
    def source(files: Sequence[Path | str], params: Params) -> str:
        holder = params.add([str(f) for f in files])
        return f"read_parquet({holder}, union_by_name = true, hive_partitioning = false) t"

    def latest_versions(
        self,
        schema: Dataset,
        files: Sequence[Path | str],
        where: list[str],
        params: Params,
        *,
        order: Sequence[str] = (),
        superseded: pa.Table | None = None,
    ) -> pa.Table | None:
        """The newest visible version per key among rows matching `where` (None: no files),
        sorted by `order` when given (DuckDB sorts in parallel; Arrow's sort of a large answer
        took longer than the query).

        Ordered by the key itself (the statements), one sort does both: the rows in key order,
        each key's versions oldest first (known_at, then ingested_at), and the last row of each
        key kept by comparing neighbours. The window's partitioning plus the answer's ORDER BY
        cost about twice that sort (788k statement versions: ~1.0 s vs ~2.0 s).

        `superseded` (with `order` = the key): the rows of these files a newer version
        visible under the same cutoff supersedes (`pitlake.read.superseded`), for a `where`
        of key and visibility conditions only. They are dropped by an anti-join before the
        sort, which then orders the answer alone: no neighbour comparison, and no copy of
        the sorted table to drop them (~0.1 s of 788k statement versions)."""
        if not files:
            return None
        if order and tuple(order) == tuple(schema.key):
            if superseded is not None:
                return self._without_superseded(schema, files, where, params, superseded)
            return self._latest_in_key_order(schema, files, where, params)
        keys = ", ".join(col(k) for k in schema.key)
        sql = (
            f"SELECT * FROM {self.source(files, params)} "
            f"WHERE {' AND '.join(where) or 'TRUE'} "
            f"QUALIFY row_number() OVER (PARTITION BY {keys} "
            f"ORDER BY {col('known_at')} DESC, {col('ingested_at')} DESC) = 1"
        )
        if order:
            sql += " ORDER BY " + ", ".join(ident(c) for c in order)
        return self.table(sql, params)

    def _latest_in_key_order(
        self,
        schema: Dataset,
        files: Sequence[Path | str],
        where: list[str],
        params: Params,
    ) -> pa.Table:
        version = [*schema.key, "known_at", "ingested_at"]
        sql = (
            f"SELECT * FROM {self.source(files, params)} "
            f"WHERE {' AND '.join(where) or 'TRUE'} "
            f"ORDER BY {', '.join(col(c) for c in version)}"
        )
        return last_per_key(self.table(sql, params), schema.key)

    def _without_superseded(
        self,
        schema: Dataset,
        files: Sequence[Path | str],
        where: list[str],
        params: Params,
        superseded: pa.Table,
    ) -> pa.Table:
        keys = ", ".join(col(k) for k in schema.key)
        body = self.source(files, params)
        if superseded.num_rows:
            on = " AND ".join(f"{col(c)} = s.{ident(c)}" for c in superseded.column_names)
            body += f" ANTI JOIN __superseded s ON {on}"
        sql = f"SELECT t.* FROM {body} WHERE {' AND '.join(where) or 'TRUE'} ORDER BY {keys}"
        return self.table(sql, params, tables={"__superseded": superseded})


def last_per_key(table: pa.Table, key: Sequence[str]) -> pa.Table:
    """Of rows sorted by `key` then version (oldest first), the last row of each key: the
    newest version, whole (its NULLs stay NULL)."""
    if table.num_rows < 2:
        return table
    same_as_next = same_as_next_row(table, key)
    if not pc.any(same_as_next).as_py():
        return table
    keep = pa.concat_arrays([pc.invert(same_as_next), pa.array([True])])
    return table.filter(keep)


def same_as_next_row(table: pa.Table, columns: Sequence[str]) -> pa.Array:
    """Row i equals row i+1 in every column (rows 0…n-2; a NULL equals nothing)."""
    n = table.num_rows
    same = None
    for c in columns:
        a = table.column(c)
        eq = pc.equal(a.slice(0, n - 1), a.slice(1))
        eq = pc.and_kleene(eq, pc.is_valid(eq))  # NULL → false (a Python False loads pandas)
        same = eq if same is None else pc.and_(same, eq)
    assert same is not None
    return same.combine_chunks() if isinstance(same, pa.ChunkedArray) else same
