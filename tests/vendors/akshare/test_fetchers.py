"""Contract tests for the AkShare adapter on vendor-native frames from a stub client."""

from __future__ import annotations

import json
import math
from datetime import UTC, date, datetime

import pandas as pd
import pytest

from pitlake import schemas
from pitlake.errors import (
    InvalidArgumentsError,
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
    VendorRateLimitError,
)
from pitlake.vendors.akshare import PLUGIN as AKSHARE
from pitlake.vendors.akshare.fetchers.dragon_tiger import LHB_DETAIL, LHB_SEATS
from pitlake.vendors.akshare.fetchers.financials import NOTICE_LIST
from pitlake.vendors.akshare.fetchers.news import GLOBAL_NEWS, STOCK_NEWS, news_source
from pitlake.vendors.akshare.fetchers.quotes import EM_BARS, SINA_BARS, TENCENT_BARS
from pitlake.vendors.akshare.fields import LINE_ITEM_FIELDS
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.news_id import news_id
from tests.vendors.akshare.fixtures import (
    EM_NO_DATA,
    StubClient,
    em_bars,
    em_statement,
    global_news,
    lhb_detail,
    lhb_row,
    lhb_seats,
    notice_report,
    sina_bars,
    sina_calendar,
    sina_hfq_factors,
    stock_news,
    tencent_bars,
)

FETCHED_AT = datetime(2025, 6, 3, 20, 0, tzinfo=UTC)  # 2025-06-04 04:00 Beijing
DAY = date(2025, 6, 3)  # a session (after the Dragon Boat holiday)


def bj(s: str) -> pd.Timestamp:
    return pd.Timestamp(s, tz="Asia/Shanghai")


def fetch(routes: dict, **req):
    client = StubClient(routes)
    out = AKSHARE.adapter(client).fetch(FetchRequest(**req), FETCHED_AT)
    return out, client


def canonical_columns(dataset: str) -> list[str]:
    return schemas.get(dataset).columns


def data_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c not in ("source", "known_at", "known_at_basis")]


# ---------------------------------------------------------------- quotes


def by_symbol(table: dict[str, pd.DataFrame | BaseException]):
    """A route answering by the call's `symbol` param (missing symbol → no data)."""

    def route(symbol: str, **_):
        return table.get(symbol, EM_NO_DATA)

    return route


def test_quotes_east_money_contract_and_units():
    em = em_bars(
        "600519", [("2025-06-03", 1500.0, 1510.5, 1520.0, 1495.0, 12345, 1.86e9, 0.7, 0.98)]
    )
    out, client = fetch(
        {EM_BARS: by_symbol({"600519": em})},
        dataset="quotes",
        trade_date=DAY,
        symbols=("600519.SH",),
    )
    frame = out.frame
    assert data_columns(frame) == canonical_columns("quotes")
    row = frame.iloc[0]
    assert row["symbol"] == "600519.SH" and row["trade_date"] == DAY
    assert row["volume"] == 1_234_500  # 手 → shares
    assert row["amount"] == 1.86e9  # 元 unchanged
    assert row["turnover_rate"] == 0.98 and row["pct_chg"] == 0.7  # already percent
    assert (row["open"], row["high"], row["low"], row["close"]) == (1500.0, 1520.0, 1495.0, 1510.5)
    assert row["source"] == "akshare" and row["known_at_basis"] == "session_close"
    assert row["known_at"] == bj("2025-06-03 15:00")
    assert client.calls == [
        (
            EM_BARS,
            {
                "symbol": "600519",
                "period": "daily",
                "start_date": "20250603",
                "end_date": "20250603",
                "adjust": "",
            },
        ),
    ]


def test_column_less_east_money_frame_falls_through_to_sina():
    sina = sina_bars([("2025-06-03", 11.0, 11.5, 10.9, 11.2, 80_000_000, 8.9e8, 0.0027)])
    out, client = fetch(
        {EM_BARS: EM_NO_DATA, SINA_BARS: by_symbol({"sz000001": sina})},
        dataset="quotes",
        trade_date=DAY,
        symbols=("000001.SZ",),
    )
    assert client.endpoints() == [EM_BARS, SINA_BARS]
    assert client.calls[1][1]["symbol"] == "sz000001"
    row = out.frame.iloc[0]
    assert row["volume"] == 80_000_000  # Sina volume is already shares
    assert row["turnover_rate"] == pytest.approx(0.27)  # fraction → percent
    assert math.isnan(row["pct_chg"])  # Sina gives none; never invented
    assert len(out.raws) == 1 and out.raws[0].query.endpoint == SINA_BARS


