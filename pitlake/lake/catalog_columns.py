"""Columns added to a catalog table after catalogs with that table already existed.

`metadata.create_all` creates missing tables but never alters an existing one, so a lake
ingested by an older pitlake lacks these columns. A writable open adds them (an ALTER TABLE
… ADD COLUMN of a nullable column, the same on SQLite and PostgreSQL); a read-only open
writes nothing and reads each missing column as NULL instead (`Catalog.missing_columns`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Column, Table, inspect, null, text
from sqlalchemy.engine import Engine

from pitlake.lake.catalog_tables import ledger_events_table, ledger_table, runs_table

# (table, column name): every column added after its table's first release, oldest first.
ADDED_COLUMNS: tuple[tuple[Table, str], ...] = (
    (ledger_table, "window_start"),
    (ledger_events_table, "window_start"),
    (runs_table, "holder"),
    (runs_table, "alive_at"),
    (ledger_table, "symbols_asked"),
    (ledger_events_table, "symbols_asked"),
)


def selected(table: Table, missing: frozenset[tuple[str, str]]) -> list[Any]:
    """The table's columns, each one an older catalog lacks read as NULL."""
    return [null().label(c.name) if (table.name, c.name) in missing else c for c in table.c]


def missing_columns(engine: Engine) -> frozenset[tuple[str, str]]:
    """The (table, column) pairs of ADDED_COLUMNS this catalog does not hold yet."""
    inspector = inspect(engine)
    tables = set(inspector.get_table_names())
    missing = set()
    for table, name in ADDED_COLUMNS:
        if table.name not in tables:
            continue  # created complete by create_all (or not a catalog: the caller knows)
        held = {c["name"] for c in inspector.get_columns(table.name)}
        if name not in held:
            missing.add((table.name, name))
    return frozenset(missing)


def add_missing_columns(engine: Engine) -> None:
    """Add every column an older catalog lacks (idempotent; two writers racing: the loser's
    ALTER fails on the column now present, which a second look confirms)."""
    for table_name, name in sorted(missing_columns(engine)):
        column: Column = next(t.c[name] for t, n in ADDED_COLUMNS if t.name == table_name)
        ddl = column.type.compile(dialect=engine.dialect)
        try:
            with engine.begin() as conn:
                conn.execute(text(f'ALTER TABLE "{table_name}" ADD COLUMN "{name}" {ddl}'))
        except Exception:
            if (table_name, name) in missing_columns(engine):
                raise
