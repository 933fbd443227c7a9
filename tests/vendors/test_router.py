"""The router through every row of docs/design.md §4, with small fake adapters over real replay clients.

The fake adapters are deliberately minimal: what is under test is the chain, the statuses, the
retries and the trace, not normalisation (the real adapters have their own tests).
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import pandas as pd
import pytest

from pitlake.calendar import to_date
from pitlake.errors import InvalidArgumentsError, NoMarketDataError, VendorNotConfiguredError
from pitlake.statuses import ROUTE_FAILURE_ORDER, LedgerStatus
from pitlake.symbols import canonical, to_vendor
from pitlake.vendors.akshare.client import AkshareClient
from pitlake.vendors.base import Adapter, FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.registry import build_clients, build_router, parse_source
from pitlake.vendors.retry import ResilientClient, RetryPolicy
from pitlake.vendors.router import DEFAULT_CHAINS, Router
from pitlake.vendors.tushare.client import TushareClient
from tests.vendors.conftest import em_hist_row, ts_daily_row, write_error, write_table

FETCHED = datetime(2025, 6, 4, 12, 0, tzinfo=timezone.utc)
D3, D4 = date(2025, 6, 3), date(2025, 6, 4)


def ymd(d: date) -> str:
    return d.strftime("%Y%m%d")


class FakeTushare(Adapter):
    """quotes from `daily`, adj_factors from `adj_factor`, by trade date."""

    vendor = "tushare"
    datasets = frozenset({"quotes", "adj_factors"})

    def build_queries(self, req):
        endpoint = "daily" if req.dataset == "quotes" else "adj_factor"
        params = {"trade_date": ymd(req.trade_date)}
        if req.symbols:
            params["ts_code"] = ",".join(req.symbols)
        return [VendorQuery(endpoint, params)]

    def transform(self, req, raws):
        frame = pd.concat([r.frame for r in raws])
        if frame.empty:
            return frame
        out = pd.DataFrame(
            {"symbol": frame["ts_code"], "trade_date": [to_date(d) for d in frame["trade_date"]]}
        )
        if req.dataset == "quotes":
            out["close"] = frame["close"]
        else:
            out["adj_factor"] = frame["adj_factor"]
        return out


class FakeAkshare(Adapter):
    """quotes from East Money klines, one call per symbol; factors from Sina hfq factors."""

    vendor = "akshare"
    datasets = frozenset({"quotes", "adj_factors"})

    def build_queries(self, req):
        symbols = req.symbols or req.universe or ()
        if not symbols:
            raise VendorNotConfiguredError("per-symbol vendor: give symbols", vendor=self.vendor)
        if req.dataset == "quotes":
            return [
                VendorQuery(
                    "stock_zh_a_hist",
                    {
                        "symbol": to_vendor(s, "bare"),
                        "period": "daily",
                        "start_date": ymd(req.trade_date),
                        "end_date": ymd(req.trade_date),
                        "adjust": "",
                    },
                    symbol=s,
                )
                for s in symbols
            ]
        return [
            VendorQuery(
                "stock_zh_a_daily",
                {"symbol": to_vendor(s, "sina"), "adjust": "hfq-factor"},
                symbol=s,
            )
            for s in symbols
        ]

    def transform(self, req, raws: list[RawResponse]):
        parts = []
        for r in raws:
            f = r.frame
            if req.dataset == "quotes":
                parts.append(
                    pd.DataFrame(
                        {
                            "symbol": [canonical(c) for c in f["股票代码"]],
                            "trade_date": list(f["日期"]),
                            "close": f["收盘"],
                        }
                    )
                )
            else:
                days = [d.date() for d in f["date"]]
                parts.append(
                    pd.DataFrame(
                        {
                            "symbol": r.query.symbol,
                            "trade_date": days,
                            "adj_factor": f["hfq_factor"].astype(float),
                        }
                    )
                )
        return pd.concat(parts) if parts else pd.DataFrame()


ADAPTERS = {"tushare": FakeTushare, "akshare": FakeAkshare}


def quotes(day: date = D3, symbols=("600519.SH",)) -> FetchRequest:
    return FetchRequest("quotes", trade_date=day, symbols=tuple(symbols) if symbols else None)


@pytest.fixture
def market(replay_dir: Path) -> Path:
    write_table(
        replay_dir,
        "tushare",
        "daily",
        [
            ts_daily_row("600519.SH", "20250603", 1437.0),
            ts_daily_row("000001.SZ", "20250603", 10.9),
        ],
    )
    write_table(
        replay_dir,
        "akshare",
        "stock_zh_a_hist",
        [em_hist_row("600519", "2025-06-03", 1437.5), em_hist_row("000001", "2025-06-03", 10.8)],
    )
    return replay_dir


def router_for(root: Path, **kw) -> Router:
    return build_router(f"replay:{root}", adapters=ADAPTERS, **kw)


def replay_of(router: Router):
    """The shared ReplaySource behind a replay router's clients."""
    return router.adapters["tushare"].client.inner.source


