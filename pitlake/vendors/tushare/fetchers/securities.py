"""Tushare `stock_basic` (list_status L, D and P), `namechange` and `suspend_d` → securities.

- `stock_basic` is today's list for one status; list_date, delist_date and list_status come
  only when `fields` names them. Every status is asked, so delisted and paused companies are
  in it (no survivorship).
- `namechange` bounds the announcement date (`start_date`/`end_date` params); a window's
  changes are asked, then the full history of each symbol that changed (its earlier name's
  row gains its end_date then, as a new version). ST intervals are the names that mark one.
- `suspend_d` per session: suspend_type S rows are suspended sessions (R, a resumption, is
  the end, which the next session's absence says); `suspend_timing` is an intraday window.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import ClassVar

import pandas as pd

from pitlake.calendar import beijing, sessions_between
from pitlake.schemas.securities import finish, listing_rows, name_rows, suspension_rows
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.fetching import concat
from pitlake.vendors.parsing import code_text, parse_dates, parse_symbols, text_or_none
from pitlake.vendors.tushare.fetch import VENDOR, TushareFetcher, ymd

STOCK_BASIC = "stock_basic"
NAMECHANGE = "namechange"
SUSPEND = "suspend_d"
BASIC_FIELDS = ("ts_code", "name", "list_status", "list_date", "delist_date")
NAME_FIELDS = ("ts_code", "name", "start_date", "end_date", "ann_date", "change_reason")
SUSPEND_FIELDS = ("ts_code", "trade_date", "suspend_timing", "suspend_type")
LIST_STATUSES = ("L", "D", "P")  # listed, delisted, paused
SUSPENDED = "S"
HISTORY_TAG = "history"  # a symbol's whole name history (a follow-up)
NIGHTLY_LOOKBACK = timedelta(days=30)  # late-entered name changes are still caught
HHMM = re.compile(r"^(\d{1,2}):(\d{2})")
FIRST_YEAR = 1990  # the SSE opened in December 1990


def _kw(endpoint: str) -> dict[str, str]:
    return {"vendor": VENDOR, "endpoint": endpoint}


def _frames(raws: list[RawResponse], endpoint: str) -> pd.DataFrame:
    return concat([r.frame for r in raws if r.query.endpoint == endpoint])


def listings(raws: list[RawResponse]) -> pd.DataFrame:
    raw = _frames(raws, STOCK_BASIC)
    if raw.empty:
        return raw
    kw = _kw(STOCK_BASIC)
    symbols = parse_symbols(raw["ts_code"], vendor=VENDOR)
    keep = symbols.notna() & raw["list_date"].notna()
    raw, symbols = raw[keep], symbols[keep]
    return listing_rows(
        symbols,
        parse_dates(raw["list_date"], column="list_date", **kw),
        parse_dates(raw["delist_date"], column="delist_date", **kw),
        raw["list_status"].map(code_text),
    )


def names(raws: list[RawResponse]) -> pd.DataFrame:
    raw = _frames(raws, NAMECHANGE)
    if raw.empty:
        return raw
    kw = _kw(NAMECHANGE)
    symbols = parse_symbols(raw["ts_code"], vendor=VENDOR)
    raw, symbols = raw[symbols.notna()], symbols[symbols.notna()]
    return name_rows(
        symbols,
        raw["name"].map(text_or_none),
        parse_dates(raw["start_date"], column="start_date", **kw),
        parse_dates(raw["end_date"], column="end_date", **kw),
        parse_dates(raw["ann_date"], column="ann_date", **kw),
        raw["change_reason"].map(text_or_none),
    )


def suspensions(raws: list[RawResponse]) -> pd.DataFrame:
    raw = _frames(raws, SUSPEND)
    if raw.empty:
        return raw
    raw = raw[raw["suspend_type"].map(code_text) == SUSPENDED]
    symbols = parse_symbols(raw["ts_code"], vendor=VENDOR)
    raw, symbols = raw[symbols.notna()], symbols[symbols.notna()]
    start = raw["suspend_timing"].map(intraday_start)
    return suspension_rows(
        symbols,
        parse_dates(raw["trade_date"], column="trade_date", **_kw(SUSPEND)),
        start,
        SUSPENDED,
    )


def intraday_start(timing: object) -> str | None:
    """'10:30-11:30' → '10:30'; none (a whole-session suspension) or another form → None,
    and the suspension is dated by the call auction's open."""
    text = text_or_none(timing)
    if not text:
        return None
    m = HHMM.match(text)
    return f"{int(m.group(1)):02d}:{m.group(2)}" if m else None


class SecuritiesFetcher(TushareFetcher):
    dataset = "securities"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        STOCK_BASIC: BASIC_FIELDS,
        NAMECHANGE: NAME_FIELDS,
        SUSPEND: SUSPEND_FIELDS,
    }
    row_endpoints = (STOCK_BASIC, NAMECHANGE, SUSPEND)

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        calls = [
            VendorQuery(STOCK_BASIC, {"list_status": s, "fields": ",".join(BASIC_FIELDS)})
            for s in LIST_STATUSES
        ]
        if req.trade_date is not None:
            days = [req.trade_date]
            spans = [(req.trade_date - NIGHTLY_LOOKBACK, req.trade_date)]
        else:
            assert req.start is not None and req.end is not None
            days = sessions_between(req.start, req.end)
            # every name announced by the window's end, a year a call (under the row cap)
            spans = [
                (date(y, 1, 1), min(date(y, 12, 31), req.end))
                for y in range(FIRST_YEAR, req.end.year + 1)
            ]
        calls += [
            VendorQuery(
                NAMECHANGE,
                {"start_date": ymd(lo), "end_date": ymd(hi), "fields": ",".join(NAME_FIELDS)},
            )
            for lo, hi in spans
        ]
        calls += [VendorQuery(SUSPEND, {"trade_date": ymd(d)}) for d in days]
        return calls

    def follow_up(self, req: FetchRequest, stage: list[RawResponse]) -> list[VendorQuery]:
        """Nightly: the whole name history of each symbol whose name changed lately (its
        earlier name gains its end_date)."""
        if req.trade_date is None:
            return []
        window = [r for r in stage if r.query.endpoint == NAMECHANGE and not r.query.tag]
        changed = sorted(
            {c for r in window for c in r.frame.get("ts_code", pd.Series(dtype=object)).dropna()}
        )
        return [
            VendorQuery(
                NAMECHANGE, {"ts_code": c, "fields": ",".join(NAME_FIELDS)}, tag=HISTORY_TAG
            )
            for c in changed
        ]

    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        fetched_on = beijing(min(r.fetched_at for r in raws)).date() if raws else None
        if fetched_on is None:
            return finish([], date.min)
        out = finish([listings(raws), names(raws), suspensions(raws)], fetched_on)
        if req.symbols:
            out = out[out["symbol"].isin(set(req.symbols))]
        return out


FETCHER = SecuritiesFetcher
