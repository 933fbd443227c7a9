"""Wire-level contract, dataset by dataset: recorded vendor replies → the real akshare code →
pitlake's live client and AkShare adapter → canonical rows (units converted), and one symbol's,
one company's or one day's empty answer never failing the others of the same fetch.
Finally the done-when case of issue 14: a nightly over recorded replies of a Monday with no
Friday-to-Sunday notices completes with financials NO_DATA."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from pitlake.errors import NoMarketDataError
from pitlake.pipeline.commit import commit
from pitlake.pipeline.fetch import fetch as fetch_unit
from pitlake.pipeline.gating import gate
from pitlake.pipeline.planning import nightly_units
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.summary import summarize
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.registry import build_router
from pitlake.vendors.retry import RetryPolicy
from tests.vendors.wire.akshare_wire import (
    FETCHED_AT,
    add,
    begin_time,
    http_fixture,  # noqa: F401 (the `http` fixture)
    keyword,
    live_adapter,
)
from tests.vendors.wire.http_replay import HttpReplay

D3, D4 = date(2025, 6, 3), date(2025, 6, 4)
STATEMENTS = (
    "stock_profit_sheet_by_report_em",
    "stock_balance_sheet_by_report_em",
    "stock_cash_flow_sheet_by_report_em",
)


def fetch(**req):
    return live_adapter().fetch(FetchRequest(**req), FETCHED_AT)


# ---------------------------------------------------------------- quotes and factors


def test_east_money_bars_come_out_in_shares_and_yuan(http: HttpReplay) -> None:
    add(http, "stock_zh_a_hist", "normal")
    with http.active():
        out = fetch(dataset="quotes", start=D3, end=D4, symbols=("600519.SH",)).frame
    first = out.iloc[0]
    assert (first["symbol"], first["trade_date"]) == ("600519.SH", D3)
    assert first["volume"] == 25000 * 100  # 手 → 股
    assert first["amount"] == 3_815_000_000.0
    assert (first["open"], first["close"], first["pct_chg"]) == (1523.0, 1530.5, 0.69)
    assert first["turnover_rate"] == 0.20  # percent stays percent
    assert (out["source"] == "akshare").all()


def test_sina_serves_when_east_money_has_no_bars(http: HttpReplay) -> None:
    add(http, "stock_zh_a_hist", "empty")
    add(http, "stock_zh_a_daily", "normal")
    with http.active():
        out = fetch(dataset="quotes", start=D3, end=D4, symbols=("600519.SH",)).frame
    assert list(out["trade_date"]) == [D3, D4]
    assert list(out["volume"]) == [2_500_000.0, 1_800_000.0]  # Sina sends shares
    assert list(out["amount"]) == [3_815_000_000.0, 2_751_234_567.0]
    # turnover = volume / outstanding shares (125,619.78 万股), a fraction → percent
    assert out["turnover_rate"].iloc[0] == pytest.approx(2_500_000 / 1_256_197_800 * 100)


def test_tencent_serves_last_and_keeps_sz000_volume_in_lots_fixed(http: HttpReplay) -> None:
    add(http, "stock_zh_a_hist", "empty")
    add(http, "stock_zh_a_daily", "empty")
    add(http, "stock_zh_a_hist_tx", "normal")
    with http.active():
        out = fetch(dataset="quotes", start=D3, end=D4, symbols=("000001.SZ",)).frame
    first = out.iloc[0]
    assert first["volume"] == 1_234_567 * 100  # akshare leaves sz000 in 手 (stock_hist_tx.py:113)
    assert first["amount"] == pytest.approx(143_210.56 * 10_000)  # 万元 → 元, by akshare
    assert first["turnover_rate"] == pytest.approx(0.64)  # % → fraction (akshare) → %


def test_no_bars_anywhere_is_no_data(http: HttpReplay) -> None:
    for fn in ("stock_zh_a_hist", "stock_zh_a_daily", "stock_zh_a_hist_tx"):
        add(http, fn, "empty")
    with http.active(), pytest.raises(NoMarketDataError):
        fetch(dataset="quotes", start=D3, end=D4, symbols=("000001.SZ",))


def test_sina_factor_change_points_become_daily_factors(http: HttpReplay) -> None:
    add(http, "stock_zh_a_daily@hfq-factor", "normal")
    with http.active():
        out = fetch(dataset="adj_factors", start=D3, end=D4, symbols=("600519.SH",)).frame
    assert list(out["adj_factor"]) == [8.6123, 8.6123]  # in force since 2024-06-19


# ---------------------------------------------------------------- financials


def _statements(http: HttpReplay, kind: str) -> None:
    for fn in STATEMENTS:
        add(http, fn, kind)


def test_one_company_without_periods_leaves_the_others_statements(http: HttpReplay) -> None:
    """Issue 14 item 6: SZ000001's `{"data": []}` used to fail every company's statements."""
    _statements(http, "normal")
    _statements(http, "empty")
    with http.active():
        out = fetch(dataset="financials", symbols=("600519.SH", "000001.SZ")).frame
    assert set(out["symbol"]) == {"600519.SH"}
    assert sorted(out["statement"]) == ["balance", "cashflow", "income"]
    income = out[out["statement"] == "income"].iloc[0]
    assert income["report_period"] == date(2025, 3, 31)
    assert income["ann_date"] == date(2025, 4, 29)
    assert income["total_revenue"] == 50_600_000_000.0


def test_a_notice_day_names_the_companies_whose_statements_are_fetched(http: HttpReplay) -> None:
    """Issue 14 item 7 live: the notice list's 公告类型 is East Money's column_name."""
    add(http, "stock_notice_report", "normal", where=begin_time("2025-06-03"))
    add(http, "stock_notice_report", "empty")  # 2025-06-02 (a holiday) and any other day
    _statements(http, "normal")
    _statements(http, "empty")
    with http.active():
        out = fetch(dataset="financials", trade_date=D3).frame
    assert set(out["symbol"]) == {"600519.SH"}  # 000001 announced; EM has no periods yet
    asked = {
        c.params["begin_time"] for c in http.served(r"np-anotice-stock") if "begin_time" in c.params
    }
    assert asked == {"2025-05-30", "2025-05-31", "2025-06-01", "2025-06-02", "2025-06-03"}


def test_days_without_notices_are_no_data_not_a_failure(http: HttpReplay) -> None:
    """Issue 14 item 1: KeyError('代码') on each zero-notice day → NO_DATA, not UPSTREAM_ERROR."""
    add(http, "stock_notice_report", "empty")
    with http.active(), pytest.raises(NoMarketDataError):
        fetch(dataset="financials", trade_date=D3)
    assert not http.unmatched


# ---------------------------------------------------------------- news


def test_a_symbol_without_news_hits_keeps_the_global_feed_and_the_others(
    http: HttpReplay,
) -> None:
    """Issue 14 item 2: 000001's empty search used to lose every AkShare news item."""
    add(http, "stock_news_em", "normal", where=keyword("600519"))
    add(http, "stock_news_em", "empty", where=keyword("000001"))
    add(http, "stock_news_em", "no_container", where=keyword("300750"))
    add(http, "stock_info_global_em", "normal")
    with http.active():
        out = fetch(
            dataset="news", start=D3, end=D3, symbols=("600519.SH", "000001.SZ", "300750.SZ")
        ).frame
    by_title = {row["title"]: row for _, row in out.iterrows()}
    moutai = by_title["贵州茅台：2024年年度权益分派实施公告"]  # <em> tags removed by akshare
    assert list(moutai["symbols"]) == ["600519.SH"]
    assert list(moutai["sources"]) == ["akshare:stock_news_em"]
    assert "沪指收复3400点" in by_title
    assert len(http.served(r"search-api-web")) == 3


