"""The replay source: vendor-native answers, vendor filtering, no-rows replies, injections."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pandas as pd
import pytest
import requests

from pitlake.errors import (
    DataNotReadyError,
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.akshare import PLUGIN as AKSHARE
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.replay.dialect import endpoint_key, tags_for
from pitlake.vendors.replay.filters import date_int
from pitlake.vendors.replay.recording import Recorder
from pitlake.vendors.replay.source import ReplaySource
from tests.vendors.conftest import em_hist_row, ts_daily_row, write_error, write_table

TS_RATE = "抱歉，您每分钟最多访问该接口500次，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。"


@pytest.fixture
def market(replay_dir):
    """Three sessions of Tushare daily bars (newest first) and East Money bars for two codes."""
    rows = []
    for day, base in (("20250605", 12.0), ("20250604", 11.0), ("20250603", 10.0)):
        rows += [
            ts_daily_row("600519.SH", day, base * 100, vol=1500),
            ts_daily_row("000001.SZ", day, base),
        ]
    write_table(replay_dir, "tushare", "daily", rows)
    em = [
        em_hist_row(code, day, close)
        for code in ("600519", "000001")
        for day, close in (("2025-06-03", 10.0), ("2025-06-04", 11.0), ("2025-06-05", 12.0))
    ]
    write_table(replay_dir, "akshare", "stock_zh_a_hist", em)
    return ReplaySource(replay_dir)


# ---------------------------------------------------------------- Tushare filtering and types


def test_tushare_daily_filters_like_the_vendor(market):
    ts = market.client("tushare")
    one_day = ts.call("daily", trade_date="20250604")
    assert sorted(one_day["ts_code"]) == ["000001.SZ", "600519.SH"]
    assert set(one_day["trade_date"]) == {"20250604"}
    listed = ts.call(
        "daily", ts_code="600519.SH,000001.SZ", start_date="20250604", end_date="20250605"
    )
    assert list(listed["trade_date"]) == [
        "20250605",
        "20250605",
        "20250604",
        "20250604",
    ]  # vendor order
    one = ts.call("daily", ts_code="000001.SZ", start_date="20250101", end_date="20251231")
    assert list(one["close"]) == [12.0, 11.0, 10.0]


def test_tushare_values_typed_as_the_vendor_sends_them(market):
    frame = market.client("tushare").call("daily", trade_date="20250603")
    assert frame["trade_date"].map(type).eq(str).all()
    assert frame["ts_code"].map(type).eq(str).all()
    assert frame["vol"].dtype == "float64"  # written as an int, sent as a float
    assert frame.loc[frame["ts_code"] == "600519.SH", "vol"].item() == 1500.0


def test_tushare_no_rows_is_an_empty_frame_with_columns(market):
    frame = market.client("tushare").call("daily", trade_date="20250606")
    assert frame.empty
    assert list(frame.columns)[:2] == ["ts_code", "trade_date"]


def test_tushare_fields_selects_columns(market):
    frame = market.client("tushare").call(
        "daily", trade_date="20250603", fields="ts_code,trade_date,close"
    )
    assert list(frame.columns) == ["ts_code", "trade_date", "close"]


def test_tushare_statements_bound_the_announcement_and_default_report_type(replay_dir):
    base = {"ts_code": "600519.SH", "f_ann_date": None, "comp_type": "1", "revenue": 1.0}
    rows = [
        {**base, "ann_date": "20250429", "end_date": "20250331", "report_type": "1"},
        {**base, "ann_date": "20250429", "end_date": "20250331", "report_type": "2"},
        {**base, "ann_date": "20250402", "end_date": "20241231", "report_type": "1"},
        {
            **base,
            "ts_code": "000001.SZ",
            "ann_date": "20250419",
            "end_date": "20250331",
            "report_type": 1,
        },  # an int in the file: the vendor sends a string
    ]
    write_table(replay_dir, "tushare", "income", rows)
    ts = ReplaySource(replay_dir).client("tushare")
    default = ts.call("income", ts_code="600519.SH")
    assert list(default["report_type"]) == ["1", "1"]
    single_quarter = ts.call("income", ts_code="600519.SH", report_type="2")
    assert list(single_quarter["end_date"]) == ["20250331"]
    window = ts.call("income", ts_code="600519.SH", start_date="20250401", end_date="20250420")
    assert list(window["end_date"]) == ["20241231"]  # bounded on ann_date, not end_date
    period = ts.call("income", ts_code="000001.SZ", period="20250331")
    assert list(period["report_type"]) == ["1"]
    assert period["f_ann_date"].isna().all()


def test_tushare_trade_cal_defaults_to_sse(replay_dir):
    rows = [
        {"exchange": ex, "cal_date": d, "is_open": o, "pretrade_date": "20250530"}
        for ex in ("SSE", "SZSE")
        for d, o in (("20250603", 1), ("20250601", 0))
    ]
    write_table(replay_dir, "tushare", "trade_cal", rows)
    ts = ReplaySource(replay_dir).client("tushare")
    sse = ts.call("trade_cal", start_date="20250601", end_date="20250630")
    assert set(sse["exchange"]) == {"SSE"} and len(sse) == 2
    opened = ts.call(
        "trade_cal", exchange="SZSE", start_date="20250601", end_date="20250630", is_open="1"
    )
    assert list(opened["cal_date"]) == ["20250603"]


def test_tushare_news_uses_src_tag_and_datetime_bounds(replay_dir):
    rows = [
        {"_src": "sina", "datetime": "2025-06-03 09:30:00", "title": "a", "content": "x"},
        {"_src": "sina", "datetime": "2025-06-03 21:00:00", "title": "b", "content": "y"},
        {"_src": "cls", "datetime": "2025-06-03 10:00:00", "title": "c", "content": "z"},
    ]
    write_table(replay_dir, "tushare", "news", rows)
    ts = ReplaySource(replay_dir).client("tushare")
    morning = ts.call(
        "news", src="sina", start_date="2025-06-03 00:00:00", end_date="2025-06-03 12:00:00"
    )
    assert list(morning["title"]) == ["a"]
    assert "_src" not in morning.columns
    whole_day = ts.call("news", src="sina", start_date="2025-06-03", end_date="2025-06-03")
    assert list(whole_day["title"]) == ["a", "b"]


# ---------------------------------------------------------------- AkShare filtering and types


def test_em_kline_filters_and_types(market):
    ak = market.client("akshare")
    frame = ak.call(
        "stock_zh_a_hist",
        symbol="600519",
        period="daily",
        start_date="20250604",
        end_date="20250605",
        adjust="",
    )
    assert list(frame["日期"]) == [date(2025, 6, 4), date(2025, 6, 5)]
    assert set(frame["股票代码"]) == {"600519"}
    assert frame["成交量"].dtype == "int64"


def test_em_kline_no_rows_is_a_frame_without_columns(market):
    frame = market.client("akshare").call(
        "stock_zh_a_hist",
        symbol="sh600519",
        period="daily",
        start_date="20250603",
        end_date="20250605",
        adjust="",
    )
    assert frame.shape == (0, 0)


def test_em_kline_other_periods_or_adjustments_are_not_held(market):
    ak = market.client("akshare")
    with pytest.raises(VendorNotConfiguredError):
        ak.call(
            "stock_zh_a_hist",
            symbol="600519",
            period="weekly",
            start_date="20250603",
            end_date="20250605",
            adjust="",
        )
    with pytest.raises(VendorNotConfiguredError):  # stock_zh_a_hist@qfq has no file
        ak.call(
            "stock_zh_a_hist",
            symbol="600519",
            period="daily",
            start_date="20250603",
            end_date="20250605",
            adjust="qfq",
        )


def test_sina_bars_and_factors_filter_on_tags(replay_dir):
    bars = [
        {
            "_symbol": s,
            "date": d,
            "open": 1.0,
            "high": 1.0,
            "low": 1.0,
            "close": c,
            "volume": 100.0,
            "amount": 10.0,
            "outstanding_share": 1e6,
            "turnover": 1e-4,
        }
        for s, c in (("sh600519", 1500.0), ("sz000001", 10.0))
        for d in ("2025-06-03", "2025-06-04")
    ]
    write_table(replay_dir, "akshare", "stock_zh_a_daily", bars)
    factors = [
        {"_symbol": "sh600519", "date": "2025-06-26", "hfq_factor": "1.0873569306774424"},
        {"_symbol": "sh600519", "date": "1900-01-01", "hfq_factor": "1.0"},
        {"_symbol": "sz000001", "date": "1900-01-01", "hfq_factor": "1.0"},
    ]
    write_table(replay_dir, "akshare", "stock_zh_a_daily@hfq-factor", factors)
    ak = ReplaySource(replay_dir).client("akshare")
    day = ak.call("stock_zh_a_daily", symbol="sh600519", start_date="20250604", end_date="20250604")
    assert list(day["close"]) == [1500.0] and "_symbol" not in day.columns
    assert day["date"].item() == date(2025, 6, 4)
    f = ak.call(
        "stock_zh_a_daily",
        symbol="sh600519",
        start_date="20250601",
        end_date="20250605",
        adjust="hfq-factor",
    )
    assert list(f.columns) == ["date", "hfq_factor"]
    assert len(f) == 2  # factor mode ignores the window: every change point plus the sentinel
    assert f["hfq_factor"].iloc[0] == "1.0873569306774424"  # a string, as Sina gives it
    assert pd.api.types.is_datetime64_any_dtype(f["date"])
    with pytest.raises(NoMarketDataError) as none:
        ak.call("stock_zh_a_daily", symbol="bj430047", adjust="hfq-factor")
    assert isinstance(none.value.__cause__, ValueError)
    assert str(none.value.__cause__) == "sina hfq factor not available"


def test_em_statements_match_secucode_and_answer_no_rows_as_akshare_does(replay_dir):
    rows = [
        {
            "SECUCODE": "600519.SH",
            "SECURITY_CODE": "600519",
            "REPORT_DATE": "2025-03-31 00:00:00",
            "NOTICE_DATE": "2025-04-29 00:00:00",
            "OPINION_TYPE": None,
            "TOTAL_OPERATE_INCOME": 3.88e10,
        }
    ]
    write_table(replay_dir, "akshare", "stock_profit_sheet_by_report_em", rows)
    ak = ReplaySource(replay_dir).client("akshare")
    frame = ak.call("stock_profit_sheet_by_report_em", symbol="SH600519")
    assert frame["REPORT_DATE"].item() == "2025-03-31 00:00:00"  # EM strings stay strings
    assert frame["OPINION_TYPE"].dtype == "float64"  # all-null columns come back as floats
    assert frame["SECURITY_CODE"].item() == "600519"
    with pytest.raises(NoMarketDataError) as none:
        ak.call("stock_profit_sheet_by_report_em", symbol="SZ000001")
    # akshare over `{"data": []}`: KeyError at stock_three_report_em.py:161
    assert repr(none.value.__cause__) == "KeyError('REPORT_DATE')"


def test_lhb_dates_compare_whatever_their_format(replay_dir):
    rows = [
        {"序号": 1, "代码": "688981", "名称": "中芯国际", "上榜日": "2025-06-18", "上榜原因": "r"},
        {"序号": 2, "代码": "000002", "名称": "万科A", "上榜日": "2025-05-15", "上榜原因": "r"},
    ]
    write_table(replay_dir, "akshare", "stock_lhb_detail_em", rows)
    ak = ReplaySource(replay_dir).client("akshare")
    frame = ak.call("stock_lhb_detail_em", start_date="20250618", end_date="20250618")
    assert list(frame["代码"]) == ["688981"]
    assert frame["上榜日"].item() == date(2025, 6, 18)
    with pytest.raises(NoMarketDataError):
        ak.call("stock_lhb_detail_em", start_date="20250619", end_date="20250620")


def test_notice_report_all_types_and_by_date(replay_dir):
    rows = [
        {"代码": "600519", "公告类型": "重大事项", "公告日期": "2025-06-19", "公告标题": "a"},
        {"代码": "000001", "公告类型": "财务报告", "公告日期": "2025-06-19", "公告标题": "b"},
        {"代码": "000001", "公告类型": "财务报告", "公告日期": "2025-06-18", "公告标题": "c"},
    ]
    write_table(replay_dir, "akshare", "stock_notice_report", rows)
    ak = ReplaySource(replay_dir).client("akshare")
    assert list(ak.call("stock_notice_report", symbol="全部", date="20250619")["公告标题"]) == [
        "a",
        "b",
    ]
    assert list(ak.call("stock_notice_report", symbol="财务报告", date="20250619")["公告标题"]) == [
        "b"
    ]


def test_notice_days_without_rows_raise_what_akshare_raises(replay_dir):
    rows = [
        {"代码": "000001", "公告类型": "一季度报告全文", "公告日期": "2025-06-18", "公告标题": "c"}
    ]
    write_table(replay_dir, "akshare", "stock_notice_report", rows)
    ak = ReplaySource(replay_dir).client("akshare")
    with pytest.raises(NoMarketDataError) as none:
        ak.call("stock_notice_report", symbol="财务报告", date="20250621")  # a Saturday
    assert repr(none.value.__cause__) == "KeyError('代码')"  # stock_notice.py:118


def test_a_recorded_live_notice_answer_replays(replay_dir):
    """Real answers fill 公告类型 from East Money's column_name, never with 财务报告."""
    live = pd.DataFrame(
        {
            "代码": ["000001", "600519"],
            "名称": ["平安银行", "贵州茅台"],
            "公告标题": ["平安银行:2025年一季度报告", "贵州茅台:2025年第一季度报告"],
            "公告类型": ["一季度报告全文", "一季度报告全文"],
            "公告日期": [date(2025, 4, 19), date(2025, 4, 19)],
            "网址": ["u1", "u2"],
        }
    )
    Recorder(replay_dir, "akshare").append(
        "stock_notice_report", {"symbol": "财务报告", "date": "20250419"}, live
    )
    recorded = (replay_dir / "akshare" / "stock_notice_report.jsonl").read_text(encoding="utf-8")
    assert '"_symbol": "财务报告"' in recorded
    ak = ReplaySource(replay_dir).client("akshare")
    got = ak.call("stock_notice_report", symbol="财务报告", date="20250419")
    assert list(got["代码"]) == ["000001", "600519"]
    assert "_symbol" not in got.columns
    with pytest.raises(NoMarketDataError):
        ak.call("stock_notice_report", symbol="重大事项", date="20250419")


