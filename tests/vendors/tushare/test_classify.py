"""Tushare failures → typed errors: its server messages (exact texts), transport and bodies."""

from __future__ import annotations

import json

import pytest
import requests

from pitlake.errors import (
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.tushare.classify import classify_tushare, tushare_message_error

DOC = "权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。"


# ---------------------------------------------------------------- Tushare server messages


@pytest.mark.parametrize(
    ("text", "retry_after"),
    [
        (f"抱歉，您每分钟最多访问该接口500次，{DOC}", 60.0),
        (f"抱歉，您每分钟最多访问该接口1次，{DOC}", 60.0),
        (f"抱歉，您每小时最多访问该接口200次，{DOC}", 3600.0),
        ("抱歉，您访问接口(stock_basic)频率超限", 60.0),
    ],
)
def test_tushare_rate_limit_text_wins_over_the_permission_words_it_contains(text, retry_after):
    assert "权限" in text or "频率超限" in text
    err = classify_tushare(Exception(text), endpoint="daily")
    assert type(err) is VendorRateLimitError
    assert err.retry_after == retry_after
    assert err.retryable is True
    assert (err.vendor, err.endpoint) == ("tushare", "daily")


def test_tushare_daily_quota_is_exhausted_for_the_run():
    err = classify_tushare(Exception(f"抱歉，您每天最多访问该接口2次，{DOC}"))
    assert type(err) is VendorRateLimitError
    assert err.retry_after is None
    assert err.retryable is False


@pytest.mark.parametrize(
    "text",
    [
        f"抱歉，您没有访问该接口的权限，{DOC}",
        f"抱歉，您没有权限访问该接口，{DOC}",  # 2019 variant
        f"抱歉，您没有接口访问权限，{DOC}",  # 2025+
        f"抱歉，您没有接口(shibor)访问权限，{DOC}",
        "您的IP数量超限，最大数量为2个！",
    ],
)
def test_tushare_permission_and_ip_binding(text):
    err = classify_tushare(Exception(text), endpoint="income")
    assert type(err) is VendorPermissionError
    assert err.retryable is False


@pytest.mark.parametrize("text", ["您的token不对，请确认。", "api init error."])
def test_tushare_bad_or_missing_token_is_not_configured(text):
    err = classify_tushare(Exception(text))
    assert type(err) is VendorNotConfiguredError
    assert err.retryable is False


def test_tushare_unknown_api_is_a_non_retryable_programming_error():
    err = classify_tushare(Exception("请指定正确的接口名"))
    assert type(err) is VendorError
    assert err.retryable is False


def test_tushare_server_fault_is_retryable():
    err = tushare_message_error("系统内部错误", endpoint="daily")
    assert type(err) is VendorError
    assert err.retryable is True
    assert "系统内部错误" in str(err)


def test_tushare_transport_and_bad_bodies():
    conn = requests.exceptions.ConnectionError(
        "HTTPConnectionPool(host='api.waditu.com', port=80): Max retries exceeded "
        "(Caused by NameResolutionError(...))"
    )
    err = classify_tushare(conn)
    assert type(err) is VendorError and err.retryable
    timeout = classify_tushare(requests.exceptions.ReadTimeout("read timed out"))
    assert type(timeout) is VendorError and timeout.retryable and "timed out" in str(timeout)
    try:
        json.loads("<html>502</html>")
    except json.JSONDecodeError as exc:
        bad = classify_tushare(exc)
    assert type(bad) is VendorError and bad.retryable and "not JSON" in str(bad)
    schema = classify_tushare(KeyError("data"))
    assert type(schema) is VendorError and schema.retryable is False


def test_rate_quota_reads_the_calls_and_window_a_refusal_names():
    from pitlake.vendors.tushare.classify import rate_quota

    assert rate_quota(
        "抱歉，您每分钟最多访问该接口500次，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。"
    ) == (500, 60.0)
    assert rate_quota("抱歉，您每小时最多访问该接口2次") == (2, 3600.0)
    assert rate_quota("抱歉，您每天最多访问该接口10000次") == (10000, 86400.0)
    assert rate_quota("抱歉，您访问接口(stock_basic)频率超限") is None
    assert rate_quota("") is None
