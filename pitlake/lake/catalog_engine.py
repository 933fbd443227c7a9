"""The catalog's engine: which URL (an explicit one, $PITLAKE_CATALOG_URL, or SQLite beside the
lake), how SQLite and read-only PostgreSQL sessions are configured, and the upsert every table
write uses. SQLAlchemy is imported where an engine is made or a statement built, not here: a
read of a SQLite catalog may need none of it (`pitlake.lake.catalog_sqlite`, decision 54)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3

    from sqlalchemy import Engine, Table
    from sqlalchemy.engine import Connection

ENV_URL = "PITLAKE_CATALOG_URL"
SQLITE_BUSY_TIMEOUT_MS = 30_000
CATALOG_FILE = "catalog.db"


def resolve_url(
    url: str | None, lake_root: str | os.PathLike[str] | None, *, create: bool = True
) -> str:
    """Explicit URL, else $PITLAKE_CATALOG_URL, else `<lake_root>/catalog.db` (SQLite).
    `create=False` (a read) never makes the lake directory."""
    url = url or os.environ.get(ENV_URL) or None
    if url is None:
        if lake_root is None:
            raise ValueError(f"no catalog URL: pass url=, set {ENV_URL}, or give lake_root=")
        if "://" in str(lake_root):  # s3://…: no SQLite file can live beside the objects
            raise ValueError(
                f"the lake {lake_root} is on object storage: give a catalog URL (url= or "
                f"${ENV_URL}), e.g. postgresql://… or sqlite:////local/path/catalog.db"
            )
        if create:
            Path(lake_root).mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{beside_lake(lake_root)}"
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):  # psycopg 3 is the driver we ship, not psycopg2
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


def beside_lake(lake_root: str | os.PathLike[str]) -> Path:
    """The SQLite catalog file of a lake given no URL (`resolve_url`'s, without parsing one)."""
    return Path(lake_root).resolve() / CATALOG_FILE


def sqlite_file(url: str) -> Path | None:
    """The database file of a SQLite URL (None: another backend, or in memory)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def prepare_sqlite(dbapi_conn: sqlite3.Connection, *, read_only: bool) -> None:
    """A new SQLite connection's settings, whoever opened it (SQLAlchemy's pool or
    `catalog_sqlite`): no implicit transactions (pitlake issues BEGIN), a busy timeout, and
    for a writer WAL. A connection already without implicit transactions is left so: setting
    it again would commit the read transaction it may be in."""
    if dbapi_conn.isolation_level is not None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    if not read_only:
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def configure_sqlite(engine: Engine, *, read_only: bool = False) -> None:
    """WAL (readers never block the writer), a busy timeout, and BEGIN IMMEDIATE for writes:
    a deferred transaction that later writes can fail at once with 'database is locked'.
    A read-only catalog sets no journal mode (that is a write) and never begins a write. A
    connection already in a read transaction (a `reading()` block's, opened without
    SQLAlchemy) is not begun again."""
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        prepare_sqlite(dbapi_conn, read_only=read_only)

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        write = conn.get_execution_options().get("pitlake_write", False)
        if not write and conn.connection.dbapi_connection.in_transaction:
            return
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def make_engine(
    url: str,
    *,
    read_only: bool,
    echo: bool = False,
    ro_file: Path | None = None,
    connect: Callable[[], Any] | None = None,
) -> Engine:
    """The catalog's SQLAlchemy engine. A read-only SQLite file is opened by `connect` (no
    pool: each connection picks its open mode afresh, `pitlake.lake.readonly`)."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    kwargs: dict[str, Any] = {"echo": echo, "future": True}
    if ro_file is not None:
        kwargs["creator"] = connect
        kwargs["poolclass"] = NullPool
    elif url.startswith("sqlite"):
        kwargs["connect_args"] = {
            "check_same_thread": False,
            "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
        }
    else:
        kwargs["pool_pre_ping"] = True
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        configure_sqlite(engine, read_only=read_only)
    elif read_only and engine.dialect.name == "postgresql":
        read_only_sessions(engine)
    return engine


def read_only_sessions(engine: Engine) -> None:
    """Every PostgreSQL session of a read-only catalog refuses writes (a SET on connect, so an
    `options=` the URL carries, a search_path say, is kept)."""
    from sqlalchemy import event

    @event.listens_for(engine, "connect", insert=True)
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        autocommit = dbapi_conn.autocommit
        dbapi_conn.autocommit = True
        cur = dbapi_conn.cursor()
        cur.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        cur.close()
        dbapi_conn.autocommit = autocommit


def upsert(
    conn: Connection,
    table: Table,
    values: dict[str, Any],
    keys: Sequence[str],
    *,
    unless_newer: str | None = None,
) -> None:
    """Insert or update by primary key. With `unless_newer`, a stored row whose column is
    later than the new value is kept (records arriving out of order never regress)."""
    from sqlalchemy import and_, func, insert, select, update

    changes = {k: v for k, v in values.items() if k not in keys}
    dialect = conn.dialect.name
    if dialect in ("sqlite", "postgresql"):
        # the dialects' own inserts are for writes: a read loads only the dialect it connects
        from sqlalchemy.dialects.postgresql import insert as pg_insert
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        make = sqlite_insert if dialect == "sqlite" else pg_insert
        ins = make(table).values(**values)
        where = table.c[unless_newer] <= ins.excluded[unless_newer] if unless_newer else None
        conn.execute(
            ins.on_conflict_do_update(
                index_elements=list(keys),
                set_={k: ins.excluded[k] for k in changes},
                where=where,
            )
        )
        return
    match = and_(*(table.c[k] == values[k] for k in keys))
    found = conn.execute(select(func.count()).select_from(table).where(match)).scalar_one()
    if not found:
        conn.execute(insert(table).values(**values))
        return
    stmt = update(table).where(match).values(**changes)
    if unless_newer:
        stmt = stmt.where(table.c[unless_newer] <= values[unless_newer])
    conn.execute(stmt)