def outcome_of(result, vendor):
    return next(t for t in result.trace if t["vendor"] == vendor)


# ---------------------------------------------------------------- serving


def test_first_vendor_serves_and_names_itself(market):
    router = router_for(market)
    result = router.route(quotes(), FETCHED)
    assert result.status is LedgerStatus.OK and result.ok
    assert result.vendor == "tushare"
    assert list(result.frame["source"]) == ["tushare"]
    assert result.frame["close"].item() == 1437.0
    assert [r.query.endpoint for r in result.raws] == ["daily"]
    assert result.trace == [
        {
            "vendor": "tushare",
            "outcome": "OK",
            "error_type": None,
            "attempts": 1,
            "message": "1 rows",
            "rows": 1,
        }
    ]
    assert replay_of(router).call_count("akshare") == 0


def test_rate_limited_is_retried_then_succeeds(market):
    write_error(market, "tushare", "daily", {"error": "rate_limited", "times": 2})
    result = router_for(market).route(quotes(), FETCHED)
    assert result.status is LedgerStatus.OK and result.vendor == "tushare"
    assert outcome_of(result, "tushare")["attempts"] == 3


def test_rate_limit_past_the_budget_falls_through(market):
    write_error(market, "tushare", "daily", {"error": "rate_limited"})
    result = router_for(market).route(quotes(), FETCHED)
    assert result.status is LedgerStatus.OK and result.vendor == "akshare"
    ts = outcome_of(result, "tushare")
    assert ts["outcome"] == "RATE_LIMITED" and ts["error_type"] == "VendorRateLimitError"
    assert ts["attempts"] == 3  # 60 s + 60 s of (virtual) waiting fit the 150 s budget; 180 s not
    assert list(result.frame["source"]) == ["akshare"]


def test_unsupported_dataset_is_skipped_without_a_call(market):
    router = router_for(market, chains={"valuation": ["tushare", "akshare"]})
    result = router.route(FetchRequest("valuation", trade_date=D3), FETCHED)
    assert result.status is LedgerStatus.NOT_CONFIGURED
    assert [t["outcome"] for t in result.trace] == ["NOT_CONFIGURED", "NOT_CONFIGURED"]
    assert [t["attempts"] for t in result.trace] == [0, 0]
    assert replay_of(router).call_count() == 0


def test_missing_token_is_skipped_without_a_request(market):
    class Boom:
        def __call__(self, *a, **kw):
            raise AssertionError("no HTTP request may be made without a token")

    tushare = FakeTushare(
        ResilientClient(TushareClient(env={}, post=Boom()), policy=RetryPolicy.no_wait())
    )
    akshare = router_for(market).adapters["akshare"]
    result = Router({"tushare": tushare, "akshare": akshare}).route(quotes(), FETCHED)
    assert result.status is LedgerStatus.OK and result.vendor == "akshare"
    ts = outcome_of(result, "tushare")
    assert ts["outcome"] == "NOT_CONFIGURED" and ts["attempts"] == 0


def test_permission_denied_falls_through_without_retry(market):
    write_error(market, "tushare", "daily", {"error": "permission_denied"})
    result = router_for(market).route(quotes(), FETCHED)
    assert result.vendor == "akshare"
    ts = outcome_of(result, "tushare")
    assert ts["outcome"] == "PERMISSION_DENIED" and ts["attempts"] == 1
    assert "没有接口访问权限" in ts["message"]


