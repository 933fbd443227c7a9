"""Tushare `top_list` (+ `top_inst` seats) → dragon_tiger (docs/vendor-reference.md §6.3).

One `top_list` call per session; `top_inst` (5000 points) adds each listing's seats, and a
token without that right still stores the listings (seats null).
"""

from __future__ import annotations

from datetime import date
from typing import ClassVar

import pandas as pd

from pitlake.schemas import get as get_schema
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery, json_cell, json_text
from pitlake.vendors.parsing import (
    code_text,
    garbled,
    is_missing,
    parse_dates,
    parse_numbers,
    parse_symbols,
    text_or_none,
)
from pitlake.vendors.tushare.fetch import VENDOR, TushareFetcher, trade_days, ymd

TOP_LIST = "top_list"
TOP_INST = "top_inst"
SEATS_TAG = "seats"  # top_inst: optional enrichment (5000 points)
SEAT_SIDES = {"0": "buy", "1": "sell"}  # top_inst.side: '0' top-5 buyers, '1' top-5 sellers

TOP_LIST_PLAIN = {
    "name": "name",
    "close": "close",
    "pct_change": "pct_chg",
    "turnover_rate": "turnover_rate",
}
TOP_LIST_AMOUNTS = {
    "l_buy": "buy_amount",
    "l_sell": "sell_amount",
    "net_amount": "net_buy",
    "l_amount": "billboard_amount",
    "amount": "market_amount",
    "float_values": "float_mv",
}

# top_list amounts: the doc states no unit; third-party schemas agree they are 元 [UNVERIFIED,
# docs/vendor-reference.md §6.3]. top_inst buy/sell/net_buy are documented as 元.


def top_list_amount_to_yuan(v: pd.Series) -> pd.Series:
    """top_list amounts are taken to be 元 already (see above): no conversion."""
    return v


class DragonTigerFetcher(TushareFetcher):
    dataset = "dragon_tiger"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        TOP_LIST: ("ts_code", "trade_date", "reason", *TOP_LIST_PLAIN, *TOP_LIST_AMOUNTS),
        TOP_INST: ("ts_code", "trade_date", "reason", "exalter", "side", "buy", "sell", "net_buy"),
    }
    row_endpoints = (TOP_LIST,)
    enrichment_endpoints = frozenset({TOP_INST})

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        days = trade_days(req)
        out = []
        for d in days:
            out.append(VendorQuery(TOP_LIST, {"trade_date": ymd(d)}))
            out.append(VendorQuery(TOP_INST, {"trade_date": ymd(d)}, tag=SEATS_TAG))
        return out

    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return dragon_tiger_rows(req, raws)


def dragon_tiger_rows(req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
    columns = get_schema(req.dataset).columns
    lists = [r.frame for r in raws if r.query.endpoint == TOP_LIST and not r.frame.empty]
    if not lists:
        return pd.DataFrame(columns=columns)
    raw = pd.concat(lists, ignore_index=True).drop_duplicates()
    ep = TOP_LIST
    kw = {"vendor": VENDOR, "endpoint": ep}
    out = pd.DataFrame(index=raw.index)
    out["symbol"] = parse_symbols(raw["ts_code"], vendor=VENDOR)
    out["trade_date"] = parse_dates(raw["trade_date"], column="trade_date", **kw)
    out["reason"] = raw["reason"].map(text_or_none)
    out["name"] = raw["name"].map(lambda v: None if is_missing(v) else str(v))
    for vendor_col, col in TOP_LIST_PLAIN.items():
        if col != "name":
            out[col] = parse_numbers(raw[vendor_col], column=vendor_col, **kw)
    for vendor_col, col in TOP_LIST_AMOUNTS.items():
        out[col] = top_list_amount_to_yuan(parse_numbers(raw[vendor_col], column=vendor_col, **kw))
    out = out[out["symbol"].notna()]
    if req.symbols:
        out = out[out["symbol"].isin(set(req.symbols))]
    seats = _seats([r.frame for r in raws if r.query.endpoint == TOP_INST])
    keys = zip(out["symbol"], out["trade_date"], out["reason"], strict=True)
    out["seats"] = [seats.get(k) for k in keys]
    return out.reindex(columns=columns)


def _seats(frames: list[pd.DataFrame]) -> dict[tuple[str, date, str], str]:
    """top_inst rows → {(symbol, trade_date, reason): JSON list of seats}, buyers first, each
    side in the vendor's rank order (by amount), so the same answer gives the same text."""
    frames = [f for f in frames if not f.empty]
    if not frames:
        return {}
    raw = pd.concat(frames, ignore_index=True)
    ep = TOP_INST
    kw = {"vendor": VENDOR, "endpoint": ep}
    seats = pd.DataFrame(index=raw.index)
    seats["symbol"] = parse_symbols(raw["ts_code"], vendor=VENDOR)
    seats["trade_date"] = parse_dates(raw["trade_date"], column="trade_date", **kw)
    seats["reason"] = raw["reason"].map(text_or_none)
    side = raw["side"].map(code_text)
    unknown = ~side.isin(list(SEAT_SIDES))
    if unknown.any():
        raise garbled(f"side {raw['side'][unknown].iloc[0]!r} is neither '0' nor '1'", **kw)
    seats["side"] = side.map(SEAT_SIDES)
    seats["branch"] = raw["exalter"].map(lambda v: None if is_missing(v) else str(v))
    seats["buy"] = parse_numbers(raw["buy"], column="buy", **kw)
    seats["sell"] = parse_numbers(raw["sell"], column="sell", **kw)
    seats["net"] = parse_numbers(raw["net_buy"], column="net_buy", **kw)
    seats = seats[seats["symbol"].notna()]
    seats["_side_rank"] = (seats["side"] != "buy").astype(int)
    seats = seats.sort_values("_side_rank", kind="stable")
    out: dict[tuple[str, date, str], str] = {}
    fields = ["side", "branch", "buy", "sell", "net"]
    for key, group in seats.groupby(["symbol", "trade_date", "reason"], sort=False):
        out[key] = json_text(
            [
                {f: json_cell(v) for f, v in zip(fields, row, strict=True)}
                for row in group[fields].itertuples(index=False, name=None)
            ]
        )
    return out


FETCHER = DragonTigerFetcher
