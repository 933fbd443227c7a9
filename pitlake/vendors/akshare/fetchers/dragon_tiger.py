"""East Money dragon-tiger lists → dragon_tiger (docs/vendor-reference.md §6).

`stock_lhb_detail_em` lists the window's listings; both seat sides of every listed (symbol,
date) come from `stock_lhb_stock_detail_em`. Seats only enrich: a failed seat call leaves that
listing's seats null, it never fails the dataset.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from pitlake.errors import VendorError
from pitlake.symbols import to_vendor
from pitlake.vendors.akshare.fetch import (
    VENDOR,
    AkshareFetcher,
    drop_future_columns,
    require,
    yyyymmdd,
)
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery, json_cell, json_text
from pitlake.vendors.fetching import canonical_symbols, window
from pitlake.vendors.parsing import (
    garbled,
    parse_numbers,
    parse_required_dates,
    symbol_or_none,
    text_or_none,
)

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

LHB_DETAIL = "stock_lhb_detail_em"
LHB_SEATS = "stock_lhb_stock_detail_em"
SEAT_FLAGS = {"买入": "buy", "卖出": "sell"}  # vendor flag → canonical side
LHB_COLUMNS = {
    "代码": "symbol",
    "上榜日": "trade_date",
    "上榜原因": "reason",
    "名称": "name",
    "收盘价": "close",
    "涨跌幅": "pct_chg",  # percent
    "换手率": "turnover_rate",  # percent
    "龙虎榜买入额": "buy_amount",  # 元
    "龙虎榜卖出额": "sell_amount",
    "龙虎榜净买额": "net_buy",
    "龙虎榜成交额": "billboard_amount",
    "市场总成交额": "market_amount",
    "流通市值": "float_mv",  # 元
}
SEAT_COLUMNS = ("交易营业部名称", "买入金额", "卖出金额", "净额")
SEAT_REASON = "类型"


def listings(req: FetchRequest, raws: Sequence[RawResponse]) -> pd.DataFrame:
    """stock_lhb_detail_em rows → canonical listing rows (no seats), deduplicated."""
    import pandas as pd

    kw = {"vendor": VENDOR, "endpoint": LHB_DETAIL}
    parts = []
    for raw in raws:
        if raw.query.endpoint != LHB_DETAIL:
            continue
        frame = drop_future_columns(raw.frame)
        require(frame, LHB_COLUMNS, LHB_DETAIL)
        if frame.empty:
            continue
        out = pd.DataFrame(index=frame.index)
        out["symbol"] = [symbol_or_none(c) for c in frame["代码"]]
        out["trade_date"] = parse_required_dates(frame["上榜日"], column="上榜日", **kw)
        out["reason"] = frame["上榜原因"].astype("object")
        out["name"] = frame["名称"].astype("object")
        for col, canon in LHB_COLUMNS.items():
            if canon not in out.columns:
                out[canon] = parse_numbers(frame[col], column=col, **kw)
        unknown = out["symbol"].isna()
        if unknown.any():
            log.warning(
                "akshare %s: skipping %d rows with non-A-share codes %s",
                LHB_DETAIL,
                int(unknown.sum()),
                list(frame.loc[unknown, "代码"])[:5],
            )
            out = out[~unknown]
        no_reason = out["reason"].isna() | (out["reason"].astype(str).str.strip() == "")
        if no_reason.any():
            raise garbled("listing rows without 上榜原因", **kw)
        parts.append(out)
    if not parts:
        return pd.DataFrame()
    rows = pd.concat(parts, ignore_index=True).drop_duplicates(ignore_index=True)
    first, last = window(req)
    rows = rows[rows["trade_date"].map(lambda d: first <= d <= last).astype(bool)]
    if req.symbols:
        rows = rows[rows["symbol"].isin(canonical_symbols(req.symbols))]
    key = ["symbol", "trade_date", "reason"]
    clash = rows.duplicated(subset=key, keep="first")
    if clash.any():
        log.warning(
            "akshare %s: %d rows repeat (symbol, date, reason) with different values; "
            "kept the first: %s",
            LHB_DETAIL,
            int(clash.sum()),
            rows.loc[clash, key].head(5).to_dict("records"),
        )
        rows = rows[~clash]
    return rows.reset_index(drop=True)


def seat_list(frames: Sequence[pd.DataFrame], reason: str) -> list[dict[str, Any]]:
    """Buy-side then sell-side seats of one listing: those whose 类型 is this listing's reason
    (a seat with no 类型, or a frame without the column, belongs to every reason)."""
    import pandas as pd

    seats: list[dict[str, Any]] = []
    for side, frame in zip(SEAT_FLAGS.values(), frames, strict=True):
        require(frame, SEAT_COLUMNS, LHB_SEATS)
        for rec in frame.to_dict("records"):
            kind = text_or_none(rec.get(SEAT_REASON)) if SEAT_REASON in frame.columns else None
            if kind is not None and kind != reason:
                continue
            seats.append(
                {
                    "side": side,
                    "branch": text_or_none(rec["交易营业部名称"]),
                    "buy": json_cell(pd.to_numeric(rec["买入金额"], errors="coerce")),
                    "sell": json_cell(pd.to_numeric(rec["卖出金额"], errors="coerce")),
                    "net": json_cell(pd.to_numeric(rec["净额"], errors="coerce")),
                }
            )
    return seats


def seat_query(symbol: str, day: str, flag: str) -> VendorQuery:
    params = {"symbol": to_vendor(symbol, "bare"), "date": day, "flag": flag}
    return VendorQuery(LHB_SEATS, params, symbol=symbol, tag=flag)


class DragonTigerFetcher(AkshareFetcher):
    dataset = "dragon_tiger"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        LHB_DETAIL: tuple(LHB_COLUMNS),
        LHB_SEATS: SEAT_COLUMNS,
    }

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        first, last = window(req)
        params = {"start_date": yyyymmdd(first), "end_date": yyyymmdd(last)}
        return [VendorQuery(LHB_DETAIL, params)]

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        raws = self.call_all(self.transform_query(req), fetched_at)
        return raws + self.seat_responses(req, raws, fetched_at)

    def seat_responses(
        self, req: FetchRequest, raws: Sequence[RawResponse], fetched_at: datetime
    ) -> list[RawResponse]:
        """Both seat sides of every listed (symbol, date); a failed call is logged and leaves
        that listing's seats null."""
        listed = listings(req, raws)
        if listed.empty:
            return []
        out = []
        for sym, day in listed[["symbol", "trade_date"]].drop_duplicates().itertuples(index=False):
            for flag in SEAT_FLAGS:
                q = seat_query(sym, yyyymmdd(day), flag)
                try:
                    out.append(RawResponse(VENDOR, q, self.extract(q), fetched_at))
                except VendorError as e:
                    log.warning(
                        "akshare %s %s %s %s failed (%s): seats left null",
                        LHB_SEATS,
                        sym,
                        day,
                        flag,
                        e,
                    )
        return out

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:

        rows = listings(req, raws)
        if rows.empty:
            return rows
        sides: dict[tuple[str, str, str], pd.DataFrame] = {}
        for r in raws:
            if r.query.endpoint == LHB_SEATS:
                sides[(r.query.params["symbol"], r.query.params["date"], r.query.tag)] = r.frame
        seats = []
        for sym, day, reason in rows[["symbol", "trade_date", "reason"]].itertuples(index=False):
            frames = [
                sides.get((to_vendor(sym, "bare"), yyyymmdd(day), flag)) for flag in SEAT_FLAGS
            ]
            if any(f is None for f in frames):
                seats.append(None)
                continue
            try:
                seats.append(json_text(seat_list(frames, reason)))
            except VendorError as e:
                log.warning("akshare %s %s %s: %s; seats left null", LHB_SEATS, sym, day, e)
                seats.append(None)
        rows["seats"] = seats
        return rows


FETCHER = DragonTigerFetcher