def test_column_less_frame_never_yields_data(market):
    result = router_for(market).route(quotes(symbols=("000002.SZ",)), FETCHED, chain=["akshare"])
    assert result.status is LedgerStatus.NO_DATA
    assert result.frame.empty and result.vendor is None
    assert outcome_of(result, "akshare")["error_type"] == "NoMarketDataError"


def test_error_message_reply_never_yields_data(market):
    write_error(market, "tushare", "daily", {"error": "upstream_error"})
    result = router_for(market).route(quotes(), FETCHED, chain=["tushare"])
    assert result.status is LedgerStatus.UPSTREAM_ERROR
    assert result.frame.empty and "系统内部错误" in result.message
    assert outcome_of(result, "tushare")["attempts"] == 3  # a plain failure: retried a few times


def test_all_vendors_no_data_is_no_data(market):
    result = router_for(market).route(quotes(day=D4), FETCHED)
    assert result.status is LedgerStatus.NO_DATA
    # baostock (third in the default chain) has no tables in this replay: not configured
    assert [t["outcome"] for t in result.trace] == ["NO_DATA", "NO_DATA", "NOT_CONFIGURED"]
    assert result.frame.empty
    assert {"symbol", "trade_date", "close", "known_at", "source"} <= set(result.frame.columns)


def test_a_failure_beside_no_data_is_the_failure(market):
    write_error(market, "tushare", "daily", {"error": "upstream_error"})
    result = router_for(market).route(quotes(day=D4), FETCHED)
    assert result.status is LedgerStatus.UPSTREAM_ERROR  # never NO_DATA
    assert [t["outcome"] for t in result.trace] == ["UPSTREAM_ERROR", "NO_DATA", "NOT_CONFIGURED"]


def test_nothing_configured(replay_dir):
    result = router_for(replay_dir).route(quotes(), FETCHED)
    assert result.status is LedgerStatus.NOT_CONFIGURED
    assert result.frame.empty
    assert [t["attempts"] for t in result.trace] == [0, 0, 0]  # no vendor was asked anything


def test_not_ready(market):
    write_error(market, "tushare", "daily", {"error": "not_ready"})
    result = router_for(market).route(quotes(day=D4), FETCHED)
    assert result.status is LedgerStatus.NOT_READY
    assert outcome_of(result, "tushare")["attempts"] == 1  # retried later, at flow level


def test_failure_precedence(market):
    write_error(market, "tushare", "daily", {"error": "permission_denied"})
    write_error(market, "akshare", "stock_zh_a_hist", {"error": "rate_limited"})
    result = router_for(market).route(quotes(), FETCHED)
    assert result.status is LedgerStatus.RATE_LIMITED  # retrying can still get the data
    assert ROUTE_FAILURE_ORDER.index(LedgerStatus.RATE_LIMITED) < ROUTE_FAILURE_ORDER.index(
        LedgerStatus.PERMISSION_DENIED
    )


# ---------------------------------------------------------------- invalid requests and bugs


def test_invalid_arguments_fail_before_any_call(market):
    router = router_for(market)
    with pytest.raises(InvalidArgumentsError):
        router.route(quotes(symbols=("600519.XX",)), FETCHED)
    with pytest.raises(InvalidArgumentsError):
        router.route(FetchRequest("prices", trade_date=D3), FETCHED)
    with pytest.raises(InvalidArgumentsError):
        FetchRequest("quotes")  # no date at all
    assert replay_of(router).call_count() == 0


class Refusing(FakeTushare):
    def build_queries(self, req):
        raise InvalidArgumentsError("this vendor cannot take a symbol list")


def test_an_adapter_refusing_the_request_is_skipped_or_raised_if_all_refuse(market):
    akshare = router_for(market).adapters["akshare"]
    client = akshare.client
    mixed = Router({"tushare": Refusing(client), "akshare": akshare})
    result = mixed.route(quotes(), FETCHED)
    assert result.vendor == "akshare"
    assert outcome_of(result, "tushare")["error_type"] == "InvalidArgumentsError"
    alone = Router({"tushare": Refusing(client), "akshare": akshare})
    with pytest.raises(InvalidArgumentsError, match="cannot take"):
        alone.route(quotes(), FETCHED, chain=["tushare"])