def test_untagged_notice_rows_match_their_east_money_column_name(replay_dir):
    rows = [
        {"代码": "000001", "公告类型": "一季度报告全文", "公告日期": "2025-04-19", "公告标题": "a"},
        {"代码": "600519", "公告类型": "停牌公告", "公告日期": "2025-04-19", "公告标题": "b"},
    ]
    write_table(replay_dir, "akshare", "stock_notice_report", rows)
    ak = ReplaySource(replay_dir).client("akshare")
    got = ak.call("stock_notice_report", symbol="财务报告", date="20250419")
    assert list(got["公告标题"]) == ["a"]


def test_news_and_global_feed_without_rows_raise_what_akshare_raises(replay_dir):
    write_table(replay_dir, "akshare", "stock_news_em", [{"关键词": "600519", "新闻标题": "t"}])
    write_table(replay_dir, "akshare", "stock_info_global_em", [])
    ak = ReplaySource(replay_dir).client("akshare")
    with pytest.raises(NoMarketDataError) as none:
        ak.call("stock_news_em", symbol="000001")
    assert repr(none.value.__cause__) == "KeyError('code')"  # news_stock.py:72
    with pytest.raises(NoMarketDataError) as none:
        ak.call("stock_info_global_em")
    assert "are in the [columns]" in str(none.value.__cause__)  # stock_info.py:80


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_csv_and_parquet_answer_like_jsonl(replay_dir, fmt, tmp_path):
    rows = [ts_daily_row("000001.SZ", "20250603", 10.0), ts_daily_row("000002.SZ", "20250603", 6.0)]
    em = [em_hist_row("000001", "2025-06-03", 10.0)]
    write_table(replay_dir, "tushare", "daily", rows)
    write_table(replay_dir, "akshare", "stock_zh_a_hist", em)
    other = tmp_path / fmt
    write_table(other, "tushare", "daily", rows, fmt=fmt)
    write_table(other, "akshare", "stock_zh_a_hist", em, fmt=fmt)
    for vendor, endpoint, params in (
        ("tushare", "daily", {"trade_date": "20250603"}),
        (
            "akshare",
            "stock_zh_a_hist",
            {
                "symbol": "000001",
                "period": "daily",
                "start_date": "20250603",
                "end_date": "20250603",
            },
        ),
    ):
        want = ReplaySource(replay_dir).client(vendor).call(endpoint, **params)
        got = ReplaySource(other).client(vendor).call(endpoint, **params)
        pd.testing.assert_frame_equal(got, want, check_dtype=False)
        assert [type(v) for v in got.iloc[0]] == [type(v) for v in want.iloc[0]]


