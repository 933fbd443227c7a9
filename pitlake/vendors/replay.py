"""The replay source: vendor calls answered from recorded, vendor-native tables (docs/replay-format.md).

`ReplaySource(dir)` sits *below* the adapters, so normalisation runs exactly as it does live: a
call gets the rows the vendor would have sent, typed as the vendor types them, filtered the way
the vendor filters, and — when nothing matches — the vendor's own no-rows reply (an empty frame
with columns, a frame with no columns, a `TypeError`, a `ValueError`). Native failures go
through `classify.py`, the same code that classifies live failures.

Injected failures (`<endpoint>.error.json`) raise the native exception the vendor raises (for
Tushare, a plain `Exception` with the server's Chinese text), or answer stale rows.
Counters live in the `ReplaySource`, so "the first N calls" means the first N calls of a run,
whichever client made them. Files are read once and cached.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pitlake.errors import (
    ERROR_BY_KIND,
    DataNotReadyError,
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
    VendorRateLimitError,
)
from pitlake.statuses import ResultStatus, wire_kind
from pitlake.vendors.akshare_replies import classify_failure
from pitlake.vendors.classify import classify

log = logging.getLogger(__name__)

FORMATS = (".jsonl", ".csv", ".parquet")
STALE = "stale"  # a replay-only kind: an older date comes back (no status of its own)
# The injection kinds that are a status: its lowercase spelling (`wire_kind`), never retyped.
KIND_RATE_LIMITED = wire_kind(ResultStatus.RATE_LIMITED)
KIND_PERMISSION_DENIED = wire_kind(ResultStatus.PERMISSION_DENIED)
KIND_UPSTREAM_ERROR = wire_kind(ResultStatus.UPSTREAM_ERROR)
KIND_NOT_CONFIGURED = wire_kind(ResultStatus.NOT_CONFIGURED)
KIND_NO_DATA = wire_kind(ResultStatus.NO_DATA)
KIND_NOT_READY = wire_kind(ResultStatus.NOT_READY)
INJECTION_KINDS = (*ERROR_BY_KIND, STALE)

# The vendors' real texts, so injected failures exercise the same classification as live ones.
TUSHARE_TEXTS = {
    KIND_RATE_LIMITED: "抱歉，您每分钟最多访问该接口500次，"
    "权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。",
    KIND_PERMISSION_DENIED: "抱歉，您没有接口访问权限，"
    "权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。",
    KIND_UPSTREAM_ERROR: "系统内部错误",
    KIND_NOT_CONFIGURED: "没有设置 Tushare token（TUSHARE_TOKEN / TS_TOKEN）",
}
AKSHARE_TEXTS = {
    KIND_RATE_LIMITED: "Rate limit exceeded. Status code: 429",
    KIND_UPSTREAM_ERROR: "('Connection aborted.', "
    "RemoteDisconnected('Remote end closed connection without response'))",
    KIND_NOT_CONFIGURED: "No module named 'akshare'",
    KIND_PERMISSION_DENIED: "access denied by the data source",
}
NOT_READY_TEXT = "the requested date is not published yet"


# ---------------------------------------------------------------- the per-endpoint filter table

# pandas' KeyError when stock_info_global_em selects its columns from an empty list.
GLOBAL_NEWS_NO_ROWS = (
    "None of [Index(['title', 'summary', 'showTime', 'code'], dtype='str')] are in the [columns]"
)

# East Money's notice categories (the `symbol` of stock_notice_report, sent as `f_node`) and
# the `column_name`s its answers carry, which akshare returns as 公告类型 (stock_notice.py:103).
# A recorded answer carries the category it was asked for as `_symbol`; rows without that tag
# (recorded before it existed) are matched on 公告类型 through this table. The names are the
# ones East Money's notice pages list under each category [partly UNVERIFIED: not exhaustive].
NOTICE_COLUMN_NAMES: dict[str, frozenset[str]] = {
    "财务报告": frozenset(
        {
            "财务报告",
            "年度报告全文",
            "年度报告摘要",
            "半年度报告全文",
            "半年度报告摘要",
            "一季度报告全文",
            "一季度报告正文",
            "三季度报告全文",
            "三季度报告正文",
            "业绩预告",
            "业绩预告修正",
            "业绩快报",
            "业绩快报修正",
            "定期报告更正",
            "财务报告更正",
        }
    ),
    "风险提示": frozenset({"风险提示", "股票交易异常波动", "风险提示性公告", "退市风险警示"}),
    "重大事项": frozenset({"重大事项", "停牌公告", "复牌公告", "权益分派实施", "股东大会决议"}),
}


@dataclass(frozen=True)
class Filter:
    """`param` of a call → rows whose `column` matches it.

    kind: eq (string equality) | list (comma list, any of) | date (same day) |
          date_from / date_to (inclusive day bounds) | time_from / time_to (timestamp bounds) |
          secucode (an EM F10 symbol `SH600519` against `600519.SH`) |
          notice_kind (an EM notice category: the `_symbol` tag, else 公告类型 in
          NOTICE_COLUMN_NAMES)."""

    param: str
    column: str
    kind: str = "eq"
    unless: tuple[str, ...] = ()  # param values that mean "no filter" (e.g. 全部)


@dataclass(frozen=True)
class EndpointSpec:
    filters: tuple[Filter, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)  # the vendor's parameter defaults
    # columns | no_columns | type_error | value_error | key_error:<key> (the library's own
    # reply to "no rows", so the live client's reading of it is what replay exercises)
    no_rows: str = "columns"
    date_column: str | None = None  # what `stale` moves back
    require: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # only these are held
    date_columns: tuple[str, ...] = ()  # AkShare: returned as datetime.date
    datetime_columns: tuple[str, ...] = ()  # returned as datetime64
    str_columns: tuple[str, ...] = ()  # always strings (codes, factor texts)

    @property
    def date_filters(self) -> tuple[Filter, ...]:
        return tuple(
            f
            for f in self.filters
            if f.column == self.date_column and f.kind in ("date", "date_from", "date_to")
        )


def _bars(date_col: str, *, by: Filter, no_rows: str = "columns", **kw: Any) -> EndpointSpec:
    return EndpointSpec(
        filters=(
            by,
            Filter("start_date", date_col, "date_from"),
            Filter("end_date", date_col, "date_to"),
        ),
        no_rows=no_rows,
        date_column=date_col,
        **kw,
    )


_TS_BY_DATE = EndpointSpec(
    filters=(
        Filter("ts_code", "ts_code", "list"),
        Filter("trade_date", "trade_date", "date"),
        Filter("start_date", "trade_date", "date_from"),
        Filter("end_date", "trade_date", "date_to"),
    ),
    date_column="trade_date",
)
_TS_STATEMENT = EndpointSpec(
    filters=(
        Filter("ts_code", "ts_code", "list"),
        Filter("period", "end_date", "date"),
        Filter("ann_date", "ann_date", "date"),
        Filter("f_ann_date", "f_ann_date", "date"),
        Filter("start_date", "ann_date", "date_from"),  # the vendor bounds the announcement
        Filter("end_date", "ann_date", "date_to"),
        Filter("report_type", "report_type"),
        Filter("comp_type", "comp_type"),
    ),
    defaults={"report_type": "1"},
    date_column="ann_date",
)
_TS_TOP = EndpointSpec(
    filters=(Filter("trade_date", "trade_date", "date"), Filter("ts_code", "ts_code", "list")),
    date_column="trade_date",
)
_EM_STATEMENT = EndpointSpec(
    filters=(Filter("symbol", "SECUCODE", "secucode"),),
    # A company without periods: `{"data": []}` → KeyError (stock_three_report_em.py:160-161).
    no_rows="key_error:REPORT_DATE",
    str_columns=(
        "SECUCODE",
        "SECURITY_CODE",
        "SECURITY_NAME_ABBR",
        "ORG_CODE",
        "REPORT_DATE",
        "NOTICE_DATE",
        "UPDATE_DATE",
        "REPORT_TYPE",
        "REPORT_DATE_NAME",
        "SECURITY_TYPE_CODE",
        "LISTING_STATE",
    ),
)


def _factor_spec(name: str) -> EndpointSpec:
    # Factor mode ignores the date window: every change point, newest first, plus the sentinel.
    return EndpointSpec(
        filters=(Filter("symbol", "_symbol"),),
        no_rows="value_error",
        datetime_columns=("date",),
        str_columns=(name,),
    )


REPLAY_SPECS: dict[tuple[str, str], EndpointSpec] = {
    ("tushare", "daily"): _TS_BY_DATE,
    ("tushare", "adj_factor"): _TS_BY_DATE,
    ("tushare", "daily_basic"): _TS_BY_DATE,
    ("tushare", "income"): _TS_STATEMENT,
    ("tushare", "balancesheet"): _TS_STATEMENT,
    ("tushare", "cashflow"): _TS_STATEMENT,
    ("tushare", "disclosure_date"): EndpointSpec(
        filters=(
            Filter("ts_code", "ts_code", "list"),
            Filter("end_date", "end_date", "date"),
            Filter("pre_date", "pre_date", "date"),
            Filter("ann_date", "ann_date", "date"),
            Filter("actual_date", "actual_date", "date"),
        ),
    ),
    ("tushare", "top_list"): _TS_TOP,
    ("tushare", "top_inst"): _TS_TOP,
    ("tushare", "trade_cal"): EndpointSpec(
        filters=(
            Filter("exchange", "exchange"),
            Filter("start_date", "cal_date", "date_from"),
            Filter("end_date", "cal_date", "date_to"),
            Filter("is_open", "is_open"),
        ),
        defaults={"exchange": "SSE"},
    ),
    ("tushare", "news"): EndpointSpec(
        filters=(
            Filter("src", "_src"),
            Filter("start_date", "datetime", "time_from"),
            Filter("end_date", "datetime", "time_to"),
        ),
    ),
    ("tushare", "major_news"): EndpointSpec(
        filters=(
            Filter("src", "src"),
            Filter("start_date", "pub_time", "time_from"),
            Filter("end_date", "pub_time", "time_to"),
        ),
    ),
    ("akshare", "stock_zh_a_hist"): _bars(
        "日期",
        by=Filter("symbol", "股票代码"),
        no_rows="no_columns",
        require={"period": ("daily",)},
        date_columns=("日期",),
        str_columns=("股票代码",),
    ),
    ("akshare", "stock_zh_a_daily"): _bars(
        "date", by=Filter("symbol", "_symbol"), date_columns=("date",)
    ),
    ("akshare", "stock_zh_a_daily@hfq-factor"): _factor_spec("hfq_factor"),
    ("akshare", "stock_zh_a_daily@qfq-factor"): _factor_spec("qfq_factor"),
    ("akshare", "stock_zh_a_hist_tx"): _bars(
        "date", by=Filter("symbol", "_symbol"), date_columns=("date",)
    ),
    ("akshare", "stock_profit_sheet_by_report_em"): _EM_STATEMENT,
    ("akshare", "stock_balance_sheet_by_report_em"): _EM_STATEMENT,
    ("akshare", "stock_cash_flow_sheet_by_report_em"): _EM_STATEMENT,
    ("akshare", "stock_notice_report"): EndpointSpec(
        filters=(
            Filter("symbol", "_symbol", "notice_kind", unless=("全部",)),
            Filter("date", "公告日期", "date"),
        ),
        no_rows="key_error:代码",  # stock_notice.py:118 on zero hits (akfamily/akshare#6853)
        date_column="公告日期",
        date_columns=("公告日期",),
        str_columns=("代码",),
    ),
    ("akshare", "stock_news_em"): EndpointSpec(
        filters=(Filter("symbol", "关键词"),),
        no_rows="key_error:code",  # news_stock.py:71-72 on zero hits
        str_columns=("关键词",),
    ),
    ("akshare", "stock_info_global_em"): EndpointSpec(
        no_rows=f"key_error:{GLOBAL_NEWS_NO_ROWS}"  # stock_info.py:79-80 on an empty list
    ),
    ("akshare", "stock_lhb_detail_em"): EndpointSpec(
        filters=(
            Filter("start_date", "上榜日", "date_from"),
            Filter("end_date", "上榜日", "date_to"),
        ),
        no_rows="type_error",
        date_column="上榜日",
        date_columns=("上榜日",),
        str_columns=("代码",),
    ),
    ("akshare", "stock_lhb_stock_detail_em"): EndpointSpec(
        filters=(
            Filter("symbol", "_symbol"),
            Filter("date", "_date", "date"),
            Filter("flag", "_flag"),
        ),
        no_rows="type_error",
    ),
    ("akshare", "stock_lhb_stock_detail_date_em"): EndpointSpec(
        filters=(Filter("symbol", "股票代码"),),
        date_columns=("交易日",),
        str_columns=("股票代码",),
    ),
    ("akshare", "tool_trade_date_hist_sina"): EndpointSpec(date_columns=("trade_date",)),
}

# Tushare sends codes, dates and labels as strings and every number as a float.
_TUSHARE_STR = frozenset(
    {
        "ts_code",
        "report_type",
        "comp_type",
        "end_type",
        "update_flag",
        "exchange",
        "name",
        "reason",
        "exalter",
        "side",
        "src",
        "title",
        "content",
        "channels",
        "datetime",
        "pub_time",
        "url",
        "ann_type",
    }
)
_TUSHARE_AS_IS = frozenset({"is_open"})  # documented as a string, seen as an int: keep as given
_AKSHARE_STR = frozenset({"股票代码", "代码", "名称", "股票简称", "关键词", "公告类型"})


def endpoint_key(vendor: str, endpoint: str, params: Mapping[str, Any]) -> str:
    """The file stem for a call: AkShare calls with a non-empty `adjust` have their own table."""
    adjust = params.get("adjust") if vendor == "akshare" else None
    return f"{endpoint}@{adjust}" if adjust else endpoint


def spec_for(vendor: str, key: str) -> EndpointSpec | None:
    return REPLAY_SPECS.get((vendor, key)) or REPLAY_SPECS.get((vendor, key.split("@")[0]))


def tags_for(vendor: str, endpoint: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The `_` tag columns a recorded answer needs so replay can filter it like the vendor."""
    spec = spec_for(vendor, endpoint_key(vendor, endpoint, params))
    if spec is None:
        return {}
    return {
        f.column: params[f.param]
        for f in spec.filters
        if f.column.startswith("_")
        and params.get(f.param) not in (None, "")
        and str(params[f.param]) not in f.unless
    }


