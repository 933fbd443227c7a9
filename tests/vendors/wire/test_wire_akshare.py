"""Wire-level contract: every akshare function pitlake calls, run for real (installed akshare
1.19.5) over recorded vendor replies, through pitlake's live client and adapter `extract`.

Only the HTTP layer is replaced (tests/vendors/wire/http_replay.py). For each function and
each reply kind the typed outcome is asserted: rows for a normal answer, NoMarketDataError for
an empty one (however akshare signals it), a retryable VendorError for a blocked/HTML answer,
VendorRateLimitError with the server's Retry-After for HTTP 429. When akshare is upgraded and
one of these breaks, the failing case names the function and the reply kind.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from pitlake.errors import NoMarketDataError, VendorError, VendorRateLimitError
from pitlake.vendors.base import VendorQuery
from tests.vendors.wire.akshare_wire import (
    REPLIES,
    add,
    http_fixture,  # noqa: F401 (the `http` fixture)
    live_adapter,
    recent_day,
    reply_file,
)
from tests.vendors.wire.http_replay import HttpReplay, load_replies

RECENT = recent_day().strftime("%Y%m%d")

# function (reply-file stem) → (endpoint, params pitlake sends, columns of a normal answer)
CALLS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "stock_zh_a_hist": (
        "stock_zh_a_hist",
        {
            "symbol": "600519",
            "period": "daily",
            "start_date": "20250603",
            "end_date": "20250604",
            "adjust": "",
        },
        ("日期", "开盘", "收盘", "最高", "最低", "成交量", "成交额", "涨跌幅", "换手率"),
    ),
    "stock_zh_a_daily": (
        "stock_zh_a_daily",
        {"symbol": "sh600519", "start_date": "20250603", "end_date": "20250604", "adjust": ""},
        ("date", "open", "high", "low", "close", "volume", "amount", "turnover"),
    ),
    "stock_zh_a_daily@hfq-factor": (
        "stock_zh_a_daily",
        {"symbol": "sh600519", "adjust": "hfq-factor"},
        ("date", "hfq_factor"),
    ),
    "stock_zh_a_hist_tx": (
        "stock_zh_a_hist_tx",
        {"symbol": "sz000001", "start_date": "20250603", "end_date": "20250604", "adjust": ""},
        ("date", "open", "close", "high", "low", "volume", "turnover", "amount"),
    ),
    "stock_zh_index_daily": (
        "stock_zh_index_daily",
        {"symbol": "sh000300"},
        ("date", "open", "high", "low", "close", "volume"),
    ),
    "stock_profit_sheet_by_report_em": (
        "stock_profit_sheet_by_report_em",
        {"symbol": "SH600519"},
        ("SECUCODE", "REPORT_DATE", "NOTICE_DATE", "UPDATE_DATE", "TOTAL_OPERATE_INCOME"),
    ),
    "stock_balance_sheet_by_report_em": (
        "stock_balance_sheet_by_report_em",
        {"symbol": "SH600519"},
        ("SECUCODE", "REPORT_DATE", "NOTICE_DATE", "UPDATE_DATE", "TOTAL_ASSETS"),
    ),
    "stock_cash_flow_sheet_by_report_em": (
        "stock_cash_flow_sheet_by_report_em",
        {"symbol": "SH600519"},
        ("SECUCODE", "REPORT_DATE", "NOTICE_DATE", "UPDATE_DATE", "NETCASH_OPERATE"),
    ),
    "stock_notice_report": (
        "stock_notice_report",
        {"symbol": "财务报告", "date": "20250603"},
        ("代码", "名称", "公告标题", "公告类型", "公告日期", "网址"),
    ),
    "stock_news_em": (
        "stock_news_em",
        {"symbol": "600519"},
        ("关键词", "新闻标题", "新闻内容", "发布时间", "文章来源", "新闻链接"),
    ),
    "stock_info_global_em": ("stock_info_global_em", {}, ("标题", "摘要", "发布时间", "链接")),
    "stock_lhb_detail_em": (
        "stock_lhb_detail_em",
        {"start_date": "20250618", "end_date": "20250618"},
        ("代码", "名称", "上榜日", "上榜原因", "龙虎榜净买额", "流通市值"),
    ),
    "stock_lhb_stock_detail_em": (
        "stock_lhb_stock_detail_em",
        {"symbol": "688981", "date": "20250618", "flag": "买入"},
        ("交易营业部名称", "买入金额", "卖出金额", "净额", "类型"),
    ),
    "tool_trade_date_hist_sina": ("tool_trade_date_hist_sina", {}, ("trade_date",)),
    "stock_yysj_em": (
        "stock_yysj_em",
        {"symbol": "沪深A股", "date": "20250630"},
        ("股票代码", "股票简称", "首次预约时间", "一次变更日期", "实际披露时间"),
    ),
    "stock_info_sh_name_code": (
        "stock_info_sh_name_code",
        {"symbol": "主板A股"},
        ("证券代码", "证券简称", "上市日期"),
    ),
    "stock_info_sz_name_code": (
        "stock_info_sz_name_code",
        {"symbol": "A股列表"},
        ("A股代码", "A股简称", "A股上市日期"),
    ),
    "stock_info_bj_name_code": (
        "stock_info_bj_name_code",
        {},
        ("证券代码", "证券简称", "上市日期"),
    ),
    "stock_info_sh_delist": (
        "stock_info_sh_delist",
        {"symbol": "全部"},
        ("公司代码", "公司简称", "上市日期", "暂停上市日期"),
    ),
    "stock_info_sz_delist": (
        "stock_info_sz_delist",
        {"symbol": "终止上市公司"},
        ("证券代码", "证券简称", "上市日期", "终止上市日期"),
    ),
    "stock_zh_a_st_em": ("stock_zh_a_st_em", {}, ("代码", "名称")),
    "stock_tfp_em": (
        "stock_tfp_em",
        {"date": "20250512"},
        ("代码", "名称", "停牌时间", "停牌原因"),
    ),
    "index_stock_cons_weight_csindex": (
        "index_stock_cons_weight_csindex",
        {"symbol": "000300"},
        ("日期", "指数代码", "成分券代码", "交易所", "权重"),
    ),
    "index_stock_cons_csindex": (
        "index_stock_cons_csindex",
        {"symbol": "000300"},
        ("日期", "指数代码", "成分券代码", "交易所"),
    ),
    # the down and broken pools refuse a date older than 30 days (by the real clock)
    "stock_zt_pool_em": (
        "stock_zt_pool_em",
        {"date": RECENT},
        ("代码", "名称", "最新价", "首次封板时间", "最后封板时间", "炸板次数", "连板数"),
    ),
    "stock_zt_pool_dtgc_em": (
        "stock_zt_pool_dtgc_em",
        {"date": RECENT},
        ("代码", "名称", "最新价", "封单资金", "最后封板时间", "连续跌停", "开板次数"),
    ),
    "stock_zt_pool_zbgc_em": (
        "stock_zt_pool_zbgc_em",
        {"date": RECENT},
        ("代码", "名称", "最新价", "涨停价", "首次封板时间", "炸板次数"),
    ),
}

# Empty replies asked with other params (a company / symbol East Money has nothing for).
EMPTY_PARAMS = {
    "stock_profit_sheet_by_report_em": {"symbol": "SZ000001"},
    "stock_balance_sheet_by_report_em": {"symbol": "SZ000001"},
    "stock_cash_flow_sheet_by_report_em": {"symbol": "SZ000001"},
}
# Every empty reply kind recorded (some functions have two ways of saying "nothing").
EMPTY_KINDS = [
    (fn, kind)
    for fn in CALLS
    for kind in ("empty", "empty_list", "no_container")
    if (REPLIES / f"{fn}.{kind}.json").is_file()
]


def extract(function: str, params: dict[str, Any] | None = None) -> pd.DataFrame:
    endpoint, default, _ = CALLS[function]
    return live_adapter().extract(VendorQuery(endpoint, params or default))


def test_every_function_pitlake_calls_has_all_reply_kinds() -> None:
    """The contract covers the adapter's whole surface, each with each reply kind."""
    from pitlake.vendors.akshare import PLUGIN

    called = set().union(*(f.endpoints for f in PLUGIN.fetchers.values()))
    assert called == {endpoint for endpoint, _, _ in CALLS.values()}
    for function in CALLS:
        for kind in ("normal", "blocked", "rate_limited"):
            reply_file(function, kind)
        assert any(fn == function for fn, _ in EMPTY_KINDS), function


