"""AkShare `stock_zh_index_daily` (Sina) → index_quotes, one call per index.

The symbol is Sina's form (`sh000300`: the exchange, lower case, then the code); the answer is
the index's whole history (date, open, high, low, close, volume), cut here to the window.
Volume is in shares; Sina gives no amount, pre_close or pct_chg.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from pitlake.schemas.index_quotes import asked
from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, require
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.fetching import concat, window
from pitlake.vendors.parsing import parse_numbers, parse_required_dates

INDEX_BARS = "stock_zh_index_daily"
INDEX_BAR_COLUMNS = {
    "date": "trade_date",
    "open": "open",
    "high": "high",
    "low": "low",
    "close": "close",
    "volume": "volume",  # shares
}


def sina_symbol(index: str) -> str:
    """`000300.SH` → `sh000300`."""
    code, exchange = index.split(".")
    return exchange.lower() + code


def index_bars(req: FetchRequest, raw: RawResponse) -> pd.DataFrame:
    frame, symbol = raw.frame, raw.query.symbol
    require(frame, INDEX_BAR_COLUMNS, INDEX_BARS)
    kw = {"vendor": VENDOR, "endpoint": INDEX_BARS}
    out = pd.DataFrame(
        {
            canon: parse_numbers(frame[col], column=col, **kw)
            for col, canon in INDEX_BAR_COLUMNS.items()
            if canon != "trade_date"
        }
    )
    out.insert(0, "trade_date", parse_required_dates(frame["date"], column="date", **kw))
    out.insert(0, "symbol", symbol)
    for missing in ("pre_close", "amount", "pct_chg"):
        out[missing] = np.nan
    first, last = window(req)
    return out[out["trade_date"].map(lambda d: first <= d <= last).astype(bool)]


class IndexQuotesFetcher(AkshareFetcher):
    dataset = "index_quotes"
    required: ClassVar[dict[str, tuple[str, ...]]] = {INDEX_BARS: tuple(INDEX_BAR_COLUMNS)}

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        window(req)  # a session or a range is required
        return [
            VendorQuery(INDEX_BARS, {"symbol": sina_symbol(s)}, symbol=s)
            for s in asked(req.symbols)
        ]

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return concat([index_bars(req, r) for r in raws])


FETCHER = IndexQuotesFetcher
