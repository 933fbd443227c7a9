"""The answer envelope every read returns (DESIGN.md §8), and its status vocabularies.

Statuses are defined here once; the ledger, the API, the CLI and the dashboard import them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class ResultStatus(StrEnum):
    OK = "OK"
    NO_DATA = "NO_DATA"
    NOT_READY = "NOT_READY"
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    RATE_LIMITED = "RATE_LIMITED"
    NOT_CONFIGURED = "NOT_CONFIGURED"
    UPSTREAM_ERROR = "UPSTREAM_ERROR"
    UNKNOWN = "UNKNOWN"


class LedgerStatus(StrEnum):
    """What the ledger records for one fetch unit (dataset × session/period × symbol)."""

    OK = "OK"
    NO_DATA = "NO_DATA"
    NOT_READY = "NOT_READY"
    RATE_LIMITED = "RATE_LIMITED"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    NOT_CONFIGURED = "NOT_CONFIGURED"
    UPSTREAM_ERROR = "UPSTREAM_ERROR"
    REJECTED = "REJECTED"
    SKIPPED = "SKIPPED"


# A run is Completed only if every dataset ended in one of these.
LEDGER_SUCCESS: frozenset[LedgerStatus] = frozenset(
    {LedgerStatus.OK, LedgerStatus.NO_DATA, LedgerStatus.NOT_CONFIGURED, LedgerStatus.SKIPPED}
)

# How a ledger status reads to an agent asking for that data.
RESULT_FOR_LEDGER: dict[LedgerStatus, ResultStatus] = {
    LedgerStatus.OK: ResultStatus.OK,
    LedgerStatus.NO_DATA: ResultStatus.NO_DATA,
    LedgerStatus.NOT_READY: ResultStatus.NOT_READY,
    LedgerStatus.RATE_LIMITED: ResultStatus.RATE_LIMITED,
    LedgerStatus.PERMISSION_DENIED: ResultStatus.PERMISSION_DENIED,
    LedgerStatus.NOT_CONFIGURED: ResultStatus.NOT_CONFIGURED,
    LedgerStatus.UPSTREAM_ERROR: ResultStatus.UPSTREAM_ERROR,
    # A rejected batch was stale or bad: nothing for that date is servable yet.
    LedgerStatus.REJECTED: ResultStatus.NOT_READY,
    LedgerStatus.SKIPPED: ResultStatus.NO_DATA,
}

RETRYABLE_STATUSES: frozenset[ResultStatus] = frozenset(
    {ResultStatus.NOT_READY, ResultStatus.RATE_LIMITED, ResultStatus.UPSTREAM_ERROR}
)


class DateStatus(StrEnum):
    CURRENT = "CURRENT"
    LATEST_TRADING_DAY = "LATEST_TRADING_DAY"
    STALE = "STALE"
    NOT_APPLICABLE = "NOT_APPLICABLE"
    UNKNOWN = "UNKNOWN"


@dataclass
class Result:
    """One answer: the rows plus everything an agent needs to trust (or distrust) them."""

    status: ResultStatus
    requested_date: str | None = None
    effective_trade_date: str | None = None
    date_status: DateStatus = DateStatus.UNKNOWN
    as_of: str | None = None
    source: str | None = None
    retryable: bool | None = None
    message: str = ""
    data: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.status = ResultStatus(self.status)
        self.date_status = DateStatus(self.date_status)
        if self.retryable is None:
            self.retryable = self.status in RETRYABLE_STATUSES
        self.meta.setdefault("rows", len(self.data))
        self.meta.setdefault("known_at_max", None)
        self.meta.setdefault("vendor_trace", [])
        self.meta.setdefault("pinned", False)

    @property
    def ok(self) -> bool:
        return self.status in (ResultStatus.OK, ResultStatus.NO_DATA)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["status"] = str(self.status)
        d["date_status"] = str(self.date_status)
        return d

    @classmethod
    def invalid(cls, message: str, **kw: Any) -> Result:
        return cls(status=ResultStatus.INVALID_ARGUMENTS, message=message, retryable=False, **kw)