def test_tencent_volume_bug_corrected_only_for_sz000():
    """akshare leaves sz000xxx volume in 手 and scales every other stock to shares."""
    tx = {
        "sz000001": tencent_bars([("2025-06-03", 11.0, 11.2, 11.5, 10.9, 800_000, 0.0041, 8.9e8)]),
        "sz300750": tencent_bars(
            [("2025-06-03", 250.0, 252.0, 255.0, 249.0, 9_000_000, 0.0021, 2.3e9)]
        ),
        "sh600519": tencent_bars(
            [("2025-06-03", 1500.0, 1510.5, 1520.0, 1495.0, 1_234_500, 0.00098, 1.86e9)]
        ),
    }
    out, client = fetch(
        {
            EM_BARS: VendorError("RemoteDisconnected", vendor="akshare", endpoint=EM_BARS),
            SINA_BARS: lambda **_: sina_bars([]),  # answered, no rows
            TENCENT_BARS: by_symbol(tx),
        },
        dataset="quotes",
        trade_date=DAY,
        symbols=("000001.SZ", "300750.SZ", "600519.SH"),
    )
    vol = out.frame.set_index("symbol")["volume"]
    assert vol["000001.SZ"] == 80_000_000  # 手 ×100
    assert vol["300750.SZ"] == 9_000_000  # already shares: not multiplied
    assert vol["600519.SH"] == 1_234_500
    turnover = out.frame.set_index("symbol")["turnover_rate"]
    assert turnover["000001.SZ"] == pytest.approx(0.41)
    assert out.frame.set_index("symbol").loc["300750.SZ", "amount"] == 2.3e9
    assert [e for e in client.endpoints() if e == TENCENT_BARS] == [TENCENT_BARS] * 3


def test_quotes_keep_only_requested_dates():
    tx = tencent_bars(
        [
            ("2025-05-30", 10.0, 10.1, 10.2, 9.9, 100, 0.001, 1.01e3),
            ("2025-06-03", 10.1, 10.3, 10.4, 10.0, 200, 0.002, 2.06e3),
            ("2025-06-04", 10.3, 10.2, 10.5, 10.1, 300, 0.003, 3.06e3),  # a live partial bar
        ]
    )
    out, _ = fetch({TENCENT_BARS: tx}, dataset="quotes", trade_date=DAY, symbols=("300750.SZ",))
    assert list(out.frame["trade_date"]) == [DAY]


def test_quotes_use_the_universe_when_no_symbols():
    em = em_bars("600519", [("2025-06-03", 1, 1, 1, 1, 1, 100, 0, 0)])  # 1 手 at 1 元
    out, client = fetch(
        {EM_BARS: by_symbol({"600519": em})},
        dataset="quotes",
        trade_date=DAY,
        universe=("600519.SH", "000001.SZ"),
    )
    assert list(out.frame["symbol"]) == ["600519.SH"]  # 000001 had no bars anywhere
    assert client.endpoints() == [EM_BARS, EM_BARS, SINA_BARS, TENCENT_BARS]


def test_quotes_without_symbols_are_not_configured():
    with pytest.raises(VendorNotConfiguredError, match="per symbol"):
        fetch({EM_BARS: EM_NO_DATA}, dataset="quotes", trade_date=DAY)


def test_quotes_all_sources_no_data_is_no_data():
    with pytest.raises(NoMarketDataError):
        fetch(
            {EM_BARS: EM_NO_DATA, SINA_BARS: sina_bars([]), TENCENT_BARS: tencent_bars([])},
            dataset="quotes",
            trade_date=DAY,
            symbols=("600519.SH",),
        )


def test_quotes_failure_on_every_source_propagates_typed():
    """A failed symbol never turns into a silently smaller batch."""
    em = em_bars("600519", [("2025-06-03", 1, 1, 1, 1, 1, 1, 0, 0)])
    with pytest.raises(VendorRateLimitError):
        fetch(
            {
                EM_BARS: by_symbol({"600519": em, "000001": VendorError("boom", vendor="akshare")}),
                SINA_BARS: VendorError("html", vendor="akshare"),
                TENCENT_BARS: VendorRateLimitError("429", vendor="akshare"),
            },
            dataset="quotes",
            trade_date=DAY,
            symbols=("600519.SH", "000001.SZ"),
        )