def test_missing_file_means_not_configured(market):
    with pytest.raises(VendorNotConfiguredError):
        market.client("tushare").call("top_list", trade_date="20250603")
    with pytest.raises(VendorNotConfiguredError):
        ReplaySource(market.root / "nowhere").client("akshare").call("stock_news_em", symbol="x")


def test_files_are_read_once_and_answers_are_copies(market):
    ts = market.client("tushare")
    first = ts.call("daily", trade_date="20250603")
    (market.root / "tushare" / "daily.jsonl").write_text("")
    first.loc[0, "close"] = -1.0
    again = ts.call("daily", trade_date="20250603")
    assert len(again) == 2 and (again["close"] > 0).all()


def test_helpers():
    assert date_int("2025-06-03 00:00:00") == date_int("20250603") == date_int(date(2025, 6, 3))
    assert date_int("not a date") is None
    assert endpoint_key("akshare", "stock_zh_a_daily", {"adjust": "hfq-factor"}) == (
        "stock_zh_a_daily@hfq-factor"
    )
    assert endpoint_key("akshare", "stock_zh_a_hist", {"adjust": ""}) == "stock_zh_a_hist"
    assert tags_for(
        "akshare",
        "stock_lhb_stock_detail_em",
        {"symbol": "600234", "date": "20250410", "flag": "买入"},
    ) == {"_symbol": "600234", "_date": "20250410", "_flag": "买入"}
    assert tags_for("tushare", "daily", {"trade_date": "20250603"}) == {}


