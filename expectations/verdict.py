"""The gate's answer for one batch: what failed, how bad, and what the ledger must say.

Plain data with no Great Expectations import, so Data Docs and the CLI can read stored verdicts
without paying GX's import. Everything `to_dict()` returns is JSON-safe.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from enum import StrEnum
from typing import Any

import numpy as np
import pandas as pd

from pitlake.pit import iso_beijing
from pitlake.statuses import GATE_LEDGER_ORDER, LedgerStatus

SAMPLE_ROWS = 5  # rows kept per failed expectation
MAX_TEXT = 200  # long strings (news bodies) are cut in samples


class Outcome(StrEnum):
    PASS = "pass"  # write
    WARN = "warn"  # write, flagged
    REJECT = "reject"  # quarantine, mark the ledger, write nothing


class Severity(StrEnum):
    BLOCKING = "blocking"
    WARNING = "warning"


def json_safe(value: Any) -> Any:
    """Any cell or result value → something json.dumps accepts, instants in +08:00."""
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        v = float(value)
        return None if math.isnan(v) or math.isinf(v) else v
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + "…"
    if isinstance(value, pd.Timestamp | datetime | np.datetime64):
        ts = pd.Timestamp(value)
        if ts is pd.NaT:
            return None
        if ts.tzinfo is not None:
            return iso_beijing(ts)
        # Naive: a date (midnight) or a wall time; printed as such, never re-zoned.
        return ts.date().isoformat() if ts == ts.normalize() else ts.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset | np.ndarray | pd.Series):
        return [json_safe(v) for v in value]
    if isinstance(value, StrEnum):
        return str(value)
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


@dataclass
class CheckResult:
    """One evaluated expectation, pass or fail (what Data Docs list)."""

    name: str
    expectation_type: str
    column: str | None
    severity: Severity
    success: bool
    description: str = ""
    unexpected_count: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "expectation_type": self.expectation_type,
            "column": self.column,
            "severity": str(self.severity),
            "success": self.success,
            "description": self.description,
            "unexpected_count": self.unexpected_count,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CheckResult:
        return cls(**{**d, "severity": Severity(d["severity"])})


@dataclass
class FailedExpectation:
    """A failed expectation with enough context to act on it without re-running anything."""

    name: str
    expectation_type: str
    column: str | None
    severity: Severity
    description: str
    unexpected_count: int | None = None
    sample_rows: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    error: str | None = None  # set when the expectation raised instead of evaluating

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "expectation_type": self.expectation_type,
            "column": self.column,
            "severity": str(self.severity),
            "description": self.description,
            "unexpected_count": self.unexpected_count,
            "sample_rows": json_safe(self.sample_rows),
            "details": json_safe(self.details),
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FailedExpectation:
        return cls(**{**d, "severity": Severity(d["severity"])})


def _gate_rank(status: LedgerStatus) -> int:
    """Position in GATE_LEDGER_ORDER; any other status weighs as REJECTED."""
    order = GATE_LEDGER_ORDER
    return order.index(status) if status in order else order.index(LedgerStatus.REJECTED)


@dataclass
class Verdict:
    """Everything a caller needs to write, or quarantine and mark the ledger."""

    dataset: str
    suite: str
    run_id: str
    outcome: Outcome
    ledger_status: LedgerStatus  # OK when written; REJECTED; NOT_READY for stale data
    evaluated: int
    row_count: int
    at: datetime
    failed: list[FailedExpectation] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)
    message: str = ""
    stale: bool = False
    trade_dates: list[str] = field(default_factory=list)  # distinct dates the batch carries
    expected_trade_date: str | None = None
    window: tuple[str, str] | None = None
    partitions: list[str] = field(default_factory=list)  # partition values the rows fall in

    @property
    def writable(self) -> bool:
        return self.outcome is not Outcome.REJECT

    @property
    def blocking(self) -> list[FailedExpectation]:
        return [f for f in self.failed if f.severity is Severity.BLOCKING]

    @property
    def warnings(self) -> list[FailedExpectation]:
        return [f for f in self.failed if f.severity is Severity.WARNING]

    @property
    def worst_severity(self) -> str | None:
        if self.blocking:
            return str(Severity.BLOCKING)
        return str(Severity.WARNING) if self.warnings else None

    def failed_names(self) -> list[str]:
        return [f.name for f in self.failed]

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "suite": self.suite,
            "run_id": self.run_id,
            "outcome": str(self.outcome),
            "ledger_status": str(self.ledger_status),
            "evaluated": self.evaluated,
            "row_count": self.row_count,
            "at": iso_beijing(self.at),
            "failed": [f.to_dict() for f in self.failed],
            "checks": [c.to_dict() for c in self.checks],
            "message": self.message,
            "stale": self.stale,
            "trade_dates": list(self.trade_dates),
            "expected_trade_date": self.expected_trade_date,
            "window": list(self.window) if self.window else None,
            "partitions": list(self.partitions),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Verdict:
        return cls(
            dataset=d["dataset"],
            suite=d["suite"],
            run_id=d["run_id"],
            outcome=Outcome(d["outcome"]),
            ledger_status=LedgerStatus(d["ledger_status"]),
            evaluated=int(d["evaluated"]),
            row_count=int(d["row_count"]),
            at=datetime.fromisoformat(d["at"]),
            failed=[FailedExpectation.from_dict(f) for f in d.get("failed", [])],
            checks=[CheckResult.from_dict(c) for c in d.get("checks", [])],
            message=d.get("message", ""),
            stale=bool(d.get("stale", False)),
            trade_dates=list(d.get("trade_dates", [])),
            expected_trade_date=d.get("expected_trade_date"),
            window=tuple(d["window"]) if d.get("window") else None,  # type: ignore[arg-type]
            partitions=list(d.get("partitions", [])),
        )

    def to_catalog_records(self) -> list[dict[str, Any]]:
        """Keyword arguments for `Catalog.record_validation`, one per partition value the batch
        touches (one with partition None for a batch with no rows).

        `success` is the suite's own verdict (nothing failed); `severity` says how bad a
        failure is: "warning" when only warnings failed (the batch was written, flagged),
        otherwise "blocking" (for a success: the blocking gate passed)."""
        failed = [f.to_dict() for f in self.failed]
        return [
            {
                "run_id": self.run_id,
                "dataset": self.dataset,
                "partition": partition,
                "suite": self.suite,
                "success": self.outcome is Outcome.PASS,
                "severity": str(
                    Severity.WARNING if self.outcome is Outcome.WARN else Severity.BLOCKING
                ),
                "evaluated": self.evaluated,
                "failed": len(self.failed),
                "failed_expectations": failed,
                "at": self.at,
                "date_key": self.expected_trade_date,
            }
            for partition in (self.partitions or [None])
        ]

    def quarantine_record(self, path: str) -> dict[str, Any]:
        """Keyword arguments for `Catalog.record_quarantine` once the batch sits at `path`."""
        samples = [row for f in self.blocking for row in f.sample_rows][:SAMPLE_ROWS]
        return {
            "run_id": self.run_id,
            "dataset": self.dataset,
            "date_key": self.expected_trade_date,
            "path": str(path),
            "reason": self.message,
            "failed_expectations": [f.to_dict() for f in self.blocking],
            "sample_rows": json_safe(samples),
            "at": self.at,
        }

    def combine(self, other: Verdict) -> Verdict:
        """Merge two verdicts on the same batch (the suite's and the run-level alignment's).
        The worse outcome wins; NOT_READY (the date is not there yet) outranks REJECTED."""
        if other.dataset != self.dataset:
            raise ValueError(f"cannot combine verdicts of {self.dataset} and {other.dataset}")
        order = [Outcome.PASS, Outcome.WARN, Outcome.REJECT]
        outcome = max(self.outcome, other.outcome, key=order.index)
        ledger = max(self.ledger_status, other.ledger_status, key=_gate_rank)
        if outcome is not Outcome.REJECT:
            ledger = LedgerStatus.OK
        return Verdict(
            dataset=self.dataset,
            suite=self.suite,
            run_id=self.run_id or other.run_id,
            outcome=outcome,
            ledger_status=ledger,
            evaluated=self.evaluated + other.evaluated,
            row_count=max(self.row_count, other.row_count),
            at=max(self.at, other.at),
            failed=self.failed + other.failed,
            checks=self.checks + other.checks,
            message="; ".join(m for m in (self.message, other.message) if m),
            stale=self.stale or other.stale,
            trade_dates=self.trade_dates or other.trade_dates,
            expected_trade_date=self.expected_trade_date or other.expected_trade_date,
            window=self.window or other.window,
            partitions=self.partitions or other.partitions,
        )


def utc_now() -> datetime:
    return datetime.now(timezone.utc)
