"""pitlake's live Tushare client with a fake transport: no network anywhere."""

from __future__ import annotations

import logging

import pytest
import requests

from pitlake.errors import (
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.retry import ResilientClient, RetryPolicy
from pitlake.vendors.tushare.client import TUSHARE_URL, TushareClient
from tests.vendors.fake_transports import (
    DAILY,
    TOKEN,
    FakePost,
    FakeResponse,
    server_error,
)

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
