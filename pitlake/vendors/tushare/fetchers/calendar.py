"""Tushare `trade_cal` → calendar: every day of the window, open or not
(docs/vendor-reference.md §3.1)."""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from pitlake.schemas import get as get_schema
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.fetching import window
from pitlake.vendors.parsing import code_text, garbled, parse_dates
from pitlake.vendors.tushare.fetch import VENDOR, TushareFetcher, ymd

ENDPOINT = "trade_cal"
EXCHANGE_MIC = {"SSE": "XSHG", "SZSE": "XSHE"}
CALENDAR_EXCHANGE = "SSE"


class CalendarFetcher(TushareFetcher):
    dataset = "calendar"
    required: ClassVar[dict[str, tuple[str, ...]]] = {ENDPOINT: ("cal_date", "is_open")}
    row_endpoints = (ENDPOINT,)

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        start, end = window(req, VENDOR)
        params = {"exchange": CALENDAR_EXCHANGE, "start_date": ymd(start), "end_date": ymd(end)}
        return [VendorQuery(ENDPOINT, params)]

    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return calendar_rows(req, raws)


def _open_flag(v: object) -> bool | None:
    if isinstance(v, bool):
        return v
    return {"1": True, "0": False, "True": True, "False": False}.get(code_text(v) or "")


def calendar_rows(req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
    columns = get_schema(req.dataset).columns
    frames = [r.frame for r in raws if not r.frame.empty]
    if not frames:
        return pd.DataFrame(columns=columns)
    raw = pd.concat(frames, ignore_index=True)
    ep = ENDPOINT
    kw = {"vendor": VENDOR, "endpoint": ep}
    exchange = (
        raw["exchange"].map(code_text)
        if "exchange" in raw.columns
        else pd.Series(CALENDAR_EXCHANGE, index=raw.index)
    )
    mic = exchange.map(EXCHANGE_MIC)
    if mic.isna().any():
        raise garbled(f"exchange {exchange[mic.isna()].iloc[0]!r} is not SSE/SZSE", **kw)
    is_open = raw["is_open"].map(_open_flag)
    if is_open.isna().any():
        raise garbled(f"is_open {raw['is_open'][is_open.isna()].iloc[0]!r} is not 0/1", **kw)
    out = pd.DataFrame(
        {
            "exchange": mic,
            "date": parse_dates(raw["cal_date"], column="cal_date", **kw),
            "is_open": is_open.astype(bool),
        }
    )
    if out["date"].isna().any():
        raise garbled("a row has no cal_date", **kw)
    return out.reindex(columns=columns)


FETCHER = CalendarFetcher
