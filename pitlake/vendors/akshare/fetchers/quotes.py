"""AkShare bars → quotes, per symbol, East Money → Sina → Tencent (docs/vendor-reference.md
§2.1–2.3).

The first sub-source that answers with usable bars serves the symbol; units are brought to
shares, 元 and percent (East Money volume is 手, Sina/Tencent turnover a fraction, and akshare
leaves Tencent's `sz000` main-board volume in 手). None of the three gives pre_close.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from pitlake import units
from pitlake.errors import NoMarketDataError, VendorError, VendorNotConfiguredError
from pitlake.symbols import to_vendor
from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, per_symbol, require, yyyymmdd
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.fetching import concat, window
from pitlake.vendors.parsing import check_unit_scale, parse_numbers, parse_required_dates

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

EM_BARS = "stock_zh_a_hist"
SINA_BARS = "stock_zh_a_daily"
TENCENT_BARS = "stock_zh_a_hist_tx"
BAR_CHAIN = (EM_BARS, SINA_BARS, TENCENT_BARS)  # per-symbol fallback order

# Tencent: akshare scales 手→股 for every symbol except these prefixes (meant for STAR shares and
# indices). `sz000` also matches Shenzhen main-board *stocks*, whose volume stays in 手.
TENCENT_VOLUME_IN_LOTS = ("sz000",)

EM_BAR_COLUMNS = {
    "日期": "trade_date",
    "开盘": "open",
    "最高": "high",
    "最低": "low",
    "收盘": "close",
    "成交量": "volume",  # 手
    "成交额": "amount",  # 元
    "涨跌幅": "pct_chg",  # percent
    "换手率": "turnover_rate",  # percent
}
SINA_BAR_COLUMNS = {
    "date": "trade_date",
    "open": "open",
    "high": "high",
    "low": "low",
    "close": "close",
    "volume": "volume",  # shares
    "amount": "amount",  # 元
    "turnover": "turnover_rate",  # fraction
}
TENCENT_BAR_COLUMNS = SINA_BAR_COLUMNS  # same names; volume has the sz000 bug
BAR_COLUMNS = {
    EM_BARS: EM_BAR_COLUMNS,
    SINA_BARS: SINA_BAR_COLUMNS,
    TENCENT_BARS: TENCENT_BAR_COLUMNS,
}


def bar_query(endpoint: str, symbol: str, req: FetchRequest) -> VendorQuery:
    first, last = window(req)
    dates = {"start_date": yyyymmdd(first), "end_date": yyyymmdd(last)}
    if endpoint == EM_BARS:
        params = {"symbol": to_vendor(symbol, "bare"), "period": "daily", **dates}
    elif endpoint == SINA_BARS:
        params = {"symbol": to_vendor(symbol, "sina"), **dates}
    else:
        params = {"symbol": to_vendor(symbol, "tencent"), **dates}
    return VendorQuery(endpoint, {**params, "adjust": ""}, symbol=symbol)


def bars(req: FetchRequest, raw: RawResponse) -> pd.DataFrame:
    """One sub-source's answer → canonical quotes rows of the window (units checked)."""
    import pandas as pd

    endpoint, frame, symbol = raw.query.endpoint, raw.frame, raw.query.symbol
    columns = BAR_COLUMNS[endpoint]
    require(frame, columns, endpoint)
    kw = {"vendor": VENDOR, "endpoint": endpoint}
    date_col = next(c for c, canon in columns.items() if canon == "trade_date")
    out = pd.DataFrame(
        {
            canon: parse_numbers(frame[col], column=col, **kw)
            for col, canon in columns.items()
            if canon != "trade_date"
        }
    )
    out.insert(0, "trade_date", parse_required_dates(frame[date_col], column=date_col, **kw))
    out.insert(0, "symbol", symbol)
    out["pre_close"] = np.nan  # none of the three gives the ex-rights reference price
    if endpoint == EM_BARS:
        out["volume"] = units.lots_to_shares(out["volume"])
    else:
        out["turnover_rate"] = units.fraction_to_percent(out["turnover_rate"])
        if endpoint == SINA_BARS:
            out["pct_chg"] = np.nan
    if endpoint == TENCENT_BARS:
        out["pct_chg"] = np.nan
        if to_vendor(symbol, "tencent").startswith(TENCENT_VOLUME_IN_LOTS):
            out["volume"] = units.lots_to_shares(out["volume"])
    first, last = window(req)
    out = out[out["trade_date"].map(lambda d: first <= d <= last).astype(bool)]
    vwap = out["amount"] / out["volume"].where(out["volume"] > 0)
    check_unit_scale(vwap / out["close"], f"{symbol} amount ÷ volume vs close", **kw)
    return out


class QuotesFetcher(AkshareFetcher):
    dataset = "quotes"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        ep: tuple(cols) for ep, cols in BAR_COLUMNS.items()
    }
    checks_units = True

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        return [bar_query(EM_BARS, s, req) for s in per_symbol(req)]

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        return [r for q in self.transform_query(req) if (r := self.serve(q, req, fetched_at))]

    def serve(
        self, primary: VendorQuery, req: FetchRequest, fetched_at: datetime
    ) -> RawResponse | None:
        """The first sub-source that answers with usable bars serves the symbol.

        No rows, a column-less frame, a drifted schema or a typed failure → the next one.
        All "no rows" (or not configured) → the symbol has no bars (None). Any real failure
        with no sub-source serving → that failure propagates: rows are never silently partial.
        """
        assert primary.symbol is not None
        errors: list[VendorError] = []
        for endpoint in BAR_CHAIN:
            q = (
                primary
                if endpoint == primary.endpoint
                else bar_query(endpoint, primary.symbol, req)
            )
            try:
                frame = self.extract(q)
                require(frame, BAR_COLUMNS[endpoint], endpoint)
                if frame.empty:
                    raise NoMarketDataError(
                        f"no bars for {q.params}", vendor=VENDOR, endpoint=endpoint
                    )
                bars(req, RawResponse(VENDOR, q, frame, fetched_at))  # units plausible
            except VendorError as e:
                log.info(
                    "akshare %s %s failed (%s); trying the next source",
                    endpoint,
                    primary.symbol,
                    type(e).__name__,
                )
                errors.append(e)
                continue
            return RawResponse(VENDOR, q, frame, fetched_at)
        failures = [
            e for e in errors if not isinstance(e, NoMarketDataError | VendorNotConfiguredError)
        ]
        if failures:
            raise failures[-1]
        if all(isinstance(e, VendorNotConfiguredError) for e in errors):
            raise errors[-1]
        return None

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return concat([bars(req, r) for r in raws])


FETCHER = QuotesFetcher
