"""Opening a SQLite catalog for reading without writing a byte (issue 13 item 4).

A read (query, serve, mcp, the dashboard, `Lake(path)`) must leave the lake exactly as it found
it. Three things in a plain SQLite open would not:
- `<lake>/catalog.db` is created when it is missing (and the directory with it);
- `PRAGMA journal_mode=WAL` is a write;
- a WAL-mode database opened with `mode=ro` creates `catalog.db-wal` and `catalog.db-shm` when
  they are absent (no writer running) and leaves them behind (measured on SQLite 3.40).

So each connection is opened by one of two rules, decided afresh per connection (no pool):
- a `-wal` file exists (a writer is running, or one was killed): `mode=ro`. SQLite reads the
  existing WAL and its index and creates nothing;
- no `-wal` file (every writer has checkpointed and gone): `mode=ro&immutable=1`, which reads the
  database file alone with no lock, journal or index file. The one risk of `immutable` is a
  writer starting and checkpointing into the file during the read; every fetch therefore checks
  that the file's identity, size and mtime are unchanged since the connection opened, and fails
  with a retryable error ("changed during a read") otherwise, never returning a torn answer.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from pitlake.errors import NotALakeError

# Tables a pitlake catalog has once its first writer has opened it.
REQUIRED_TABLES = ("ledger", "runs")


def _identity(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class _GuardedCursor(sqlite3.Cursor):
    """A cursor of an immutable connection: every step re-checks the file is unchanged."""

    def execute(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        out = super().execute(*args, **kwargs)
        self.connection.check_unchanged()  # type: ignore[attr-defined]
        return out

    def fetchone(self) -> Any:
        # Checked at the end of the rows (and every 256 rows), not per row: a ledger read row by
        # row cost one stat per entry. A reader that stops early re-checks at its next execute.
        row = super().fetchone()
        self._fetched = getattr(self, "_fetched", 0) + 1
        if row is None or self._fetched % 256 == 0:
            self.connection.check_unchanged()  # type: ignore[attr-defined]
        return row

    def fetchmany(self, size: int | None = None) -> list[Any]:
        rows = super().fetchmany(size) if size is not None else super().fetchmany()
        self.connection.check_unchanged()  # type: ignore[attr-defined]
        return rows

    def fetchall(self) -> list[Any]:
        rows = super().fetchall()
        self.connection.check_unchanged()  # type: ignore[attr-defined]
        return rows


class _ImmutableConnection(sqlite3.Connection):
    """`immutable=1` connection that notices its file being rewritten under it."""

    db_path: Path
    opened_as: tuple[int, int, int]

    def cursor(self, factory: Any = _GuardedCursor) -> Any:  # type: ignore[override]
        return super().cursor(factory)

    def check_unchanged(self) -> None:
        try:
            now = _identity(self.db_path)
        except OSError:
            now = None
        if now != self.opened_as:
            raise sqlite3.OperationalError(
                f"the catalog {self.db_path} changed during a read (a writer started); retry"
            )


def _uri(path: Path, *, immutable: bool) -> str:
    return path.absolute().as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")


def connect_read_only(path: Path, timeout_s: float) -> sqlite3.Connection:
    """One read-only connection to the SQLite catalog at `path` (see the module docstring)."""
    if not path.is_file():  # removed since the catalog was opened
        raise NotALakeError(f"not a pitlake lake: no catalog at {path}", path=str(path))
    wal = path.with_name(path.name + "-wal")
    if wal.exists():
        return sqlite3.connect(
            _uri(path, immutable=False), uri=True, timeout=timeout_s, check_same_thread=False
        )
    opened_as = _identity(path)
    conn = sqlite3.connect(
        _uri(path, immutable=True),
        uri=True,
        timeout=timeout_s,
        check_same_thread=False,
        factory=_ImmutableConnection,
    )
    conn.db_path = path  # type: ignore[attr-defined]
    conn.opened_as = opened_as  # type: ignore[attr-defined]
    return conn


def require_catalog_file(path: Path, lake_root: object | None) -> None:
    """NotALakeError unless `path` is an existing SQLite file holding pitlake's tables. A file
    SQLite cannot read at all passes: that is a damaged catalog, reported by each read."""
    where = str(lake_root) if lake_root is not None else str(path)
    if lake_root is not None and not Path(str(lake_root)).is_dir():
        raise NotALakeError(f"not a pitlake lake: {where} (no such directory)", path=where)
    if not path.is_file():
        raise NotALakeError(f"not a pitlake lake: {where} (no catalog at {path})", path=where)
    try:
        conn = connect_read_only(path, 1.0)
        try:
            names = {
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return  # a damaged catalog is a lake that cannot answer: each read reports it
    missing = [t for t in REQUIRED_TABLES if t not in names]
    if missing:
        raise NotALakeError(
            f"not a pitlake lake: {where} ({path} has no {', '.join(missing)} table)", path=where
        )
