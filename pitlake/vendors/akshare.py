"""AkShare adapter: East Money / Sina / Tencent endpoints → canonical pitlake rows.

Per dataset the three adapter steps are `build_queries` (the first calls), `collect` (makes them,
plus the calls that depend on earlier answers: the per-symbol bar fallback East Money → Sina →
Tencent, the statements of the companies a notice list names, the seats of each dragon-tiger
listing) and `transform` (vendor-native frames → the dataset's canonical columns).
Vendor facts come from docs/vendor-reference.md (§2.1–2.3 bars, §2.2 factors, §3.2 calendar, §4.3/4.6
statements, §5 news, §6 dragon-tiger); units, symbol forms and known-at rules from pitlake core.

News feeds that stamp times with the host's local zone (`stock_info_global_ths`, `..._futu`) are
deliberately not used: their times cannot be trusted on a UTC host.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd

from pitlake import units
from pitlake.calendar import previous_session, sessions_between, to_date
from pitlake.errors import (
    InvalidArgumentsError,
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
)
from pitlake.pit import beijing_day_window, is_quarter_end, parse_vendor_time
from pitlake.schemas.dragon_tiger import FUTURE_COLUMN_MARKERS
from pitlake.schemas.financials import STATEMENTS, vendor_map
from pitlake.symbols import canonical, to_vendor
from pitlake.vendors.base import (
    Adapter,
    FetchRequest,
    RawResponse,
    VendorQuery,
    json_cell,
    json_text,
)
from pitlake.vendors.news_id import headline, news_id
from pitlake.vendors.tushare import UNIT_CHECK_TOLERANCE  # one tolerance for both adapters

log = logging.getLogger(__name__)

VENDOR = "akshare"

# ---------------------------------------------------------------- endpoints

EM_BARS = "stock_zh_a_hist"
SINA_BARS = "stock_zh_a_daily"
TENCENT_BARS = "stock_zh_a_hist_tx"
BAR_CHAIN = (EM_BARS, SINA_BARS, TENCENT_BARS)  # per-symbol fallback order
SINA_FACTORS_ADJUST = "hfq-factor"

STATEMENT_ENDPOINTS: dict[str, str] = {
    "income": "stock_profit_sheet_by_report_em",
    "balance": "stock_balance_sheet_by_report_em",
    "cashflow": "stock_cash_flow_sheet_by_report_em",
}
NOTICE_LIST = "stock_notice_report"
NOTICE_KIND_FINANCIAL = "财务报告"

STOCK_NEWS = "stock_news_em"
GLOBAL_NEWS = "stock_info_global_em"

LHB_DETAIL = "stock_lhb_detail_em"
LHB_SEATS = "stock_lhb_stock_detail_em"
SEAT_FLAGS = {"买入": "buy", "卖出": "sell"}  # vendor flag → canonical side

CALENDAR = "tool_trade_date_hist_sina"
CALENDAR_EXCHANGE = "XSHG"

# Tencent: akshare scales 手→股 for every symbol except these prefixes (meant for STAR shares and
# indices). `sz000` also matches Shenzhen main-board *stocks*, whose volume stays in 手.
TENCENT_VOLUME_IN_LOTS = ("sz000",)

# East Money statement columns that are identity or dates already mapped to canonical columns.
EM_STATEMENT_MAPPED = (
    "SECUCODE",
    "SECURITY_CODE",
    "SECURITY_NAME_ABBR",  # a name, not a value of the statement (renames are noise)
    "REPORT_DATE",
    "NOTICE_DATE",
    "UPDATE_DATE",
)
EM_REPORT_TYPE = "1"  # *_by_report_em = consolidated, cumulative (Tushare code 1)

# ---------------------------------------------------------------- column maps (vendor → canonical)

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

STOCK_NEWS_COLUMNS = ("新闻标题", "新闻内容", "发布时间", "新闻链接")
GLOBAL_NEWS_COLUMNS = ("标题", "摘要", "发布时间", "链接")


def news_source(endpoint: str) -> str:
    """The `sources` tag of a feed, e.g. 'akshare:stock_news_em'."""
    return f"{VENDOR}:{endpoint}"


# ---------------------------------------------------------------- small parsing helpers


def _yyyymmdd(d: date) -> str:
    return d.strftime("%Y%m%d")


def _require(frame: pd.DataFrame, columns: Iterable[str], endpoint: str) -> None:
    """Missing expected columns = the vendor's schema drifted: a failure, never partial data."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise VendorError(
            f"schema drift: missing columns {missing} (got {list(frame.columns)[:12]})",
            vendor=VENDOR,
            endpoint=endpoint,
        )


