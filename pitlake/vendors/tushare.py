"""Tushare Pro → canonical rows (docs/vendor-reference.md §2.4–2.6, §3.1, §4.1–4.2, §5.3, §6.3).

Each dataset is three steps: `build_queries` (the Tushare calls, native params), `extract` (one
call through the client; column-less or drifted frames become typed errors, never data) and
`transform` (canonical columns, units converted with `pitlake.units`). Calls that depend on
earlier answers — the per-announcer statement calls of a nightly run, the split of a news window
that hit the row cap — are made in `collect` from `follow_up`.
"""

from __future__ import annotations

import contextvars
import logging
import math
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd

from pitlake import units
from pitlake.calendar import sessions_between
from pitlake.errors import (
    InvalidArgumentsError,
    NoMarketDataError,
    VendorError,
    VendorPermissionError,
)
from pitlake.pit import KNOWN_AT_DTYPE, is_quarter_end, parse_vendor_time
from pitlake.schemas import get as get_schema
from pitlake.schemas.financials import LINE_ITEMS, STATEMENTS, vendor_map
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

log = logging.getLogger(__name__)

VENDOR = "tushare"
SYMBOL_FORM = "tushare"  # pitlake.symbols vendor form: 600519.SH

# Longest date window of one per-symbol range call. Tushare caps rows per call (daily and
# daily_basic: 6000; adj_factor: undocumented) and does not paginate; 2000 calendar days hold
# at most ~1400 sessions, under any cap seen in the docs.
RANGE_CALL_MAX_DAYS = 2000

# A unit slip is a factor of 10 or more (手 vs 股 is 100, 千元 vs 元 1000, 万 10000); a ratio
# within this factor of the expected 1 proves the scale. Prices move ±30 % at most a day.
UNIT_CHECK_TOLERANCE = 3.0

# top_list amounts: the doc states no unit; third-party schemas agree they are 元 [UNVERIFIED,
# docs/vendor-reference.md §6.3]. top_inst buy/sell/net_buy are documented as 元.


def top_list_amount_to_yuan(v: pd.Series) -> pd.Series:
    """top_list amounts are taken to be 元 already (see above): no conversion."""
    return v


EXCHANGE_MIC = {"SSE": "XSHG", "SZSE": "XSHE"}
CALENDAR_EXCHANGE = "SSE"

SEAT_SIDES = {"0": "buy", "1": "sell"}  # top_inst.side: '0' top-5 buyers, '1' top-5 sellers

# ---------------------------------------------------------------- financial statements

STATEMENT_ENDPOINTS = {"income": "income", "balance": "balancesheet", "cashflow": "cashflow"}
# report_type '1' = consolidated (the vendor default); pass more codes to keep adjusted,
# single-quarter or parent-only versions too (one call per code per symbol and statement).
DEFAULT_REPORT_TYPES: tuple[str, ...] = ("1",)
STATEMENT_META = ("ts_code", "ann_date", "f_ann_date", "end_date", "report_type", "update_flag")
# Tushare returns only the fields asked for. Beyond the metadata and the canonical items these
# land in `extra`; names from the tushare.pro field lists [UNVERIFIED against live replies].
STATEMENT_EXTRA_FIELDS: dict[str, tuple[str, ...]] = {
    "income": tuple(
        "comp_type end_type total_cogs sell_exp admin_exp fin_exp rd_exp invest_income "
        "non_oper_income non_oper_exp minority_gain ebit ebitda t_compr_income".split()
    ),
    "balance": tuple(
        "comp_type end_type total_share cap_rese surplus_rese undistr_porfit accounts_receiv "
        "inventories fix_assets goodwill st_borr lt_borr total_nca total_ncl minority_int".split()
    ),
    "cashflow": tuple(
        "comp_type end_type c_fr_sale_sg c_paid_goods_s c_pay_acq_const_fiolta "
        "c_cash_equ_beg_period c_cash_equ_end_period free_cashflow".split()
    ),
}
DISCLOSURE = "disclosure_date"
ANNOUNCERS_TAG = "announcers"

# ---------------------------------------------------------------- news

NEWS_SOURCES: tuple[str, ...] = tuple(
    "sina wallstreetcn 10jqka eastmoney yuncaijing fenghuang jinrongjie cls yicai".split()
)
NEWS_ROWS_PER_CALL = 1500  # `news` cap per call; a full answer may be truncated → split
MAJOR_NEWS_ROWS_PER_CALL = 400  # `major_news` cap per call (docs/vendor-reference.md §7a)
# major_news leaves `content` out unless `fields` names it ("默认不显示，需要在fields里指定").
MAJOR_NEWS_FIELDS = "title,content,pub_time,src"
NEWS_MIN_WINDOW = timedelta(minutes=1)  # never split a window below this
NEWS_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
MAJOR_NEWS_SOURCE = "major_news"  # label when a major_news row names no src
_TS_CODE_IN_TEXT = re.compile(r"(?<!\d)(\d{6}\.(?:SH|SZ|BJ))(?![A-Za-z])")

SEATS_TAG = "seats"  # top_inst: optional enrichment (5000 points)

# ---------------------------------------------------------------- per-endpoint columns


