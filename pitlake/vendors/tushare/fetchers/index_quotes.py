"""Tushare `index_daily` → index_quotes: index points as given, volume 手 → shares, amount
千元 → 元 (the units of `daily`).

`index_daily` answers one index per call (`ts_code` is required), so a session is one call per
index, and a range each index's history in windows under the row cap. Codes stay as Tushare
writes them (000300.SH): they are index codes, never parsed as stocks.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from pitlake import units
from pitlake.schemas.index_quotes import INDICES, asked
from pitlake.vendors.base import FetchRequest, VendorQuery
from pitlake.vendors.tushare.daily import DailyFetcher, DailySpec, range_windows
from pitlake.vendors.tushare.fetch import ymd

SPEC = DailySpec(
    "index_daily",
    {c: c for c in "open high low close pre_close pct_chg".split()},
    {"volume": ("vol", units.lots_to_shares), "amount": ("amount", units.qian_yuan_to_yuan)},
)


class IndexQuotesFetcher(DailyFetcher):
    dataset = "index_quotes"
    spec = SPEC

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        codes = asked(req.symbols)
        if req.trade_date is not None:
            day: dict[str, Any] = {"trade_date": ymd(req.trade_date)}
            return [VendorQuery(SPEC.endpoint, {"ts_code": c, **day}, symbol=c) for c in codes]
        assert req.start is not None and req.end is not None
        return [
            VendorQuery(
                SPEC.endpoint,
                {"ts_code": c, "start_date": ymd(lo), "end_date": ymd(hi)},
                symbol=c,
            )
            for c in codes
            for lo, hi in range_windows(req.start, req.end)
        ]

    def symbols_of(self, codes: pd.Series) -> pd.Series:
        return codes.map(
            lambda c: c.strip() if isinstance(c, str) and c.strip() in INDICES else None
        )


FETCHER = IndexQuotesFetcher
