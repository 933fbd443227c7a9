"""AkShare's replay dialect: its endpoints' filters and no-rows replies, its column types, its
failure texts and its own filter kinds (docs/replay-format.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pitlake.errors import ERROR_BY_KIND, InvalidArgumentsError, VendorRateLimitError
from pitlake.symbols import canonical
from pitlake.vendors.akshare.replies import classify_failure
from pitlake.vendors.replay.dialect import ReplayDialect
from pitlake.vendors.replay.filters import (
    EndpointSpec,
    Filter,
    Table,
    as_dates,
    as_text,
    numeric_text,
)
from pitlake.vendors.replay.injection import (
    KIND_NOT_CONFIGURED,
    KIND_PERMISSION_DENIED,
    KIND_RATE_LIMITED,
    KIND_UPSTREAM_ERROR,
)

if TYPE_CHECKING:
    import pandas as pd

AKSHARE_TEXTS = {
    KIND_RATE_LIMITED: "Rate limit exceeded. Status code: 429",
    KIND_UPSTREAM_ERROR: "('Connection aborted.', "
    "RemoteDisconnected('Remote end closed connection without response'))",
    KIND_NOT_CONFIGURED: "No module named 'akshare'",
    KIND_PERMISSION_DENIED: "access denied by the data source",
}

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


_CSINDEX_LIST = EndpointSpec(
    filters=(Filter("symbol", "指数代码"),),
    date_columns=("日期",),
    str_columns=("指数代码", "成分券代码"),
)


def _factor_spec(name: str) -> EndpointSpec:
    # Factor mode ignores the date window: every change point, newest first, plus the sentinel.
    return EndpointSpec(
        filters=(Filter("symbol", "_symbol"),),
        no_rows="value_error",
        datetime_columns=("date",),
        str_columns=(name,),
    )


SPECS: dict[str, EndpointSpec] = {
    "stock_zh_a_hist": _bars(
        "日期",
        by=Filter("symbol", "股票代码"),
        no_rows="no_columns",
        require={"period": ("daily",)},
        date_columns=("日期",),
        str_columns=("股票代码",),
    ),
    "stock_zh_a_daily": _bars("date", by=Filter("symbol", "_symbol"), date_columns=("date",)),
    "stock_zh_a_daily@hfq-factor": _factor_spec("hfq_factor"),
    "stock_zh_a_daily@qfq-factor": _factor_spec("qfq_factor"),
    "stock_zh_a_hist_tx": _bars("date", by=Filter("symbol", "_symbol"), date_columns=("date",)),
    # Sina index bars: the whole history of one index (no date parameters).
    "stock_zh_index_daily": EndpointSpec(
        filters=(Filter("symbol", "_symbol"),), date_column="date", date_columns=("date",)
    ),
    # securities: the exchanges' lists (today's), today's ST board, the suspensions by date
    "stock_info_sh_name_code": EndpointSpec(
        filters=(Filter("symbol", "_symbol"),),
        defaults={"symbol": "主板A股"},
        date_columns=("上市日期",),
        str_columns=("证券代码",),
    ),
    "stock_info_sz_name_code": EndpointSpec(
        filters=(Filter("symbol", "_symbol"),),
        defaults={"symbol": "A股列表"},
        str_columns=("A股代码", "A股上市日期"),
    ),
    "stock_info_bj_name_code": EndpointSpec(date_columns=("上市日期",), str_columns=("证券代码",)),
    "stock_info_sh_delist": EndpointSpec(
        filters=(Filter("symbol", "_symbol"),),
        defaults={"symbol": "全部"},
        date_columns=("上市日期", "暂停上市日期"),
        str_columns=("公司代码",),
    ),
    "stock_info_sz_delist": EndpointSpec(
        filters=(Filter("symbol", "_symbol"),),
        defaults={"symbol": "终止上市公司"},
        date_columns=("上市日期", "终止上市日期"),
        str_columns=("证券代码",),
    ),
    # an empty board: `data` null → TypeError in fetch_paginated_data (utils/func.py:37)
    "stock_zh_a_st_em": EndpointSpec(no_rows="type_error", str_columns=("代码",)),
    # a day without suspensions: `result` null → TypeError (stock_tfp_em.py:37-38)
    "stock_tfp_em": EndpointSpec(
        filters=(Filter("date", "_date"),),
        no_rows="type_error",
        date_columns=("停牌时间", "停牌截止时间", "预计复牌时间"),
        str_columns=("代码",),
    ),
    # csindex's current lists of one index (the 6-digit code; no date parameters).
    "index_stock_cons_weight_csindex": _CSINDEX_LIST,
    "index_stock_cons_csindex": _CSINDEX_LIST,
    "stock_profit_sheet_by_report_em": _EM_STATEMENT,
    "stock_balance_sheet_by_report_em": _EM_STATEMENT,
    "stock_cash_flow_sheet_by_report_em": _EM_STATEMENT,
    "stock_notice_report": EndpointSpec(
        filters=(
            Filter("symbol", "_symbol", "notice_kind", unless=("全部",)),
            Filter("date", "公告日期", "date"),
        ),
        no_rows="key_error:代码",  # stock_notice.py:118 on zero hits (akfamily/akshare#6853)
        date_column="公告日期",
        date_columns=("公告日期",),
        str_columns=("代码",),
    ),
    # East Money's appointment list: one period and market segment per call; the rows carry
    # neither, so recorded rows are tagged with the request (`_symbol`, `_date`).
    "stock_yysj_em": EndpointSpec(
        filters=(Filter("symbol", "_symbol"), Filter("date", "_date", "date")),
        no_rows="type_error",  # result: null → TypeError (stock_yjyg_em.py:289-291)
        date_columns=(
            "首次预约时间",
            "一次变更日期",
            "二次变更日期",
            "三次变更日期",
            "实际披露时间",
        ),
        str_columns=("股票代码",),
    ),
    "stock_news_em": EndpointSpec(
        filters=(Filter("symbol", "关键词"),),
        no_rows="key_error:code",  # news_stock.py:71-72 on zero hits
        str_columns=("关键词",),
    ),
    "stock_info_global_em": EndpointSpec(
        no_rows=f"key_error:{GLOBAL_NEWS_NO_ROWS}"  # stock_info.py:79-80 on an empty list
    ),
    "stock_lhb_detail_em": EndpointSpec(
        filters=(
            Filter("start_date", "上榜日", "date_from"),
            Filter("end_date", "上榜日", "date_to"),
        ),
        no_rows="type_error",
        date_column="上榜日",
        date_columns=("上榜日",),
        str_columns=("代码",),
    ),
    "stock_lhb_stock_detail_em": EndpointSpec(
        filters=(
            Filter("symbol", "_symbol"),
            Filter("date", "_date", "date"),
            Filter("flag", "_flag"),
        ),
        no_rows="type_error",
    ),
    "stock_lhb_stock_detail_date_em": EndpointSpec(
        filters=(Filter("symbol", "股票代码"),),
        date_columns=("交易日",),
        str_columns=("股票代码",),
    ),
    "tool_trade_date_hist_sina": EndpointSpec(date_columns=("trade_date",)),
    # East Money's limit pools: the rows carry no date; recorded rows are tagged `_date`. An
    # empty pool is akshare's column-less pd.DataFrame() (stock_ztb_em.py:45-48).
    **{
        pool: EndpointSpec(
            filters=(Filter("date", "_date", "date"),),
            no_rows="no_columns",
            date_column="_date",
            str_columns=("代码", "首次封板时间", "最后封板时间", "涨停统计"),
        )
        for pool in ("stock_zt_pool_em", "stock_zt_pool_dtgc_em", "stock_zt_pool_zbgc_em")
    },
}

_AKSHARE_STR = frozenset({"股票代码", "代码", "名称", "股票简称", "关键词", "公告类型"})


def type_column(name: str, col: pd.Series, spec: EndpointSpec, text: bool) -> pd.Series | None:
    """A column as akshare's own frame types it."""
    import pandas as pd

    if name in spec.date_columns:
        return as_dates(col)
    if name in spec.datetime_columns:
        return pd.to_datetime(col.astype("string"), format="mixed")
    if name in spec.str_columns or name in _AKSHARE_STR:
        return as_text(col)
    if text and (num := numeric_text(col)) is not None:
        return num
    if len(col) and col.isna().all():
        return col.astype("float64")  # AkShare coerces all-null columns to float
    return None


