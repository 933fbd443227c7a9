"""Tushare `limit_list_d` → limit_pools: the limit-up (U), limit-down (D) and broken (Z) lists.

One call per session for all three lists; an answer that fills the 2500-row cap (tushare.pro
document 298) is asked again one list at a time (`limit_type`), and those answers replace it. The list leaves ST stocks out (不提供ST股票
的统计). Amounts and market values are taken as 元 (the document states no unit [UNVERIFIED]);
`first_time`/`last_time` are Beijing wall times of the session (`HHMMSS`), stored as instants;
`limit_amount` (板上成交金额) is not kept.
"""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from pitlake.schemas import get as get_schema
from pitlake.schemas.limit_pools import BROKEN, DOWN, UP
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.parsing import (
    code_text,
    garbled,
    parse_dates,
    parse_numeric,
    parse_session_times,
    parse_symbols,
    text_or_none,
)
from pitlake.vendors.tushare.fetch import VENDOR, TushareFetcher, trade_days, ymd

ENDPOINT = "limit_list_d"
POOL_OF = {"U": UP, "D": DOWN, "Z": BROKEN}  # limit_type / `limit` → pool
ROW_CAP = 2500  # rows one call returns at most
NUMBERS = {
    "close": "close",
    "pct_chg": "pct_chg",
    "amount": "amount",
    "float_mv": "float_mv",
    "total_mv": "total_mv",
    "turnover_ratio": "turnover_rate",
    "fd_amount": "seal_amount",
    "open_times": "breaks",
    "limit_times": "consecutive",
}
TIMES = {"first_time": "first_sealed_at", "last_time": "last_sealed_at"}
COLUMNS = ("ts_code", "trade_date", "limit", "name", "industry", "up_stat", *NUMBERS, *TIMES)


class LimitPoolsFetcher(TushareFetcher):
    dataset = "limit_pools"
    required: ClassVar[dict[str, tuple[str, ...]]] = {ENDPOINT: COLUMNS}
    row_endpoints = (ENDPOINT,)

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        days = trade_days(req)
        return [VendorQuery(ENDPOINT, {"trade_date": ymd(d)}) for d in days]

    def follow_up(self, req: FetchRequest, stage: list[RawResponse]) -> list[VendorQuery]:
        """A whole session's answer at the cap may be cut: ask it one list at a time."""
        return [
            VendorQuery(ENDPOINT, {**r.query.params, "limit_type": t}, tag=POOL_OF[t])
            for r in stage
            if "limit_type" not in r.query.params and len(r.frame) >= ROW_CAP
            for t in POOL_OF
        ]

    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        columns = get_schema(req.dataset).columns
        split = {r.query.params["trade_date"] for r in raws if "limit_type" in r.query.params}
        frames = [
            r.frame
            for r in raws
            if not r.frame.empty
            and ("limit_type" in r.query.params or r.query.params["trade_date"] not in split)
        ]
        if not frames:
            return pd.DataFrame(columns=columns)
        raw = pd.concat(frames, ignore_index=True)
        kw = {"vendor": VENDOR, "endpoint": ENDPOINT}
        limit = raw["limit"].map(code_text)
        unknown = ~limit.isin(list(POOL_OF))
        if unknown.any():
            raise garbled(f"limit {raw['limit'][unknown].iloc[0]!r} is not U, D or Z", **kw)
        out = pd.DataFrame(index=raw.index)
        out["symbol"] = parse_symbols(raw["ts_code"], vendor=VENDOR)
        out["trade_date"] = parse_dates(raw["trade_date"], column="trade_date", **kw)
        out["pool"] = limit.map(POOL_OF)
        out["name"] = raw["name"].map(text_or_none)
        out["industry"] = raw["industry"].map(text_or_none)
        out["limit_stat"] = raw["up_stat"].map(text_or_none)
        types = get_schema(req.dataset).arrow_schema
        for vendor_col, col in NUMBERS.items():
            kind = types.field(col).type
            out[col] = parse_numeric(raw[vendor_col], kind, column=vendor_col, **kw)
        for vendor_col, col in TIMES.items():
            out[col] = parse_session_times(
                out["trade_date"], raw[vendor_col], column=vendor_col, **kw
            )
        out = out[out["symbol"].notna()]
        if req.symbols:
            out = out[out["symbol"].isin(set(req.symbols))]
        return out.drop_duplicates(subset=["symbol", "trade_date", "pool"]).reindex(columns=columns)


FETCHER = LimitPoolsFetcher
