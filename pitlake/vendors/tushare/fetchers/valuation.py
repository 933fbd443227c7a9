"""Tushare `daily_basic` → valuation: ratios as given, shares 万股 → shares, market values
万元 → 元 (docs/vendor-reference.md §2.6)."""

from __future__ import annotations

import pandas as pd

from pitlake import units
from pitlake.vendors.parsing import check_unit_scale
from pitlake.vendors.tushare.daily import DailyFetcher, DailySpec
from pitlake.vendors.tushare.fetch import VENDOR

SPEC = DailySpec(
    "daily_basic",
    {
        c: c
        for c in (
            "close turnover_rate turnover_rate_f volume_ratio pe pe_ttm pb ps ps_ttm "
            "dv_ratio dv_ttm"
        ).split()
    },
    {
        "total_share": ("total_share", units.wan_shares_to_shares),
        "float_share": ("float_share", units.wan_shares_to_shares),
        "free_share": ("free_share", units.wan_shares_to_shares),
        "total_mv": ("total_mv", units.wan_yuan_to_yuan),
        "circ_mv": ("circ_mv", units.wan_yuan_to_yuan),
    },
)


class ValuationFetcher(DailyFetcher):
    dataset = "valuation"
    spec = SPEC
    checks_units = True

    def check_units(self, rows: pd.DataFrame) -> None:
        """Market value is price × shares: a 万 slip in either shows."""
        implied = rows["close"] * rows["total_share"]
        check_unit_scale(
            rows["total_mv"] / implied,
            "total_mv vs close × total_share",
            vendor=VENDOR,
            endpoint=SPEC.endpoint,
        )


FETCHER = ValuationFetcher