def test_quotes_schema_drift_falls_through_then_fails():
    drifted = em_bars("600519", [("2025-06-03", 1, 1, 1, 1, 1, 1, 0, 0)]).drop(columns=["成交量"])
    old_tencent = tencent_bars([("2025-06-03", 1, 1, 1, 1, 1, 0.1, 1)]).drop(columns=["volume"])
    sina = sina_bars([("2025-06-03", 1, 1, 1, 1, 5, 5, 0.01)])
    out, _ = fetch(
        {EM_BARS: drifted, SINA_BARS: sina},
        dataset="quotes",
        trade_date=DAY,
        symbols=("600519.SH",),
    )
    assert out.frame.iloc[0]["volume"] == 5
    with pytest.raises(VendorError, match="schema drift"):
        fetch(
            {EM_BARS: drifted, SINA_BARS: sina_bars([]), TENCENT_BARS: old_tencent},
            dataset="quotes",
            trade_date=DAY,
            symbols=("600519.SH",),
        )


def test_quotes_not_configured_everywhere_is_not_configured():
    with pytest.raises(VendorNotConfiguredError):
        fetch({}, dataset="quotes", trade_date=DAY, symbols=("600519.SH",))


# ---------------------------------------------------------------- adj_factors


def test_factor_forward_fill_across_ex_date_and_holidays():
    factors = sina_hfq_factors(
        [
            ("1900-01-01", "1.0000000000000000"),
            ("2024-06-19", "8.4291034200000000"),
            ("2025-10-09", "8.6123456789012345"),  # first session after the National Day holiday
        ]
    )
    out, client = fetch(
        {SINA_BARS: factors},
        dataset="adj_factors",
        start=date(2025, 9, 26),
        end=date(2025, 10, 13),
        symbols=("600519.SH",),
    )
    frame = out.frame
    assert data_columns(frame) == canonical_columns("adj_factors")
    got = dict(zip(frame["trade_date"], frame["adj_factor"], strict=True))
    # Sessions only: no holiday rows, no make-up weekend workdays (09-28, 10-11).
    assert list(got) == [
        date(2025, 9, 26),
        date(2025, 9, 29),
        date(2025, 9, 30),
        date(2025, 10, 9),
        date(2025, 10, 10),
        date(2025, 10, 13),
    ]
    assert got[date(2025, 9, 30)] == pytest.approx(8.42910342)
    assert got[date(2025, 10, 9)] == pytest.approx(8.6123456789012345)
    assert got[date(2025, 10, 13)] == pytest.approx(8.6123456789012345)
    assert frame.iloc[3]["known_at"] == bj("2025-10-09 09:15")
    assert set(frame["known_at_basis"]) == {"ex_date_open"}
    assert client.calls == [(SINA_BARS, {"symbol": "sh600519", "adjust": "hfq-factor"})]


def test_factor_sentinel_is_the_base_before_the_first_change_point():
    factors = sina_hfq_factors([("1900-01-01", "1.0"), ("2025-06-04", "1.25")])
    out, _ = fetch(
        {SINA_BARS: factors},
        dataset="adj_factors",
        start=date(2025, 5, 29),
        end=date(2025, 6, 5),
        symbols=("000001.SZ",),
    )
    got = dict(zip(out.frame["trade_date"], out.frame["adj_factor"], strict=True))
    assert date(1900, 1, 1) not in got
    assert got == {
        date(2025, 5, 29): 1.0,
        date(2025, 5, 30): 1.0,
        date(2025, 6, 3): 1.0,
        date(2025, 6, 4): 1.25,
        date(2025, 6, 5): 1.25,
    }