# ---------------------------------------------------------------- injected failures


def test_rate_limit_injection_uses_tushare_text_and_counts(market):
    write_error(market.root, "tushare", "daily", {"error": "rate_limited", "times": 2})
    ts = market.client("tushare")
    for _ in range(2):
        with pytest.raises(VendorRateLimitError) as caught:
            ts.call("daily", trade_date="20250603")
        assert caught.value.retry_after == 60
        assert type(caught.value.__cause__) is Exception
        assert str(caught.value.__cause__) == TS_RATE
    assert len(ts.call("daily", trade_date="20250603")) == 2


def test_injection_match_and_shared_counters(market):
    write_error(
        market.root,
        "tushare",
        "daily",
        {"error": "upstream_error", "times": 1, "match": {"trade_date": "2025-06-04"}},
    )
    first, second = market.client("tushare"), market.client("tushare")
    assert len(first.call("daily", trade_date="20250603")) == 2  # not matched, not counted
    with pytest.raises(VendorError) as caught:
        second.call("daily", trade_date="20250604")
    assert type(caught.value) is VendorError and caught.value.retryable
    assert "系统内部错误" in str(caught.value)
    assert len(first.call("daily", trade_date="20250604")) == 2  # the one failure is spent


@pytest.mark.parametrize(
    ("vendor", "kind", "expected", "native"),
    [
        ("tushare", "permission_denied", VendorPermissionError, Exception),
        ("tushare", "not_configured", VendorNotConfiguredError, None),
        ("tushare", "not_ready", DataNotReadyError, None),
        ("tushare", "no_data", None, None),
        ("akshare", "upstream_error", VendorError, requests.exceptions.ConnectionError),
        ("akshare", "not_configured", VendorNotConfiguredError, ModuleNotFoundError),
        ("akshare", "permission_denied", VendorPermissionError, None),
        ("akshare", "no_data", None, None),
    ],
)
def test_each_injected_kind(market, vendor, kind, expected, native):
    endpoint = "daily" if vendor == "tushare" else "stock_zh_a_hist"
    params = (
        {"trade_date": "20250603"}
        if vendor == "tushare"
        else {
            "symbol": "600519",
            "period": "daily",
            "start_date": "20250603",
            "end_date": "20250603",
            "adjust": "",
        }
    )
    write_error(market.root, vendor, endpoint, {"error": kind})
    client = market.client(vendor)
    if expected is None:  # no_data: the endpoint's own no-rows reply
        frame = client.call(endpoint, **params)
        assert frame.empty
        assert (len(frame.columns) == 0) == (vendor == "akshare")
        return
    with pytest.raises(expected) as caught:
        client.call(endpoint, **params)
    assert type(caught.value) is expected
    if native is not None:
        assert type(caught.value.__cause__) is native


