"""Baostock daily bars → quotes, per symbol (docs/vendor-reference.md, Baostock §B.2).

`query_history_k_data_plus(code, fields, start_date, end_date, frequency="d", adjustflag="3")`:
unadjusted prices (元), volume in shares, amount in 元, pctChg and turn in percent, preclose the
exchange's reference price. Suspended sessions (tradestatus "0") come as rows with no trade;
they are dropped, as the other vendors send no bar for them. Amount ÷ volume is checked
against the close (a unit slip is an error, never data).
"""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from pitlake.vendors.baostock.fetch import (
    VENDOR,
    BaostockFetcher,
    bs_code,
    bs_date,
    per_symbol,
    require,
)
from pitlake.vendors.baostock.fields import (
    ADJUST_NONE,
    FREQUENCY_DAILY,
    K_COLUMNS,
    K_FIELDS,
    TRADING,
)
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.fetching import concat, window
from pitlake.vendors.parsing import check_unit_scale, garbled, parse_numbers, parse_required_dates

ENDPOINT = "query_history_k_data_plus"
REQUIRED = (*K_COLUMNS, "tradestatus")


def bars(req: FetchRequest, raw: RawResponse) -> pd.DataFrame:
    frame = require(raw.frame, REQUIRED, ENDPOINT)
    kw = {"vendor": VENDOR, "endpoint": ENDPOINT}
    status = frame["tradestatus"].astype("string").str.strip()
    odd = ~status.isin(["0", "1"])
    if odd.any():
        raise garbled(f"tradestatus {frame['tradestatus'][odd].iloc[0]!r} is not 0 or 1", **kw)
    frame = frame[(status == TRADING).to_numpy()]
    out = pd.DataFrame(
        {
            canon: parse_numbers(frame[col], column=col, **kw)
            for col, canon in K_COLUMNS.items()
            if canon != "trade_date"
        },
        index=frame.index,
    )
    out.insert(0, "trade_date", parse_required_dates(frame["date"], column="date", **kw))
    out.insert(0, "symbol", raw.query.symbol)
    first, last = window(req)
    out = out[out["trade_date"].map(lambda d: first <= d <= last).astype(bool)]
    vwap = out["amount"] / out["volume"].where(out["volume"] > 0)
    check_unit_scale(vwap / out["close"], f"{raw.query.symbol} amount ÷ volume vs close", **kw)
    return out.reset_index(drop=True)


class QuotesFetcher(BaostockFetcher):
    dataset = "quotes"
    required: ClassVar[dict[str, tuple[str, ...]]] = {ENDPOINT: REQUIRED}
    checks_units = True

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        first, last = window(req)
        return [
            VendorQuery(
                ENDPOINT,
                {
                    "code": bs_code(s),
                    "fields": ",".join(K_FIELDS),
                    "start_date": bs_date(first),
                    "end_date": bs_date(last),
                    "frequency": FREQUENCY_DAILY,
                    "adjustflag": ADJUST_NONE,
                },
                symbol=s,
            )
            for s in per_symbol(req)
        ]

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return concat([bars(req, r) for r in raws])


FETCHER = QuotesFetcher