def test_factor_garbage_is_rejected_and_missing_symbol_skipped():
    bad = sina_hfq_factors([("1900-01-01", "1.0"), ("2025-06-03", "n/a")])
    with pytest.raises(VendorError) as e:
        fetch({SINA_BARS: bad}, dataset="adj_factors", trade_date=DAY, symbols=("600519.SH",))
    assert not e.value.retryable

    good = sina_hfq_factors([("1900-01-01", "1.0")])
    table = {"sh600519": good, "sz000001": NoMarketDataError("sina hfq factor not available")}
    out, _ = fetch(
        {SINA_BARS: lambda symbol, **_: table[symbol]},
        dataset="adj_factors",
        trade_date=DAY,
        symbols=("600519.SH", "000001.SZ"),
    )
    assert list(out.frame["symbol"]) == ["600519.SH"]


# ---------------------------------------------------------------- financials


def statement_rows() -> list[dict]:
    return [
        {  # announced once, never revised
            "REPORT_DATE": "2024-12-31 00:00:00",
            "NOTICE_DATE": "2025-04-03 00:00:00",
            "UPDATE_DATE": "2025-04-03 00:00:00",
            "TOTAL_OPERATE_INCOME": 1.74e11,
            "OPERATE_INCOME": 1.7e11,
            "PARENT_NETPROFIT": 8.6e10,
            "BASIC_EPS": 68.64,
            "OPERATE_INCOME_YOY": 15.7,
            "RESEARCH_EXPENSE": float("nan"),
        },
        {  # East Money keeps only the latest version: UPDATE_DATE later than NOTICE_DATE
            "REPORT_DATE": "2024-09-30 00:00:00",
            "NOTICE_DATE": "2024-10-26 00:00:00",
            "UPDATE_DATE": "2025-03-15 00:00:00",
            "TOTAL_OPERATE_INCOME": 1.2e11,
            "OPERATE_INCOME": 1.18e11,
            "PARENT_NETPROFIT": 6.0e10,
            "BASIC_EPS": 47.0,
            "OPERATE_INCOME_YOY": 16.0,
            "RESEARCH_EXPENSE": 1.0e8,
        },
    ]


def test_financials_contract_known_at_and_revision_basis():
    out, client = fetch(
        {"stock_profit_sheet_by_report_em": em_statement(statement_rows())},
        dataset="financials",
        symbols=("600519.SH",),
        statement="income",
    )
    assert client.calls == [("stock_profit_sheet_by_report_em", {"symbol": "SH600519"})]
    frame = out.frame.set_index("report_period")
    assert data_columns(out.frame) == canonical_columns("financials")
    annual = frame.loc[date(2024, 12, 31)]
    assert annual["statement"] == "income" and annual["report_type"] == "1"
    assert annual["ann_date"] == date(2025, 4, 3)
    assert annual["known_at_basis"] == "announcement"
    assert annual["known_at"] == bj("2025-04-03 23:59:59.999999")
    q3 = frame.loc[date(2024, 9, 30)]
    assert q3["ann_date"] == date(2024, 10, 26) and q3["revision_date"] == date(2025, 3, 15)
    assert q3["known_at_basis"] == "revision"  # invisible before the update date
    assert q3["known_at"] == bj("2025-03-15 23:59:59.999999")
    # canonical items through the vendor's field aliases
    assert LINE_ITEM_FIELDS["revenue"] == "OPERATE_INCOME"
    assert annual["revenue"] == 1.7e11 and annual["total_revenue"] == 1.74e11
    assert annual["net_profit_parent"] == 8.6e10 and annual["eps_basic"] == 68.64
    assert math.isnan(annual["total_assets"])  # a balance item, not in this statement
    extra = json.loads(annual["extra"])
    assert list(extra) == sorted(extra)
    assert extra["OPERATE_INCOME_YOY"] == 15.7 and extra["RESEARCH_EXPENSE"] is None
    assert extra["ORG_TYPE"] == "通用"
    for mapped in ("OPERATE_INCOME", "REPORT_DATE", "NOTICE_DATE", "UPDATE_DATE", "SECUCODE"):
        assert mapped not in extra


def test_financials_non_quarter_end_is_a_non_retryable_vendor_error():
    rows = statement_rows()
    rows[0]["REPORT_DATE"] = "2024-12-30 00:00:00"
    with pytest.raises(VendorError, match="quarter end") as e:
        fetch(
            {"stock_profit_sheet_by_report_em": em_statement(rows)},
            dataset="financials",
            symbols=("600519.SH",),
            statement="income",
        )
    assert not e.value.retryable