class Buggy(FakeTushare):
    def transform(self, req, raws):
        return raws[0].frame["no_such_column"]


def test_an_adapter_bug_is_an_upstream_error_not_a_crash(market):
    good = router_for(market)
    router = Router(
        {"tushare": Buggy(good.adapters["tushare"].client), "akshare": good.adapters["akshare"]}
    )
    result = router.route(quotes(), FETCHED)
    assert result.vendor == "akshare"
    ts = outcome_of(result, "tushare")
    assert ts["outcome"] == "UPSTREAM_ERROR" and ts["error_type"] == "KeyError"


# ---------------------------------------------------------------- factor ownership


@pytest.fixture
def factors(replay_dir: Path) -> Path:
    write_table(
        replay_dir,
        "tushare",
        "adj_factor",
        [
            {"ts_code": "600519.SH", "trade_date": "20250603", "adj_factor": 8.4},
            {"ts_code": "000001.SZ", "trade_date": "20250603", "adj_factor": 127.7},
        ],
    )
    write_table(
        replay_dir,
        "akshare",
        "stock_zh_a_daily@hfq-factor",
        [
            {"_symbol": "sz000001", "date": "2025-06-03", "hfq_factor": "1.21"},
            {"_symbol": "sz000001", "date": "1900-01-01", "hfq_factor": "1.0"},
        ],
    )
    return replay_dir


def test_factor_rows_of_a_symbol_owned_by_another_vendor_are_dropped(factors):
    owners = {"000001.SZ": "akshare"}
    router = router_for(factors, factor_owners=lambda: owners)
    req = FetchRequest("adj_factors", trade_date=D3)
    result = router.route(req, FETCHED)
    assert result.vendor == "tushare"
    assert list(result.frame["symbol"]) == ["600519.SH"]  # never mixed with akshare's base
    assert result.dropped == {"000001.SZ": "akshare"}
    assert "000001.SZ" in outcome_of(result, "tushare")["message"]


def test_a_symbol_owned_elsewhere_is_served_by_its_owner(factors):
    router = router_for(factors, factor_owners=lambda: {"000001.SZ": "akshare"})
    req = FetchRequest("adj_factors", trade_date=D3, symbols=("000001.SZ",))
    result = router.route(req, FETCHED)
    assert result.vendor == "akshare"
    assert set(result.frame["source"]) == {"akshare"}
    assert outcome_of(result, "tushare")["outcome"] == "NO_DATA"


def test_factor_rows_pass_when_nobody_owns_the_series(factors):
    result = router_for(factors, factor_owners=dict).route(
        FetchRequest("adj_factors", trade_date=D3), FETCHED
    )
    assert sorted(result.frame["symbol"]) == ["000001.SZ", "600519.SH"] and not result.dropped


# ---------------------------------------------------------------- chains and the registry


def test_default_chains_and_overrides(market):
    router = router_for(market, chains={"quotes": ["akshare", "tushare"]})
    assert router.chain_for("news") == DEFAULT_CHAINS["news"] == ("akshare", "tushare")
    assert router.chain_for("valuation") == ("tushare",)
    assert router.route(quotes(), FETCHED).vendor == "akshare"
    assert router.route(quotes(), FETCHED, chain=["tushare"]).vendor == "tushare"
    with pytest.raises(InvalidArgumentsError, match="tushre"):
        router.route(quotes(), FETCHED, chain=["tushre"])
    with pytest.raises(InvalidArgumentsError):
        Router({}, {"quotes": ["bloomberg"]})


def test_vendors_source_sets_the_chain_for_every_dataset():
    router = build_router("vendors:akshare", adapters=ADAPTERS)
    assert set(router.adapters) == {"akshare"}
    assert router.chain_for("quotes") == ("akshare",)
    assert router.chain_for("valuation") == ("akshare",)
    client = router.adapters["akshare"].client
    assert isinstance(client, ResilientClient) and isinstance(client.inner, AkshareClient)


def test_live_source_builds_wrapped_live_clients():
    clients = build_clients(None, env={})
    assert isinstance(clients["tushare"].inner, TushareClient)
    assert isinstance(clients["akshare"].inner, AkshareClient)
    assert parse_source("live").kind == "live"


