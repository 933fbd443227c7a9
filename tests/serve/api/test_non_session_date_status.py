"""One meaning of a non-session date on every dataset (issue 30, "small truths"): asked about a
Saturday, every trade-dated or in-force answer that is not stale says LATEST_TRADING_DAY — the
universe and index members said CURRENT while limits and quotes said LATEST_TRADING_DAY — and
asked about the Friday session itself, none does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pitlake.read.lake import Lake
from pitlake.statuses import DateStatus
from tests.serve.api.lakebuild import NOW, A

FRIDAY, SATURDAY = "2025-06-06", "2025-06-07"

READS: dict[str, Callable[[Lake, str], object]] = {
    "quotes": lambda lk, d: lk.quotes(A, date=d, as_of=f"{d}T20:00:00+08:00"),
    "valuation": lambda lk, d: lk.valuation(A, date=d, as_of=f"{d}T20:00:00+08:00"),
    "universe": lambda lk, d: lk.universe(as_of=f"{d}T20:00:00+08:00"),
    "index_members": lambda lk, d: lk.index_members(
        "000300.SH", date=d, as_of=f"{d}T20:00:00+08:00"
    ),
    "limits": lambda lk, d: lk.limits(date=d, as_of=f"{d}T20:00:00+08:00"),
    "market": lambda lk, d: lk.market(date=d, as_of=f"{d}T20:00:00+08:00"),
}


@pytest.mark.parametrize("name", sorted(READS))
def test_a_saturday_is_the_latest_trading_day_everywhere(lake_dir: Path, name: str) -> None:
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        friday = READS[name](lake, FRIDAY)
        saturday = READS[name](lake, SATURDAY)
    if friday.date_status is DateStatus.STALE:  # the test lake's valuation stops 06-05
        assert saturday.date_status is DateStatus.STALE, saturday.message
    else:
        assert friday.date_status is DateStatus.CURRENT, (friday.status, friday.message)
        assert saturday.date_status is DateStatus.LATEST_TRADING_DAY, saturday.message
    assert saturday.requested_date == SATURDAY
    assert saturday.effective_trade_date == friday.effective_trade_date