def test_financials_missing_dates_are_schema_drift():
    frame = em_statement(statement_rows()).drop(columns=["NOTICE_DATE"])
    with pytest.raises(VendorError, match="NOTICE_DATE"):
        fetch(
            {"stock_profit_sheet_by_report_em": frame},
            dataset="financials",
            symbols=("600519.SH",),
            statement="income",
        )


def test_financials_nightly_fetches_the_announcers_statements():
    """Nightly: who filed (notice list from the previous session on), then their statements."""
    notices = {
        "20250425": notice_report(["600519"], "2025-04-25"),
        "20250426": notice_report([], "2025-04-26"),
        "20250427": NoMarketDataError("返回数据为空"),
        "20250428": notice_report(["000001", "600519", "899999"], "2025-04-28"),
    }
    q1 = [
        {
            "REPORT_DATE": "2025-03-31 00:00:00",
            "NOTICE_DATE": "2025-04-28 00:00:00",
            "UPDATE_DATE": "2025-04-28 00:00:00",
            "TOTAL_ASSETS": 3.0e11,
        }
    ]
    sheets = {"SH600519": em_statement(q1), "SZ000001": TypeError("'NoneType' object")}

    def balance(symbol):
        got = sheets[symbol]
        return NoMarketDataError("no statements") if isinstance(got, TypeError) else got

    out, client = fetch(
        {
            NOTICE_LIST: lambda symbol, date: notices[date],
            "stock_balance_sheet_by_report_em": balance,
        },
        dataset="financials",
        trade_date=date(2025, 4, 28),
        statement="balance",
    )
    notice_days = [p["date"] for e, p in client.calls if e == NOTICE_LIST]
    assert notice_days == ["20250425", "20250426", "20250427", "20250428"]
    assert all(p["symbol"] == "财务报告" for e, p in client.calls if e == NOTICE_LIST)
    statement_calls = [p["symbol"] for e, p in client.calls if e != NOTICE_LIST]
    assert statement_calls == ["SH600519", "SZ000001"]  # each announcer once, junk code skipped
    assert list(out.frame["symbol"]) == ["600519.SH"]
    assert out.frame.iloc[0]["total_assets"] == 3.0e11


def test_financials_with_no_symbols_or_date_are_not_configured():
    with pytest.raises(VendorNotConfiguredError):
        fetch({}, dataset="financials")
    with pytest.raises(InvalidArgumentsError):
        fetch({}, dataset="financials", symbols=("600519.SH",), statement="income_statement")
    # no date, no symbols, but a universe: each company of the universe
    sheet = em_statement(statement_rows())
    out, client = fetch(
        {"stock_profit_sheet_by_report_em": sheet},
        dataset="financials",
        universe=("600519.SH",),
        statement="income",
    )
    assert client.endpoints() == ["stock_profit_sheet_by_report_em"] and len(out.frame) == 2


# ---------------------------------------------------------------- news


def test_news_dedupes_across_feeds_and_merges_sources_and_symbols():
    same_title = "贵州茅台：2025年一季度净利润同比增长11.6%"
    routes = {
        STOCK_NEWS: lambda symbol: {
            "600519": stock_news(
                "600519",
                [(same_title, "2025-06-03 09:30:00"), ("茅台召开股东大会", "2025-06-03 14:00:00")],
            ),
            "000858": stock_news("000858", [(same_title, "2025-06-03 09:30:00")]),
        }[symbol],
        # the flash feed carries the same item with full-width punctuation and extra spaces
        GLOBAL_NEWS: global_news(
            [
                ("贵州茅台: 2025年一季度净利润同比增长11.6% ", "2025-06-03 09:30:00"),
                ("央行开展逆回购操作", "2025-06-03 10:00:00"),
            ]
        ),
    }
    out, client = fetch(routes, dataset="news", trade_date=DAY, symbols=("600519.SH", "000858.SZ"))
    frame = out.frame
    assert data_columns(frame) == canonical_columns("news")
    assert len(frame) == 3
    assert client.calls[0] == (STOCK_NEWS, {"symbol": "600519"})
    merged = frame[frame["news_id"] == news_id(same_title, datetime(2025, 6, 3, 9, 30))].iloc[0]
    assert list(merged["sources"]) == [news_source(STOCK_NEWS), news_source(GLOBAL_NEWS)]
    assert list(merged["symbols"]) == ["000858.SZ", "600519.SH"]
    assert merged["published_at"] == bj("2025-06-03 09:30")
    assert merged["known_at_basis"] == "published"
    macro = frame[frame["title"] == "央行开展逆回购操作"].iloc[0]
    assert list(macro["symbols"]) == [] and list(macro["sources"]) == [news_source(GLOBAL_NEWS)]
    assert frame["news_id"].is_unique


