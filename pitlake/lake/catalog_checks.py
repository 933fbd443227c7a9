"""Data-quality records in the catalog: each validation verdict and each quarantined batch.
A mixin of `pitlake.lake.catalog.Catalog` (which gives it `_tx`). SQLAlchemy and the tables
are imported by the methods (a read may open the catalog without them: decision 54)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from pitlake.calendar import to_date
from pitlake.lake.catalog_values import (
    QuarantineRecord,
    ValidationRecord,
    from_storage,
    json_safe,
    to_utc_naive,
)

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

SEVERITIES = ("blocking", "warning")


class CheckRecords:
    """Recording and reading validations and quarantine entries."""

    def _tx(self, *, write: bool = False) -> Iterator[Connection]:  # Catalog's
        raise NotImplementedError

    def record_validation(
        self,
        run_id: str | None,
        dataset: str,
        partition: str | None,
        suite: str,
        success: bool,
        severity: str,
        evaluated: int,
        failed: int,
        failed_expectations: Iterable[Mapping[str, Any]] = (),
        at: datetime | None = None,
        date_key: date | str | None = None,
    ) -> int:
        if severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, got {severity!r}")
        values = {
            "run_id": run_id,
            "dataset": dataset,
            "partition_value": partition,
            "date_key": to_date(date_key) if date_key is not None else None,
            "suite": suite,
            "success": bool(success),
            "severity": severity,
            "evaluated": int(evaluated),
            "failed": int(failed),
            "failed_expectations": json_safe(list(failed_expectations)),
            "recorded_at": to_utc_naive(at),
        }
        from sqlalchemy import insert

        from pitlake.lake.catalog_tables import validations_table

        with self._tx(write=True) as conn:
            res = conn.execute(insert(validations_table).values(**values))
            return int(res.inserted_primary_key[0])

    def validations(
        self, dataset: str | None = None, limit: int = 100, *, run_id: str | None = None
    ) -> list[ValidationRecord]:
        """Newest first."""
        from sqlalchemy import select

        from pitlake.lake.catalog_tables import validations_table

        t = validations_table.c
        stmt = select(validations_table).order_by(t.recorded_at.desc(), t.id.desc()).limit(limit)
        if dataset is not None:
            stmt = stmt.where(t.dataset == dataset)
        if run_id is not None:
            stmt = stmt.where(t.run_id == run_id)
        with self._tx() as conn:
            return [
                ValidationRecord(
                    id=r.id,
                    run_id=r.run_id,
                    dataset=r.dataset,
                    partition=r.partition_value,
                    date_key=r.date_key,
                    suite=r.suite,
                    success=bool(r.success),
                    severity=r.severity,
                    evaluated=int(r.evaluated),
                    failed=int(r.failed),
                    failed_expectations=list(r.failed_expectations or []),
                    recorded_at=from_storage(r.recorded_at),  # type: ignore[arg-type]
                )
                for r in conn.execute(stmt)
            ]

    def record_quarantine(
        self,
        run_id: str | None,
        dataset: str,
        date_key: date | str | None,
        path: str | os.PathLike[str],
        reason: str,
        failed_expectations: Iterable[Mapping[str, Any]] = (),
        sample_rows: Iterable[Mapping[str, Any]] = (),
        at: datetime | None = None,
    ) -> int:
        values = {
            "run_id": run_id,
            "dataset": dataset,
            "date_key": to_date(date_key) if date_key is not None else None,
            "path": str(path),
            "reason": reason,
            "failed_expectations": json_safe(list(failed_expectations)),
            "sample_rows": json_safe(list(sample_rows)),
            "recorded_at": to_utc_naive(at),
        }
        from sqlalchemy import insert

        from pitlake.lake.catalog_tables import quarantine_table

        with self._tx(write=True) as conn:
            res = conn.execute(insert(quarantine_table).values(**values))
            return int(res.inserted_primary_key[0])

    def quarantines(self, limit: int = 50, *, dataset: str | None = None) -> list[QuarantineRecord]:
        """Newest first."""
        from sqlalchemy import select

        from pitlake.lake.catalog_tables import quarantine_table

        t = quarantine_table.c
        stmt = select(quarantine_table).order_by(t.recorded_at.desc(), t.id.desc()).limit(limit)
        if dataset is not None:
            stmt = stmt.where(t.dataset == dataset)
        with self._tx() as conn:
            return [
                QuarantineRecord(
                    id=r.id,
                    run_id=r.run_id,
                    dataset=r.dataset,
                    date_key=r.date_key,
                    path=r.path,
                    reason=r.reason,
                    failed_expectations=list(r.failed_expectations or []),
                    sample_rows=list(r.sample_rows or []),
                    recorded_at=from_storage(r.recorded_at),
                )
                for r in conn.execute(stmt)
            ]
