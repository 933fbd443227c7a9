"""Baostock adjustment factors → adj_factors, per symbol (docs/vendor-reference.md, Baostock
§B.2).

`query_adjust_factor(code, start_date, end_date)` answers one row per ex-date
(dividOperateDate) inside the dates. Its backAdjustFactor is cumulative since listing
(hfq = raw × factor: the dataset's meaning, no conversion); foreAdjustFactor is relative to the
latest ex-date and is not used. The history is asked from the first session, so the factor in
force on the window's first session is known: the latest ex-date ≤ t, one row per session.
Sessions before the first ex-date Baostock lists are left out (unknown, not assumed 1).
"""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from pitlake.vendors.baostock.fetch import VENDOR, BaostockFetcher, bs_code, bs_date, per_symbol
from pitlake.vendors.baostock.fields import FACTOR_DATE, FACTOR_HISTORY_START, FACTOR_VALUE
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.change_points import session_factors
from pitlake.vendors.fetching import window

ENDPOINT = "query_adjust_factor"


class AdjFactorsFetcher(BaostockFetcher):
    dataset = "adj_factors"
    required: ClassVar[dict[str, tuple[str, ...]]] = {ENDPOINT: (FACTOR_DATE, FACTOR_VALUE)}

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        _, last = window(req)
        return [
            VendorQuery(
                ENDPOINT,
                {
                    "code": bs_code(s),
                    "start_date": FACTOR_HISTORY_START,
                    "end_date": bs_date(last),
                },
                symbol=s,
            )
            for s in per_symbol(req)
        ]

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return session_factors(
            req, raws, date_column=FACTOR_DATE, factor_column=FACTOR_VALUE, vendor=VENDOR
        )


FETCHER = AdjFactorsFetcher