def test_the_recorded_replies_are_what_the_generator_writes() -> None:
    """make_akshare_replies.py is the readable source of the files; they must not drift."""
    import json

    from tests.vendors.wire.make_akshare_replies import FUNCTIONS

    written = {p.name for p in REPLIES.glob("*.json")}
    expected = set()
    for function, make in FUNCTIONS.items():
        for kind, content in make().items():
            name = f"{function}.{kind}.json"
            expected.add(name)
            assert json.loads((REPLIES / name).read_text(encoding="utf-8")) == content, name
    assert written == expected


def test_every_recorded_reply_cites_the_akshare_source_that_shapes_it() -> None:
    import json

    for path in sorted(REPLIES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for spec in data if isinstance(data, list) else [data]:
            assert spec["cites"], path.name
            assert all(c.startswith("akshare/") and ":" in c for c in spec["cites"]), path.name
        assert load_replies(path)


@pytest.mark.parametrize("function", list(CALLS))
def test_normal_reply_gives_the_columns_pitlake_maps(http: HttpReplay, function: str) -> None:
    add(http, function, "normal")
    with http.active():
        frame = extract(function)
    assert not frame.empty
    assert set(CALLS[function][2]) <= set(frame.columns), list(frame.columns)
    assert not http.unmatched, [c.url for c in http.unmatched]


@pytest.mark.parametrize(("function", "kind"), EMPTY_KINDS)
def test_empty_reply_is_no_data_for_that_call(http: HttpReplay, function: str, kind: str) -> None:
    add(http, function, kind)
    with http.active(), pytest.raises(NoMarketDataError) as err:
        extract(function, EMPTY_PARAMS.get(function))
    assert err.value.vendor == "akshare"
    assert not http.unmatched, [c.url for c in http.unmatched]


@pytest.mark.parametrize("function", list(CALLS))
def test_blocked_html_reply_is_a_retryable_vendor_error(http: HttpReplay, function: str) -> None:
    add(http, function, "blocked")
    with http.active(), pytest.raises(VendorError) as err:
        extract(function)
    assert not isinstance(err.value, NoMarketDataError | VendorRateLimitError), err.value
    assert err.value.retryable, err.value


@pytest.mark.parametrize("function", list(CALLS))
def test_http_429_is_a_rate_limit_with_the_servers_wait(http: HttpReplay, function: str) -> None:
    add(http, function, "rate_limited")
    with http.active(), pytest.raises(VendorRateLimitError) as err:
        extract(function)
    assert err.value.retry_after == 30.0


@pytest.mark.parametrize("function", ["stock_notice_report", "stock_news_em", "stock_zh_a_hist"])
def test_a_dropped_connection_is_a_retryable_vendor_error(http: HttpReplay, function: str) -> None:
    """East Money blocks by accepting the connection and closing it without a reply."""
    http.add(r"eastmoney\.com", error="connection")
    with http.active(), pytest.raises(VendorError) as err:
        extract(function)
    assert not isinstance(err.value, NoMarketDataError)
    assert err.value.retryable


def test_a_parse_failure_on_a_real_notice_list_names_field_function_and_line(
    http: HttpReplay,
) -> None:
    """Same KeyError('代码') as a zero-notice day, but the reply has rows: not "no data"."""
    add(http, "stock_notice_report", "drifted")
    with http.active(), pytest.raises(VendorError) as err:
        extract("stock_notice_report")
    assert not isinstance(err.value, NoMarketDataError)
    text = str(err.value)
    assert "'代码'" in text and "stock_notice_report" in text
    assert "akshare/stock_fundamental/stock_notice.py:" in text


def test_the_notice_list_asks_what_pitlake_means(http: HttpReplay) -> None:
    """财务报告 is sent as f_node=1 for exactly that day (stock_notice.py:37-61)."""
    add(http, "stock_notice_report", "normal")
    with http.active():
        frame = extract("stock_notice_report")
    first = http.served(r"np-anotice-stock")[0]
    assert first.params["f_node"] == "1"
    assert first.params["begin_time"] == first.params["end_time"] == "2025-06-03"
    assert set(frame["公告类型"]) == {"一季度报告全文"}  # column_name, never 财务报告
    assert list(frame["代码"]) == ["600519", "000001"]
