"""Live clients with a fake transport / a fake akshare module: no network anywhere."""

from __future__ import annotations

import json
import logging
import os
import threading
import types
from datetime import date

import pandas as pd
import pytest
import requests

from pitlake.errors import (
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.akshare.client import AkshareClient
from pitlake.vendors.replay.source import ReplaySource
from pitlake.vendors.retry import ResilientClient, RetryPolicy
from pitlake.vendors.tushare.client import TUSHARE_URL, TushareClient

TOKEN = "s3cr3t-token-0123456789abcdef"


class FakeResponse:
    def __init__(
        self,
        status: int = 200,
        body: object = None,
        text: str | None = None,
        headers: dict | None = None,
    ) -> None:
        self.status_code = status
        self.text = text if text is not None else json.dumps(body, ensure_ascii=False)
        self.headers = headers or {}


class FakePost:
    """Stands in for requests.post: records calls, replies from a script."""

    def __init__(self, *replies) -> None:
        self.replies = list(replies)
        self.calls: list[dict] = []

    def __call__(self, url, json=None, timeout=None):
        self.calls.append({"url": url, "json": json, "timeout": timeout})
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply


def ok(fields, items) -> FakeResponse:
    return FakeResponse(body={"code": 0, "msg": "", "data": {"fields": fields, "items": items}})


def server_error(msg: str, code: int = -2001) -> FakeResponse:
    return FakeResponse(body={"code": code, "msg": msg, "data": None})


DAILY = ok(["ts_code", "trade_date", "close", "vol"], [["600519.SH", "20250603", 1437.0, 16988.0]])


# ---------------------------------------------------------------- Tushare


def test_missing_token_is_not_configured_without_any_request():
    post = FakePost()
    client = TushareClient(env={}, post=post)
    with pytest.raises(VendorNotConfiguredError, match="TUSHARE_TOKEN"):
        client.call("daily", trade_date="20250603")
    assert post.calls == []
    with pytest.raises(VendorNotConfiguredError):
        ResilientClient(client, policy=RetryPolicy.no_wait()).call("daily")
    assert post.calls == []


def test_token_from_environment_in_order():
    post = FakePost(DAILY, DAILY)
    TushareClient(env={"TS_TOKEN": "second"}, post=post).call("daily", trade_date="20250603")
    TushareClient(env={"TUSHARE_TOKEN": "first", "TS_TOKEN": "second"}, post=post).call("daily")
    assert [c["json"]["token"] for c in post.calls] == ["second", "first"]


def test_the_endpoint_can_be_moved_by_environment_and_an_argument_wins():
    post = FakePost(DAILY, DAILY, DAILY)
    env = {"TUSHARE_TOKEN": TOKEN, "PITLAKE_TUSHARE_URL": " http://127.0.0.1:9/dataapi/ "}
    TushareClient(env=env, post=post).call("daily")
    TushareClient(env=env, post=post, url="http://mirror.invalid/dataapi").call("daily")
    TushareClient(env={"TUSHARE_TOKEN": TOKEN}, post=post).call("daily")
    assert [c["url"] for c in post.calls] == [
        "http://127.0.0.1:9/dataapi/daily",
        "http://mirror.invalid/dataapi/daily",
        f"{TUSHARE_URL}/daily",
    ]


def test_request_follows_the_dataapi_protocol():
    post = FakePost(DAILY)
    frame = TushareClient(env={"TUSHARE_TOKEN": TOKEN}, post=post, timeout=7).call(
        "daily", ts_code="600519.SH", trade_date="20250603", fields=["ts_code", "close"]
    )
    call = post.calls[0]
    assert call["url"] == f"{TUSHARE_URL}/daily"
    assert call["json"]["api_name"] == "daily"
    assert call["json"]["token"] == TOKEN
    assert call["json"]["fields"] == "ts_code,close"
    assert call["json"]["params"]["ts_code"] == "600519.SH"
    assert call["json"]["params"]["trade_date"] == "20250603"
    assert call["timeout"][1] == 7  # every call has a timeout
    assert list(frame.columns) == ["ts_code", "trade_date", "close", "vol"]
    assert frame["close"].item() == 1437.0


@pytest.mark.parametrize(
    ("reply", "expected", "retryable"),
    [
        (FakeResponse(status=500, text="oops"), VendorError, True),
        (FakeResponse(status=404, text="nope"), VendorError, False),
        (
            FakeResponse(status=429, text="", headers={"Retry-After": "30"}),
            VendorRateLimitError,
            True,
        ),
        (FakeResponse(status=200, text="<html>gateway</html>"), VendorError, True),
        (
            server_error(
                "抱歉，您每分钟最多访问该接口500次，权限的具体详情访问：https://tushare.pro/"
            ),
            VendorRateLimitError,
            True,
        ),
        (
            server_error("抱歉，您没有接口访问权限，权限的具体详情访问：https://tushare.pro/"),
            VendorPermissionError,
            False,
        ),
        (
            requests.exceptions.ConnectionError("Max retries exceeded (NameResolutionError)"),
            VendorError,
            True,
        ),
        (requests.exceptions.ReadTimeout("Read timed out. (read timeout=30)"), VendorError, True),
    ],
)
def test_tushare_failures_are_typed(reply, expected, retryable):
    client = TushareClient(env={"TUSHARE_TOKEN": TOKEN}, post=FakePost(reply))
    with pytest.raises(VendorError) as caught:
        client.call("daily", trade_date="20250603")
    assert type(caught.value) is expected
    assert caught.value.retryable is retryable
    if (
        expected is VendorRateLimitError
        and isinstance(reply, FakeResponse)
        and reply.status_code == 429
    ):
        assert caught.value.retry_after == 30


def test_http_error_is_never_an_empty_frame():
    """The SDK would return pd.DataFrame() here, which reads as "no rows"."""
    client = TushareClient(env={"TUSHARE_TOKEN": TOKEN}, post=FakePost(FakeResponse(502, text="")))
    with pytest.raises(VendorError, match="HTTP 502"):
        client.call("daily", trade_date="20250603")


def _everything_said(exc: BaseException) -> str:
    parts = []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        parts += [str(exc), repr(exc), repr(exc.args), str(getattr(exc, "message", ""))]
        exc = exc.__cause__ or exc.__context__
    return "\n".join(parts)


@pytest.mark.parametrize(
    "reply",
    [
        server_error(f"您的token不对，请确认。token={TOKEN}"),  # a server echoing the token
        requests.exceptions.ConnectionError(f"connection refused for {TOKEN}"),
        FakeResponse(status=503, text=TOKEN),
        FakeResponse(status=200, text=f"not json {TOKEN}"),
    ],
)
def test_the_token_never_shows(reply, caplog):
    caplog.set_level(logging.DEBUG)
    client = TushareClient(env={"TUSHARE_TOKEN": TOKEN}, post=FakePost(reply))
    assert TOKEN not in repr(client)
    with pytest.raises(VendorError) as caught:
        client.call("daily", trade_date="20250603")
    assert TOKEN not in _everything_said(caught.value)
    assert TOKEN not in caplog.text


def test_the_token_never_shows_through_the_resilient_wrapper(caplog):
    caplog.set_level(logging.DEBUG)
    replies = [server_error(f"系统内部错误 {TOKEN}")] * 3
    client = ResilientClient(
        TushareClient(env={"TUSHARE_TOKEN": TOKEN}, post=FakePost(*replies)),
        policy=RetryPolicy.no_wait(),
    )
    with pytest.raises(VendorError) as caught:
        client.call("daily")
    assert TOKEN not in _everything_said(caught.value)
    assert TOKEN not in caplog.text and TOKEN not in repr(client)


# ---------------------------------------------------------------- AkShare


def fake_akshare(**functions) -> types.SimpleNamespace:
    return types.SimpleNamespace(**functions)


def test_akshare_calls_the_function_by_name_with_params():
    seen = []

    def stock_zh_a_daily(symbol, start_date="19900101", end_date="21000118", adjust=""):
        seen.append((symbol, start_date, end_date, adjust))
        return pd.DataFrame({"date": [date(2025, 6, 3)], "close": [1437.0]})

    client = AkshareClient(module=fake_akshare(stock_zh_a_daily=stock_zh_a_daily))
    client.call("stock_zh_a_daily", symbol="sh600519", start_date="20250603", end_date="20250603")
    client.call("stock_zh_a_daily", symbol="sh600519", adjust="hfq-factor")  # same function
    assert seen == [
        ("sh600519", "20250603", "20250603", ""),
        ("sh600519", "19900101", "21000118", "hfq-factor"),
    ]


def test_akshare_timeout_is_passed_down_where_supported():
    got = {}

    def stock_zh_a_hist(
        symbol, period="daily", start_date="", end_date="", adjust="", timeout=None
    ):
        got["timeout"] = timeout
        return pd.DataFrame({"日期": [date(2025, 6, 3)]})

    AkshareClient(module=fake_akshare(stock_zh_a_hist=stock_zh_a_hist), timeout=12).call(
        "stock_zh_a_hist", symbol="600519"
    )
    assert got["timeout"] == 12


def test_akshare_hanging_call_times_out():
    release = threading.Event()

    def stock_news_em(symbol):
        release.wait(5)  # a hung connection; released below so the thread ends
        return pd.DataFrame()

    client = AkshareClient(module=fake_akshare(stock_news_em=stock_news_em), timeout=0.01)
    try:
        with pytest.raises(VendorError, match="timed out") as caught:
            client.call("stock_news_em", symbol="600519")
        assert caught.value.retryable
    finally:
        release.set()


def test_akshare_exceptions_are_classified():
    def stock_lhb_detail_em(start_date, end_date):
        payload = {"result": None, "message": "返回数据为空", "code": 9201}
        return payload["result"]["data"]  # what AkShare does with East Money's empty reply

    def stock_zh_a_hist(**_):
        raise requests.exceptions.ConnectionError("('Connection aborted.', RemoteDisconnected())")

    client = AkshareClient(
        module=fake_akshare(
            stock_lhb_detail_em=stock_lhb_detail_em, stock_zh_a_hist=stock_zh_a_hist
        )
    )
    with pytest.raises(NoMarketDataError) as none:
        client.call("stock_lhb_detail_em", start_date="20250618", end_date="20250618")
    assert isinstance(none.value.__cause__, TypeError)
    with pytest.raises(VendorError) as transport:
        client.call("stock_zh_a_hist", symbol="600519")
    assert transport.value.retryable


def test_akshare_missing_library_or_function_is_not_configured(monkeypatch):
    import importlib

    def no_akshare(name, *a, **kw):
        raise ModuleNotFoundError(f"No module named {name!r}")

    monkeypatch.setattr(importlib, "import_module", no_akshare)
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    with pytest.raises(VendorNotConfiguredError, match="not installed"):
        AkshareClient().call("stock_zh_a_hist", symbol="600519")
    assert os.environ.get("TQDM_DISABLE") == "1"
    monkeypatch.undo()
    with pytest.raises(VendorNotConfiguredError, match="no such function"):
        AkshareClient(module=fake_akshare()).call("stock_zh_a_hist_v9", symbol="600519")


def test_akshare_column_less_reply_becomes_no_data_in_the_wrapper():
    client = ResilientClient(
        AkshareClient(module=fake_akshare(stock_zh_a_hist=lambda **_: pd.DataFrame())),
        policy=RetryPolicy.no_wait(),
    )
    with pytest.raises(NoMarketDataError):
        client.call("stock_zh_a_hist", symbol="sh600519")


# ---------------------------------------------------------------- recording → replay


def test_recorded_answers_replay_identically(tmp_path):
    bars = pd.DataFrame(
        {
            "date": [date(2025, 6, 3), date(2025, 6, 4)],
            "open": [1.0, 2.0],
            "close": [1.5, 2.5],
            "volume": [100.0, 200.0],
        }
    )
    factors = pd.DataFrame(
        {
            "date": pd.to_datetime(["2025-06-26", "1900-01-01"]),
            "hfq_factor": ["1.0873569306774424", "1.0"],
        }
    )

    def stock_zh_a_daily(symbol, start_date="", end_date="", adjust=""):
        return factors.copy() if adjust == "hfq-factor" else bars.copy()

    live = AkshareClient(
        module=fake_akshare(stock_zh_a_daily=stock_zh_a_daily), record_dir=tmp_path
    )
    live.call("stock_zh_a_daily", symbol="sh600519", start_date="20250603", end_date="20250604")
    live.call("stock_zh_a_daily", symbol="sh600519", adjust="hfq-factor")
    post = FakePost(DAILY)
    TushareClient(env={"TUSHARE_TOKEN": TOKEN}, post=post, record_dir=tmp_path).call(
        "daily", trade_date="20250603"
    )

    recorded = (tmp_path / "akshare" / "stock_zh_a_daily.jsonl").read_text().splitlines()
    assert json.loads(recorded[0])["_symbol"] == "sh600519"  # Sina bars carry no symbol
    assert (tmp_path / "akshare" / "stock_zh_a_daily@hfq-factor.jsonl").exists()
    assert TOKEN not in (tmp_path / "tushare" / "daily.jsonl").read_text()

    replay = ReplaySource(tmp_path)
    again = replay.client("akshare").call(
        "stock_zh_a_daily", symbol="sh600519", start_date="20250603", end_date="20250604"
    )
    pd.testing.assert_frame_equal(again, bars)
    again_f = replay.client("akshare").call(
        "stock_zh_a_daily", symbol="sh600519", adjust="hfq-factor"
    )
    pd.testing.assert_frame_equal(again_f, factors, check_dtype=False)
    assert list(again_f["hfq_factor"]) == ["1.0873569306774424", "1.0"]
    ts = replay.client("tushare").call("daily", trade_date="20250603")
    assert ts.to_dict("records") == [
        {"ts_code": "600519.SH", "trade_date": "20250603", "close": 1437.0, "vol": 16988.0}
    ]