def test_no_news_anywhere_is_no_data(http: HttpReplay) -> None:
    add(http, "stock_news_em", "empty")
    add(http, "stock_info_global_em", "empty")
    with http.active(), pytest.raises(NoMarketDataError):
        fetch(dataset="news", start=D3, end=D3, symbols=("000001.SZ",))


# ---------------------------------------------------------------- dragon-tiger and calendar


def test_listings_with_both_seat_sides(http: HttpReplay) -> None:
    add(http, "stock_lhb_stock_detail_em", "normal")
    add(
        http,
        "stock_lhb_detail_em",
        "normal",
        params={"reportName": "RPT_DAILYBILLBOARD_DETAILSNEW"},
    )
    day = date(2025, 6, 18)
    with http.active():
        out = fetch(dataset="dragon_tiger", trade_date=day).frame
    row = out.iloc[0]
    assert (row["symbol"], row["trade_date"], row["net_buy"]) == ("688981.SH", day, 123e6)
    assert "上榜后" not in "".join(out.columns)  # look-ahead columns never kept
    seats = __import__("json").loads(row["seats"])
    assert [s["side"] for s in seats] == ["buy", "buy", "sell"]
    assert seats[0] == {
        "side": "buy",
        "branch": "机构专用",
        "buy": 120e6,
        "sell": 0.0,
        "net": 120e6,
    }


