"""DuckDB as-of SQL over the lake's Parquet files.

Every value is a bound parameter; identifiers come only from the schema registry, and file lists
from the store. "Latest version as known at T" is `arg_max(row, known_at)` per key after the
visibility filter — a GROUP BY, never a window over all history (stack-notes: 0.17 s vs 2.1 s).
`arg_max` over the whole row struct (not per column) so a NULL in the newest version is served
as NULL, never filled from an older version.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from schemas import DatasetSchema


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
        """`($p0, $p1, …)`: constants DuckDB can push into Parquet row-group statistics."""
        holders = [self.add(v) for v in values]
        if not holders:
            raise ValueError("empty IN list")
        return "(" + ", ".join(holders) + ")"


def visible(params: Params, cutoff: datetime, as_ingested: datetime | None) -> list[str]:
    """Rows public by the cutoff (and, optionally, stored by `as_ingested`)."""
    where = [f"{col('known_at')} <= {params.add(cutoff)}"]
    if as_ingested is not None:
        where.append(f"{col('ingested_at')} <= {params.add(as_ingested)}")
    return where


def hidden(params: Params, cutoff: datetime, as_ingested: datetime | None) -> str:
    """Rows that exist but are not visible at this cutoff."""
    return "NOT (" + " AND ".join(visible(params, cutoff, as_ingested)) + ")"


class DuckReader:
    """Runs read-only statements over Parquet files; one cursor per call (thread-safe).

    `filesystem` (an fsspec filesystem) is registered on the connection so `s3://` file URLs
    are read through it, without DuckDB's httpfs extension."""

    def __init__(self, filesystem: Any | None = None) -> None:
        self._db = duckdb.connect()
        # Point reads (one symbol's year: one row group) run single-threaded on their own
        # database: scheduling a second thread costs more than it saves there (measured 1.3 ms
        # of a 13 ms read), and concurrent requests get the other core instead.
        self._point_db = duckdb.connect(config={"threads": 1})
        for db in (self._db, self._point_db):
            if filesystem is not None:
                db.register_filesystem(filesystem)
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()
        self._point_db.close()

    def _cursor(self, point: bool = False) -> duckdb.DuckDBPyConnection:
        with self._lock:
            return (self._point_db if point else self._db).cursor()

    def table(self, sql: str, params: Params, *, point: bool = False) -> pa.Table:
        cur = self._cursor(point)
        try:
            return cur.sql(sql, params=params.values).to_arrow_table()
        finally:
            cur.close()

    def rows(self, sql: str, params: Params) -> list[tuple[Any, ...]]:
        cur = self._cursor()
        try:
            return cur.execute(sql, params.values).fetchall()
        finally:
            cur.close()

    @staticmethod
    def source(files: Sequence[Path | str], params: Params) -> str:
        holder = params.add([str(f) for f in files])
        return f"read_parquet({holder}, union_by_name = true, hive_partitioning = false) t"

    def latest_versions(
        self, schema: DatasetSchema, files: Sequence[Path | str], where: list[str], params: Params
    ) -> pa.Table | None:
        """The newest visible version per key among rows matching `where` (None: no files)."""
        if not files:
            return None
        keys = ", ".join(col(k) for k in schema.key)
        sql = (
            "SELECT unnest(r) FROM ("
            f"SELECT arg_max(t, {col('known_at')}) AS r FROM {self.source(files, params)} "
            f"WHERE {' AND '.join(where) or 'TRUE'} GROUP BY {keys})"
        )
        return self.table(sql, params)
