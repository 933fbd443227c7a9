"""Tushare `new_share` → new_shares: each IPO's subscription day, listing day and issue terms
(docs/vendor-reference.md §2.8; tushare.pro document 123).

`start_date`/`end_date` bound the subscription day (上网发行日期, `ipo_date`). A backfill chunk
is one call over its window; a nightly session asks the NIGHTLY_BEHIND days before it (the
中签率 and the listing day arrive after the subscription) through the NIGHTLY_AHEAD days after
it (the IPOs already priced or scheduled). One call answers at most ROW_CAP rows and Tushare
does not page it: an answer of ROW_CAP rows may be cut short, so it is refused (retryable),
never stored short. Units: price 元, amounts 万股 → shares, funds 亿元 → 元.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import ClassVar

import pandas as pd

from pitlake.errors import VendorError
from pitlake.schemas import get as get_schema
from pitlake.symbols import canonical_many
from pitlake.units import wan_shares_to_shares, yi_yuan_to_yuan
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.fetching import window
from pitlake.vendors.parsing import parse_dates, parse_numbers, parse_symbols, text_or_none
from pitlake.vendors.tushare.fetch import VENDOR, TushareFetcher, ymd

log = logging.getLogger(__name__)

ENDPOINT = "new_share"
COLUMNS = (
    "ts_code",
    "sub_code",
    "name",
    "ipo_date",
    "issue_date",
    "amount",
    "market_amount",
    "price",
    "pe",
    "limit_amount",
    "funds",
    "ballot",
)
ROW_CAP = 2000  # rows per call (document 123: 单次最大2000条)
NIGHTLY_BEHIND = timedelta(days=31)
NIGHTLY_AHEAD = timedelta(days=31)


def share_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """One answer → canonical rows (rows without a subscription day, or not A-shares, are
    dropped and logged)."""
    kw = {"vendor": VENDOR, "endpoint": ENDPOINT}

    def number(col: str) -> pd.Series:
        return parse_numbers(frame[col], column=col, **kw)

    out = pd.DataFrame(index=frame.index)
    out["symbol"] = parse_symbols(frame["ts_code"], vendor=VENDOR)
    out["sub_code"] = frame["sub_code"].map(text_or_none)
    out["name"] = frame["name"].map(text_or_none)
    out["ipo_date"] = parse_dates(frame["ipo_date"], column="ipo_date", **kw)
    out["list_date"] = parse_dates(frame["issue_date"], column="issue_date", **kw)
    out["issue_price"] = number("price")
    out["issue_pe"] = number("pe")
    out["shares_offered"] = wan_shares_to_shares(number("amount"))
    out["shares_online"] = wan_shares_to_shares(number("market_amount"))
    out["subscription_cap"] = wan_shares_to_shares(number("limit_amount"))
    out["funds"] = yi_yuan_to_yuan(number("funds"))
    out["ballot_rate"] = number("ballot")
    undated = out["symbol"].notna() & out["ipo_date"].isna()
    if undated.any():
        log.warning("tushare %s: %d row(s) without ipo_date skipped", ENDPOINT, int(undated.sum()))
    return out[out["symbol"].notna() & ~undated]


class NewSharesFetcher(TushareFetcher):
    dataset = "new_shares"
    required: ClassVar[dict[str, tuple[str, ...]]] = {ENDPOINT: COLUMNS}
    row_endpoints = (ENDPOINT,)

    # step 1: the request → one call over the subscription days
    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        if req.trade_date is not None:
            lo, hi = req.trade_date - NIGHTLY_BEHIND, req.trade_date + NIGHTLY_AHEAD
        else:
            lo, hi = window(req, VENDOR)
        params = {"start_date": ymd(lo), "end_date": ymd(hi), "fields": ",".join(COLUMNS)}
        return [VendorQuery(ENDPOINT, params)]

    # step 3: the answers → canonical rows (step 2, the call, is TushareFetcher.extract)
    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        for r in raws:
            if len(r.frame) >= ROW_CAP:
                raise VendorError(
                    f"{len(r.frame)} rows for {r.query.params}: at the row cap, maybe cut short",
                    vendor=VENDOR,
                    endpoint=ENDPOINT,
                    retryable=True,
                )
        columns = get_schema(self.dataset).columns
        frames = [share_rows(r.frame) for r in raws if not r.frame.empty]
        frames = [f for f in frames if not f.empty]
        if not frames:
            return pd.DataFrame(columns=columns)
        out = pd.concat(frames, ignore_index=True).drop_duplicates("symbol", keep="first")
        if req.symbols:
            out = out[out["symbol"].isin(canonical_many(list(req.symbols)))]
        return out.reindex(columns=columns)


FETCHER = NewSharesFetcher
