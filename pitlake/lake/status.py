"""How the ledger becomes an answer's status (DESIGN.md §1 rule 9, §8).

Status comes from what the lake knows about its fetches, never from a row count: a requested
scope (a symbol, or the whole market '*', on one session) without rows is NO_DATA only when the
ledger holds a successful fetch for it; otherwise it carries the fetch's failure, and UNKNOWN
when nothing was ever fetched.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from pitlake.envelope import RESULT_FOR_LEDGER, ResultStatus
from pitlake.lake.catalog import WHOLE_MARKET, LedgerEntry

BENIGN: frozenset[ResultStatus] = frozenset({ResultStatus.OK, ResultStatus.NO_DATA})
# When several scopes fail differently, the answer reports the first of these that occurs:
# failed fetches first (someone must act), then "not yet", then "never fetched".
FAILURE_PRECEDENCE: tuple[ResultStatus, ...] = (
    ResultStatus.UPSTREAM_ERROR,
    ResultStatus.RATE_LIMITED,
    ResultStatus.PERMISSION_DENIED,
    ResultStatus.NOT_CONFIGURED,
    ResultStatus.NOT_READY,
    ResultStatus.UNKNOWN,
)
MAX_LISTED = 20


@dataclass(frozen=True)
class Gap:
    """A requested scope that has no rows in the answer, and why."""

    symbol: str  # canonical code, or '*' for the whole market
    date_key: date | None
    status: ResultStatus
    reason: str
    entry: LedgerEntry | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "symbol": self.symbol,
            "date": self.date_key.isoformat() if self.date_key else None,
            "status": str(self.status),
            "reason": self.reason,
        }


def status_of_entry(entry: LedgerEntry) -> ResultStatus:
    """A scope with no rows: NO_DATA after a successful fetch, else the fetch's failure."""
    if entry.successful:
        return ResultStatus.NO_DATA
    return RESULT_FOR_LEDGER[entry.status]


class LedgerView:
    """One dataset's ledger entries, looked up by (date, symbol) falling back to '*'."""

    def __init__(self, entries: Iterable[LedgerEntry]) -> None:
        self.entries = list(entries)
        self._by_key = {(e.date_key, e.symbol): e for e in self.entries}

    def lookup(self, d: date, symbol: str) -> LedgerEntry | None:
        return self._by_key.get((d, symbol)) or self._by_key.get((d, WHOLE_MARKET))

    def for_symbol(self, symbol: str) -> list[LedgerEntry]:
        return [e for e in self.entries if e.symbol in (symbol, WHOLE_MARKET)]


def combine(gap_statuses: Iterable[ResultStatus], has_rows: bool) -> ResultStatus:
    """One status for the answer: the most pressing failure among the gaps, else OK with
    rows, else NO_DATA (every gap was a successful fetch with nothing in it)."""
    failures = {s for s in gap_statuses if s not in BENIGN}
    for s in FAILURE_PRECEDENCE:
        if s in failures:
            return s
    return ResultStatus.OK if has_rows else ResultStatus.NO_DATA


def vendor_trace(entries: Iterable[LedgerEntry | None]) -> list[dict[str, Any]]:
    """The ledger records behind an answer, for meta.vendor_trace (deduplicated, bounded)."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for e in entries:
        if e is None:
            continue
        k = (e.dataset, e.date_key, e.symbol)
        if k in seen:
            continue
        seen.add(k)
        out.append(
            {
                "dataset": e.dataset,
                "date": e.date_key.isoformat(),
                "symbol": e.symbol,
                "status": str(e.status),
                "vendor": e.vendor,
                "rows": e.rows,
                "message": e.message,
                "trace": e.trace,
            }
        )
        if len(out) >= 2 * MAX_LISTED:
            break
    return out


def describe_gaps(gaps: list[Gap]) -> str:
    """A short sentence naming the failing scopes (bounded)."""
    bad = [g for g in gaps if g.status not in BENIGN]
    if not bad:
        return ""
    shown = "; ".join(
        " ".join([g.symbol, *([g.date_key.isoformat()] if g.date_key else [])])
        + f": {g.status} ({g.reason})"
        for g in bad[:MAX_LISTED]
    )
    more = f"; … and {len(bad) - MAX_LISTED} more" if len(bad) > MAX_LISTED else ""
    return f"Missing: {shown}{more}."