@pytest.mark.parametrize(
    ("day", "kept"),
    [(date(2025, 6, 3), {"收盘前夜", "傍晚消息"}), (date(2025, 6, 4), {"午夜后消息"})],
)
def test_news_window_is_beijing_days(day, kept):
    """23:59 and 00:01 Beijing are the same UTC day but two Beijing days."""
    feed = global_news(
        [
            ("收盘前夜", "2025-06-03 23:59:00"),
            ("午夜后消息", "2025-06-04 00:01:00"),
            ("傍晚消息", "2025-06-03 18:00:00"),
        ]
    )
    out, _ = fetch({GLOBAL_NEWS: feed}, dataset="news", trade_date=day)
    assert set(out.frame["title"]) == kept


def test_news_undated_and_date_only_items():
    feed = global_news(
        [("无时间的消息", None), ("时间乱码", "昨天下午"), ("只有日期的消息", "2025-06-03")]
    )
    out, _ = fetch({GLOBAL_NEWS: feed}, dataset="news", trade_date=DAY)
    frame = out.frame.set_index("title")
    assert pd.isna(frame.loc["无时间的消息", "published_at"])
    assert frame.loc["无时间的消息", "known_at_basis"] == "first_seen"
    assert frame.loc["时间乱码", "known_at"] == pd.Timestamp(FETCHED_AT)
    # date-only: known at the end of that Beijing day, never its start
    assert frame.loc["只有日期的消息", "published_at"] == bj("2025-06-03 23:59:59.999999")


def test_news_empty_global_feed_does_not_hide_stock_news():
    routes = {
        STOCK_NEWS: stock_news("600519", [("茅台公告", "2025-06-03 08:00:00")]),
        GLOBAL_NEWS: NoMarketDataError("no rows"),
    }
    out, _ = fetch(routes, dataset="news", trade_date=DAY, symbols=("600519.SH",))
    assert list(out.frame["title"]) == ["茅台公告"]
    with pytest.raises(NoMarketDataError):
        fetch({GLOBAL_NEWS: global_news([])}, dataset="news", trade_date=DAY)


def test_news_without_a_window_keeps_everything():
    feed = global_news([("旧闻", "2020-01-02 08:00:00"), ("新闻", "2025-06-03 08:00:00")])
    out, _ = fetch({GLOBAL_NEWS: feed}, dataset="news")
    assert len(out.frame) == 2


# ---------------------------------------------------------------- dragon-tiger


def lhb_routes(detail, seats_by_call=None):
    seats_by_call = seats_by_call or {}

    def seats(symbol, date, flag):
        return seats_by_call.get((symbol, date, flag), NoMarketDataError("返回数据为空"))

    return {LHB_DETAIL: detail, LHB_SEATS: seats}


