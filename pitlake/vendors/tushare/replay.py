"""Tushare's replay dialect: its endpoints' filters, its column types and its failure texts
(docs/replay-format.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitlake.errors import VendorNotConfiguredError
from pitlake.vendors.replay.dialect import ReplayDialect
from pitlake.vendors.replay.filters import EndpointSpec, Filter, as_text, numeric_text
from pitlake.vendors.replay.injection import (
    KIND_NOT_CONFIGURED,
    KIND_PERMISSION_DENIED,
    KIND_RATE_LIMITED,
    KIND_UPSTREAM_ERROR,
)
from pitlake.vendors.tushare.fetchers.news import ENDPOINT as NEWS
from pitlake.vendors.tushare.fetchers.news import MAJOR as MAJOR_NEWS

if TYPE_CHECKING:
    import pandas as pd

# The vendor's real texts, so injected failures exercise the same classification as live ones.
TUSHARE_TEXTS = {
    KIND_RATE_LIMITED: "抱歉，您每分钟最多访问该接口500次，"
    "权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。",
    KIND_PERMISSION_DENIED: "抱歉，您没有接口访问权限，"
    "权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。",
    KIND_UPSTREAM_ERROR: "系统内部错误",
    KIND_NOT_CONFIGURED: "没有设置 Tushare token（TUSHARE_TOKEN / TS_TOKEN）",
}

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

SPECS: dict[str, EndpointSpec] = {
    "daily": _TS_BY_DATE,
    "adj_factor": _TS_BY_DATE,
    "daily_basic": _TS_BY_DATE,
    "index_daily": _TS_BY_DATE,
    # index_weight: one index per call (index_code), a snapshot day or a window of them.
    "index_weight": EndpointSpec(
        filters=(
            Filter("index_code", "index_code"),
            Filter("trade_date", "trade_date", "date"),
            Filter("start_date", "trade_date", "date_from"),
            Filter("end_date", "trade_date", "date_to"),
        ),
        date_column="trade_date",
    ),
    "stk_limit": _TS_BY_DATE,
    "limit_list_d": EndpointSpec(
        filters=(*_TS_BY_DATE.filters, Filter("limit_type", "limit")),
        date_column="trade_date",
    ),
    "income": _TS_STATEMENT,
    "balancesheet": _TS_STATEMENT,
    "cashflow": _TS_STATEMENT,
    "disclosure_date": EndpointSpec(
        filters=(
            Filter("ts_code", "ts_code", "list"),
            Filter("end_date", "end_date", "date"),
            Filter("pre_date", "pre_date", "date"),
            Filter("ann_date", "ann_date", "date"),
            Filter("actual_date", "actual_date", "date"),
        ),
    ),
    "top_list": _TS_TOP,
    "top_inst": _TS_TOP,
    "trade_cal": EndpointSpec(
        filters=(
            Filter("exchange", "exchange"),
            Filter("start_date", "cal_date", "date_from"),
            Filter("end_date", "cal_date", "date_to"),
            Filter("is_open", "is_open"),
        ),
        defaults={"exchange": "SSE"},
    ),
    NEWS: EndpointSpec(
        filters=(
            Filter("src", "_src"),
            Filter("start_date", "datetime", "time_from"),
            Filter("end_date", "datetime", "time_to"),
        ),
    ),
    "anns_d": EndpointSpec(
        filters=(
            Filter("ts_code", "ts_code", "list"),
            Filter("ann_date", "ann_date", "date"),
            Filter("start_date", "ann_date", "date_from"),
            Filter("end_date", "ann_date", "date_to"),
        ),
        date_column="ann_date",
    ),
    # securities: today's list per status; name changes bounded by the announcement date;
    # suspensions per session
    "stock_basic": EndpointSpec(
        filters=(Filter("list_status", "list_status"), Filter("ts_code", "ts_code", "list")),
        defaults={"list_status": "L"},
    ),
    "namechange": EndpointSpec(
        filters=(
            Filter("ts_code", "ts_code", "list"),
            Filter("start_date", "ann_date", "date_from"),
            Filter("end_date", "ann_date", "date_to"),
        ),
    ),
    "suspend_d": EndpointSpec(
        filters=(
            Filter("ts_code", "ts_code", "list"),
            Filter("trade_date", "trade_date", "date"),
            Filter("start_date", "trade_date", "date_from"),
            Filter("end_date", "trade_date", "date_to"),
            Filter("suspend_type", "suspend_type"),
        ),
        date_column="trade_date",
    ),
    # new_share: the window bounds the subscription day (上网发行日期)
    "new_share": EndpointSpec(
        filters=(
            Filter("start_date", "ipo_date", "date_from"),
            Filter("end_date", "ipo_date", "date_to"),
        ),
    ),
    MAJOR_NEWS: EndpointSpec(
        filters=(
            Filter("src", "src"),
            Filter("start_date", "pub_time", "time_from"),
            Filter("end_date", "pub_time", "time_to"),
        ),
    ),
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
        "rec_time",
        "list_status",
        "change_reason",
        "suspend_timing",
        "suspend_type",
        "sub_code",
    }
)
_TUSHARE_AS_IS = frozenset({"is_open"})  # documented as a string, seen as an int: keep as given


def type_column(name: str, col: pd.Series, _spec: EndpointSpec, text: bool) -> pd.Series | None:
    """A column as the Tushare SDK types it."""
    import pandas as pd

    if name in _TUSHARE_STR or name.endswith("date"):
        return as_text(col)
    if text and (num := numeric_text(col)) is not None:
        return num if name in _TUSHARE_AS_IS else num.astype("float64")
    if name not in _TUSHARE_AS_IS and pd.api.types.is_numeric_dtype(col):
        return col.astype("float64")
    return None


def native_failure(kind: str, message: str | None) -> BaseException:
    """Tushare's form for every server error: a plain Exception with the server's text."""
    text = message or TUSHARE_TEXTS.get(kind, kind)
    if kind == KIND_NOT_CONFIGURED:
        return VendorNotConfiguredError(text)  # the live client never reaches the server
    return Exception(text)


DIALECT = ReplayDialect(
    specs=SPECS, type_column=type_column, honours_fields=True, native_failure=native_failure
)
