"""AkShare csindex lists → index_members: an index's *current* members, with weights
(`index_stock_cons_weight_csindex`, the closeweight file) or, when that file has none, without
(`index_stock_cons_csindex`, the cons file). Both are Excel files from oss-ch.csindex.com.cn
(akshare/index/index_cons.py:126-193) with 日期, 指数代码, 成分券代码, 交易所 (and 权重, percent).

They say nothing of when the list took effect, so a list is dated by the Beijing day we
fetched it and known from the fetch (`first_seen`, `current_list`), never back-dated to the
日期 the file states (kept as `vendor_date`). A window that does not hold the fetch's day
asks about another day's list, which this vendor cannot answer: no rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from pitlake.calendar import BEIJING
from pitlake.errors import NoMarketDataError
from pitlake.schemas.index_members import asked
from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, require
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.fetching import concat, window
from pitlake.vendors.parsing import garbled, parse_dates, parse_numbers, parse_symbols

if TYPE_CHECKING:
    import pandas as pd

WEIGHTS = "index_stock_cons_weight_csindex"
CONS = "index_stock_cons_csindex"
CONS_COLUMNS = ("日期", "指数代码", "成分券代码", "交易所")
WEIGHT_COLUMNS = (*CONS_COLUMNS, "权重")
EXCHANGES = {"上海证券交易所": "SH", "深圳证券交易所": "SZ", "北京证券交易所": "BJ"}


def members(raw: RawResponse) -> pd.DataFrame:
    """One index's list → canonical rows, dated by the fetch's Beijing day."""
    import pandas as pd

    endpoint, index = raw.query.endpoint, raw.query.symbol
    assert index is not None
    frame = require(raw.frame, WEIGHT_COLUMNS if endpoint == WEIGHTS else CONS_COLUMNS, endpoint)
    kw = {"vendor": VENDOR, "endpoint": endpoint}
    stated = frame["指数代码"].astype(str).str.strip()
    if not (stated == index.split(".")[0]).all():
        raise garbled(f"a list of {stated.iloc[0]!r} answered for {index}", **kw)
    exchange = frame["交易所"].map(lambda v: EXCHANGES.get(str(v).strip()))
    if exchange.isna().any():
        raise garbled(
            f"交易所 {frame['交易所'][exchange.isna()].iloc[0]!r} is not an A-share exchange", **kw
        )
    codes = frame["成分券代码"].astype(str).str.strip().str.zfill(6) + "." + exchange
    weight = (
        parse_numbers(frame["权重"], column="权重", **kw)
        if "权重" in frame.columns
        else pd.Series(np.nan, index=frame.index)
    )
    out = pd.DataFrame(
        {
            "index_code": index,
            "trade_date": raw.fetched_at.astimezone(BEIJING).date(),
            "symbol": parse_symbols(codes, vendor=VENDOR),
            "weight": weight.astype("float64"),
            "current_list": True,
            "vendor_date": parse_dates(frame["日期"], column="日期", **kw),
        }
    )
    return out[out["symbol"].notna()]


class IndexMembersFetcher(AkshareFetcher):
    dataset = "index_members"
    required: ClassVar[dict[str, tuple[str, ...]]] = {WEIGHTS: WEIGHT_COLUMNS, CONS: CONS_COLUMNS}

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        window(req)  # a session or a range is required
        return [
            VendorQuery(WEIGHTS, {"symbol": s.split(".")[0]}, symbol=s) for s in asked(req.symbols)
        ]

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        first, last = window(req)
        today = fetched_at.astimezone(BEIJING).date()
        if not first <= today <= last:
            raise NoMarketDataError(
                f"only the current lists (of {today}), not of {first}..{last}",
                vendor=VENDOR,
                endpoint=WEIGHTS,
            )
        raws = []
        for q in self.transform_query(req):
            got = self.call_all([q], fetched_at)  # an index without a weights file: no rows
            if not got or got[0].frame.empty:
                got = self.call_all([VendorQuery(CONS, q.params, symbol=q.symbol)], fetched_at)
            raws += got
        return raws

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return concat([members(r) for r in raws])


FETCHER = IndexMembersFetcher