@dataclass(frozen=True)
class DailySpec:
    """A trade-date endpoint: plain columns (vendor → canonical) and unit conversions
    (canonical ← vendor column through a pitlake.units function)."""

    endpoint: str
    plain: dict[str, str]
    converted: dict[str, tuple[str, Callable[[pd.Series], pd.Series]]]

    @property
    def vendor_columns(self) -> tuple[str, ...]:
        return ("ts_code", "trade_date", *self.plain, *(v for v, _ in self.converted.values()))


DAILY_SPECS: dict[str, DailySpec] = {
    "quotes": DailySpec(
        "daily",
        {c: c for c in "open high low close pre_close pct_chg".split()},
        {"volume": ("vol", units.lots_to_shares), "amount": ("amount", units.qian_yuan_to_yuan)},
    ),
    "adj_factors": DailySpec("adj_factor", {"adj_factor": "adj_factor"}, {}),
    "valuation": DailySpec(
        "daily_basic",
        {
            c: c
            for c in (
                "close turnover_rate turnover_rate_f volume_ratio pe pe_ttm pb ps ps_ttm "
                "dv_ratio dv_ttm"
            ).split()
        },
        {
            "total_share": ("total_share", units.wan_shares_to_shares),
            "float_share": ("float_share", units.wan_shares_to_shares),
            "free_share": ("free_share", units.wan_shares_to_shares),
            "total_mv": ("total_mv", units.wan_yuan_to_yuan),
            "circ_mv": ("circ_mv", units.wan_yuan_to_yuan),
        },
    ),
}

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

# Columns an answer must carry; a missing one is schema drift (VendorError), not data.
REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    **{spec.endpoint: spec.vendor_columns for spec in DAILY_SPECS.values()},
    **{ep: STATEMENT_META for ep in STATEMENT_ENDPOINTS.values()},
    DISCLOSURE: ("ts_code",),
    "news": ("datetime", "title", "content"),
    "major_news": ("pub_time", "title", "content"),
    "top_list": ("ts_code", "trade_date", "reason", *TOP_LIST_PLAIN, *TOP_LIST_AMOUNTS),
    "top_inst": ("ts_code", "trade_date", "reason", "exalter", "side", "buy", "sell", "net_buy"),
    "trade_cal": ("cal_date", "is_open"),
}


# The endpoints whose answers are a dataset's rows. When a dataset has several, a token
# denied one of them (news without major_news, an income-only right) still stores what the
# others answered; the denial is logged and lands in the vendor trace (router.py). Other
# endpoints only enrich (top_inst seats) or find whom to ask (disclosure_date): a denied
# enrichment is skipped, a denied lookup fails the fetch (nothing else can be asked).
ROW_ENDPOINTS: dict[str, frozenset[str]] = {
    **{ds: frozenset({spec.endpoint}) for ds, spec in DAILY_SPECS.items()},
    "financials": frozenset(STATEMENT_ENDPOINTS.values()),
    "news": frozenset({"news", "major_news"}),
    "dragon_tiger": frozenset({"top_list"}),
    "calendar": frozenset({"trade_cal"}),
}
ENRICHMENT_ENDPOINTS = frozenset({"top_inst"})

# The endpoint that carries each dataset's rows (for error messages).
DATASET_ENDPOINTS: dict[str, str] = {
    **{ds: spec.endpoint for ds, spec in DAILY_SPECS.items()},
    "financials": ",".join(STATEMENT_ENDPOINTS.values()),
    "news": "news,major_news",
    "dragon_tiger": "top_list",
    "calendar": "trade_cal",
}


# ---------------------------------------------------------------- small parsers


def _ymd(d: date) -> str:
    return d.strftime("%Y%m%d")


def _garbage(message: str, endpoint: str) -> VendorError:
    """A reply whose shape or values are wrong: retrying returns the same garbage."""
    return VendorError(message, vendor=VENDOR, endpoint=endpoint, retryable=False)


def _is_missing(v: object) -> bool:
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    return isinstance(v, str) and not v.strip()


def parse_dates(values: pd.Series, endpoint: str, column: str) -> pd.Series:
    """Tushare dates (`'20250603'`; tolerates ints and ISO text) → datetime.date objects, None
    where the vendor gave none. Text that is not a date is an error, never a guess. Each
    distinct value is parsed once (a statement history repeats its dates)."""
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    distinct = pd.Series(uniques, dtype=object)
    text = distinct.map(
        lambda v: None if _is_missing(v) else str(code_text(v))[:10].replace("-", "")
    )
    parsed = pd.to_datetime(text, format="%Y%m%d", errors="coerce")
    bad = text.notna() & parsed.isna()
    if bad.any():  # uniques come in order of appearance: this is the first bad row's value
        raise _garbage(f"{column} {distinct[bad].iloc[0]!r} is not a date", endpoint)
    as_dates = [None if pd.isna(p) else p.date() for p in parsed]
    as_dates.append(None)  # code -1: missing
    return pd.Series([as_dates[c] for c in codes.tolist()], index=values.index, dtype=object)


def parse_numbers(values: pd.Series, endpoint: str, column: str) -> pd.Series:
    """Vendor numbers → float64 (None/blank → NaN). Non-numeric text is schema garbage."""
    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype):
        return values.astype("float64")  # the usual answer: nothing to clean
    cleaned = values.map(lambda v: None if _is_missing(v) else v)
    parsed = pd.to_numeric(cleaned, errors="coerce").astype("float64")
    bad = cleaned.notna() & parsed.isna()
    if bad.any():
        raise _garbage(f"{column} {values[bad].iloc[0]!r} is not a number", endpoint)
    return parsed