def native_failure(kind: str, message: str | None) -> BaseException:
    """The exception akshare lets through for this kind of failure."""
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


def _secucode(symbol: str) -> str:
    """`SH600519` (EM F10 form) → `600519.SH`; anything else canonicalised if possible."""
    try:
        return canonical(symbol)
    except InvalidArgumentsError:
        return symbol.strip()


def _match_secucode(table: Table, f: Filter, value: Any) -> pd.Series:
    """An EM F10 symbol `SH600519` against SECUCODE `600519.SH`."""
    import pandas as pd

    if f.column not in table.frame.columns:
        return pd.Series(False, index=table.frame.index)
    keys = table.key(f.column, "str")
    return (keys == _secucode(str(value))).fillna(False).astype(bool)


def _untagged_notice_kind(table: Table, category: str) -> pd.Series:
    """Untagged notice rows: 公告类型 is East Money's column_name (一季度报告全文, …)."""
    import pandas as pd

    if "公告类型" not in table.frame.columns:
        return pd.Series(False, index=table.frame.index)
    names = NOTICE_COLUMN_NAMES.get(category, frozenset({category}))
    return table.key("公告类型", "str").isin(names).fillna(False).astype(bool)


def _match_notice_kind(table: Table, f: Filter, value: Any) -> pd.Series:
    """An EM notice category: tagged rows by their `_symbol` tag, untagged ones by 公告类型."""
    category = str(value)
    if f.column not in table.frame.columns:
        return _untagged_notice_kind(table, category)
    keys = table.key(f.column, "str")
    tagged = (keys == category.strip()).fillna(False).astype(bool)
    return tagged | (keys.isna() & _untagged_notice_kind(table, category))


DIALECT = ReplayDialect(
    specs=SPECS,
    type_column=type_column,
    adjust_tables=True,
    native_failure=native_failure,
    read_failure=classify_failure,
    matchers={"secucode": _match_secucode, "notice_kind": _match_notice_kind},
)
