"""How the catalog's statements get a connection (a mixin of `pitlake.lake.catalog.Catalog`):
its SQLAlchemy engine, made when first needed; a connection per read, or the one a `reading()`
block shares; and, on a read-only SQLite catalog, the `sqlite3` connection the ledger rows are
read on without SQLAlchemy (`pitlake.lake.catalog_sqlite`, decision 54), which SQLAlchemy
adopts when a statement of the same block needs it."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from pitlake.lake import catalog_sqlite
from pitlake.lake.catalog_engine import SQLITE_BUSY_TIMEOUT_MS, make_engine

if TYPE_CHECKING:
    import sqlite3

    from sqlalchemy import Engine
    from sqlalchemy.engine import Connection


class Pin:
    """The connection `Catalog.reading` shares, opened by its first read. On a read-only SQLite
    catalog that is the `sqlite3` connection (`raw`, opened by `catalog_sqlite.open_reading`
    unless a SQLAlchemy read came first), which SQLAlchemy adopts (`conn`) if a statement of
    the block needs it: one connection and one read transaction either way."""

    conn: Connection | None = None
    raw: sqlite3.Connection | None = None
    adopting = False  # SQLAlchemy is connecting: its pool is handed `raw`

    def close(self) -> None:
        conn, raw = self.conn, self.raw
        self.conn = self.raw = None
        if conn is not None:
            conn.close()  # an adopted `raw` is closed with it (no pool)
        if raw is not None:
            raw.close()


class CatalogConnections:
    """The connections of one catalog (its URL, mode and file set by `Catalog.__init__`)."""

    url: str
    read_only: bool
    _echo: bool
    _sqlite_file: Path | None  # a read-only SQLite catalog's file
    _pin: ContextVar[Pin | None]

    @functools.cached_property
    def engine(self) -> Engine:
        """The SQLAlchemy engine: made at construction, or for a read-only SQLite catalog at
        its first statement outside `catalog_sqlite`. That engine opens its connections with
        `_connect_read_only`; its first is its own (SQLAlchemy's first connection is rolled
        back after the dialect's checks: a `reading()` block's must not be)."""
        engine = make_engine(
            self.url,
            read_only=self.read_only,
            echo=self._echo,
            ro_file=self._sqlite_file,
            connect=self._connect_read_only,
        )
        if self._sqlite_file is not None:
            with engine.connect():
                pass
        return engine

    def _connect_read_only(self) -> sqlite3.Connection:
        """A new connection for the engine's pool: the `reading()` block's `sqlite3` connection
        when SQLAlchemy adopts it, else a new read-only one (`pitlake.lake.readonly`)."""
        pin = self._pin.get()
        if pin is not None and pin.adopting and pin.raw is not None:
            return pin.raw
        from pitlake.lake.readonly import connect_read_only

        assert self._sqlite_file is not None
        return connect_read_only(self._sqlite_file, SQLITE_BUSY_TIMEOUT_MS / 1000)

    @contextmanager
    def _tx(self, *, write: bool = False) -> Iterator[Connection]:
        if not write:
            with self._read() as conn:
                yield conn
            return
        with self.engine.connect() as conn:
            conn.execution_options(pitlake_write=True)
            with conn.begin():
                yield conn

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Every read of this catalog in the block (this thread or task) shares one connection
        and one read transaction, opened by the first read and closed at the end: one state of
        the ledger (REPEATABLE READ on PostgreSQL, SQLite's read transaction), and an answer's
        ledger queries (a snapshot's ~13) cost a statement each, not a connection each (a fresh
        SQLite connection reads the schema again: ~1 ms of a ~1.4 ms ledger query). Nothing is
        kept past the block, so the next request sees every fetch recorded since. A failed read
        closes the connection; the next read in the block opens another. Writes never use it."""
        if self._pin.get() is not None:  # already inside one: the outer block owns it
            yield
            return
        pin = Pin()
        token = self._pin.set(pin)
        try:
            yield
        finally:
            self._pin.reset(token)
            pin.close()

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        """A connection in a read transaction: the `reading()` block's, else a new one."""
        pin = self._pin.get()
        if pin is None:
            with self.engine.connect() as conn, conn.begin():
                yield conn
            return
        if pin.conn is None:
            engine = self.engine  # made first: its own first connection is not the block's
            pin.adopting = pin.raw is not None  # the block's `sqlite3` connection, if open
            try:
                conn = engine.connect()
            except BaseException:
                pin.close()
                raise
            finally:
                pin.adopting = False
            if engine.dialect.name == "postgresql":  # one state for the whole block,
                conn.execution_options(isolation_level="REPEATABLE READ")  # as SQLite's
            pin.conn = conn
        try:
            yield pin.conn
        except BaseException:
            pin.close()  # a failed statement may leave the transaction unusable
            raise

    @contextmanager
    def _sqlite_read(self) -> Iterator[sqlite3.Connection]:
        """A read-only SQLite catalog's `sqlite3` connection in a read transaction, for the
        statements `catalog_sqlite` runs: the `reading()` block's, else a new one."""
        assert self._sqlite_file is not None
        pin = self._pin.get()
        if pin is None:
            raw = catalog_sqlite.open_reading(self._sqlite_file)
            try:
                yield raw
            finally:
                raw.close()
            return
        if pin.raw is None:
            pin.raw = (
                pin.conn.connection.dbapi_connection  # type: ignore[assignment]
                if pin.conn is not None
                else catalog_sqlite.open_reading(self._sqlite_file)
            )
        try:
            yield pin.raw  # type: ignore[misc]
        except BaseException:
            pin.close()
            raise
