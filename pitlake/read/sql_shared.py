"""One DuckDB database per Lake for `Lake.sql`'s single SELECT statements.

Opening a DuckDB database costs ~15 ms (duckdb.connect(): 14.6-16.4 ms measured here), most
of a small statement's time; a cursor on an open database costs microseconds. A cursor's
relations are registered on it as temporary views, which no other cursor sees and which die
with it. Sharing is safe because a statement can leave nothing behind: the database is
locked for all its cursors (no file access, no setting changes), and only a single SELECT
runs on it — DuckDB's own parser says so — which cannot create, attach or set anything
another statement would see. Every other statement gets a database of its own, as before.
"""

from __future__ import annotations

import threading

import duckdb


def settings(con: duckdb.DuckDBPyConnection, scope: str = "") -> None:
    """What every point-in-time connection runs with (`scope` "GLOBAL": a whole database)."""
    con.execute(f"SET {scope} TimeZone = 'Asia/Shanghai'")  # known_at::DATE: the Beijing day
    # Arrow-dataset scans carry no row estimates (~1 row), and below this threshold DuckDB
    # turns the qfq views' ASOF JOIN into a nested loop: minutes instead of seconds.
    con.execute(f"SET {scope} asof_loop_join_threshold = 0")
    # No spilling: with external access off DuckDB still lets a statement read and write its
    # temp directory (default `.tmp` under the cwd); with none, nothing on disk is reachable.
    con.execute(f"SET {scope} temp_directory = ''")


def lock(con: duckdb.DuckDBPyConnection) -> None:
    """No file access and no setting changes from here on, for the whole database."""
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


class SharedDatabase:
    """The locked database, opened on first use; `cursor()` is thread-safe."""

    def __init__(self) -> None:
        self._db: duckdb.DuckDBPyConnection | None = None
        self._lock = threading.Lock()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        with self._lock:
            if self._db is None:
                db = duckdb.connect()
                try:
                    settings(db, "GLOBAL")
                    lock(db)
                except BaseException:
                    db.close()
                    raise
                self._db = db
            return self._db.cursor()

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