def test_dragon_tiger_contract_no_future_columns_two_reasons_two_rows(caplog):
    reasons = ("日涨幅偏离值达到7%的前5只证券", "连续三个交易日内，涨幅偏离值累计达到20%的证券")
    detail = lhb_detail(
        [
            lhb_row("000001", "2025-06-03", reasons[0], net=1.0e7),
            lhb_row("000001", "2025-06-03", reasons[1], net=3.0e7),
            lhb_row("000001", "2025-06-03", reasons[1], net=3.0e7),  # exact duplicate from EM
        ]
    )
    buy = lhb_seats(
        [("机构专用", 3.0e7, 0.0, reasons[0]), ("中信证券上海分公司", 2.0e7, 1.0e6, reasons[1])]
    )
    sell = lhb_seats([("华泰证券深圳益田路", 1.0e5, 9.0e6, reasons[0])])
    out, client = fetch(
        lhb_routes(
            detail, {("000001", "20250603", "买入"): buy, ("000001", "20250603", "卖出"): sell}
        ),
        dataset="dragon_tiger",
        trade_date=DAY,
    )
    frame = out.frame
    assert data_columns(frame) == canonical_columns("dragon_tiger")
    assert not [c for c in frame.columns if "上榜后" in c]
    assert all(not [c for c in r.frame.columns if "上榜后" in c] for r in out.raws)
    assert len(frame) == 2 and set(frame["reason"]) == set(reasons)
    assert "kept the first" not in caplog.text  # an exact duplicate is no conflict
    row = frame.set_index("reason").loc[reasons[0]]
    assert row["symbol"] == "000001.SZ" and row["trade_date"] == DAY
    assert row["net_buy"] == 1.0e7 and row["buy_amount"] == 5.0e7
    assert row["billboard_amount"] == 1.0e8 - 1.0e7 and row["market_amount"] == 2.0e9
    assert row["float_mv"] == 2.4e11 and row["turnover_rate"] == 3.2 and row["close"] == 12.5
    assert row["known_at"] == bj("2025-06-03 23:59:59.999999")
    seats = json.loads(row["seats"])
    assert seats == [
        {"side": "buy", "branch": "机构专用", "buy": 3.0e7, "sell": 0.0, "net": 3.0e7},
        {
            "side": "sell",
            "branch": "华泰证券深圳益田路",
            "buy": 1.0e5,
            "sell": 9.0e6,
            "net": 1.0e5 - 9.0e6,
        },
    ]
    other = json.loads(frame.set_index("reason").loc[reasons[1], "seats"])
    assert [s["branch"] for s in other] == ["中信证券上海分公司"]
    assert client.calls[0] == (LHB_DETAIL, {"start_date": "20250603", "end_date": "20250603"})
    assert sorted(p["flag"] for e, p in client.calls if e == LHB_SEATS) == ["买入", "卖出"]


def test_dragon_tiger_conflicting_duplicate_keeps_the_first(caplog):
    detail = lhb_detail(
        [
            lhb_row("600519", "2025-06-03", "日振幅值达到15%的前5只证券", net=1.0),
            lhb_row("600519", "2025-06-03", "日振幅值达到15%的前5只证券", net=2.0),
        ]
    )
    out, _ = fetch(lhb_routes(detail), dataset="dragon_tiger", trade_date=DAY)
    assert list(out.frame["net_buy"]) == [1.0]
    assert "kept the first" in caplog.text


def test_dragon_tiger_seat_failure_leaves_seats_null_and_no_type_matches_all():
    detail = lhb_detail(
        [lhb_row("000001", "2025-06-03", "A"), lhb_row("600519", "2025-06-03", "B")]
    )
    seats = {
        ("000001", "20250603", "买入"): lhb_seats([("营业部甲", 1.0, 0.0, None)]),
        ("000001", "20250603", "卖出"): lhb_seats([("营业部乙", 0.0, 2.0, None)]),
        ("600519", "20250603", "买入"): lhb_seats([("营业部丙", 1.0, 0.0, "B")]),
        ("600519", "20250603", "卖出"): VendorError("RemoteDisconnected"),
    }
    out, _ = fetch(lhb_routes(detail, seats), dataset="dragon_tiger", trade_date=DAY)
    frame = out.frame.set_index("symbol")
    assert [s["branch"] for s in json.loads(frame.loc["000001.SZ", "seats"])] == [
        "营业部甲",
        "营业部乙",
    ]
    assert pd.isna(frame.loc["600519.SH", "seats"])


def test_dragon_tiger_symbols_filter_and_no_rows_error():
    detail = lhb_detail(
        [lhb_row("000001", "2025-06-03", "A"), lhb_row("600519", "2025-06-03", "B")]
    )
    out, client = fetch(
        lhb_routes(detail), dataset="dragon_tiger", trade_date=DAY, symbols=("600519.SH",)
    )
    assert list(out.frame["symbol"]) == ["600519.SH"]
    assert {p["symbol"] for e, p in client.calls if e == LHB_SEATS} == {"600519"}
    with pytest.raises(NoMarketDataError):
        fetch(
            lhb_routes(NoMarketDataError("'NoneType' object is not subscriptable")),
            dataset="dragon_tiger",
            trade_date=DAY,
        )


# ---------------------------------------------------------------- calendar and the rest


