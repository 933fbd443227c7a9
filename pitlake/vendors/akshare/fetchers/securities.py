"""AkShare's exchange lists, today's ST list and the suspensions by date → securities.

- Listings: `stock_info_sh_name_code` (主板A股, 科创板), `stock_info_sz_name_code` (A股列表),
  `stock_info_bj_name_code`, each with its listing date: open-ended listing rows. Delisted
  companies: `stock_info_sh_delist` (全部; its 暂停上市日期 is the DELIST_DATE) and
  `stock_info_sz_delist` (终止上市公司): closed listing rows. (`stock_info_a_code_name`
  calls the three name-code lists and keeps only code and name, so pitlake calls them.)
- Names: the lists give today's short name only, so each is a `name` observation of the
  fetch's Beijing day (`undated`, first_seen), never back-dated to the listing.
- ST: `stock_zh_a_st_em` is today's risk-warning board: an `st` observation of the fetch's
  day (first_seen), never back-dated.
- Suspensions: `stock_tfp_em(date)` lists the stocks suspended on that date: one suspended
  session each (public by the call auction's open; 停牌原因 is the reason).
"""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from pitlake.calendar import beijing, sessions_between
from pitlake.schemas.securities import (
    NAME,
    ST,
    finish,
    listing_rows,
    observed_rows,
    suspension_rows,
)
from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, yyyymmdd
from pitlake.vendors.akshare.fetch import require as require_columns
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.fetching import window
from pitlake.vendors.parsing import parse_dates, symbol_or_none, text_or_none

SH_LIST = "stock_info_sh_name_code"
SZ_LIST = "stock_info_sz_name_code"
BJ_LIST = "stock_info_bj_name_code"
SH_DELIST = "stock_info_sh_delist"
SZ_DELIST = "stock_info_sz_delist"
ST_BOARD = "stock_zh_a_st_em"
SUSPENDED = "stock_tfp_em"
# endpoint → (its parameters, code column, name column, listing date column, delisting date
# column or None)
LISTS: dict[str, tuple[list[dict[str, str]], str, str, str, str | None]] = {
    SH_LIST: (
        [{"symbol": "主板A股"}, {"symbol": "科创板"}],
        "证券代码",
        "证券简称",
        "上市日期",
        None,
    ),
    SZ_LIST: ([{"symbol": "A股列表"}], "A股代码", "A股简称", "A股上市日期", None),
    BJ_LIST: ([{}], "证券代码", "证券简称", "上市日期", None),
    SH_DELIST: ([{"symbol": "全部"}], "公司代码", "公司简称", "上市日期", "暂停上市日期"),
    SZ_DELIST: ([{"symbol": "终止上市公司"}], "证券代码", "证券简称", "上市日期", "终止上市日期"),
}
ST_COLUMNS = ("代码", "名称")
SUSPENDED_COLUMNS = ("代码", "名称", "停牌时间", "停牌原因")


def _code(v: object) -> str | None:
    """Exchange lists give bare codes (an int where a spreadsheet dropped the zeros)."""
    text = text_or_none(v)
    if text is None:
        return None
    if text.endswith(".0"):
        text = text[:-2]
    return symbol_or_none(text.zfill(6)) if text.isdigit() else symbol_or_none(text)


def _listings(raws: list[RawResponse], day: object) -> list[pd.DataFrame]:
    out = []
    for r in raws:
        spec = LISTS.get(r.query.endpoint)
        if spec is None or r.frame.empty:
            continue
        _, code, name, listed, delisted = spec
        kw = {"vendor": VENDOR, "endpoint": r.query.endpoint}
        frame = r.frame
        symbols = frame[code].map(_code)
        keep = symbols.notna()
        frame, symbols = frame[keep], symbols[keep]
        starts = parse_dates(frame[listed], column=listed, **kw)
        has = starts.notna()
        frame, symbols, starts = frame[has], symbols[has], starts[has]
        ends = (
            parse_dates(frame[delisted], column=delisted, **kw)
            if delisted
            else pd.Series([None] * len(frame), index=frame.index)
        )
        out.append(listing_rows(symbols, starts, ends, "D" if delisted else "L"))
        if not delisted:  # today's name, seen today
            out.append(observed_rows(symbols, NAME, day, names=frame[name].map(text_or_none)))
    return out


def _st(raws: list[RawResponse], day: object) -> list[pd.DataFrame]:
    out = []
    for r in raws:
        if r.query.endpoint != ST_BOARD or r.frame.empty:
            continue
        symbols = r.frame["代码"].map(_code)
        names = r.frame["名称"].map(text_or_none)
        keep = symbols.notna()
        kinds = names[keep].map(lambda n: "*ST" if n and "*ST" in n else "ST")
        out.append(observed_rows(symbols[keep], ST, day, names=names[keep], reasons=kinds))
    return out


def _suspensions(raws: list[RawResponse]) -> list[pd.DataFrame]:
    out = []
    for r in raws:
        if r.query.endpoint != SUSPENDED or r.frame.empty:
            continue
        asked = pd.Timestamp(r.query.params["date"]).date()
        symbols = r.frame["代码"].map(_code)
        keep = symbols.notna()
        n = int(keep.sum())
        out.append(
            suspension_rows(
                symbols[keep],
                pd.Series([asked] * n, index=symbols[keep].index),
                None,
                r.frame.loc[keep, "停牌原因"].map(text_or_none),
            )
        )
    return out


class SecuritiesFetcher(AkshareFetcher):
    dataset = "securities"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        **{
            ep: (code, name, listed, *([d] if d else []))
            for ep, (_, code, name, listed, d) in LISTS.items()
        },
        ST_BOARD: ST_COLUMNS,
        SUSPENDED: SUSPENDED_COLUMNS,
    }
    # Days without a suspension and an empty delisting list are "no rows" for that call only.
    optional_endpoints = frozenset({SUSPENDED, SH_DELIST, SZ_DELIST, ST_BOARD, BJ_LIST})

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        first, last = window(req)
        calls = [VendorQuery(ep, params) for ep, (many, *_) in LISTS.items() for params in many]
        calls.append(VendorQuery(ST_BOARD, {}))
        days = [req.trade_date] if req.trade_date else sessions_between(first, last)
        calls += [VendorQuery(SUSPENDED, {"date": yyyymmdd(d)}) for d in days]
        return calls

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        for r in raws:
            require_columns(r.frame, self.required[r.query.endpoint], r.query.endpoint)
        if not raws:
            return finish([], req.first_day)  # type: ignore[arg-type]
        day = beijing(min(r.fetched_at for r in raws)).date()
        out = finish([*_listings(raws, day), *_st(raws, day), *_suspensions(raws)], day)
        if req.symbols:
            out = out[out["symbol"].isin(set(req.symbols))]
        return out


FETCHER = SecuritiesFetcher
