"""pitlake's live Tushare client against the simulated vendor served on loopback HTTP.

The real `TushareClient` (JSON envelope, HTTP statuses, sockets) behind pitlake's
`ResilientClient` and the Tushare fetchers, talking to `benchmarks.simvendor.http` on 127.0.0.1.
"""

from __future__ import annotations

import json
import logging
import traceback
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd
import pytest
import requests

from benchmarks.simvendor import SimClient, SimConfig, SimMarket, sim_router
from benchmarks.simvendor.client import OK, RATE_LIMITED, TRANSPORT, key_of
from benchmarks.simvendor.http import (
    client_from_args,
    json_scalar,
    parse_args,
    running_server,
    serve_http,
    success_body,
)
from pitlake.calendar import BEIJING
from pitlake.errors import (
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
    VendorRateLimitError,
)
from pitlake.statuses import LedgerStatus
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.ratelimit import RateLimiter
from pitlake.vendors.retry import ResilientClient, RetryPolicy
from pitlake.vendors.tushare.client import TushareClient

TOKEN = "test-token"
DAY = date(2024, 6, 12)
MARKET = SimMarket(n_symbols=30)
FETCHED_AT = datetime(2024, 6, 12, 20, 0, tzinfo=BEIJING)


class FakeClock:
    """One clock for the vendor's quota window and the client's retry waits."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.now += s


class Scripted:
    """A SimClient whose next calls fail as scripted (the same failures SimClient injects)."""

    def __init__(self, sim: SimClient, faults: list[str]) -> None:
        self.sim = sim
        self.faults = list(faults)

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        fault = self.faults.pop(0) if self.faults else OK
        if fault == TRANSPORT:
            raise requests.exceptions.ConnectionError("('Connection aborted.', ...)")
        if fault == "columnless":
            return pd.DataFrame()
        return self.sim.call(endpoint, **params)


def resilient(url: str, token: str | None = TOKEN, policy: RetryPolicy | None = None) -> Any:
    live = TushareClient(token=token, url=url, timeout=5.0, env={})
    return ResilientClient(live, RateLimiter.unlimited(), policy or RetryPolicy.no_wait())


# ---------------------------------------------------------------- (a) same rows as in-process


@pytest.mark.parametrize("dataset", ["quotes", "adj_factors", "valuation"])
def test_whole_market_by_date_over_http_gives_the_in_process_rows(dataset: str) -> None:
    req = FetchRequest(dataset, trade_date=DAY)
    local = sim_router(SimClient(MARKET), policy=RetryPolicy.no_wait())
    expected = local.route(req, FETCHED_AT)
    served = SimClient(MARKET)
    with running_server(served, tokens={TOKEN}) as srv:
        live = TushareClient(token=TOKEN, url=srv.url, timeout=5.0, env={})
        got = sim_router(live, policy=RetryPolicy.no_wait()).route(req, FETCHED_AT)
    assert got.ok, got.message
    assert len(got.frame) == MARKET.listed_mask(DAY).sum() > 0
    pd.testing.assert_frame_equal(got.frame, expected.frame)
    assert served.log.counts() == {got.raws[0].query.endpoint: 1}  # one whole-market call
    assert srv.replies == {"ok": 1}


def test_statements_honour_the_requested_fields_and_match_in_process() -> None:
    symbol = MARKET.symbols[5]
    fields = "ts_code,ann_date,f_ann_date,end_date,report_type,update_flag,revenue"
    with serve_http(SimClient(MARKET), tokens={TOKEN}) as url:
        live = TushareClient(token=TOKEN, url=url, timeout=5.0, env={})
        frame = live.call("income", ts_code=symbol, fields=fields)
        narrow = live.call("daily", trade_date="20240612", fields="close,ts_code,no_such_field")
    expected = SimClient(MARKET).call("income", ts_code=symbol, fields=fields)
    assert list(frame.columns) == fields.split(",")
    assert len(frame) == len(expected) > 0
    assert frame["ann_date"].tolist() == expected["ann_date"].tolist()
    assert list(narrow.columns) == ["close", "ts_code"]  # asked order; unknown names left out


def test_replies_are_tushare_json_with_null_for_nan_and_yyyymmdd_dates() -> None:
    frame = pd.DataFrame(
        {"ts_code": ["600000.SH"], "pe": [float("nan")], "d": [date(2024, 6, 12)], "n": [3]}
    )
    body = json.loads(json.dumps(success_body(frame, ["ts_code", "pe", "d", "n"]), allow_nan=False))
    assert body["code"] == 0 and body["msg"] == ""
    assert body["data"]["fields"] == ["ts_code", "pe", "d", "n"]
    assert body["data"]["items"] == [["600000.SH", None, "20240612", 3]]
    assert json_scalar(pd.NA) is None and json_scalar(pd.Timestamp("2024-06-12")) == "20240612"


def test_replies_built_a_column_at_a_time_hold_what_each_cell_would_be() -> None:
    """Every dtype the simulator's frames hold (and the awkward ones): the column-wise body
    sends what `json_scalar` makes of each cell, with the same Python types."""
    frame = pd.DataFrame(
        {
            "s": ["600000.SH", "000001.SZ", "830799.BJ"],
            "f": [1.25, float("nan"), -0.1],
            "i": np.array([1, 2, 3], dtype=np.int64),
            "u": np.array([1, 2, 3], dtype=np.uint32),
            "b": [True, False, True],
            "mixed": ["a", None, 1.5],
            "d": [date(2024, 6, 12), None, date(2024, 6, 14)],
            "ts": pd.to_datetime(["2024-06-12", None, "2024-06-14"]),
            "nullable": pd.array([1, None, 3], dtype="Int64"),
        }
    )
    cells = [[json_scalar(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    items = success_body(frame, [])["data"]["items"]
    assert items == cells
    assert [[type(v) for v in row] for row in items] == [[type(v) for v in row] for row in cells]
    assert success_body(MARKET.daily_basic(date(2024, 6, 12)), [])["data"]["items"] == [
        [json_scalar(v) for v in row]
        for row in MARKET.daily_basic(date(2024, 6, 12)).itertuples(index=False, name=None)
    ]


# ---------------------------------------------------------------- (b) rate limit


def test_rate_limit_reply_is_classified_and_retried_after_the_window() -> None:
    clock = FakeClock()
    sim = SimClient(MARKET, SimConfig(quota={"daily": 1}), clock=clock, sleep=clock.sleep)
    policy = RetryPolicy(sleep=clock.sleep, clock=clock)
    with running_server(sim, tokens={TOKEN}) as srv:
        client = resilient(srv.url, policy=policy)
        assert len(client.call("daily", trade_date="20240612")) > 0
        with pytest.raises(VendorRateLimitError) as info:  # the live client alone: typed
            client.inner.call("daily", trade_date="20240612")
        assert "每分钟最多访问该接口1次" in str(info.value)
        assert info.value.retry_after == 60.0 and info.value.retryable
        frame = client.call("daily", trade_date="20240612")  # waits the window out, then served
    assert len(frame) == MARKET.listed_mask(DAY).sum()
    assert clock.slept == [60.0]
    key = key_of("daily", {"trade_date": "20240612"})
    assert sim.log.attempts[key] == [OK, RATE_LIMITED, RATE_LIMITED, OK]
    assert srv.replies == {"ok": 2, "rate_limit": 2}


def test_a_quota_that_never_frees_ends_rate_limited_within_the_retry_budget() -> None:
    clock = FakeClock()  # never advanced by the no-wait policy: the window stays full
    sim = SimClient(MARKET, SimConfig(quota={"daily": 1}), clock=clock, sleep=clock.sleep)
    with running_server(sim, tokens={TOKEN}) as srv:
        client = resilient(srv.url)
        client.call("daily", trade_date="20240612")
        with pytest.raises(VendorRateLimitError):
            client.call("daily", trade_date="20240612")
    # Retried while the 60-s waits fit the call's 150-s budget: 3 attempts, then given up.
    policy = RetryPolicy()
    assert policy.max_total_wait // 60 + 1 == 3 < policy.rate_limit_attempts
    assert srv.replies == {"ok": 1, "rate_limit": 3}


# ---------------------------------------------------------------- (c) transport failures


@pytest.mark.parametrize(
    ("transport", "fault", "reply", "text"),
    [
        ("drop", TRANSPORT, "transport_drop", "Connection aborted"),
        ("503", TRANSPORT, "transport_503", "HTTP 503"),
        ("drop", "columnless", "http_502", "HTTP 502"),
    ],
)
def test_transport_failures_are_retryable_errors_then_retried(
    transport: str, fault: str, reply: str, text: str
) -> None:
    sim = SimClient(MARKET)
    with running_server(Scripted(sim, [fault, fault]), tokens={TOKEN}, transport=transport) as srv:
        client = resilient(srv.url)
        with pytest.raises(VendorError) as info:  # the live client alone: typed, retryable
            client.inner.call("daily", trade_date="20240612")
        frame = client.call("daily", trade_date="20240612")  # fails once more, then served
    err = info.value
    assert type(err) is VendorError and err.retryable and text in str(err)
    assert len(frame) == MARKET.listed_mask(DAY).sum()
    assert srv.replies == {reply: 2, "ok": 1}
    assert client.attempts == 2


@pytest.mark.parametrize("transport", ["drop", "503"])
def test_persistent_failures_raise_after_the_retries_never_an_empty_frame(transport: str) -> None:
    sim = SimClient(MARKET, SimConfig(failure_rate=1.0))  # transport and column-less, mixed
    with running_server(sim, tokens={TOKEN}, transport=transport) as srv:
        client = resilient(srv.url)
        with pytest.raises(VendorError) as info:
            client.call("daily", trade_date="20240612")
        routed = sim_router(client.inner, policy=RetryPolicy.no_wait()).route(
            FetchRequest("quotes", trade_date=DAY), FETCHED_AT
        )
    assert not isinstance(info.value, NoMarketDataError) and info.value.retryable
    key = key_of("daily", {"trade_date": "20240612"})
    assert len(sim.log.attempts[key]) == 6  # 3 attempts per call, two calls
    assert set(srv.replies) <= {f"transport_{transport}", "http_502"}
    assert sum(srv.replies.values()) == 6
    assert not routed.ok and routed.frame.empty
    assert routed.status is LedgerStatus.UPSTREAM_ERROR


# ---------------------------------------------------------------- (d) bad token


def test_a_rejected_token_is_not_configured_and_not_retried() -> None:
    with running_server(SimClient(MARKET), tokens={TOKEN}) as srv:
        client = resilient(srv.url, token="wrong-token")
        with pytest.raises(VendorNotConfiguredError) as info:
            client.call("daily", trade_date="20240612")
        routed = sim_router(client.inner, policy=RetryPolicy.no_wait()).route(
            FetchRequest("quotes", trade_date=DAY), FETCHED_AT
        )
    assert "token不对" in str(info.value) and not info.value.retryable
    assert srv.replies == {"token_error": 2}  # one request per call: no retry
    assert routed.status is LedgerStatus.NOT_CONFIGURED


def test_a_missing_token_never_reaches_the_wire() -> None:
    with running_server(SimClient(MARKET), tokens={TOKEN}) as srv:
        with pytest.raises(VendorNotConfiguredError):
            resilient(srv.url, token=None).call("daily", trade_date="20240612")
    assert srv.replies == {}


# ---------------------------------------------------------------- (e) the token stays secret


def _texts(err: BaseException) -> list[str]:
    out, seen = [], set()
    e: BaseException | None = err
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        out += [str(e), repr(e), repr(e.args), getattr(e, "message", "")]
        e = e.__cause__ or e.__context__
    out.append("".join(traceback.format_exception(err)))
    return out


def test_the_token_never_shows_in_errors_reprs_or_logs(caplog: pytest.LogCaptureFixture) -> None:
    secret, wrong = "tok-5f1e9c-SECRET", "tok-77aa01-WRONG"
    caplog.set_level(logging.DEBUG)
    clock = FakeClock()
    sim = SimClient(MARKET, SimConfig(quota={"adj_factor": 1}), clock=clock, sleep=clock.sleep)
    backend = Scripted(sim, [TRANSPORT, "columnless"])
    errors: list[BaseException] = []
    with running_server(backend, tokens={secret}) as srv:
        client = resilient(srv.url, token=secret, policy=RetryPolicy.no_wait(max_attempts=1))
        bad = resilient(srv.url, token=wrong)
        calls = [
            (client, "daily", {"trade_date": "20240612"}),  # dropped connection
            (client, "daily", {"trade_date": "20240612"}),  # 502
            (client, "adj_factor", {"trade_date": "20240612"}),  # served, quota now spent
            (client, "adj_factor", {"trade_date": "20240612"}),  # rate limited
            (client, "no_such_api", {}),  # unknown API
            (bad, "daily", {"trade_date": "20240612"}),  # token rejected
        ]
        for c, endpoint, params in calls:
            try:
                c.call(endpoint, **params)
            except Exception as exc:
                errors.append(exc)
    assert [type(e).__name__ for e in errors] == [
        "VendorError",
        "VendorError",
        "VendorRateLimitError",
        "VendorError",
        "VendorNotConfiguredError",
    ]
    texts = [t for e in errors for t in _texts(e)]
    texts += [repr(client), repr(client.inner), repr(bad.inner)]
    texts += [r.getMessage() for r in caplog.records]
    assert caplog.records  # the client and urllib3 did log
    for text in texts:
        assert secret not in text and wrong not in text


# ---------------------------------------------------------------- the service itself


def test_unknown_paths_and_non_json_bodies_get_http_errors() -> None:
    with running_server(SimClient(MARKET), tokens={TOKEN}) as srv:
        base = srv.url
        not_found = requests.post(base.rsplit("/", 1)[0] + "/elsewhere/daily", json={}, timeout=5)
        not_json = requests.post(base + "/daily", data=b"{nope", timeout=5)
    assert (not_found.status_code, not_json.status_code) == (404, 400)
    assert srv.replies == {"http_404": 1, "http_400": 1}


def test_a_client_gone_mid_reply_is_counted_not_printed(capsys: pytest.CaptureFixture) -> None:
    with running_server(SimClient(MARKET), tokens={TOKEN}) as srv:
        for gone in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset")):
            try:
                raise gone
            except OSError:  # as socketserver calls it: inside the handler's except
                srv.handle_error(None, ("127.0.0.1", 1))
        try:
            raise RuntimeError("a simulator bug")
        except RuntimeError:
            srv.handle_error(None, ("127.0.0.1", 1))
    assert srv.replies == {"client_gone": 2}
    err = capsys.readouterr().err
    assert "a simulator bug" in err and "Broken pipe" not in err and "reset" not in err


def test_serve_http_stops_listening_on_exit() -> None:
    with serve_http(SimClient(MARKET)) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/dataapi")
        assert TushareClient(token="any", url=url, env={}).call("trade_cal", **_cal()).shape[0]
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.post(url + "/trade_cal", json={}, timeout=2)


def _cal() -> dict[str, str]:
    return {"exchange": "SSE", "start_date": "20240601", "end_date": "20240630"}


def test_command_line_builds_the_simulator_it_describes() -> None:
    argv = "--port 0 --symbols 30 --latency 0.15 --quota daily=500 --quota income=200"
    argv += " --failure-rate 0.02 --token t1 --today 20240612"
    args = parse_args(argv.split())
    sim = client_from_args(args)
    assert sim.market.n_symbols == 30
    assert sim.config.quota == {"daily": 500, "income": 200}
    assert (sim.config.latency, sim.config.failure_rate) == (0.15, 0.02)
    assert sim.config.today == DAY and args.token == ["t1"] and args.transport == "drop"