def test_a_day_without_listings_is_no_data(http: HttpReplay) -> None:
    add(http, "stock_lhb_detail_em", "empty")
    with http.active(), pytest.raises(NoMarketDataError):
        fetch(dataset="dragon_tiger", trade_date=date(2025, 6, 21))


def test_the_sina_calendar_opens_listed_days_only(http: HttpReplay) -> None:
    add(http, "tool_trade_date_hist_sina", "normal")
    with http.active():
        out = fetch(dataset="calendar", start=date(2025, 5, 30), end=date(2025, 6, 3)).frame
    assert dict(zip(out["date"], out["is_open"], strict=True)) == {
        date(2025, 5, 30): True,
        date(2025, 5, 31): False,
        date(2025, 6, 1): False,
        date(2025, 6, 2): False,  # 端午
        date(2025, 6, 3): True,
    }


# ---------------------------------------------------------------- the nightly


def test_a_monday_nightly_with_no_friday_to_sunday_notices_completes_no_data(
    http: HttpReplay, tmp_path: Path
) -> None:
    """Issue 14, done when: the nightly's notice scan (Friday → Monday) meets only empty
    lists; financials end NO_DATA and the run completes. Real akshare over recorded replies,
    pitlake's live AkShare client behind the real router, ingest units without Prefect."""
    monday = date(2025, 6, 9)
    add(http, "stock_notice_report", "empty")
    router = build_router(
        "vendors:akshare",
        policy=RetryPolicy.no_wait(),
        env={"PITLAKE_AKSHARE_PER_MIN": "100000", "PITLAKE_AKSHARE_BURST": "100"},
    )
    env = RunEnv(tmp_path / "lake", source="vendors:akshare", run_id="wire-monday", router=router)
    try:
        with http.active():
            units = nightly_units(env, monday, ["financials"], None)
            batches = [fetch_unit(env, u) for u in units]
            outcomes = commit(env, batches, gate(env, batches, align_on=monday))
        summary = summarize(outcomes).to_dict()
        assert [o.status for o in outcomes] == ["NO_DATA"]
        assert summary["completed"] is True
        assert str(env.catalog.ledger_entry("financials", monday, "*").status) == "NO_DATA"
    finally:
        env.close()
    asked = sorted(c.params["begin_time"] for c in http.served(r"np-anotice-stock"))
    assert asked == ["2025-06-06", "2025-06-07", "2025-06-08", "2025-06-09"]
    assert not http.unmatched


# ---------------------------------------------------------------- record, then replay


@pytest.mark.parametrize(
    ("function", "endpoint", "params"),
    [
        ("stock_notice_report", "stock_notice_report", {"symbol": "财务报告", "date": "20250603"}),
        ("stock_news_em", "stock_news_em", {"symbol": "600519"}),
        (
            "stock_profit_sheet_by_report_em",
            "stock_profit_sheet_by_report_em",
            {"symbol": "SH600519"},
        ),
        (
            "stock_zh_a_hist",
            "stock_zh_a_hist",
            {
                "symbol": "600519",
                "period": "daily",
                "start_date": "20250603",
                "end_date": "20250604",
                "adjust": "",
            },
        ),
        (
            "stock_zh_a_hist_tx",
            "stock_zh_a_hist_tx",
            {"symbol": "sz000001", "start_date": "20250603", "end_date": "20250604", "adjust": ""},
        ),
        (
            "stock_lhb_detail_em",
            "stock_lhb_detail_em",
            {"start_date": "20250618", "end_date": "20250618"},
        ),
    ],
)
def test_a_recorded_live_answer_replays_as_it_was_received(
    http: HttpReplay, tmp_path: Path, function: str, endpoint: str, params: dict
) -> None:
    """Issue 14 item 7: what the live client records, replay gives back (same rows, same
    values), and asked for something else it answers as akshare does."""
    from pitlake.vendors.akshare.client import AkshareClient
    from pitlake.vendors.replay.source import ReplaySource

    add(http, function, "normal")
    with http.active():
        live = AkshareClient(timeout=30, record_dir=tmp_path).call(endpoint, **params)
    replayed = ReplaySource(tmp_path).client("akshare").call(endpoint, **params)
    assert list(replayed.columns) == list(live.columns)
    assert replayed.astype(str).to_dict("records") == live.astype(str).to_dict("records")