def _day(value: object) -> date | None:
    """A vendor date cell (date, Timestamp, 'YYYY-MM-DD[ HH:MM:SS]', 'YYYYMMDD') → date."""
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, pd.Timestamp | datetime):
        return value.date()
    if isinstance(value, date):
        return value
    s = str(value).strip()
    if not s:
        return None
    if len(s) > 10 and s[10] in " T":
        s = s[:10]
    try:
        return to_date(s)
    except InvalidArgumentsError:
        return None


def _days(series: pd.Series, endpoint: str, what: str) -> list[date]:
    """Every cell must parse: an unparseable trade date is schema garbage, not a row to keep."""
    out = [_day(v) for v in series]
    bad = [v for v, d in zip(series, out, strict=True) if d is None]
    if bad:
        raise VendorError(
            f"unparseable {what} {bad[0]!r}", vendor=VENDOR, endpoint=endpoint, retryable=False
        )
    return out  # type: ignore[return-value]


def _check_unit_scale(ratio: pd.Series, what: str, endpoint: str) -> None:
    """A quantity that should equal another, off by a unit factor (a 100× volume slip when a
    source switches 手/股 between versions) → a typed failure, never stored. As Tushare's."""
    ratio = ratio[ratio.notna() & (ratio > 0) & ratio.map(math.isfinite)]
    if ratio.empty:
        return
    median = float(ratio.median())
    if not (1 / UNIT_CHECK_TOLERANCE <= median <= UNIT_CHECK_TOLERANCE):
        raise VendorError(
            f"unit drift: {what} is {median:.4g}× what it should be",
            vendor=VENDOR,
            endpoint=endpoint,
            retryable=False,
        )


def _num(frame: pd.DataFrame, column: str) -> pd.Series:
    return pd.to_numeric(frame[column], errors="coerce").astype("float64")


