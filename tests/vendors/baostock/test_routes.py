"""Baostock in the default chains: it serves when the vendors before it cannot, the router's
trace names it, and its "no rows" falls through to the next vendor."""

from __future__ import annotations

import pandas as pd
import pytest

from pitlake import schemas
from pitlake.errors import NoMarketDataError
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.plugins import plugin
from pitlake.vendors.retry import ResilientClient, RetryPolicy
from pitlake.vendors.router import Router
from tests.vendors.baostock.recorded import D3, D4, FETCHED_AT, client
from tests.vendors.stub_client import StubClient
from tests.vendors.wire.baostock_wire import replies, server


def resilient(inner) -> ResilientClient:
    return ResilientClient(inner, policy=RetryPolicy.no_wait())


def router(akshare_routes: dict | None = None) -> Router:
    """Tushare without a token, AkShare scripted (no rows unless routed), Baostock over the
    local protocol server; the default chains."""
    tushare = plugin("tushare").adapter(resilient(plugin("tushare").client(env={})))
    stub = StubClient(
        akshare_routes
        or {
            ep: NoMarketDataError("no rows", vendor="akshare", endpoint=ep)
            for ep in ("stock_zh_a_hist", "stock_zh_a_daily", "stock_zh_a_hist_tx")
        }
    )
    stub.vendor = "akshare"
    akshare = plugin("akshare").adapter(resilient(stub))
    baostock = plugin("baostock").adapter(resilient(client()))
    return Router({"tushare": tushare, "akshare": akshare, "baostock": baostock})


def test_baostock_is_in_the_default_chains_where_it_adds_coverage():
    for dataset in ("quotes", "adj_factors", "financials"):
        assert schemas.get(dataset).default_chain[-1] == "baostock"
    assert "baostock" not in schemas.get("valuation").default_chain  # it has no market caps


def test_quotes_served_by_baostock_name_it_in_the_trace():
    server().serve(replies("query_history_k_data_plus.normal"))
    req = FetchRequest("quotes", start=D3, end=D4, symbols=("600519.SH",))
    result = router().route(req, FETCHED_AT)
    assert result.ok and result.vendor == "baostock"
    assert [(t["vendor"], t["outcome"]) for t in result.trace] == [
        ("tushare", "NOT_CONFIGURED"),
        ("akshare", "NO_DATA"),
        ("baostock", "OK"),
    ]
    assert result.trace[-1]["rows"] == 2 and "served by baostock" in result.message
    assert set(result.frame["source"]) == {"baostock"}


def test_financials_without_tushare_points_are_dated_by_baostock():
    server().serve(
        replies(
            "query_profit_data.normal", "query_balance_data.normal", "query_cash_flow_data.normal"
        )
    )
    req = FetchRequest(
        "financials",
        start=pd.Timestamp("2025-04-01").date(),
        end=pd.Timestamp("2025-04-30").date(),
        symbols=("600519.SH",),
    )
    result = router({}).route(req, FETCHED_AT)  # AkShare: no route = not configured
    assert result.vendor == "baostock"
    assert (result.frame["known_at_basis"] == "announcement").all()
    assert set(result.frame["ann_date"].astype(str)) == {"2025-04-03"}


@pytest.mark.parametrize(
    "case", ["query_history_k_data_plus.no_data", "query_history_k_data_plus.empty"]
)
def test_baostock_no_rows_falls_through_to_the_next_vendor(case):
    server().serve(replies(case))
    bars = pd.DataFrame(
        {
            "日期": ["2025-06-03"],
            "股票代码": ["600519"],
            "开盘": [1560.0],
            "收盘": [1567.0],
            "最高": [1573.0],
            "最低": [1555.01],
            "成交量": [24531.0],
            "成交额": [3.836e9],
            "振幅": [1.15],
            "涨跌幅": [0.28],
            "涨跌额": [4.34],
            "换手率": [0.2],
        }
    )
    r = router({"stock_zh_a_hist": bars})
    req = FetchRequest("quotes", trade_date=D3, symbols=("600519.SH",))
    result = r.route(req, FETCHED_AT, chain=["baostock", "akshare"])
    assert result.vendor == "akshare"
    assert [(t["vendor"], t["outcome"]) for t in result.trace] == [
        ("baostock", "NO_DATA"),
        ("akshare", "OK"),
    ]


def test_baostock_drops_suspended_sessions_and_skips_beijing_shares():
    server().serve(replies("query_history_k_data_plus.suspended"))
    req = FetchRequest("quotes", start=D3, end=D4, symbols=("000001.SZ", "430047.BJ"))
    outcome = plugin("baostock").adapter(client()).fetch(req, FETCHED_AT)
    assert outcome.frame["trade_date"].astype(str).tolist() == ["2025-06-03"]  # 06-04 suspended
    assert [q.params["code"] for q in server().queries("query_history_k_data_plus")] == [
        "sz.000001"
    ]


def test_statements_are_asked_for_the_periods_due_in_the_window():
    from pitlake.vendors.baostock.fetchers.financials import periods

    assert [
        str(p)
        for p in periods(pd.Timestamp("2025-04-01").date(), pd.Timestamp("2025-04-30").date())
    ] == [
        "2024-12-31",
        "2025-03-31",
    ]
    assert periods(D3, D3) == []  # nothing is due in June: Baostock cannot list late filers
    assert [
        str(p)
        for p in periods(pd.Timestamp("2025-08-29").date(), pd.Timestamp("2025-08-29").date())
    ] == ["2025-06-30"]
