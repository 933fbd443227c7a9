"""What the catalog returns and stores: its records (runs, ledger entries, partition files,
validations, quarantine), and the storage form of instants and JSON. Instants are stored as
naive UTC on every backend and returned timezone-aware (UTC)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timezone
from typing import Any

from pitlake.calendar import beijing
from pitlake.pit import iso_beijing
from pitlake.statuses import SUCCESSFUL_FETCH, LedgerStatus


def to_utc_naive(at: datetime | None) -> datetime:
    """The storage form of an instant. None is now; a naive value is Beijing wall time
    (pitlake's rule for offset-less times), never the host's zone."""
    if at is None:
        at = datetime.now(timezone.utc)
    return beijing(at).astimezone(timezone.utc).replace(tzinfo=None)


def from_storage(at: datetime | None) -> datetime | None:
    if at is None:
        return None
    return at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)


def json_safe(value: Any) -> Any:
    """Plain JSON (strict: no NaN) from vendor traces and sample rows."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(v) for v in value]
    if isinstance(value, datetime):
        return iso_beijing(value) if value.tzinfo else value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    tolist = getattr(value, "tolist", None)  # numpy scalars and arrays
    if callable(tolist):
        return json_safe(tolist())
    try:
        if value != value:  # NaT and friends
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def _iso(at: datetime | None) -> str | None:
    return iso_beijing(at) if at is not None else None


@dataclass(frozen=True)
class Run:
    run_id: str
    flow: str
    params: dict[str, Any]
    status: str
    summary: dict[str, Any] | None
    started_at: datetime
    ended_at: datetime | None
    holder: str | None = None  # host~pid~… of the process running it
    alive_at: datetime | None = None  # its last heartbeat

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["started_at"], d["ended_at"] = _iso(self.started_at), _iso(self.ended_at)
        d["alive_at"] = _iso(self.alive_at)
        return d


@dataclass(frozen=True)
class LedgerEntry:
    dataset: str
    date_key: date
    symbol: str
    status: LedgerStatus
    rows: int
    vendor: str | None
    trace: list[dict[str, Any]]
    message: str
    run_id: str | None
    recorded_at: datetime
    window_start: date | None = None  # a windowed fetch's first day (date_key its last)
    # the symbols a successful fetch over the security master asked (None: not recorded)
    symbols_asked: frozenset[str] | None = None

    @property
    def successful(self) -> bool:
        """The vendor answered (with or without rows): the only basis for NO_DATA."""
        return self.status in SUCCESSFUL_FETCH

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["status"] = str(self.status)
        d["date_key"] = self.date_key.isoformat()
        d["recorded_at"] = _iso(self.recorded_at)
        d["window_start"] = self.window_start.isoformat() if self.window_start else None
        # A whole master's symbols is no answer's business (and names later listings).
        d.pop("symbols_asked")
        return d


@dataclass(frozen=True)
class PartitionFileRecord:
    dataset: str
    partition: str
    path: str
    rows: int
    sha256: str
    run_id: str | None
    recorded_at: datetime

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["recorded_at"] = _iso(self.recorded_at)
        return d


@dataclass(frozen=True)
class ValidationRecord:
    id: int
    run_id: str | None
    dataset: str
    partition: str | None
    date_key: date | None
    suite: str
    success: bool
    severity: str
    evaluated: int
    failed: int
    failed_expectations: list[dict[str, Any]]
    recorded_at: datetime

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["date_key"] = self.date_key.isoformat() if self.date_key else None
        d["recorded_at"] = _iso(self.recorded_at)
        return d


@dataclass(frozen=True)
class QuarantineRecord:
    id: int
    run_id: str | None
    dataset: str
    date_key: date | None
    path: str
    reason: str
    failed_expectations: list[dict[str, Any]]
    sample_rows: list[dict[str, Any]] = field(default_factory=list)
    recorded_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["date_key"] = self.date_key.isoformat() if self.date_key else None
        d["recorded_at"] = _iso(self.recorded_at)
        return d


def partition_file_row(
    dataset: str,
    partition: str,
    path: str | os.PathLike[str],
    rows: int,
    sha256: str,
    run_id: str | None = None,
    at: datetime | None = None,
) -> dict[str, Any]:
    """The `partition_files` row of one written partition file (every writer builds it here)."""
    return {
        "dataset": dataset,
        "partition_value": str(partition),
        "path": str(path),
        "row_count": int(rows),
        "sha256": sha256,
        "run_id": run_id,
        "recorded_at": to_utc_naive(at),
    }
