"""Baostock's replay dialect: its queries' filters, its column types and its failure codes
(docs/replay-format.md). Every Baostock cell is text ("" = no value), as the library gives it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pitlake.vendors.baostock.classify import (
    ACCESS_INSUFFICIENT,
    LOGIN_COUNT_LIMIT,
    RECV_FAIL,
    BaostockReplyError,
)
from pitlake.vendors.baostock.fields import ADJUST_NONE, FREQUENCY_DAILY
from pitlake.vendors.replay.dialect import ReplayDialect
from pitlake.vendors.replay.filters import EndpointSpec, Filter, Table, date_int
from pitlake.vendors.replay.injection import (
    KIND_NOT_CONFIGURED,
    KIND_PERMISSION_DENIED,
    KIND_RATE_LIMITED,
    KIND_UPSTREAM_ERROR,
)

if TYPE_CHECKING:
    import pandas as pd

# The library's codes and texts for each injected failure kind (baostock/common/contants.py).
NATIVE: dict[str, tuple[str, str]] = {
    KIND_RATE_LIMITED: (LOGIN_COUNT_LIMIT, "账号登陆数达到上限"),
    KIND_PERMISSION_DENIED: (ACCESS_INSUFFICIENT, "用户权限不足"),
    KIND_UPSTREAM_ERROR: (RECV_FAIL, "网络接收错误。"),
}

_STATEMENT = EndpointSpec(
    filters=(
        Filter("code", "code"),
        Filter("year", "statDate", "stat_year"),
        Filter("quarter", "statDate", "stat_quarter"),
    ),
)

SPECS: dict[str, EndpointSpec] = {
    "query_history_k_data_plus": EndpointSpec(
        filters=(
            Filter("code", "code"),
            Filter("start_date", "date", "date_from"),
            Filter("end_date", "date", "date_to"),
        ),
        date_column="date",
        require={"adjustflag": (ADJUST_NONE,), "frequency": (FREQUENCY_DAILY,)},
    ),
    "query_adjust_factor": EndpointSpec(
        filters=(
            Filter("code", "code"),
            Filter("start_date", "dividOperateDate", "date_from"),
            Filter("end_date", "dividOperateDate", "date_to"),
        ),
    ),
    "query_profit_data": _STATEMENT,
    "query_balance_data": _STATEMENT,
    "query_cash_flow_data": _STATEMENT,
}


def _text(v: Any) -> str:
    import pandas as pd

    if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v):
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def type_column(name: str, col: pd.Series, spec: EndpointSpec, text: bool) -> pd.Series:
    """Every column as the library's text ("" where the server sent no value)."""
    import pandas as pd

    return pd.Series([_text(v) for v in col], index=col.index, dtype=object)


def native_failure(kind: str, message: str | None) -> BaseException:
    """What the client raises for this kind of failure (the library's code and text)."""
    if kind == KIND_NOT_CONFIGURED:
        return ModuleNotFoundError(message or "No module named 'baostock'")
    code, text = NATIVE.get(kind, ("10005001", "系统级别错误"))
    return BaostockReplyError(code, message or text)


def _stat_part(table: Table, f: Filter, value: Any, part: str) -> pd.Series:
    import pandas as pd

    if f.column not in table.frame.columns:
        return pd.Series(False, index=table.frame.index)
    days = table.frame[f.column].map(date_int)
    if part == "year":
        keys = days.map(lambda d: None if d is None else d // 10000)
    else:
        keys = days.map(lambda d: None if d is None else ((d // 100) % 100 + 2) // 3)
    try:
        wanted = int(str(value).strip())
    except ValueError:
        return pd.Series(False, index=table.frame.index)
    return (keys == wanted).fillna(False).astype(bool)


DIALECT = ReplayDialect(
    specs=SPECS,
    type_column=type_column,
    native_failure=native_failure,
    matchers={
        "stat_year": lambda t, f, v: _stat_part(t, f, v, "year"),
        "stat_quarter": lambda t, f, v: _stat_part(t, f, v, "quarter"),
    },
)
