"""What the gate must know about the run that fetched a batch (its dates, clock and market
facts), shared by the batch checks, their findings and the run-level alignment."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from pitlake.calendar import beijing, to_date
from pitlake.errors import InvalidArgumentsError


@dataclass(frozen=True)
class RunContext:
    """What the gate must know about the run that fetched the batch.

    Give `expected_trade_date` (nightly) or `window_start`/`window_end` (backfill) for the
    trade-date datasets. `fetched_at` is the bound for known_at and publish times ("not after
    ingestion"); naive datetimes are Beijing wall time. `ingested_at` is carried for callers
    and does not change the checks."""

    run_id: str
    fetched_at: datetime
    expected_trade_date: date | None = None
    window_start: date | None = None
    window_end: date | None = None
    ingested_at: datetime | None = None
    previous_row_count: int | None = None  # the previous session's rows (whole-market sets)
    # Canonical codes or names of ST stocks, or symbol → the days it was ST (a window's
    # batch, from the stored security master).
    st_symbols: Collection[str] | Mapping[str, Collection[date]] = frozenset()
    # Listed on the batch's day (symbols), or symbol → first trading day: no price limit then.
    new_listings: Collection[str] | Mapping[str, date] = frozenset()
    # False when the lake holds no security master: listing ages, and so limits, unknown.
    listing_ages_known: bool = True
    # symbol → its issue price (元), the base of an approval-regime first day's limits
    # (the stored new shares'); a first day without one has an unknown limit, not checked.
    issue_prices: Mapping[str, float] = field(default_factory=dict)
    # symbol → its delisting-arrangement periods (first day, last day or None) from the
    # stored master's names: a session inside one is judged by that period's rule.
    delisting: Mapping[str, Sequence[tuple[date, date | None]]] = field(default_factory=dict)
    row_count_floor: float | None = None  # overrides the spec's row_count_floor
    validated_at: datetime | None = None  # the verdict's clock; now when None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "fetched_at", beijing(self.fetched_at))
        if self.ingested_at is not None:
            set_(self, "ingested_at", beijing(self.ingested_at))
        for name in ("expected_trade_date", "window_start", "window_end"):
            value = getattr(self, name)
            if value is not None:
                set_(self, name, to_date(value))
        if (self.window_start is None) != (self.window_end is None):
            raise InvalidArgumentsError("give both window_start and window_end, or neither")
        if self.window_start and self.window_end and self.window_start > self.window_end:
            raise InvalidArgumentsError(
                f"window start {self.window_start} is after end {self.window_end}"
            )
        if not isinstance(self.st_symbols, Mapping):
            set_(self, "st_symbols", frozenset(self.st_symbols))
        if not isinstance(self.new_listings, Mapping):
            set_(self, "new_listings", frozenset(self.new_listings))

    @property
    def requested_days(self) -> list[date] | None:
        """The trade dates a batch may carry: [D], every day of the window, or None."""
        if self.expected_trade_date is not None:
            return [self.expected_trade_date]
        if self.window_start is not None and self.window_end is not None:
            n = (self.window_end - self.window_start).days
            return [self.window_start + timedelta(days=i) for i in range(n + 1)]
        return None
