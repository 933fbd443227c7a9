"""East Money's limit pools (涨停板行情) → limit_pools: `stock_zt_pool_em` (up),
`stock_zt_pool_dtgc_em` (down), `stock_zt_pool_zbgc_em` (broken), one call each per session.

Read from akshare stock_feature/stock_ztb_em.py: `date` is YYYYMMDD; prices come divided by 1000
into 元; amounts and market values are 元; seal times are `HHMMSS` Beijing wall times (zero
filled). The pools leave ST stocks out (the module's note, line 13). Each pool may be empty on
its own (a session without a limit-down stock), so one empty pool contributes nothing; all three
empty is the session's NO_DATA. East Money keeps the down and broken pools for 30 days only:
akshare refuses an older date (ValueError before any request), which is a non-retryable error
here, never an empty pool.
"""

from __future__ import annotations

from datetime import date
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa

from pitlake.calendar import sessions_between
from pitlake.errors import VendorError
from pitlake.schemas.limit_pools import BROKEN, DOWN, SCHEMA, UP
from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, require, yyyymmdd
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.fetching import canonical_symbols, concat, window
from pitlake.vendors.parsing import (
    parse_numeric,
    parse_session_times,
    symbol_or_none,
    text_or_none,
)

ZT, DT, ZB = "stock_zt_pool_em", "stock_zt_pool_dtgc_em", "stock_zt_pool_zbgc_em"
POOL_OF = {ZT: UP, DT: DOWN, ZB: BROKEN}
# endpoint → {vendor column: canonical column} (numbers, then text; times separately)
NUMBERS = {
    ZT: {
        "最新价": "close",
        "涨跌幅": "pct_chg",
        "成交额": "amount",
        "流通市值": "float_mv",
        "总市值": "total_mv",
        "换手率": "turnover_rate",
        "封板资金": "seal_amount",
        "炸板次数": "breaks",
        "连板数": "consecutive",
    },
    DT: {
        "最新价": "close",
        "涨跌幅": "pct_chg",
        "成交额": "amount",
        "流通市值": "float_mv",
        "总市值": "total_mv",
        "换手率": "turnover_rate",
        "封单资金": "seal_amount",
        "开板次数": "breaks",
        "连续跌停": "consecutive",
    },
    ZB: {
        "最新价": "close",
        "涨停价": "limit_price",
        "涨跌幅": "pct_chg",
        "成交额": "amount",
        "流通市值": "float_mv",
        "总市值": "total_mv",
        "换手率": "turnover_rate",
        "炸板次数": "breaks",
    },
}
TEXTS = {
    ZT: {"名称": "name", "涨停统计": "limit_stat", "所属行业": "industry"},
    DT: {"名称": "name", "所属行业": "industry"},
    ZB: {"名称": "name", "涨停统计": "limit_stat", "所属行业": "industry"},
}
TIMES = {
    ZT: {"首次封板时间": "first_sealed_at", "最后封板时间": "last_sealed_at"},
    DT: {"最后封板时间": "last_sealed_at"},
    ZB: {"首次封板时间": "first_sealed_at"},
}
REQUIRED = {ep: ("代码", *NUMBERS[ep], *TEXTS[ep], *TIMES[ep]) for ep in POOL_OF}
TOO_OLD = "只能获取最近 30 个交易日"  # akshare's refusal of an older date (stock_ztb_em.py:366-369, 448-451)


def count_first(stat: str | None) -> str | None:
    """akshare writes 涨停统计 as `days/ct` (stock_ztb_em.py:69-73); canonical is Tushare's
    `N/T` (N limit-ups in T sessions)."""
    if stat is None or "/" not in stat:
        return stat
    days, count = stat.split("/", 1)
    return f"{count}/{days}"


def pool_rows(raw: RawResponse) -> pd.DataFrame:
    """One pool's answer → canonical rows of that pool and session."""
    ep = raw.query.endpoint
    frame = require(raw.frame, REQUIRED[ep], ep)
    kw = {"vendor": VENDOR, "endpoint": ep}
    day = date.fromisoformat(raw.query.tag)
    out = pd.DataFrame(index=frame.index)
    out["symbol"] = [symbol_or_none(c) for c in frame["代码"]]
    out["trade_date"] = day
    out["pool"] = POOL_OF[ep]
    for col, canon in TEXTS[ep].items():
        out[canon] = frame[col].map(text_or_none)
    if "limit_stat" in out.columns:
        out["limit_stat"] = out["limit_stat"].map(count_first)
    types = SCHEMA.arrow_schema
    for col, canon in NUMBERS[ep].items():
        out[canon] = parse_numeric(frame[col], types.field(canon).type, column=col, **kw)
    days = pd.Series([day] * len(frame), index=frame.index)
    for col, canon in TIMES[ep].items():
        out[canon] = parse_session_times(days, frame[col], column=col, **kw)
    for f in SCHEMA.fields:  # what this pool does not give, as typed nulls
        if f.name not in out.columns:
            out[f.name] = _nulls(f.type, len(out), out.index)
    return out[out["symbol"].notna()]


def _nulls(kind: pa.DataType, n: int, index: pd.Index) -> pd.Series:
    if pa.types.is_timestamp(kind):
        return pd.Series(pd.NaT, index=index, dtype="datetime64[us, UTC]")
    if pa.types.is_floating(kind):
        return pd.Series(np.nan, index=index, dtype="float64")
    return pd.Series([None] * n, index=index, dtype=object)


class LimitPoolsFetcher(AkshareFetcher):
    dataset = "limit_pools"
    required: ClassVar[dict[str, tuple[str, ...]]] = REQUIRED
    optional_endpoints: ClassVar[frozenset[str]] = frozenset(POOL_OF)

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        first, last = window(req)
        days = [first] if first == last else sessions_between(first, last)
        return [
            VendorQuery(ep, {"date": yyyymmdd(d)}, tag=d.isoformat())
            for d in days
            for ep in POOL_OF
        ]

    def extract(self, query: VendorQuery) -> pd.DataFrame:
        try:
            return super().extract(query)
        except VendorError as e:
            if TOO_OLD in str(e.__cause__ or ""):
                raise VendorError(
                    f"East Money keeps the {POOL_OF[query.endpoint]} pool for the last 30 "
                    f"sessions only; {query.params['date']} is older",
                    vendor=VENDOR,
                    endpoint=query.endpoint,
                    retryable=False,
                ) from e
            raise

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        rows = concat([pool_rows(r) for r in raws])
        if rows.empty:
            return rows
        if req.symbols:
            rows = rows[rows["symbol"].isin(canonical_symbols(req.symbols))]
        return rows.drop_duplicates(subset=["symbol", "trade_date", "pool"]).reset_index(drop=True)


FETCHER = LimitPoolsFetcher