@pytest.mark.parametrize("bad", ["replay:/no/such/dir", "vendors:wind", "ftp:x", "replay:"])
def test_bad_sources_are_invalid_arguments(bad):
    with pytest.raises(InvalidArgumentsError):
        parse_source(bad)


def test_replay_clients_share_one_source_so_counters_are_per_run(market):
    write_error(market, "tushare", "daily", {"error": "permission_denied", "times": 1})
    router = router_for(market)
    assert router.route(quotes(), FETCHED).vendor == "akshare"
    assert router.route(quotes(), FETCHED).vendor == "tushare"  # the one failure was spent
    assert isinstance(outcome_of(router.route(quotes(), FETCHED), "tushare")["attempts"], int)


def test_no_data_error_type_is_recorded(market):
    result = router_for(market).route(quotes(day=D4), FETCHED, chain=["tushare"])
    assert outcome_of(result, "tushare")["error_type"] == NoMarketDataError.__name__


def test_permission_denial_beside_a_clean_no_data_is_no_data(market):
    # Most tokens lack a paid endpoint: a quiet day must not read as a failure when the
    # other vendor answered cleanly. The denial stays in the trace.
    write_error(market, "tushare", "daily", {"error": "permission_denied"})
    write_error(market, "akshare", "stock_zh_a_hist", {"error": "no_data"})
    write_error(market, "akshare", "stock_zh_a_daily", {"error": "no_data"})
    write_error(market, "akshare", "stock_zh_a_hist_tx", {"error": "no_data"})
    result = router_for(market).route(quotes(), FETCHED)
    assert result.status is LedgerStatus.NO_DATA
    assert outcome_of(result, "tushare")["outcome"] == "PERMISSION_DENIED"


def test_transient_failure_outranks_a_denial(market):
    write_error(market, "tushare", "daily", {"error": "permission_denied"})
    write_error(market, "akshare", "stock_zh_a_hist", {"error": "upstream_error"})
    result = router_for(market).route(quotes(), FETCHED)
    assert result.status is LedgerStatus.UPSTREAM_ERROR  # a transient failure still outranks


# ---------------------------------------------------------------- partial denials


def test_an_endpoint_denied_beside_one_that_served_is_named_in_the_trace():
    from pitlake.errors import VendorPermissionError
    from pitlake.vendors.tushare import PLUGIN as TUSHARE
    from tests.vendors.stub_client import StubClient
    from tests.vendors.tushare.fixtures import news_frame

    denied = VendorPermissionError("抱歉，您没有访问该接口的权限", vendor="tushare")
    stub = StubClient(
        {"news": news_frame([("2025-06-03 10:30:00", "正文", "茅台分红")]), "major_news": denied}
    )
    stub.vendor = "tushare"
    client = ResilientClient(stub, policy=RetryPolicy.no_wait())
    router = Router({"tushare": TUSHARE.adapter(client, news_sources=("sina",))})
    result = router.route(FetchRequest("news", trade_date=D3), FETCHED, chain=["tushare"])
    assert result.status is LedgerStatus.OK
    (step,) = result.trace
    assert step["denied"] == ["major_news"]
    assert "not permitted to this token, skipped: major_news" in step["message"]


def test_a_denial_beside_an_empty_answer_is_no_data_naming_the_denial():
    from pitlake.errors import VendorPermissionError
    from pitlake.vendors.tushare import PLUGIN as TUSHARE
    from tests.vendors.stub_client import StubClient
    from tests.vendors.tushare.fixtures import news_frame

    denied = VendorPermissionError("抱歉，您没有访问该接口的权限", vendor="tushare")
    stub = StubClient({"news": news_frame([]), "major_news": denied})
    stub.vendor = "tushare"
    client = ResilientClient(stub, policy=RetryPolicy.no_wait())
    router = Router({"tushare": TUSHARE.adapter(client, news_sources=("sina",))})
    result = router.route(FetchRequest("news", trade_date=D3), FETCHED, chain=["tushare"])
    assert result.status is LedgerStatus.NO_DATA
    assert result.trace[0]["denied"] == ["major_news"]