def test_akshare_rate_limit_injection_raises_akshares_own_class(market):
    write_error(market.root, "akshare", "stock_zh_a_hist", {"error": "rate_limited", "times": 1})
    ak = market.client("akshare")
    with pytest.raises(VendorRateLimitError) as caught:
        ak.call(
            "stock_zh_a_hist",
            symbol="600519",
            period="daily",
            start_date="20250603",
            end_date="20250603",
            adjust="",
        )
    cause = caught.value.__cause__
    assert (type(cause).__module__, type(cause).__name__) == (
        "akshare.exceptions",
        "RateLimitError",
    )


def test_injected_kind_wins_over_a_custom_message(market):
    write_error(
        market.root,
        "tushare",
        "daily",
        [
            {"error": "rate_limited", "times": 1, "message": "quota gone"},
            {"error": "permission_denied", "times": 1, "message": "抱歉，您没有访问该接口的权限"},
        ],
    )
    ts = market.client("tushare")
    with pytest.raises(VendorRateLimitError, match="quota gone"):
        ts.call("daily", trade_date="20250603")
    with pytest.raises(VendorPermissionError, match="没有访问该接口的权限"):
        ts.call("daily", trade_date="20250603")
    assert len(ts.call("daily", trade_date="20250603")) == 2


def test_stale_answers_the_latest_earlier_date(market):
    write_error(market.root, "tushare", "daily", {"error": "stale", "times": 1})
    ts = market.client("tushare")
    ts.call("daily", ts_code="600519.SH", start_date="20250601", end_date="20250605")  # not by date
    stale = ts.call("daily", trade_date="20250606")  # D not published: D−1's rows come back
    assert set(stale["trade_date"]) == {"20250605"} and len(stale) == 2
    assert ts.call("daily", trade_date="20250606").empty  # the one stale answer is spent