def test_calendar_is_full_within_the_window():
    cal = sina_calendar(["2025-09-29", "2025-09-30", "2025-10-09", "2025-10-10"])
    out, _ = fetch(
        {"tool_trade_date_hist_sina": cal},
        dataset="calendar",
        start=date(2025, 9, 29),
        end=date(2025, 10, 10),
    )
    frame = out.frame
    assert data_columns(frame) == canonical_columns("calendar")
    assert len(frame) == 12 and set(frame["exchange"]) == {"XSHG"}
    opened = dict(zip(frame["date"], frame["is_open"], strict=True))
    assert opened[date(2025, 9, 30)] and opened[date(2025, 10, 9)]
    assert not opened[date(2025, 10, 1)] and not opened[date(2025, 10, 5)]
    assert sum(opened.values()) == 4
    assert set(frame["known_at_basis"]) == {"first_seen"}


def test_calendar_never_calls_unlisted_future_days_closed():
    cal = sina_calendar(["2025-12-30", "2025-12-31"])  # the vendor's list ends here
    out, _ = fetch(
        {"tool_trade_date_hist_sina": cal},
        dataset="calendar",
        start=date(2025, 12, 29),
        end=date(2026, 1, 6),
    )
    assert list(out.frame["date"]) == [date(2025, 12, 30), date(2025, 12, 31)]
    with pytest.raises(NoMarketDataError):
        fetch(
            {"tool_trade_date_hist_sina": cal},
            dataset="calendar",
            start=date(2026, 1, 5),
            end=date(2026, 1, 6),
        )


def test_valuation_is_not_offered():
    adapter = AKSHARE.adapter(StubClient({}))
    assert not adapter.supports("valuation")
    assert adapter.supports("quotes") and adapter.supports("dragon_tiger")
    with pytest.raises(VendorNotConfiguredError):
        adapter.build_queries(FetchRequest(dataset="valuation", trade_date=DAY))


def test_non_frame_answer_is_a_vendor_error():
    with pytest.raises(VendorError, match="DataFrame"):
        fetch({"tool_trade_date_hist_sina": lambda: "<html>"}, dataset="calendar")


def test_a_none_answer_is_no_data():
    with pytest.raises(NoMarketDataError, match="None"):
        fetch({"tool_trade_date_hist_sina": lambda: None}, dataset="calendar")


# ---------------------------------------------------------------- unit plausibility


def _em_day(volume_lots: float) -> pd.DataFrame:
    # close 10 元, 1,000 手 = 100,000 股 traded for 1,000,000 元: VWAP 10 元
    return em_bars("600519", [("2025-06-03", 10.0, 10.0, 10.2, 9.8, volume_lots, 1e6, 0.5, 0.1)])


def test_bars_with_a_100x_volume_slip_are_never_served():
    """Every source off by 100× (volume in 股 where 手 is read) → a typed VendorError."""
    slipped = _em_day(1e5)  # 100,000 "手": really shares
    sina = sina_bars([("2025-06-03", 10.0, 10.2, 9.8, 10.0, 1e3, 1e6, 0.001)])  # 股 read as 手
    with pytest.raises(VendorError, match="unit drift") as err:
        fetch(
            {EM_BARS: slipped, SINA_BARS: sina, TENCENT_BARS: tencent_bars([])},
            dataset="quotes",
            trade_date=DAY,
            symbols=("600519.SH",),
        )
    assert not isinstance(err.value, NoMarketDataError)
    assert err.value.retryable is False


def test_a_source_with_drifted_units_gives_way_to_the_next():
    slipped = _em_day(1e5)
    sina = sina_bars([("2025-06-03", 10.0, 10.2, 9.8, 10.0, 1e5, 1e6, 0.001)])
    out, client = fetch(
        {EM_BARS: slipped, SINA_BARS: sina},
        dataset="quotes",
        trade_date=DAY,
        symbols=("600519.SH",),
    )
    assert client.endpoints() == [EM_BARS, SINA_BARS]
    assert out.frame["volume"].item() == 1e5  # shares, from Sina


def test_plausible_units_pass():
    out, _ = fetch(
        {EM_BARS: _em_day(1e3)}, dataset="quotes", trade_date=DAY, symbols=("600519.SH",)
    )
    assert out.frame["volume"].item() == 1e5  # 1,000 手 → 100,000 股
