"""The ledger read of a read-only SQLite catalog, run without SQLAlchemy (decision 54).

A one-symbol read asks the catalog one thing, its dataset's ledger rows (`ledger_rows`), and
importing SQLAlchemy for it cost more than the rest of the read. So on a read-only SQLite
catalog (every read surface's, `pitlake.lake.readonly`) that one statement runs through the
`sqlite3` module. Its SQL is not written here: it is `catalog_ledger.rows_statement` compiled
by SQLAlchemy's SQLite dialect ahead of time (`pitlake.lake.catalog_sql`, written by
`scripts/catalog_sql.py`; a test holds the file to what the installed SQLAlchemy compiles),
with the conversions SQLAlchemy's SQLite types apply to its dates and datetimes (ISO text both
ways). A value the compiled form does not take (an empty symbol list, a date given as text),
every other statement and every other catalog (PostgreSQL, a writer's) go through SQLAlchemy.
A failure is raised as the `DBAPIError` SQLAlchemy raises for it, so faults and exit codes
are unchanged.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

from pitlake.lake import catalog_sql
from pitlake.lake.catalog_engine import SQLITE_BUSY_TIMEOUT_MS, prepare_sqlite

# SQLAlchemy's SQLite DATE and DATETIME read back (its result processors for the default
# storage formats); a bound DATE is written as its `"%(year)04d-%(month)02d-%(day)02d"`.
_READ: dict[str, Callable[[str], Any]] = {
    "date": date.fromisoformat,
    "datetime": datetime.fromisoformat,
}
_BOUND: dict[str | None, type] = {"date": date, None: str}


def _date_text(value: date) -> str:
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"


def _as_sqlalchemy(exc: sqlite3.Error, statement: str | None, params: Any) -> Exception:
    """The error SQLAlchemy raises for this DBAPI error (imported now: only a failure pays)."""
    from sqlalchemy.exc import DBAPIError

    return DBAPIError.instance(statement, params, exc, sqlite3.Error)


def open_reading(path: Path) -> sqlite3.Connection:
    """A read-only connection to the catalog file in a read transaction, set up as the
    catalog's SQLAlchemy engine sets up its own (`catalog_engine.prepare_sqlite`, BEGIN)."""
    from pitlake.lake.readonly import connect_read_only

    try:
        conn = connect_read_only(path, SQLITE_BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as e:
        raise _as_sqlalchemy(e, None, None) from e
    try:
        prepare_sqlite(conn, read_only=True)
        conn.cursor().execute("BEGIN")
    except sqlite3.Error as e:
        conn.close()
        raise _as_sqlalchemy(e, "BEGIN", ()) from e
    except BaseException:
        conn.close()
        raise
    return conn


def takes(values: dict[str, Any]) -> bool:
    """Whether the compiled statement takes these values as SQLAlchemy would bind them: each a
    value of its parameter's type, and a non-empty symbol list (SQLAlchemy writes an empty
    IN its own way)."""
    for name, value in values.items():
        kind = catalog_sql.LEDGER_ROWS_BINDS.get(name, "unknown")
        if kind not in _BOUND:
            return False
        items = value if name == catalog_sql.EXPANDING else [value]
        if not isinstance(items, list) or not items:
            return False
        if not all(isinstance(v, _BOUND[kind]) for v in items):
            return False
    return True


def ledger_rows(conn: sqlite3.Connection, values: dict[str, Any]) -> list[tuple[Any, ...]]:
    """`LedgerRecords.ledger_rows` on `conn` (values it `takes`): the same rows, each value
    of the type SQLAlchemy would return."""
    sql = catalog_sql.LEDGER_ROWS[catalog_sql.EXPANDING in values]
    params: dict[str, Any] = {}
    for name, value in values.items():
        kind = catalog_sql.LEDGER_ROWS_BINDS[name]
        bind = _date_text if kind == "date" else (lambda v: v)
        if name == catalog_sql.EXPANDING:  # one parameter per item, named as SQLAlchemy does
            names = [f"{name}_{i}" for i in range(1, len(value) + 1)]
            sql = sql.replace(f"__[POSTCOMPILE_{name}]", ", ".join(f":{n}" for n in names))
            params.update((n, bind(v)) for n, v in zip(names, value, strict=True))
        else:
            params[name] = bind(value)
    try:
        cur = conn.cursor()
        try:
            rows = cur.execute(sql, params).fetchall()
        finally:
            cur.close()
    except sqlite3.Error as e:
        raise _as_sqlalchemy(e, sql, params) from e
    read = [_READ.get(kind) for kind in catalog_sql.LEDGER_ROWS_RESULTS]  # type: ignore[arg-type]
    return [
        tuple(v if f is None or v is None else f(v) for f, v in zip(read, row, strict=True))
        for row in rows
    ]
