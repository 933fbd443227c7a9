"""AkShare (Sina) hfq factors → adj_factors, per symbol (docs/vendor-reference.md §2.2).

Sina answers the change points (newest first, a 1900-01-01 sentinel = the base factor); the
factor in force on session t is the latest change point ≤ t, one row per session of the window.
"""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from pitlake.symbols import to_vendor
from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, per_symbol
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.change_points import session_factors

SINA_BARS = "stock_zh_a_daily"
SINA_FACTORS_ADJUST = "hfq-factor"


class AdjFactorsFetcher(AkshareFetcher):
    dataset = "adj_factors"
    required: ClassVar[dict[str, tuple[str, ...]]] = {SINA_BARS: ("date", "hfq_factor")}

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        return [
            VendorQuery(
                SINA_BARS,
                {"symbol": to_vendor(s, "sina"), "adjust": SINA_FACTORS_ADJUST},
                symbol=s,
            )
            for s in per_symbol(req)
        ]

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return session_factors(
            req, raws, date_column="date", factor_column="hfq_factor", vendor=VENDOR
        )


FETCHER = AdjFactorsFetcher
