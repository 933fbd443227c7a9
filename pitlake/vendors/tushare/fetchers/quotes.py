"""Tushare `daily` → quotes: unadjusted bars, volume 手 → shares, amount 千元 → 元
(docs/vendor-reference.md §2.4)."""

from __future__ import annotations

import pandas as pd

from pitlake import units
from pitlake.vendors.parsing import check_unit_scale
from pitlake.vendors.tushare.daily import DailyFetcher, DailySpec
from pitlake.vendors.tushare.fetch import VENDOR

SPEC = DailySpec(
    "daily",
    {c: c for c in "open high low close pre_close pct_chg".split()},
    {"volume": ("vol", units.lots_to_shares), "amount": ("amount", units.qian_yuan_to_yuan)},
)


class QuotesFetcher(DailyFetcher):
    dataset = "quotes"
    spec = SPEC
    checks_units = True

    def check_units(self, rows: pd.DataFrame) -> None:
        """amount ÷ volume is the day's average price: it must be near the close."""
        vwap = rows["amount"] / rows["volume"].where(rows["volume"] > 0)
        check_unit_scale(
            vwap / rows["close"], "amount ÷ volume vs close", vendor=VENDOR, endpoint=SPEC.endpoint
        )


FETCHER = QuotesFetcher
