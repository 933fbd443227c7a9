"""The vendor-list ⇄ bars cross-checks judge an approval-regime first day on the issue price:
a vendor's first-day limit-up at +44 % of it agrees with the bars, published prices that are
not the rule's on it are named, and without an issue price the day is not compared."""

from __future__ import annotations

from datetime import date

import pandas as pd
from pitlake.expectations.limit_checks import pool_differences, price_differences

IPO, DEBUT = "603999.SH", date(2019, 6, 10)
STATES = ({}, {IPO: DEBUT})  # no ST days; listed on DEBUT (main board, approval regime)


def _day(frame: dict) -> pd.DataFrame:
    return pd.DataFrame({"symbol": [IPO], "trade_date": pd.to_datetime([DEBUT]), **frame})


BARS = _day({"close": [14.40], "high": [14.40], "pre_close": [10.0], "volume": [1e6]})
POOL = _day({"pool": ["up"]})


def test_a_first_day_limit_up_on_the_issue_price_agrees_with_the_vendors_pool() -> None:
    assert pool_differences(POOL, BARS, frozenset(), None, STATES, {IPO: 10.0}) == []
    # without the issue price the bars cannot place it: the vendor's entry is unmatched
    (found,) = pool_differences(POOL, BARS, frozenset(), None, STATES)
    assert found.startswith(f"up {IPO} 2019-06-10: listed by the vendor")


def test_published_first_day_prices_are_judged_on_the_issue_price() -> None:
    prices = _day({"pre_close": [10.0], "up_limit": [14.40], "down_limit": [6.40]})
    assert price_differences(prices, STATES, {IPO: 10.0}) == []
    (found,) = price_differences(prices, STATES, {IPO: 12.0})  # not the rule's on 12.00
    assert "the rule (not ST that session) gives 17.28/7.68" in found
    assert price_differences(prices, STATES) == []  # no issue price: not compared