def test_stale_on_a_start_equals_end_call(market):
    write_error(market.root, "akshare", "stock_zh_a_hist", {"error": "stale"})
    ak = market.client("akshare")
    frame = ak.call(
        "stock_zh_a_hist",
        symbol="000001",
        period="daily",
        start_date="20250605",
        end_date="20250605",
        adjust="",
    )
    assert list(frame["日期"]) == [date(2025, 6, 4)]
    assert set(frame["股票代码"]) == {"000001"}  # other filters still apply
    nothing_earlier = ak.call(
        "stock_zh_a_hist",
        symbol="000001",
        period="daily",
        start_date="20250603",
        end_date="20250603",
        adjust="",
    )
    assert nothing_earlier.shape == (0, 0)


def test_a_broken_injection_file_is_an_error_not_silence(market):
    (market.root / "tushare" / "daily.error.json").write_text("{not json")
    with pytest.raises(VendorError, match="bad replay injection"):
        market.client("tushare").call("daily", trade_date="20250603")
    write_error(market.root, "akshare", "stock_zh_a_hist", {"error": "exploded"})
    with pytest.raises(VendorError, match="unknown error kind"):
        market.client("akshare").call("stock_zh_a_hist", symbol="600519")


def test_call_count(market):
    market.client("tushare").call("daily", trade_date="20250603")
    market.client("akshare").call("stock_zh_a_hist", symbol="600519")
    assert market.call_count() == 2
    assert market.call_count("tushare") == 1
    assert market.call_count("akshare", "stock_zh_a_hist") == 1


# ---------------------------------------------------------------- the sample's empty answers

SAMPLE = Path(__file__).resolve().parents[3] / "sample"
FETCHED = datetime(2025, 6, 10, 12, 0, tzinfo=UTC)


def test_sample_monday_without_notices_scans_four_empty_days_to_no_data() -> None:
    """2025-06-09: nothing announced Friday to Monday; each day's list raises KeyError('代码')
    as akshare does, read as no data for that day, and the fetch is NO_DATA."""
    source = ReplaySource(SAMPLE)
    adapter = AKSHARE.adapter(source.client("akshare"))
    with pytest.raises(NoMarketDataError):
        adapter.fetch(FetchRequest("financials", trade_date=date(2025, 6, 9)), FETCHED)
    assert source.call_count("akshare", "stock_notice_report") == 4


def test_sample_notice_lists_replay_by_category_with_east_money_column_names() -> None:
    adapter = AKSHARE.adapter(ReplaySource(SAMPLE).client("akshare"))
    out = adapter.fetch(FetchRequest("financials", trade_date=date(2025, 6, 10)), FETCHED).frame
    assert set(out["symbol"]) == {"688981.SH"}  # the Q1 correction (定期报告更正)


def test_sample_symbol_without_news_hits_leaves_the_others() -> None:
    adapter = AKSHARE.adapter(ReplaySource(SAMPLE).client("akshare"))
    req = FetchRequest(
        "news", start=date(2025, 6, 2), end=date(2025, 6, 6), symbols=("920099.BJ", "600519.SH")
    )
    out = adapter.fetch(req, FETCHED).frame
    symbols = {s for row in out["symbols"] for s in row}
    assert symbols == {"600519.SH"}