# ---------------------------------------------------------------- value normalisation

_DIGITS = re.compile(r"\D")


def date_int(value: Any) -> int | None:
    """Any date form (20250603, '2025-06-03', '2025-06-03 00:00:00', date, Timestamp) →
    20250603; None when it is not a date."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NaT:
        return None
    if isinstance(value, datetime | date):
        return value.year * 10000 + value.month * 100 + value.day
    digits = _DIGITS.sub("", str(value).strip()[:10])
    if len(digits) != 8:
        return None
    try:
        d = date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
    except ValueError:
        return None
    return d.year * 10000 + d.month * 100 + d.day


def _as_date(value: Any) -> date | None:
    n = date_int(value)
    return None if n is None else date(n // 10000, n // 100 % 100, n % 100)


def _date_keys(column: pd.Series) -> pd.Series:
    """Vectorised date_int: YYYYMMDD as float (NaN where not a date)."""
    text = column.astype("string").str.strip().str.slice(0, 10).str.replace(r"\D", "", regex=True)
    text = text.where(text.str.len() == 8)
    return pd.to_numeric(text, errors="coerce").astype("float64")


def _time_keys(column: pd.Series) -> pd.Series:
    return pd.to_datetime(column.astype("string"), errors="coerce", format="mixed")


def _time_bound(value: Any, *, upper: bool) -> pd.Timestamp | None:
    text = str(value).strip()
    try:
        ts = pd.Timestamp(text)
    except (ValueError, TypeError):
        return None
    date_only = len(_DIGITS.sub("", text)) <= 8
    if upper and date_only:  # a bare end date includes that whole day
        ts = ts + pd.Timedelta(days=1) - pd.Timedelta(microseconds=1)
    return ts


# ---------------------------------------------------------------- one cached table


class _Table:
    """A file's rows typed as the vendor returns them, plus cached filter keys."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self._keys: dict[tuple[str, str], pd.Series] = {}
        self._lock = threading.Lock()

    def key(self, column: str, kind: str) -> pd.Series:
        with self._lock:
            cached = self._keys.get((column, kind))
            if cached is None:
                col = self.frame[column]
                if kind == "date":
                    cached = _date_keys(col)
                elif kind == "time":
                    cached = _time_keys(col)
                else:
                    cached = col.astype("string").str.strip()
                self._keys[(column, kind)] = cached
            return cached


