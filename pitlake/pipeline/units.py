"""The pipeline's values: a unit of work, its fetched batch, and how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import pandas as pd

from pitlake.statuses import RUN_DONE, LedgerStatus
from pitlake.vendors.router import RouteResult


@dataclass(frozen=True)
class Unit:
    """What one fetch is about. `date_key` is the session (trade-dated datasets, nightly) or
    the window's last day; `symbols` None means the whole market."""

    dataset: str
    date_key: date
    trade_date: date | None = None
    start: date | None = None
    end: date | None = None
    symbols: tuple[str, ...] | None = None
    # Symbols to ask the vendor about when they differ from the ledger scope (a per-symbol
    # feed over the universe is still one whole-market ledger entry).
    fetch_symbols: tuple[str, ...] | None = None
    # A top-up of a universe unit's entry: the symbols (and rows) an earlier successful fetch
    # of the same entry already covered; `fetch_symbols` are then only the listings since.
    covered: frozenset[str] | None = None
    covered_rows: int = 0

    @property
    def label(self) -> str:
        scope = ",".join(self.symbols) if self.symbols else "market"
        if len(scope) > 40:
            scope = f"{len(self.symbols or ())} symbols"
        when = (
            self.trade_date.isoformat()
            if self.trade_date
            else f"{self.start}..{self.end}"
            if self.start
            else self.date_key.isoformat()
        )
        return f"{self.dataset} {when} {scope}"


@dataclass
class Batch:
    """A unit's fetch: the router's answer and when we asked."""

    unit: Unit
    route: RouteResult
    fetched_at: datetime

    @property
    def frame(self) -> pd.DataFrame:
        return self.route.frame


@dataclass
class UnitOutcome:
    """How a unit ended: what the ledger now says, what was written, and why (JSON-safe)."""

    dataset: str
    date_key: str
    status: str
    rows: int = 0
    rows_added: int = 0
    vendor: str | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""
    gate: str | None = None  # pass | warn | reject | None (nothing to validate)
    failed_expectations: list[str] = field(default_factory=list)
    symbols: list[str] | None = None
    quarantine: str | None = None

    @property
    def succeeded(self) -> bool:
        return LedgerStatus(self.status) in RUN_DONE

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "date": self.date_key,
            "status": self.status,
            "rows": self.rows,
            "rows_added": self.rows_added,
            "vendor": self.vendor,
            "trace": self.trace,
            "message": self.message,
            "gate": self.gate,
            "failed_expectations": self.failed_expectations,
            "symbols": self.symbols,
            "quarantine": self.quarantine,
        }