def drop_future_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Remove look-ahead columns (上榜后N日 returns) so they reach neither the lake nor raw zone."""
    future = [c for c in frame.columns if any(m in str(c) for m in FUTURE_COLUMN_MARKERS)]
    return frame.drop(columns=future) if future else frame


# ---------------------------------------------------------------- the adapter


class AkshareAdapter(Adapter):
    """AkShare for quotes, adj_factors, financials, news, dragon_tiger and calendar.

    valuation is not offered: AkShare has no point-in-time market-cap / PE history."""

    vendor = VENDOR
    datasets = frozenset(
        {"quotes", "adj_factors", "financials", "news", "dragon_tiger", "calendar"}
    )

    # ------------------------------------------------------------ step 1: the first calls

    def build_queries(self, req: FetchRequest) -> list[VendorQuery]:
        match req.dataset:
            case "quotes":
                return [self._bar_query(EM_BARS, s, req) for s in self._per_symbol(req)]
            case "adj_factors":
                return [
                    VendorQuery(
                        SINA_BARS,
                        {"symbol": to_vendor(s, "sina"), "adjust": SINA_FACTORS_ADJUST},
                        symbol=s,
                    )
                    for s in self._per_symbol(req)
                ]
            case "financials":
                if req.symbols:
                    return self._statement_queries(self._canonical(req.symbols), req)
                if req.first_day is not None:
                    return self._notice_queries(req)
                if req.universe:
                    return self._statement_queries(self._canonical(req.universe), req)
                raise VendorNotConfiguredError(
                    "akshare financials are per symbol: give symbols, a universe or an "
                    "announcement date",
                    vendor=VENDOR,
                )
            case "news":
                per_symbol = [
                    VendorQuery(STOCK_NEWS, {"symbol": to_vendor(s, "bare")}, symbol=s)
                    for s in self._canonical(req.symbols or ())
                ]
                return [*per_symbol, VendorQuery(GLOBAL_NEWS, {})]
            case "dragon_tiger":
                first, last = self._window(req)
                return [
                    VendorQuery(
                        LHB_DETAIL, {"start_date": _yyyymmdd(first), "end_date": _yyyymmdd(last)}
                    )
                ]
            case "calendar":
                return [VendorQuery(CALENDAR, {})]
        raise VendorNotConfiguredError(f"akshare does not offer {req.dataset}", vendor=VENDOR)

    # ------------------------------------------------------------ step 2: make the calls

    def extract(self, query: VendorQuery) -> pd.DataFrame:
        """A column-less frame (East Money's "no data") becomes NoMarketDataError, never data;
        look-ahead columns are dropped before anything keeps the frame."""
        frame = self.client.call(query.endpoint, **query.params)
        if frame is None:  # some akshare functions answer "nothing" with None
            raise NoMarketDataError(
                f"no data for {query.params} (None)", vendor=VENDOR, endpoint=query.endpoint
            )
        if not isinstance(frame, pd.DataFrame):
            raise VendorError(
                f"expected a DataFrame, got {type(frame).__name__}",
                vendor=VENDOR,
                endpoint=query.endpoint,
                retryable=False,
            )
        if len(frame.columns) == 0:
            raise NoMarketDataError(
                f"no data for {query.params}", vendor=VENDOR, endpoint=query.endpoint
            )
        return drop_future_columns(frame)

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        queries = self.build_queries(req)
        if req.dataset == "quotes":
            return [r for q in queries if (r := self._serve_bars(q, req, fetched_at))]
        raws = self._call_all(queries, fetched_at)
        if req.dataset == "financials" and queries and queries[0].endpoint == NOTICE_LIST:
            announcers = self._announcers(raws)
            raws += self._call_all(self._statement_queries(announcers, req), fetched_at)
        elif req.dataset == "dragon_tiger":
            raws += self._seat_responses(req, raws, fetched_at)
        return raws

    def _call_all(self, queries: Sequence[VendorQuery], fetched_at: datetime) -> list[RawResponse]:
        """Calls for one unit among many (a symbol, a notice day, one of the news feeds) that
        answer "no rows" just contribute nothing; any other failure, and "no rows" from the
        one call a dataset rests on, propagates typed."""
        raws = []
        for q in queries:
            try:
                raws.append(RawResponse(VENDOR, q, self.extract(q), fetched_at))
            except NoMarketDataError:
                if q.symbol is None and q.endpoint not in (NOTICE_LIST, GLOBAL_NEWS):
                    raise
                log.debug("akshare %s: no rows for %s", q.endpoint, q.params)
        return raws

    # ------------------------------------------------------------ step 3: transform

    def transform(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        match req.dataset:
            case "quotes":
                return _concat([self._bars(req, r) for r in raws])
            case "adj_factors":
                return _concat([self._factors(req, r) for r in raws])
            case "financials":
                return _concat(
                    [self._statement(r) for r in raws if r.query.endpoint != NOTICE_LIST]
                )
            case "news":
                return self._news(req, raws)
            case "dragon_tiger":
                return self._dragon_tiger(req, raws)
            case "calendar":
                return self._calendar(req, raws)
        raise VendorNotConfiguredError(f"akshare does not offer {req.dataset}", vendor=VENDOR)

    # ------------------------------------------------------------ request helpers

    @staticmethod
    def _canonical(symbols: Iterable[str]) -> list[str]:
        out: list[str] = []
        for s in symbols:
            c = canonical(s)
            if c not in out:
                out.append(c)
        return out

    def _per_symbol(self, req: FetchRequest) -> list[str]:
        symbols = req.symbols or req.universe
        if not symbols:
            raise VendorNotConfiguredError(
                f"akshare {req.dataset} are per symbol: give symbols or a universe", vendor=VENDOR
            )
        return self._canonical(symbols)

    @staticmethod
    def _window(req: FetchRequest) -> tuple[date, date]:
        first, last = req.first_day, req.last_day
        if first is None or last is None:
            raise InvalidArgumentsError(f"{req.dataset}: give trade_date, or both start and end")
        return first, last

    # ------------------------------------------------------------ quotes

    def _bar_query(self, endpoint: str, symbol: str, req: FetchRequest) -> VendorQuery:
        first, last = self._window(req)
        dates = {"start_date": _yyyymmdd(first), "end_date": _yyyymmdd(last)}
        if endpoint == EM_BARS:
            params = {"symbol": to_vendor(symbol, "bare"), "period": "daily", **dates}
        elif endpoint == SINA_BARS:
            params = {"symbol": to_vendor(symbol, "sina"), **dates}
        else:
            params = {"symbol": to_vendor(symbol, "tencent"), **dates}
        return VendorQuery(endpoint, {**params, "adjust": ""}, symbol=symbol)

    def _serve_bars(
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
                else self._bar_query(endpoint, primary.symbol, req)
            )
            try:
                frame = self.extract(q)
                _require(frame, _bar_columns(endpoint), endpoint)
                if frame.empty:
                    raise NoMarketDataError(
                        f"no bars for {q.params}", vendor=VENDOR, endpoint=endpoint
                    )
                self._bars(req, RawResponse(VENDOR, q, frame, fetched_at))  # units plausible
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

    def _bars(self, req: FetchRequest, raw: RawResponse) -> pd.DataFrame:
        endpoint, frame, symbol = raw.query.endpoint, raw.frame, raw.query.symbol
        columns = _bar_columns(endpoint)
        _require(frame, columns, endpoint)
        out = pd.DataFrame(
            {canon: _num(frame, col) for col, canon in columns.items() if canon != "trade_date"}
        )
        out.insert(0, "trade_date", _days(frame[_date_col(columns)], endpoint, "trade date"))
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
        first, last = self._window(req)
        keep = out["trade_date"].map(lambda d: first <= d <= last).astype(bool)
        out = out[keep]
        vwap = out["amount"] / out["volume"].where(out["volume"] > 0)
        _check_unit_scale(vwap / out["close"], f"{symbol} amount ÷ volume vs close", endpoint)
        return out

    # ------------------------------------------------------------ adj_factors

    def _factors(self, req: FetchRequest, raw: RawResponse) -> pd.DataFrame:
        """Change points (newest first, 1900-01-01 sentinel = base factor) → one row per
        session of the window: the factor in force on day t is the latest change point ≤ t."""
        frame, endpoint = raw.frame, raw.query.endpoint
        _require(frame, ("date", "hfq_factor"), endpoint)
        points = pd.DataFrame(
            {
                "date": _days(frame["date"], endpoint, "factor date"),
                "factor": _num(frame, "hfq_factor"),
            }
        )
        if points["factor"].isna().any() or (points["factor"] <= 0).any():
            bad = frame["hfq_factor"][points["factor"].isna() | (points["factor"] <= 0)].iloc[0]
            raise VendorError(
                f"unparseable hfq factor {bad!r}", vendor=VENDOR, endpoint=endpoint, retryable=False
            )
        points = points.sort_values("date", kind="stable").drop_duplicates("date", keep="last")
        first, last = self._window(req)
        sessions = sessions_between(first, last)
        if not sessions or points.empty:
            return pd.DataFrame()
        days = pd.DataFrame({"day": pd.to_datetime(pd.Series(sessions))})
        points["day"] = pd.to_datetime(points["date"])
        joined = pd.merge_asof(days, points[["day", "factor"]], on="day", direction="backward")
        joined = joined[joined["factor"].notna()]  # before the first known change point: unknown
        return pd.DataFrame(
            {
                "symbol": raw.query.symbol,
                "trade_date": joined["day"].dt.date.to_numpy(),
                "adj_factor": joined["factor"].to_numpy(dtype="float64"),
            }
        )

    # ------------------------------------------------------------ financials

    @staticmethod
    def _statements(req: FetchRequest) -> list[str]:
        if req.statement is None:
            return list(STATEMENTS)
        if req.statement not in STATEMENT_ENDPOINTS:
            raise InvalidArgumentsError(
                f"unknown statement {req.statement!r}; expected one of {', '.join(STATEMENTS)}"
            )
        return [req.statement]

    def _statement_queries(self, symbols: Sequence[str], req: FetchRequest) -> list[VendorQuery]:
        return [
            VendorQuery(
                STATEMENT_ENDPOINTS[st], {"symbol": to_vendor(s, "em_f10")}, symbol=s, tag=st
            )
            for s in symbols
            for st in self._statements(req)
        ]

    def _notice_queries(self, req: FetchRequest) -> list[VendorQuery]:
        """Announcement days to scan. For a trade date: from the previous session through it,
        so weekend/holiday filings and the previous evening's late filings are not missed
        (re-ingesting an unchanged statement adds nothing)."""
        first, last = self._window(req)
        if req.trade_date is not None:
            first = previous_session(req.trade_date)
        days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
        return [
            VendorQuery(
                NOTICE_LIST, {"symbol": NOTICE_KIND_FINANCIAL, "date": _yyyymmdd(d)}, tag="notice"
            )
            for d in days
        ]

    @staticmethod
    def _announcers(raws: Sequence[RawResponse]) -> list[str]:
        """Canonical codes of the companies on the financial-report notice lists."""
        out: list[str] = []
        for r in raws:
            if r.query.endpoint != NOTICE_LIST or r.frame.empty:
                continue
            _require(r.frame, ("代码",), NOTICE_LIST)
            for code in r.frame["代码"]:
                raw_code = str(code).strip()
                if raw_code.isdigit():
                    raw_code = raw_code.zfill(6)
                try:
                    sym = canonical(raw_code)
                except InvalidArgumentsError:
                    log.debug("akshare notice list: skipping non-A-share code %r", code)
                    continue
                if sym not in out:
                    out.append(sym)
        return out

    def _statement(self, raw: RawResponse) -> pd.DataFrame:
        frame, endpoint, statement = raw.frame, raw.query.endpoint, raw.query.tag
        _require(frame, ("REPORT_DATE", "NOTICE_DATE", "UPDATE_DATE"), endpoint)
        if frame.empty:
            return pd.DataFrame()
        periods = _days(frame["REPORT_DATE"], endpoint, "REPORT_DATE")
        not_quarter = [p for p in periods if not is_quarter_end(p)]
        if not_quarter:
            raise VendorError(
                f"REPORT_DATE {not_quarter[0]} is not a quarter end",
                vendor=VENDOR,
                endpoint=endpoint,
                retryable=False,
            )
        mapping = vendor_map(statement, VENDOR)
        out = pd.DataFrame(index=frame.index)
        out["symbol"] = raw.query.symbol
        out["statement"] = statement
        out["report_period"] = periods
        out["report_type"] = EM_REPORT_TYPE
        out["ann_date"] = [_day(v) for v in frame["NOTICE_DATE"]]
        out["revision_date"] = [_day(v) for v in frame["UPDATE_DATE"]]
        out["update_flag"] = None
        out["undated_revision"] = False
        for vendor_field, item in mapping.items():
            # Templates differ (banks, insurers): an item the template lacks is null, not drift.
            out[item] = _num(frame, vendor_field) if vendor_field in frame.columns else np.nan
        skip = set(EM_STATEMENT_MAPPED) | set(mapping)
        extra_cols = sorted(c for c in frame.columns if c not in skip)
        out["extra"] = [
            json_text({c: json_cell(v) for c, v in rec.items()})
            for rec in frame[extra_cols].to_dict("records")
        ]
        return out.drop_duplicates(
            subset=["symbol", "statement", "report_period", "ann_date", "revision_date"]
        )

    # ------------------------------------------------------------ news

    def _news(self, req: FetchRequest, raws: Sequence[RawResponse]) -> pd.DataFrame:
        """Both feeds → one row per news_id; an item seen in several feeds lists them all."""
        window = None
        if req.first_day is not None and req.last_day is not None:
            window = beijing_day_window(req.first_day, req.last_day)
        items: dict[str, _NewsItem] = {}
        for raw in raws:
            for item in _news_items(raw):
                if (
                    window
                    and item.published_at
                    and not (window[0] <= item.published_at < window[1])
                ):
                    continue
                nid = news_id(item.title, item.published_at)
                if nid in items:
                    items[nid].merge(item)
                else:
                    items[nid] = item
        rows = [
            {
                "news_id": nid,
                "symbols": sorted(it.symbols),
                "title": it.title,
                "content": it.content,
                "url": it.url,
                "published_at": it.published_at,
                "sources": list(it.sources),
            }
            for nid, it in items.items()
        ]
        if not rows:
            return pd.DataFrame()
        out = pd.DataFrame(rows)
        out["published_at"] = pd.to_datetime(out["published_at"], utc=True).astype(
            "datetime64[us, UTC]"
        )
        return out

    # ------------------------------------------------------------ dragon-tiger

    def _listings(self, req: FetchRequest, raws: Sequence[RawResponse]) -> pd.DataFrame:
        """stock_lhb_detail_em rows → canonical listing rows (no seats), deduplicated."""
        parts = []
        for raw in raws:
            if raw.query.endpoint != LHB_DETAIL:
                continue
            frame = drop_future_columns(raw.frame)
            _require(frame, LHB_COLUMNS, LHB_DETAIL)
            if frame.empty:
                continue
            out = pd.DataFrame(index=frame.index)
            out["symbol"] = [_symbol_or_none(c) for c in frame["代码"]]
            out["trade_date"] = _days(frame["上榜日"], LHB_DETAIL, "上榜日")
            out["reason"] = frame["上榜原因"].astype("object")
            out["name"] = frame["名称"].astype("object")
            for col, canon in LHB_COLUMNS.items():
                if canon not in out.columns:
                    out[canon] = _num(frame, col)
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
                raise VendorError(
                    "listing rows without 上榜原因",
                    vendor=VENDOR,
                    endpoint=LHB_DETAIL,
                    retryable=False,
                )
            parts.append(out)
        if not parts:
            return pd.DataFrame()
        rows = pd.concat(parts, ignore_index=True).drop_duplicates(ignore_index=True)
        first, last = self._window(req)
        rows = rows[rows["trade_date"].map(lambda d: first <= d <= last).astype(bool)]
        if req.symbols:
            rows = rows[rows["symbol"].isin(self._canonical(req.symbols))]
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

    def _seat_responses(
        self, req: FetchRequest, raws: Sequence[RawResponse], fetched_at: datetime
    ) -> list[RawResponse]:
        """Both seat sides of every listed (symbol, date). Enrichment only: a failed call is
        logged and leaves that listing's seats null; it never fails the dataset."""
        listings = self._listings(req, raws)
        if listings.empty:
            return []
        out = []
        for sym, day in (
            listings[["symbol", "trade_date"]].drop_duplicates().itertuples(index=False)
        ):
            for flag in SEAT_FLAGS:
                q = VendorQuery(
                    LHB_SEATS,
                    {"symbol": to_vendor(sym, "bare"), "date": _yyyymmdd(day), "flag": flag},
                    symbol=sym,
                    tag=flag,
                )
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

    def _dragon_tiger(self, req: FetchRequest, raws: Sequence[RawResponse]) -> pd.DataFrame:
        rows = self._listings(req, raws)
        if rows.empty:
            return rows
        sides: dict[tuple[str, str, str], pd.DataFrame] = {}
        for r in raws:
            if r.query.endpoint == LHB_SEATS:
                sides[(r.query.params["symbol"], r.query.params["date"], r.query.tag)] = r.frame
        seats = []
        for sym, day, reason in rows[["symbol", "trade_date", "reason"]].itertuples(index=False):
            frames = [
                sides.get((to_vendor(sym, "bare"), _yyyymmdd(day), flag)) for flag in SEAT_FLAGS
            ]
            if any(f is None for f in frames):
                seats.append(None)
                continue
            try:
                seats.append(json_text(_seat_list(frames, reason)))
            except VendorError as e:
                log.warning("akshare %s %s %s: %s; seats left null", LHB_SEATS, sym, day, e)
                seats.append(None)
        rows["seats"] = seats
        return rows

    # ------------------------------------------------------------ calendar

    def _calendar(self, req: FetchRequest, raws: Sequence[RawResponse]) -> pd.DataFrame:
        """Listed dates are sessions; every other day of the window is closed (a full
        calendar). Only inside the listed range: past Sina's last listed day a date is
        unknown, not closed, so the window is clipped to it."""
        listed: set[date] = set()
        for raw in raws:
            _require(raw.frame, ("trade_date",), CALENDAR)
            listed.update(_days(raw.frame["trade_date"], CALENDAR, "trade_date"))
        if not listed:
            return pd.DataFrame()
        first = max(req.first_day or date.min, min(listed))
        last = min(req.last_day or date.max, max(listed))
        if first > last:
            return pd.DataFrame()
        days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
        return pd.DataFrame(
            {
                "exchange": CALENDAR_EXCHANGE,
                "date": days,
                "is_open": [d in listed for d in days],
            }
        )


# ---------------------------------------------------------------- module-level helpers


def _bar_columns(endpoint: str) -> dict[str, str]:
    return {
        EM_BARS: EM_BAR_COLUMNS,
        SINA_BARS: SINA_BAR_COLUMNS,
        TENCENT_BARS: TENCENT_BAR_COLUMNS,
    }[endpoint]


def _date_col(columns: dict[str, str]) -> str:
    return next(c for c, canon in columns.items() if canon == "trade_date")


def _concat(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _symbol_or_none(code: object) -> str | None:
    s = str(code).strip()
    if s.isdigit():
        s = s.zfill(6)
    try:
        return canonical(s)
    except InvalidArgumentsError:
        return None


def _text(v: object) -> str | None:
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    s = str(v).strip()
    return s or None


@dataclass
class _NewsItem:
    title: str
    content: str | None
    url: str | None
    published_at: datetime | None
    symbols: set[str] = field(default_factory=set)
    sources: list[str] = field(default_factory=list)

    def merge(self, other: _NewsItem) -> None:
        """The same item from another feed: union of symbols and sources; keep what we have."""
        self.symbols |= other.symbols
        self.sources += [s for s in other.sources if s not in self.sources]
        self.content = self.content or other.content
        self.url = self.url or other.url


def _news_items(raw: RawResponse) -> list[_NewsItem]:
    endpoint, frame = raw.query.endpoint, raw.frame
    if endpoint == STOCK_NEWS:
        cols, symbols = STOCK_NEWS_COLUMNS, {raw.query.symbol} if raw.query.symbol else set()
    elif endpoint == GLOBAL_NEWS:
        cols, symbols = GLOBAL_NEWS_COLUMNS, set()
    else:
        return []
    _require(frame, cols, endpoint)
    title_col, content_col, time_col, url_col = cols
    items = []
    for rec in frame[list(cols)].to_dict("records"):
        title = headline(rec[title_col], rec[content_col])
        if title is None:
            log.debug("akshare %s: skipping an item with neither title nor text", endpoint)
            continue
        items.append(
            _NewsItem(
                title=title,
                content=_text(rec[content_col]),
                url=_text(rec[url_col]),
                # naive vendor strings are Beijing; date-only → end of that Beijing day;
                # missing or garbage → None (dated first_seen by the known-at rule)
                published_at=parse_vendor_time(rec[time_col]),
                symbols=set(symbols),
                sources=[news_source(endpoint)],
            )
        )
    return items


def _seat_list(frames: Sequence[pd.DataFrame], reason: str) -> list[dict[str, Any]]:
    """Buy-side then sell-side seats of one listing: those whose 类型 is this listing's reason
    (a seat with no 类型, or a frame without the column, belongs to every reason)."""
    seats: list[dict[str, Any]] = []
    for side, frame in zip(SEAT_FLAGS.values(), frames, strict=True):
        _require(frame, SEAT_COLUMNS, LHB_SEATS)
        for rec in frame.to_dict("records"):
            kind = _text(rec.get(SEAT_REASON)) if SEAT_REASON in frame.columns else None
            if kind is not None and kind != reason:
                continue
            seats.append(
                {
                    "side": side,
                    "branch": _text(rec["交易营业部名称"]),
                    "buy": json_cell(pd.to_numeric(rec["买入金额"], errors="coerce")),
                    "sell": json_cell(pd.to_numeric(rec["卖出金额"], errors="coerce")),
                    "net": json_cell(pd.to_numeric(rec["净额"], errors="coerce")),
                }
            )
    return seats