def _read_rows(path: Path) -> pd.DataFrame:
    if path.suffix == ".jsonl":
        records = [
            json.loads(line)
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        return pd.DataFrame.from_records(records) if records else pd.DataFrame()
    if path.suffix == ".csv":
        return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    return pd.read_parquet(path)


def _numeric_text(col: pd.Series) -> pd.Series | None:
    """A text column whose every value is a number (and none a zero-padded code) → numbers."""
    values = col.dropna().astype(str).str.strip()
    if values.empty or values.str.match(r"^-?0\d").any():
        return None
    parsed = pd.to_numeric(col, errors="coerce")
    if parsed.notna().sum() != len(values):
        return None
    return parsed


def _text(value: Any) -> str | None:
    """A value as the vendor's string (missing stays missing; 20250603.0 → '20250603')."""
    if value is None or value is pd.NaT or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _as_text(col: pd.Series) -> pd.Series:
    return pd.Series([_text(v) for v in col], index=col.index, dtype="str")


def _typed(
    vendor: str, spec: EndpointSpec | None, frame: pd.DataFrame, *, text: bool
) -> pd.DataFrame:
    """Give every column the type the vendor's own frame has. `text`: the file stored
    everything as strings (CSV), so numbers must be recognised."""
    frame = frame.copy()
    spec = spec or EndpointSpec()
    for name in frame.columns:
        col = frame[name]
        if name.startswith("_"):
            frame[name] = _as_text(col)
        elif vendor == "tushare":
            if name in _TUSHARE_STR or name.endswith("date"):
                frame[name] = _as_text(col)
            elif text and (num := _numeric_text(col)) is not None:
                frame[name] = num if name in _TUSHARE_AS_IS else num.astype("float64")
            elif name not in _TUSHARE_AS_IS and pd.api.types.is_numeric_dtype(col):
                frame[name] = col.astype("float64")
        elif name in spec.date_columns:
            frame[name] = pd.Series([_as_date(v) for v in col], index=col.index, dtype=object)
        elif name in spec.datetime_columns:
            frame[name] = pd.to_datetime(col.astype("string"), format="mixed")
        elif name in spec.str_columns or name in _AKSHARE_STR:
            frame[name] = _as_text(col)
        elif text and (num := _numeric_text(col)) is not None:
            frame[name] = num
        elif len(col) and col.isna().all():
            frame[name] = col.astype("float64")  # AkShare coerces all-null columns to float
    return frame


# ---------------------------------------------------------------- injections


@dataclass
class _Injection:
    kind: str
    times: int | None
    match: dict[str, Any]
    message: str | None
    fired: int = 0

    def matches(self, params: Mapping[str, Any]) -> bool:
        for name, want in self.match.items():
            got = params.get(name)
            if got is None:
                return False
            if str(got).strip() != str(want).strip():
                d1, d2 = date_int(got), date_int(want)
                if d1 is None or d1 != d2:
                    return False
        return True


def _parse_injections(path: Path) -> list[_Injection]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        items = raw if isinstance(raw, list) else [raw]
        out = []
        for item in items:
            kind = item["error"]
            if kind not in INJECTION_KINDS:
                raise ValueError(f"unknown error kind {kind!r}")
            times = item.get("times")
            out.append(
                _Injection(
                    kind=kind,
                    times=None if times is None else int(times),
                    match=dict(item.get("match") or {}),
                    message=item.get("message"),
                )
            )
        return out
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise VendorError(
            f"bad replay injection file {path.name}: {exc}", retryable=False
        ) from None


def _native_failure(vendor: str, kind: str, message: str | None) -> BaseException:
    """The exception the real vendor raises for this kind of failure."""
    if kind == KIND_NOT_READY:
        return DataNotReadyError(message or NOT_READY_TEXT)
    if vendor == "tushare":
        text = message or TUSHARE_TEXTS.get(kind, kind)
        if kind == KIND_NOT_CONFIGURED:
            return VendorNotConfiguredError(text)  # the live client never reaches the server
        return Exception(text)  # the SDK's (and our client's) form for every server error
    if vendor == "akshare":
        text = message or AKSHARE_TEXTS.get(kind, kind)
        if kind == KIND_UPSTREAM_ERROR:
            import requests

            return requests.exceptions.ConnectionError(text)
        if kind == KIND_NOT_CONFIGURED:
            return ModuleNotFoundError(text)
        if kind == KIND_RATE_LIMITED:
            try:
                from akshare.exceptions import RateLimitError
            except ImportError:
                return VendorRateLimitError(text)
            return RateLimitError(text)
        return ERROR_BY_KIND[kind](text)  # AkShare has no native permission failure
    return ERROR_BY_KIND[kind](message or kind)


_STATUS_OF_KIND = {kind: cls.status for kind, cls in ERROR_BY_KIND.items()}


# ---------------------------------------------------------------- the source and its clients


class ReplaySource:
    """One replay directory for one run: cached tables, injection rules and their counters."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._tables: dict[tuple[str, str], _Table | None] = {}
        self._injections: dict[tuple[str, str], list[_Injection]] = {}
        self.calls: Counter[tuple[str, str]] = Counter()  # (vendor, endpoint key) → calls

    def __repr__(self) -> str:
        return f"ReplaySource({str(self.root)!r})"

    def client(self, vendor: str) -> ReplayClient:
        return ReplayClient(self, vendor)

    def call_count(self, vendor: str | None = None, endpoint: str | None = None) -> int:
        with self._lock:
            return sum(
                n
                for (v, key), n in self.calls.items()
                if vendor in (None, v) and endpoint in (None, key, key.split("@")[0])
            )

    # -- files

    def _path(self, vendor: str, key: str) -> Path | None:
        for ext in FORMATS:
            path = self.root / vendor / f"{key}{ext}"
            if path.is_file():
                return path
        return None

    def table(self, vendor: str, key: str) -> _Table | None:
        with self._lock:
            if (vendor, key) in self._tables:
                return self._tables[(vendor, key)]
            path = self._path(vendor, key)
            table = None
            if path is not None:
                rows = _read_rows(path)
                spec = spec_for(vendor, key)
                table = _Table(_typed(vendor, spec, rows, text=path.suffix == ".csv"))
            self._tables[(vendor, key)] = table
            return table

    def _rules(self, vendor: str, key: str) -> list[_Injection]:
        # Called with the lock held.
        if (vendor, key) not in self._injections:
            path = self.root / vendor / f"{key}.error.json"
            self._injections[(vendor, key)] = _parse_injections(path) if path.is_file() else []
        return self._injections[(vendor, key)]

    def _fire(
        self, vendor: str, key: str, params: Mapping[str, Any], by_date: bool
    ) -> _Injection | None:
        """The injection this call triggers (counted), if any."""
        with self._lock:
            self.calls[(vendor, key)] += 1
            for rule in self._rules(vendor, key):
                if rule.kind == STALE and not by_date:
                    continue
                if not rule.matches(params):
                    continue
                if rule.times is not None and rule.fired >= rule.times:
                    continue
                rule.fired += 1
                return rule
        return None


class ReplayClient:
    """A VendorClient answering one vendor's calls from a ReplaySource."""

    def __init__(self, source: ReplaySource, vendor: str) -> None:
        self.source = source
        self.vendor = vendor

    def __repr__(self) -> str:
        return f"ReplayClient({self.vendor!r}, {self.source!r})"

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        try:
            return self._answer(endpoint, params)
        except Exception as exc:
            if self.vendor == "akshare":  # the live client's reading of akshare's failures
                err = classify_failure(endpoint, exc)
            else:
                err = classify(self.vendor, exc, endpoint=endpoint)
            if err is exc:
                raise
            raise err from exc

    # -- answering

    def _answer(self, endpoint: str, params: dict[str, Any]) -> pd.DataFrame:
        key = endpoint_key(self.vendor, endpoint, params)
        spec = spec_for(self.vendor, key)
        wanted_day = self._by_date(spec, params)
        rule = self.source._fire(self.vendor, key, params, wanted_day is not None)
        table = self.source.table(self.vendor, key)
        if rule is not None and rule.kind != STALE:
            return self._fail(endpoint, rule, spec, table, params)
        if table is None:
            raise VendorNotConfiguredError(
                f"replay has no {key} table under {self.source.root / self.vendor}",
                vendor=self.vendor,
                endpoint=endpoint,
            )
        for name, allowed in spec.require.items() if spec else ():
            value = params.get(name, allowed[0])
            if value not in allowed:
                raise VendorNotConfiguredError(
                    f"replay holds {name}={allowed[0]!r} only, not {value!r}",
                    vendor=self.vendor,
                    endpoint=endpoint,
                )
        if rule is not None:  # stale: the latest earlier date that has rows
            assert wanted_day is not None
            mask = self._stale_mask(table, spec, params, wanted_day)
        else:
            mask = self._mask(table, spec, params)
        if not mask.any():
            return self._no_rows(spec, table, params)
        return self._project(table.frame[mask.to_numpy()], params)

    def _fail(
        self,
        endpoint: str,
        rule: _Injection,
        spec: EndpointSpec | None,
        table: _Table | None,
        params: dict[str, Any],
    ) -> pd.DataFrame:
        if rule.kind == KIND_NO_DATA:
            if table is None:
                raise NoMarketDataError(
                    rule.message or "no data", vendor=self.vendor, endpoint=endpoint
                )
            return self._no_rows(spec, table, params)
        native = _native_failure(self.vendor, rule.kind, rule.message)
        typed = classify(self.vendor, native, endpoint=endpoint)
        if typed.status is not _STATUS_OF_KIND[rule.kind]:
            # A custom message the classifier reads differently: the injected kind wins.
            log.warning(
                "replay %s/%s: %r classified as %s; raising %s as injected",
                self.vendor,
                endpoint,
                rule.message,
                typed.status,
                rule.kind,
            )
            raise ERROR_BY_KIND[rule.kind](str(native), vendor=self.vendor, endpoint=endpoint)
        raise native

    @staticmethod
    def _by_date(spec: EndpointSpec | None, params: Mapping[str, Any]) -> int | None:
        """The single day a call asks for (trade_date=D, or start=end=D), else None."""
        if spec is None or spec.date_column is None:
            return None
        for f in spec.date_filters:
            if f.kind == "date" and params.get(f.param) not in (None, ""):
                return date_int(params[f.param])
        lo = [f for f in spec.date_filters if f.kind == "date_from"]
        hi = [f for f in spec.date_filters if f.kind == "date_to"]
        if lo and hi:
            d1, d2 = date_int(params.get(lo[0].param)), date_int(params.get(hi[0].param))
            if d1 is not None and d1 == d2:
                return d1
        return None

    def _mask(
        self,
        table: _Table,
        spec: EndpointSpec | None,
        params: Mapping[str, Any],
        *,
        skip: tuple[Filter, ...] = (),
    ) -> pd.Series:
        frame = table.frame
        mask = pd.Series(True, index=frame.index)
        filters = spec.filters if spec else self._generic_filters(frame, params)
        defaults = spec.defaults if spec else {}
        for f in filters:
            if f in skip:
                continue
            given = params.get(f.param)
            value = given if given not in (None, "") else defaults.get(f.param)
            if value in (None, "") or str(value) in f.unless:
                continue
            if f.kind == "notice_kind" and f.column not in frame.columns:
                mask &= self._notice_kind(table, str(value))
                continue
            if f.column not in frame.columns:
                if given in (None, ""):
                    continue  # a vendor default the recording does not carry
                log.warning(
                    "replay %s: no column %r to filter %s=%r: no rows",
                    self.vendor,
                    f.column,
                    f.param,
                    value,
                )
                return pd.Series(False, index=frame.index)
            mask &= self._match(table, f, value)
        return mask

    @staticmethod
    def _generic_filters(frame: pd.DataFrame, params: Mapping[str, Any]) -> tuple[Filter, ...]:
        """An endpoint outside the table: a param naming a column (or `_` tag) filters it."""
        out = []
        for name in params:
            for column in (name, f"_{name}"):
                if column in frame.columns:
                    out.append(Filter(name, column, "date" if date_int(params[name]) else "eq"))
                    break
        return tuple(out)

    def _match(self, table: _Table, f: Filter, value: Any) -> pd.Series:
        if f.kind in ("date", "date_from", "date_to"):
            day = date_int(value)
            keys = table.key(f.column, "date")
            if day is None:
                return pd.Series(False, index=keys.index)
            return {"date": keys == day, "date_from": keys >= day, "date_to": keys <= day}[f.kind]
        if f.kind in ("time_from", "time_to"):
            bound = _time_bound(value, upper=f.kind == "time_to")
            keys = table.key(f.column, "time")
            if bound is None:
                return pd.Series(False, index=keys.index)
            return (keys >= bound) if f.kind == "time_from" else (keys <= bound)
        keys = table.key(f.column, "str")
        if f.kind == "notice_kind":  # tagged rows by their tag, untagged ones by 公告类型
            tagged = (keys == str(value).strip()).fillna(False).astype(bool)
            return tagged | (keys.isna() & self._notice_kind(table, str(value)))
        if f.kind == "list":
            wanted = [p.strip() for p in str(value).split(",") if p.strip()]
            return keys.isin(wanted).fillna(False).astype(bool)
        if f.kind == "secucode":
            return (keys == _secucode(str(value))).fillna(False).astype(bool)
        return (keys == str(value).strip()).fillna(False).astype(bool)

    @staticmethod
    def _notice_kind(table: _Table, category: str) -> pd.Series:
        """Untagged notice rows: 公告类型 is East Money's column_name (一季度报告全文, …)."""
        if "公告类型" not in table.frame.columns:
            return pd.Series(False, index=table.frame.index)
        names = NOTICE_COLUMN_NAMES.get(category, frozenset({category}))
        return table.key("公告类型", "str").isin(names).fillna(False).astype(bool)

    def _stale_mask(
        self, table: _Table, spec: EndpointSpec | None, params: Mapping[str, Any], day: int
    ) -> pd.Series:
        assert spec is not None and spec.date_column is not None
        if spec.date_column not in table.frame.columns:
            return pd.Series(False, index=table.frame.index)
        base = self._mask(table, spec, params, skip=spec.date_filters)
        keys = table.key(spec.date_column, "date")
        earlier = keys[base & (keys < day)]
        if earlier.empty:
            return pd.Series(False, index=table.frame.index)
        return base & (keys == earlier.max())

    def _no_rows(self, spec: EndpointSpec | None, table: _Table, params: Mapping[str, Any]):
        kind = spec.no_rows if spec else "columns"
        if kind == "no_columns":
            return pd.DataFrame()
        if kind == "type_error":
            raise TypeError("'NoneType' object is not subscriptable")
        if kind == "value_error":
            raise ValueError("sina hfq factor not available")
        if kind.startswith("key_error:"):
            raise KeyError(kind.split(":", 1)[1])
        return self._project(table.frame.iloc[0:0], params)

    def _project(self, rows: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
        """Drop the `_` tags; honour Tushare's `fields`; hand out a copy, never the cache."""
        keep = [c for c in rows.columns if not str(c).startswith("_")]
        fields = params.get("fields") if self.vendor == "tushare" else None
        if fields:
            wanted = [f.strip() for f in str(fields).split(",") if f.strip()]
            keep = [c for c in wanted if c in keep]
        return rows[keep].reset_index(drop=True).copy()


def _secucode(symbol: str) -> str:
    """`SH600519` (EM F10 form) → `600519.SH`; anything else canonicalised if possible."""
    from pitlake.errors import InvalidArgumentsError
    from pitlake.symbols import canonical

    try:
        return canonical(symbol)
    except InvalidArgumentsError:
        return symbol.strip()


__all__ = [
    "REPLAY_SPECS",
    "EndpointSpec",
    "Filter",
    "ReplayClient",
    "ReplaySource",
    "date_int",
    "endpoint_key",
    "tags_for",
]
