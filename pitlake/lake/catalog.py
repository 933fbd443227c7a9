"""The catalog (docs/design.md §5): runs, the fetch ledger, partition files, validations,
quarantine — the only code that queries their tables (`pitlake.lake.catalog_tables`).

SQLAlchemy Core on any URL: `sqlite:///<lake>/catalog.db` by default, `PITLAKE_CATALOG_URL` or an
explicit URL otherwise (PostgreSQL through psycopg 3: `postgresql+psycopg://…`;
`pitlake.lake.catalog_engine`). The ledger is `pitlake.lake.catalog_ledger`, validations and
quarantine `pitlake.lake.catalog_checks`; the records returned are `pitlake.lake.catalog_values`.

SQLAlchemy is imported when the engine is made: at construction, except for a read-only SQLite
catalog, whose engine waits for its first statement that `pitlake.lake.catalog_sqlite` does not
run (a one-symbol read needs none: decision 54).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from contextvars import ContextVar
from datetime import datetime
from pathlib import Path
from typing import Any

from pitlake.lake.catalog_checks import CheckRecords
from pitlake.lake.catalog_connections import CatalogConnections, Pin
from pitlake.lake.catalog_engine import ENV_URL, beside_lake, resolve_url, sqlite_file, upsert
from pitlake.lake.catalog_ledger import WHOLE_MARKET, LedgerRecords
from pitlake.lake.catalog_values import (
    PartitionFileRecord,
    Run,
    from_storage,
    json_safe,
    partition_file_row,
    to_utc_naive,
)

__all__ = ["WHOLE_MARKET", "Catalog"]


class Catalog(CatalogConnections, LedgerRecords, CheckRecords):
    """Runs, ledger, partition files, validations and quarantine entries of one lake.

    `read_only=True` (every read surface) writes nothing, anywhere: no directory or file is
    created, no table, no journal mode; a SQLite catalog that is missing or holds no pitlake
    tables raises `NotALakeError` here, and its connections are opened as
    `pitlake.lake.readonly` explains. On PostgreSQL every transaction is READ ONLY."""

    def __init__(
        self,
        url: str | None = None,
        *,
        lake_root: str | os.PathLike[str] | None = None,
        echo: bool = False,
        read_only: bool = False,
    ) -> None:
        given = url or os.environ.get(ENV_URL) or None
        self.url = resolve_url(url, lake_root, create=not read_only)
        self.read_only = read_only
        self._echo = echo
        # a read-only SQLite catalog's file (None: a writer's, or another database)
        self._sqlite_file: Path | None = None
        if read_only:
            # beside the lake (known without parsing a URL, which imports SQLAlchemy), or named
            ro_file = sqlite_file(self.url) if given else beside_lake(lake_root)  # type: ignore[arg-type]
            if ro_file is not None:
                from pitlake.lake.readonly import require_catalog_file

                require_catalog_file(ro_file, lake_root if url is None else None)
                self._sqlite_file = ro_file
        # this catalog's `reading()` scope in the calling thread or task (one per context)
        self._pin: ContextVar[Pin | None] = ContextVar(f"catalog_pin_{id(self)}", default=None)
        if self._sqlite_file is None:
            _ = self.engine  # made now (a bad URL or a missing driver fails here, as always)
        if not read_only:
            from pitlake.lake.catalog_columns import add_missing_columns

            self._create_tables()
            add_missing_columns(self.engine)
            self.missing_columns = frozenset()

    @functools.cached_property
    def missing_columns(self) -> frozenset[tuple[str, str]]:
        """The columns this (older, read-only) catalog lacks, read as NULL (`catalog_columns`);
        looked up at the first read that needs it."""
        from pitlake.lake.catalog_columns import missing_columns

        return missing_columns(self.engine)

    def _create_tables(self) -> None:
        from sqlalchemy.exc import DBAPIError

        from pitlake.lake.catalog_tables import metadata

        try:
            metadata.create_all(self.engine)
        except DBAPIError:
            # Two processes creating the same fresh catalog: the loser's CREATE fails;
            # the tables exist now, so a second pass (which checks first) is a no-op.
            metadata.create_all(self.engine)

    def close(self) -> None:
        if "engine" in self.__dict__:  # never made: nothing to dispose
            self.engine.dispose()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Catalog({self.engine.url.render_as_string(hide_password=True)!r})"

    def is_empty(self) -> bool:
        """Nothing recorded yet: no ledger entry and no run."""
        from sqlalchemy import select

        from pitlake.lake.catalog_tables import ledger_table, runs_table

        with self._tx() as conn:
            ledger = conn.execute(select(ledger_table.c.dataset).limit(1)).first()
            runs = conn.execute(select(runs_table.c.run_id).limit(1)).first()
        return ledger is None and runs is None

    # ------------------------------------------------------------ runs

    def start_run(
        self,
        run_id: str,
        flow: str,
        params: Mapping[str, Any] | None = None,
        started_at: datetime | None = None,
        holder: str | None = None,
    ) -> None:
        from pitlake.lake.catalog_tables import runs_table

        values = {
            "run_id": run_id,
            "flow": flow,
            "params": json_safe(dict(params or {})),
            "status": "RUNNING",
            "summary": None,
            "started_at": to_utc_naive(started_at),
            "ended_at": None,
            "holder": holder,
            "alive_at": to_utc_naive(started_at),
        }
        with self._tx(write=True) as conn:
            upsert(conn, runs_table, values, ["run_id"])

    def mark_alive(self, run_id: str, at: datetime | None = None) -> None:
        """A running run's heartbeat (`run_liveness.Heartbeat`)."""
        from sqlalchemy import update

        from pitlake.lake.catalog_tables import runs_table

        t = runs_table.c
        with self._tx(write=True) as conn:
            conn.execute(
                update(runs_table)
                .where(t.run_id == run_id, t.status == "RUNNING")
                .values(alive_at=to_utc_naive(at))
            )

    def finish_run(
        self,
        run_id: str,
        status: str,
        summary: Mapping[str, Any] | None = None,
        ended_at: datetime | None = None,
    ) -> None:
        from sqlalchemy import insert, update

        from pitlake.lake.catalog_tables import runs_table

        ended = to_utc_naive(ended_at)
        with self._tx(write=True) as conn:
            done = conn.execute(
                update(runs_table)
                .where(runs_table.c.run_id == run_id)
                .values(status=str(status), summary=json_safe(dict(summary or {})), ended_at=ended)
            )
            if done.rowcount == 0:  # never started (crashed early): still leave a record
                conn.execute(
                    insert(runs_table).values(
                        run_id=run_id,
                        flow="",
                        params={},
                        status=str(status),
                        summary=json_safe(dict(summary or {})),
                        started_at=ended,
                        ended_at=ended,
                    )
                )

    def run(self, run_id: str) -> Run | None:
        from sqlalchemy import select

        from pitlake.lake.catalog_columns import selected
        from pitlake.lake.catalog_tables import runs_table

        with self._tx() as conn:
            row = conn.execute(
                select(*selected(runs_table, self.missing_columns)).where(
                    runs_table.c.run_id == run_id
                )
            ).first()
        return self._run(row) if row else None

    def runs(self, limit: int = 50, *, started_by: datetime | None = None) -> list[Run]:
        """Newest first; with `started_by`, only runs started by then (a reader's cutoff: the
        latest runs it may see, however many started later)."""
        from sqlalchemy import select

        from pitlake.lake.catalog_columns import selected
        from pitlake.lake.catalog_tables import runs_table

        stmt = select(*selected(runs_table, self.missing_columns))
        if started_by is not None:
            stmt = stmt.where(runs_table.c.started_at <= to_utc_naive(started_by))
        stmt = stmt.order_by(runs_table.c.started_at.desc(), runs_table.c.run_id.desc()).limit(
            limit
        )
        with self._tx() as conn:
            return [self._run(r) for r in conn.execute(stmt)]

    @staticmethod
    def _run(r: Any) -> Run:
        return Run(
            run_id=r.run_id,
            flow=r.flow,
            params=r.params or {},
            status=r.status,
            summary=r.summary,
            started_at=from_storage(r.started_at),  # type: ignore[arg-type]
            ended_at=from_storage(r.ended_at),
            holder=r.holder,
            alive_at=from_storage(r.alive_at),
        )

    # ------------------------------------------------------------ partition files

    def record_partition_file(
        self,
        dataset: str,
        partition: str,
        path: str | os.PathLike[str],
        rows: int,
        sha256: str,
        run_id: str | None = None,
        at: datetime | None = None,
    ) -> None:
        row = partition_file_row(dataset, partition, path, rows, sha256, run_id, at)
        with self._tx(write=True) as conn:
            self.upsert_partition_file(conn, row)

    def upsert_partition_file(self, conn: Any, row: dict[str, Any]) -> None:
        """One partition-file record on `conn`, inside the caller's transaction (the catalog
        holds of `pitlake.lake.lease` record inside their own lock or fencing transaction)."""
        from pitlake.lake.catalog_tables import partition_files_table

        upsert(conn, partition_files_table, row, ["dataset", "partition_value"])

    def partition_files(self, dataset: str | None = None) -> list[PartitionFileRecord]:
        from sqlalchemy import select

        from pitlake.lake.catalog_tables import partition_files_table

        t = partition_files_table.c
        stmt = select(partition_files_table).order_by(t.dataset, t.partition_value)
        if dataset is not None:
            stmt = stmt.where(t.dataset == dataset)
        with self._tx() as conn:
            return [
                PartitionFileRecord(
                    dataset=r.dataset,
                    partition=r.partition_value,
                    path=r.path,
                    rows=int(r.row_count),
                    sha256=r.sha256,
                    run_id=r.run_id,
                    recorded_at=from_storage(r.recorded_at),  # type: ignore[arg-type]
                )
                for r in conn.execute(stmt)
            ]