def code_text(v: object) -> str | None:
    """Vendor codes (report_type, update_flag, side) → text: 1, 1.0 and '1' are all '1'."""
    if _is_missing(v):
        return None
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


def parse_symbols(values: pd.Series) -> pd.Series:
    """ts_code → canonical symbol; codes that are not A-shares (indices, funds) become None,
    logged once per batch."""
    cache: dict[object, str | None] = {}

    def one(v: object) -> str | None:
        if v not in cache:
            try:
                cache[v] = canonical(v)
            except InvalidArgumentsError:
                cache[v] = None
        return cache[v]

    out = values.map(one)
    dropped = sorted(str(v) for v, c in cache.items() if c is None)
    if dropped:
        log.warning(
            "tushare: dropping rows of %d code(s) that are not A-shares, e.g. %s",
            len(dropped),
            ", ".join(dropped[:5]),
        )
    return out


def check_frame(frame: object, endpoint: str) -> pd.DataFrame:
    """A reply is data only if it is a frame with the endpoint's columns. The Tushare SDK
    answers an HTTP error with an empty, column-less frame: that is a failure, not 'no rows'."""
    if not isinstance(frame, pd.DataFrame):
        raise VendorError(
            f"answered {type(frame).__name__}, not a table", vendor=VENDOR, endpoint=endpoint
        )
    if len(frame.columns) == 0:
        raise VendorError(
            "answered a frame with no columns (an HTTP error in the Tushare SDK)",
            vendor=VENDOR,
            endpoint=endpoint,
        )
    missing = [c for c in REQUIRED_COLUMNS.get(endpoint, ()) if c not in frame.columns]
    if missing:
        raise _garbage(f"schema drift: missing columns {missing}", endpoint)
    return frame


def _check_unit_scale(ratio: pd.Series, what: str, endpoint: str) -> None:
    """Fail the batch when a quantity that should equal another is off by a unit factor."""
    ratio = ratio[ratio.notna() & (ratio > 0) & ratio.map(math.isfinite)]
    if ratio.empty:
        return
    median = float(ratio.median())
    if not (1 / UNIT_CHECK_TOLERANCE <= median <= UNIT_CHECK_TOLERANCE):
        raise _garbage(f"unit drift: {what} is {median:.4g}× what it should be", endpoint)


def _range_windows(start: date, end: date) -> list[tuple[date, date]]:
    out = []
    lo = start
    while lo <= end:
        hi = min(end, lo + timedelta(days=RANGE_CALL_MAX_DAYS - 1))
        out.append((lo, hi))
        lo = hi + timedelta(days=1)
    return out


def _days(start: date, end: date) -> list[date]:
    return [start + timedelta(days=i) for i in range((end - start).days + 1)]


# ---------------------------------------------------------------- the adapter


@dataclass(frozen=True)
class _Denied:
    """One call the token may not make (VendorPermissionError), judged once a fetch's calls
    are all in."""

    query: VendorQuery
    error: VendorPermissionError


