"""The catalog's engine: which URL (an explicit one, $PITLAKE_CATALOG_URL, or SQLite beside the
lake), how SQLite and read-only PostgreSQL sessions are configured, and the upsert every table
write uses."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, Table, and_, event, func, insert, select, update
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
        root = Path(lake_root)
        if create:
            root.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{root.resolve() / CATALOG_FILE}"
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):  # psycopg 3 is the driver we ship, not psycopg2
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


def sqlite_file(url: str) -> Path | None:
    """The database file of a SQLite URL (None: another backend, or in memory)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def configure_sqlite(engine: Engine, *, read_only: bool = False) -> None:
    """WAL (readers never block the writer), a busy timeout, and BEGIN IMMEDIATE for writes:
    a deferred transaction that later writes can fail at once with 'database is locked'.
    A read-only catalog sets no journal mode (that is a write) and never begins a write."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        if not read_only:
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        write = conn.get_execution_options().get("pitlake_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def read_only_sessions(engine: Engine) -> None:
    """Every PostgreSQL session of a read-only catalog refuses writes (a SET on connect, so an
    `options=` the URL carries, a search_path say, is kept)."""

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
