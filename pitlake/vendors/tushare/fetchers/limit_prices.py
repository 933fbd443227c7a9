"""Tushare `stk_limit` → limit_prices: each session's limit-up / limit-down price per code, 元.

One whole-market call per session. The list also holds B shares and funds (dropped: not A-share
codes), so a session can pass the 5800-row cap of one call (tushare.pro document 183); an
answer of exactly the cap is followed by the next page (`offset`, Tushare's generic paging
parameter [UNVERIFIED for stk_limit]) until a shorter page comes. `pre_close` is not shown by
default (默认显示 N), so every call names its fields.
"""

from __future__ import annotations

from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.tushare.daily import DailyFetcher, DailySpec

SPEC = DailySpec("stk_limit", {c: c for c in ("pre_close", "up_limit", "down_limit")}, {})
FIELDS = ",".join(SPEC.vendor_columns)
ROW_CAP = 5800  # rows one call returns at most


class LimitPricesFetcher(DailyFetcher):
    dataset = "limit_prices"
    spec = SPEC

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        return [
            VendorQuery(q.endpoint, {**q.params, "fields": FIELDS}, symbol=q.symbol)
            for q in super().transform_query(req)
        ]

    def follow_up(self, req: FetchRequest, stage: list[RawResponse]) -> list[VendorQuery]:
        """The next page of every answer that filled the cap."""
        out = []
        for r in stage:
            if len(r.frame) >= ROW_CAP:
                params = {
                    **r.query.params,
                    "offset": int(r.query.params.get("offset", 0)) + ROW_CAP,
                }
                out.append(VendorQuery(r.query.endpoint, params, symbol=r.query.symbol))
        return out


FETCHER = LimitPricesFetcher
