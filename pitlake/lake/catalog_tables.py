"""The catalog's tables (SQLAlchemy Core): runs, the ledger and its events, partition files,
validations and quarantine. Only the catalog modules query them."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

runs_table = Table(
    "runs",
    metadata,
    Column("run_id", String(128), primary_key=True),
    Column("flow", String(64), nullable=False),
    Column("params", JSON, nullable=False),
    Column("status", String(32), nullable=False),
    Column("summary", JSON),
    Column("started_at", DateTime, nullable=False),
    Column("ended_at", DateTime),
    # Who runs it (host~pid~…, as a lease holder) and when it was last seen alive (its
    # heartbeat): a RUNNING run whose process is gone is shown abandoned (`run_liveness`).
    Column("holder", String(255)),
    Column("alive_at", DateTime),
)
Index("ix_runs_started", runs_table.c.started_at)


def _ledger_columns() -> list[Column]:
    return [
        Column("status", String(32), nullable=False),
        Column("row_count", BigInteger, nullable=False),
        Column("vendor", String(64)),
        Column("trace", JSON, nullable=False),
        Column("message", Text, nullable=False),
        Column("run_id", String(128)),
        Column("recorded_at", DateTime, nullable=False),
        # The first day of the window a windowed fetch covered (news, announcements, the
        # schedule, statements; its last day is date_key); NULL for a session's fetch and in
        # entries recorded before the column existed (`catalog_columns`).
        Column("window_start", Date),
        # The symbols a successful fetch over the security master asked (news: one entry per
        # window, asked symbol by symbol), compact (`symbol_sets`); NULL for every other
        # entry, a failed one, and entries recorded before the column existed.
        Column("symbols_asked", Text),
    ]


ledger_table = Table(
    "ledger",
    metadata,
    Column("dataset", String(32), primary_key=True),
    Column("date_key", Date, primary_key=True),
    Column("symbol", String(32), primary_key=True),
    *_ledger_columns(),
)
Index("ix_ledger_dataset_status", ledger_table.c.dataset, ledger_table.c.status)

ledger_events_table = Table(
    "ledger_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("dataset", String(32), nullable=False),
    Column("date_key", Date, nullable=False),
    Column("symbol", String(32), nullable=False),
    *_ledger_columns(),
)
Index(
    "ix_ledger_events_key",
    ledger_events_table.c.dataset,
    ledger_events_table.c.date_key,
    ledger_events_table.c.symbol,
)

partition_files_table = Table(
    "partition_files",
    metadata,
    Column("dataset", String(32), primary_key=True),
    Column("partition_value", String(64), primary_key=True),
    Column("path", Text, nullable=False),
    Column("row_count", BigInteger, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("run_id", String(128)),
    Column("recorded_at", DateTime, nullable=False),
)

validations_table = Table(
    "validations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(128)),
    Column("dataset", String(32), nullable=False),
    Column("partition_value", String(64)),
    Column("date_key", Date),
    Column("suite", String(128), nullable=False),
    Column("success", Boolean, nullable=False),
    Column("severity", String(16), nullable=False),
    Column("evaluated", Integer, nullable=False),
    Column("failed", Integer, nullable=False),
    Column("failed_expectations", JSON, nullable=False),
    Column("recorded_at", DateTime, nullable=False),
)
Index("ix_validations_dataset", validations_table.c.dataset, validations_table.c.recorded_at)

quarantine_table = Table(
    "quarantine",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(128)),
    Column("dataset", String(32), nullable=False),
    Column("date_key", Date),
    Column("path", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("failed_expectations", JSON, nullable=False),
    Column("sample_rows", JSON, nullable=False),
    Column("recorded_at", DateTime, nullable=False),
)
Index("ix_quarantine_recorded", quarantine_table.c.recorded_at)