class TushareAdapter(Adapter):
    """Tushare Pro for every dataset. `client.call(endpoint, **params)` answers with the
    vendor's native frame (live SDK or replay) or raises a typed error."""

    vendor = VENDOR
    datasets = frozenset(
        {"quotes", "adj_factors", "valuation", "financials", "news", "dragon_tiger", "calendar"}
    )

    def __init__(
        self,
        client: Any,
        *,
        report_types: Sequence[str] = DEFAULT_REPORT_TYPES,
        news_sources: Sequence[str] = NEWS_SOURCES,
        max_parallel: int | None = None,
    ) -> None:
        from pitlake.vendors.registry import max_in_flight

        super().__init__(client)
        self.report_types = tuple(report_types)
        self.news_sources = tuple(news_sources)
        # calls of one stage in flight at once (the client's own bound still applies)
        self.max_parallel = max_parallel or max_in_flight(VENDOR)
        # statement rows normalised during a fetch's calls, by id of its raws list, until its
        # transform (one adapter serves concurrent fetches)
        self._batches: dict[int, tuple[list[RawResponse], StatementBatches]] = {}
        self._batches_lock = threading.Lock()

    # ------------------------------------------------------------ step 1: queries

    def build_queries(self, req: FetchRequest) -> list[VendorQuery]:
        if req.dataset in DAILY_SPECS:
            return self._daily_queries(DAILY_SPECS[req.dataset].endpoint, req)
        builder = {
            "financials": self._financial_queries,
            "news": self._news_queries,
            "dragon_tiger": self._dragon_tiger_queries,
            "calendar": self._calendar_queries,
        }.get(req.dataset)
        if builder is None:
            raise InvalidArgumentsError(f"tushare has no dataset {req.dataset!r}")
        return builder(req)

    @staticmethod
    def _vendor_symbols(req: FetchRequest) -> list[str]:
        return [to_vendor(s, SYMBOL_FORM) for s in req.symbols or ()]

    def _daily_queries(self, endpoint: str, req: FetchRequest) -> list[VendorQuery]:
        codes = self._vendor_symbols(req)
        if req.trade_date is not None:  # one call: the whole market, or the listed symbols
            params: dict[str, Any] = {"trade_date": _ymd(req.trade_date)}
            if codes:
                params["ts_code"] = ",".join(codes)
            return [VendorQuery(endpoint, params)]
        assert req.start is not None and req.end is not None
        if codes:  # each symbol's history, in windows under the row cap
            return [
                VendorQuery(
                    endpoint,
                    {"ts_code": code, "start_date": _ymd(lo), "end_date": _ymd(hi)},
                    symbol=canonical(code),
                )
                for code in codes
                for lo, hi in _range_windows(req.start, req.end)
            ]
        return [  # the whole market, one session at a time
            VendorQuery(endpoint, {"trade_date": _ymd(d)})
            for d in sessions_between(req.start, req.end)
        ]

    def _statements(self, req: FetchRequest) -> tuple[str, ...]:
        if req.statement is None:
            return STATEMENTS
        if req.statement not in STATEMENTS:
            raise InvalidArgumentsError(
                f"unknown statement {req.statement!r}; expected one of {', '.join(STATEMENTS)}"
            )
        return (req.statement,)

    def _statement_queries(self, req: FetchRequest, codes: Iterable[str]) -> list[VendorQuery]:
        """Each symbol's whole statement history: a correction to an old period, announced
        inside a window, is only found that way (the vendor filters on ann_date)."""
        out = []
        for code in codes:
            for statement in self._statements(req):
                fields = ",".join(
                    dict.fromkeys(
                        (
                            *STATEMENT_META,
                            *vendor_map(statement, VENDOR),
                            *STATEMENT_EXTRA_FIELDS[statement],
                        )
                    )
                )
                for report_type in self.report_types:
                    params = {"ts_code": code, "report_type": report_type, "fields": fields}
                    out.append(
                        VendorQuery(
                            STATEMENT_ENDPOINTS[statement],
                            params,
                            symbol=canonical(code),
                            tag=statement,
                        )
                    )
        return out

    def _financial_queries(self, req: FetchRequest) -> list[VendorQuery]:
        self._statements(req)  # reject a bad statement before any call
        if req.symbols:
            return self._statement_queries(req, self._vendor_symbols(req))
        # No symbols: find who announced (follow_up then fetches them).
        if req.trade_date is not None:
            days = [req.trade_date]
        elif req.start is not None and req.end is not None:
            days = _days(req.start, req.end)
        else:
            raise InvalidArgumentsError(
                "financials from tushare: give symbols, or a trade_date / start and end to find "
                "the companies that announced then"
            )
        return [VendorQuery(DISCLOSURE, {"actual_date": _ymd(d)}, tag=ANNOUNCERS_TAG) for d in days]

    def _news_queries(self, req: FetchRequest) -> list[VendorQuery]:
        if req.trade_date is not None:
            days = [req.trade_date]
        elif req.start is not None and req.end is not None:
            days = _days(req.start, req.end)
        else:
            raise InvalidArgumentsError("news from tushare: give a trade_date, or start and end")
        out = []
        for d in days:
            lo = datetime.combine(d, datetime.min.time())
            hi = lo + timedelta(days=1, seconds=-1)
            window = {
                "start_date": lo.strftime(NEWS_TIME_FORMAT),
                "end_date": hi.strftime(NEWS_TIME_FORMAT),
            }
            out += [VendorQuery("news", {"src": src, **window}) for src in self.news_sources]
            out.append(VendorQuery("major_news", {**window, "fields": MAJOR_NEWS_FIELDS}))
        return out

    def _dragon_tiger_queries(self, req: FetchRequest) -> list[VendorQuery]:
        if req.trade_date is not None:
            days = [req.trade_date]
        else:
            assert req.start is not None and req.end is not None
            days = sessions_between(req.start, req.end)
        out = []
        for d in days:
            out.append(VendorQuery("top_list", {"trade_date": _ymd(d)}))
            out.append(VendorQuery("top_inst", {"trade_date": _ymd(d)}, tag=SEATS_TAG))
        return out

    def _calendar_queries(self, req: FetchRequest) -> list[VendorQuery]:
        start, end = (req.trade_date, req.trade_date) if req.trade_date else (req.start, req.end)
        if start is None or end is None:
            raise InvalidArgumentsError(
                "calendar from tushare: give a trade_date, or start and end"
            )
        params = {"exchange": CALENDAR_EXCHANGE, "start_date": _ymd(start), "end_date": _ymd(end)}
        return [VendorQuery("trade_cal", params)]

    # ------------------------------------------------------------ step 2: calls

    def extract(self, query: VendorQuery) -> pd.DataFrame:
        return check_frame(self.client.call(query.endpoint, **query.params), query.endpoint)

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        """Make the calls stage by stage: each stage's answers may ask for more calls."""
        raws: list[RawResponse] = []
        denied: list[_Denied] = []
        answered: set[str] = set()  # endpoints that answered (rows or none)
        batches = StatementBatches(STATEMENT_BATCH) if req.dataset == "financials" else None
        queries = self.build_queries(req)
        only_call = len(queries) == 1
        while queries:
            stage: list[RawResponse] = []
            answers = self._stage(queries, fetched_at, only_call, batches)
            for q, r in zip(queries, answers, strict=True):
                if isinstance(r, _Denied):
                    denied.append(r)
                    continue
                answered.add(q.endpoint)
                if r is not None:
                    stage.append(r)
            raws += stage
            queries = self.follow_up(req, stage)
            only_call = False
        if denied:
            self._judge_denials(req, denied, answered)
        if batches is not None:
            with self._batches_lock:
                self._batches[id(raws)] = (raws, batches)
        return raws

    def _judge_denials(self, req: FetchRequest, denied: list[_Denied], answered: set[str]) -> None:
        """A denied endpoint fails the fetch unless another endpoint of the dataset's rows
        answered (then it is skipped, and logged) or it only enriches rows."""
        rows_from = ROW_ENDPOINTS.get(req.dataset, frozenset())
        for d in denied:
            endpoint = d.query.endpoint
            if endpoint in ENRICHMENT_ENDPOINTS:
                continue
            if endpoint not in rows_from or not (answered & rows_from) - {endpoint}:
                raise d.error
        for endpoint in sorted({d.query.endpoint for d in denied}):
            first = next(d.error for d in denied if d.query.endpoint == endpoint)
            log.warning(
                "tushare %s unavailable to this token, %s stored without it: %s",
                endpoint,
                req.dataset,
                first,
            )

    def _stage(
        self,
        queries: list[VendorQuery],
        fetched_at: datetime,
        only_call: bool,
        batches: StatementBatches | None = None,
    ) -> list[RawResponse | _Denied | None]:
        """One stage's calls, concurrently: a reporting night asks for hundreds of statements
        and 150 ms each in a row would be the bottleneck, not the quota. The client's token
        bucket and in-flight bound still hold; answers keep the queries' order, and the first
        failure (in that order) fails the fetch as before."""
        workers = min(self.max_parallel, len(queries))
        if workers <= 1:
            return [self._call(q, fetched_at, only_call, batches) for q in queries]
        with ThreadPoolExecutor(workers, thread_name_prefix="tushare") as pool:
            futures = [
                pool.submit(
                    contextvars.copy_context().run, self._call, q, fetched_at, only_call, batches
                )
                for q in queries
            ]
            return [f.result() for f in futures]

    def _call(
        self,
        query: VendorQuery,
        fetched_at: datetime,
        only_call: bool = False,
        batches: StatementBatches | None = None,
    ) -> RawResponse | _Denied | None:
        try:
            frame = self.extract(query)
        except NoMarketDataError:
            if only_call:
                raise  # the client's own verdict on the whole request stands
            return None  # one empty answer among many; an empty whole is judged in transform
        except VendorPermissionError as exc:
            if only_call:
                raise
            # e.g. top_inst needs 5000 points, major_news its own right: `collect` judges.
            return _Denied(query, exc)
        raw = RawResponse(self.vendor, query, frame, fetched_at)
        if batches is not None:
            batches.add(raw)  # normalised now, while later calls wait for the quota
        return raw

    def follow_up(self, req: FetchRequest, stage: list[RawResponse]) -> list[VendorQuery]:
        """Calls that depend on the answers just received."""
        announcers = [r for r in stage if r.query.tag == ANNOUNCERS_TAG]
        if announcers:
            codes = pd.concat([r.frame["ts_code"] for r in announcers], ignore_index=True)
            found = parse_symbols(codes).dropna()
            return self._statement_queries(req, list(dict.fromkeys(found)))
        return [q for r in stage if r.query.endpoint in NEWS_CAPS for q in _split_if_capped(r)]

    # ------------------------------------------------------------ step 3: canonical rows

    def transform(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        if req.dataset in DAILY_SPECS:
            frame = self._daily_rows(req.dataset, raws)
        elif req.dataset == "financials":
            with self._batches_lock:
                held, batches = self._batches.pop(id(raws), (None, None))
            frame = _financial_rows(req, raws, batches if held is raws else None)
        else:
            frame = {
                "news": _news_rows,
                "dragon_tiger": _dragon_tiger_rows,
                "calendar": _calendar_rows,
            }[req.dataset](req, raws)
        if frame.empty:
            raise self._nothing(req, raws)
        return frame.reset_index(drop=True)

    def _nothing(self, req: FetchRequest, raws: list[RawResponse]) -> VendorError:
        """The vendor answered and no rows came out. Whether that means 'none exist' or 'not
        published yet' depends on the clock, which the flow knows and the adapter does not."""
        endpoints = ",".join(sorted({r.query.endpoint for r in raws}))
        return NoMarketDataError(
            f"no {req.dataset} rows",
            vendor=VENDOR,
            endpoint=endpoints or DATASET_ENDPOINTS[req.dataset],
        )

    def _daily_rows(self, dataset: str, raws: list[RawResponse]) -> pd.DataFrame:
        spec = DAILY_SPECS[dataset]
        frames = [r.frame for r in raws if not r.frame.empty]
        columns = get_schema(dataset).columns
        if not frames:
            return pd.DataFrame(columns=columns)
        raw = pd.concat(frames, ignore_index=True)
        ep = spec.endpoint
        out = pd.DataFrame(index=raw.index)
        out["symbol"] = parse_symbols(raw["ts_code"])
        out["trade_date"] = parse_dates(raw["trade_date"], ep, "trade_date")
        for vendor_col, col in spec.plain.items():
            out[col] = parse_numbers(raw[vendor_col], ep, vendor_col)
        for col, (vendor_col, convert) in spec.converted.items():
            out[col] = convert(parse_numbers(raw[vendor_col], ep, vendor_col))
        out = out[out["symbol"].notna()]
        if dataset == "quotes":
            vwap = out["amount"] / out["volume"].where(out["volume"] > 0)
            _check_unit_scale(vwap / out["close"], "amount ÷ volume vs close", ep)
        if dataset == "valuation":
            implied = out["close"] * out["total_share"]
            _check_unit_scale(out["total_mv"] / implied, "total_mv vs close × total_share", ep)
        return out.reindex(columns=columns)


# ---------------------------------------------------------------- financials


def _statement_key(r: RawResponse) -> tuple[Any, ...] | None:
    """The batch an answer is normalised in: statement, endpoint, columns and dtypes."""
    if r.query.endpoint not in STATEMENT_ENDPOINTS.values() or r.frame.empty:
        return None
    shape = tuple(zip(r.frame.columns, map(str, r.frame.dtypes), strict=True))
    return (r.query.tag, r.query.endpoint, shape)


def _normalised(batch: list[RawResponse], key: tuple[Any, ...]) -> pd.DataFrame:
    """One batch's canonical rows, each tagged with the id of the answer it came from."""
    statement, endpoint, _shape = key
    frames = [r.frame for r in batch]
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0:
        frame = frame.reset_index(drop=True)  # row labels are positions, for the answer ids
    rows = _statement_rows(frame, statement, endpoint)
    if rows.empty:
        return rows
    ids = np.repeat([id(r) for r in batch], [len(f) for f in frames])
    return rows.assign(_answer=ids[rows.index.to_numpy()])


class StatementBatches:
    """Statement answers normalised in batches of `size` while the paced calls go on, so a
    reporting night's transform does not all wait for the last call (benchmarks/README.md,
    Nightly). The rows are the same as one batch per group would give (same grouping by
    columns and dtypes), assembled in the same order; a batch that fails is left to the
    transform, which raises as it would have. Thread-safe."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._pending: dict[tuple[Any, ...], list[RawResponse]] = {}
        self._done: list[pd.DataFrame] = []
        self._covered: set[int] = set()

    def add(self, raw: RawResponse) -> None:
        key = _statement_key(raw)
        if key is None:
            return
        with self._lock:
            pending = self._pending.setdefault(key, [])
            pending.append(raw)
            if len(pending) < self.size:
                return
            batch, self._pending[key] = pending, []
        try:
            rows = _normalised(batch, key)
        except Exception:  # garbage: the transform meets it again and says so
            return
        with self._lock:
            self._done.append(rows)
            self._covered.update(id(r) for r in batch)

    def taken(self) -> tuple[list[pd.DataFrame], set[int]]:
        with self._lock:
            return list(self._done), set(self._covered)


STATEMENT_BATCH = 64  # answers per early batch (a reporting night brings ~240 per endpoint)


def _financial_rows(
    req: FetchRequest, raws: list[RawResponse], batches: StatementBatches | None = None
) -> pd.DataFrame:
    """Answers of one statement endpoint with the same columns and dtypes are normalised
    together: a reporting night brings hundreds of small answers, and per-answer pandas
    overhead was most of the fetch's CPU (723 answers, 58k rows: see benchmarks/README.md).
    Dtypes are part of the group so concatenation never turns an int field into a float one
    (the `extra` text, and so the stored version, must not depend on the batch). `batches`
    holds answers already normalised during the calls; rows come out in the order of one
    batch per group either way (groups by first answer, then answer order)."""
    done, covered = batches.taken() if batches is not None else ([], set())
    groups: dict[tuple[Any, ...], list[RawResponse]] = {}
    order: dict[int, tuple[int, int]] = {}  # answer id → (its group's rank, its position)
    for pos, r in enumerate(raws):
        key = _statement_key(r)
        if key is None:
            continue
        rank = list(groups).index(key) if key in groups else len(groups)
        groups.setdefault(key, [])
        order[id(r)] = (rank, pos)
        if id(r) not in covered:
            groups[key].append(r)
    parts = [*done, *(_normalised(batch, key) for key, batch in groups.items() if batch)]
    columns = get_schema("financials").columns
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame(columns=columns)
    rows = pd.concat(parts, ignore_index=True)
    if done:  # back into one-batch-per-group order (a stable sort keeps rows in answer order)
        place = rows["_answer"].map(order)
        rows = rows.iloc[np.lexsort((place.map(lambda p: p[1]), place.map(lambda p: p[0])))]
        rows = rows.reset_index(drop=True)
    rows = rows.drop(columns="_answer")
    return mark_undated_revisions(rows).reindex(columns=columns)


def _statement_rows(frame: pd.DataFrame, statement: str, endpoint: str) -> pd.DataFrame:
    """One statement's answers → canonical rows; a frame without a usable quarter-end period
    is rejected whole (it is not a statement)."""
    if frame.empty:
        return pd.DataFrame()
    items = vendor_map(statement, VENDOR)  # vendor field → canonical item
    present = [f for f in items if f in frame.columns]
    if not present:
        raise _garbage(f"no {statement} line items among columns {list(frame.columns)}", endpoint)
    periods = parse_dates(frame["end_date"], endpoint, "end_date")
    if periods.isna().any():
        raise _garbage("a row has no end_date: no recognisable report period", endpoint)
    off = ~periods.map(is_quarter_end).astype(bool)
    if off.any():
        raise _garbage(f"end_date {periods[off].iloc[0]} is not a quarter end", endpoint)
    report_type = frame["report_type"].map(code_text)
    if report_type.isna().any():
        raise _garbage("a row has no report_type", endpoint)

    nan = np.full(len(frame), np.nan)
    cols: dict[str, Any] = {
        "symbol": parse_symbols(frame["ts_code"]),
        "statement": statement,
        "report_period": periods,
        "report_type": report_type,
        "ann_date": parse_dates(frame["ann_date"], endpoint, "ann_date"),
        # f_ann_date counts only when later than ann_date; pit.rule_financials decides that.
        "revision_date": parse_dates(frame["f_ann_date"], endpoint, "f_ann_date"),
        "update_flag": frame["update_flag"].map(code_text),
        **{item: nan for item in LINE_ITEMS},
    }
    for field in present:
        cols[items[field]] = parse_numbers(frame[field], endpoint, field)
    extra = [c for c in frame.columns if c not in STATEMENT_META and c not in items]
    cols["extra"] = [
        json_text({c: json_cell(v) for c, v in zip(extra, row, strict=True)})
        for row in frame[extra].itertuples(index=False, name=None)
    ]
    out = pd.DataFrame(cols, index=frame.index)
    return out[out["symbol"].notna()]


VERSION_KEY = ("symbol", "statement", "report_period", "report_type")
_SAME_DATES = (*VERSION_KEY, "ann_date", "revision_date")


def mark_undated_revisions(rows: pd.DataFrame) -> pd.DataFrame:
    """A restated version (update_flag '1') beside an original ('0') with the same ann_date and
    f_ann_date but different values has no date of its own: `undated_revision` makes
    pit.rule_financials date it by when we first saw it. Rows identical in dates and values are
    one version, kept once (preferring the '1' row).

    Vectorised (row hashes and merges): a statement history is thousands of near-singleton
    groups, and a per-group loop cost ~1 ms a row."""
    keys = list(_SAME_DATES)
    rows = rows.copy()
    rows["_values"] = pd.util.hash_pandas_object(rows[[*LINE_ITEMS, "extra"]], index=False)
    rows["_flag_rank"] = (rows["update_flag"] != "1").astype(int)  # '1' first
    rows = rows.sort_values("_flag_rank", kind="stable")
    rows = rows.drop_duplicates(subset=[*keys, "_values"], keep="first")
    originals = rows.loc[rows["update_flag"] == "0", [*keys, "_values"]].drop_duplicates()
    # Per row: how many distinct original versions share its dates, and is it one of them?
    n_orig = originals.groupby(keys, dropna=False, sort=False).size().rename("_n_orig")
    marked = rows.reset_index().merge(n_orig.reset_index(), on=keys, how="left")
    marked = marked.merge(
        originals.assign(_is_orig=True), on=[*keys, "_values"], how="left"
    ).set_index("index")
    n = marked["_n_orig"].fillna(0)
    own = marked["_is_orig"].astype("boolean").fillna(False).astype(bool)
    # restated iff some original of the same dates has other values
    undated = (marked["update_flag"] == "1") & ((~own & (n >= 1)) | (own & (n >= 2)))
    rows["undated_revision"] = undated.reindex(rows.index).fillna(False).astype(bool)
    return rows.drop(columns=["_values", "_flag_rank"]).sort_index()


# ---------------------------------------------------------------- news


def _news_cap(endpoint: str) -> int:
    """Rows per call of a news endpoint (read at call time, so tests can lower it)."""
    return MAJOR_NEWS_ROWS_PER_CALL if endpoint == "major_news" else NEWS_ROWS_PER_CALL


NEWS_CAPS = frozenset({"news", "major_news"})  # endpoints whose full answers are split


def _split_if_capped(raw: RawResponse) -> list[VendorQuery]:
    """A `news` or `major_news` answer at its row cap may be truncated: ask again for each
    half window."""
    if len(raw.frame) < _news_cap(raw.query.endpoint):
        return []
    params = raw.query.params
    lo = datetime.strptime(params["start_date"], NEWS_TIME_FORMAT)
    hi = datetime.strptime(params["end_date"], NEWS_TIME_FORMAT)
    if hi - lo < NEWS_MIN_WINDOW:
        log.warning(
            "tushare %s %s: %d rows in %s..%s, possibly truncated",
            raw.query.endpoint,
            params.get("src", ""),
            len(raw.frame),
            lo,
            hi,
        )
        return []
    mid = lo + (hi - lo) / 2
    mid = mid.replace(microsecond=0)
    halves = ((lo, mid), (mid + timedelta(seconds=1), hi))
    return [
        VendorQuery(
            raw.query.endpoint,
            {
                **params,
                "start_date": a.strftime(NEWS_TIME_FORMAT),
                "end_date": b.strftime(NEWS_TIME_FORMAT),
            },
        )
        for a, b in halves
    ]


def symbols_named_in(*texts: object) -> list[str]:
    """Canonical codes written out as ts_codes (600519.SH) in the item's text."""
    found: set[str] = set()
    for text in texts:
        if isinstance(text, str):
            for m in _TS_CODE_IN_TEXT.finditer(text):
                try:
                    found.add(canonical(m.group(1)))
                except InvalidArgumentsError:
                    continue
    return sorted(found)


def _news_rows(req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
    items: dict[str, dict[str, Any]] = {}
    for raw in raws:
        is_major = raw.query.endpoint == "major_news"
        time_col = "pub_time" if is_major else "datetime"
        frame = raw.frame
        for row in frame.to_dict("records"):
            title = headline(row.get("title"), row.get("content"))
            if title is None:
                continue
            published = parse_vendor_time(row.get(time_col))
            src = row.get("src") if is_major else raw.query.params.get("src")
            src = src if isinstance(src, str) and src.strip() else MAJOR_NEWS_SOURCE
            content = row.get("content")
            key = news_id(title, published)
            item = items.setdefault(
                key,
                {
                    "news_id": key,
                    "symbols": set(),
                    "title": title,
                    "content": None if _is_missing(content) else content,
                    "url": None,
                    "published_at": published,
                    "sources": set(),
                },
            )
            item["sources"].add(f"{VENDOR}:{src.strip()}")
            item["symbols"].update(symbols_named_in(title, content))
    columns = get_schema("news").columns
    if not items:
        return pd.DataFrame(columns=columns)
    out = pd.DataFrame(list(items.values()))
    out["symbols"] = out["symbols"].map(sorted)
    out["sources"] = out["sources"].map(sorted)
    out["published_at"] = pd.to_datetime(out["published_at"], utc=True).astype(KNOWN_AT_DTYPE)
    return out.reindex(columns=columns)


# ---------------------------------------------------------------- dragon-tiger


def _dragon_tiger_rows(req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
    columns = get_schema("dragon_tiger").columns
    lists = [r.frame for r in raws if r.query.endpoint == "top_list" and not r.frame.empty]
    if not lists:
        return pd.DataFrame(columns=columns)
    raw = pd.concat(lists, ignore_index=True).drop_duplicates()
    ep = "top_list"
    out = pd.DataFrame(index=raw.index)
    out["symbol"] = parse_symbols(raw["ts_code"])
    out["trade_date"] = parse_dates(raw["trade_date"], ep, "trade_date")
    out["reason"] = raw["reason"].map(lambda v: None if _is_missing(v) else str(v).strip())
    out["name"] = raw["name"].map(lambda v: None if _is_missing(v) else str(v))
    for vendor_col, col in TOP_LIST_PLAIN.items():
        if col != "name":
            out[col] = parse_numbers(raw[vendor_col], ep, vendor_col)
    for vendor_col, col in TOP_LIST_AMOUNTS.items():
        out[col] = top_list_amount_to_yuan(parse_numbers(raw[vendor_col], ep, vendor_col))
    out = out[out["symbol"].notna()]
    if req.symbols:
        out = out[out["symbol"].isin(set(req.symbols))]
    seats = _seats([r.frame for r in raws if r.query.endpoint == "top_inst"])
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
    ep = "top_inst"
    seats = pd.DataFrame(index=raw.index)
    seats["symbol"] = parse_symbols(raw["ts_code"])
    seats["trade_date"] = parse_dates(raw["trade_date"], ep, "trade_date")
    seats["reason"] = raw["reason"].map(lambda v: None if _is_missing(v) else str(v).strip())
    side = raw["side"].map(code_text)
    unknown = ~side.isin(list(SEAT_SIDES))
    if unknown.any():
        raise _garbage(f"side {raw['side'][unknown].iloc[0]!r} is neither '0' nor '1'", ep)
    seats["side"] = side.map(SEAT_SIDES)
    seats["branch"] = raw["exalter"].map(lambda v: None if _is_missing(v) else str(v))
    seats["buy"] = parse_numbers(raw["buy"], ep, "buy")
    seats["sell"] = parse_numbers(raw["sell"], ep, "sell")
    seats["net"] = parse_numbers(raw["net_buy"], ep, "net_buy")
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


# ---------------------------------------------------------------- calendar


def _open_flag(v: object) -> bool | None:
    if isinstance(v, bool):
        return v
    return {"1": True, "0": False, "True": True, "False": False}.get(code_text(v) or "")


def _calendar_rows(req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
    columns = get_schema("calendar").columns
    frames = [r.frame for r in raws if not r.frame.empty]
    if not frames:
        return pd.DataFrame(columns=columns)
    raw = pd.concat(frames, ignore_index=True)
    ep = "trade_cal"
    exchange = (
        raw["exchange"].map(code_text)
        if "exchange" in raw.columns
        else pd.Series(CALENDAR_EXCHANGE, index=raw.index)
    )
    mic = exchange.map(EXCHANGE_MIC)
    if mic.isna().any():
        raise _garbage(f"exchange {exchange[mic.isna()].iloc[0]!r} is not SSE/SZSE", ep)
    is_open = raw["is_open"].map(_open_flag)
    if is_open.isna().any():
        raise _garbage(f"is_open {raw['is_open'][is_open.isna()].iloc[0]!r} is not 0/1", ep)
    out = pd.DataFrame(
        {
            "exchange": mic,
            "date": parse_dates(raw["cal_date"], ep, "cal_date"),
            "is_open": is_open.astype(bool),
        }
    )
    if out["date"].isna().any():
        raise _garbage("a row has no cal_date", ep)
    return out.reindex(columns=columns)
