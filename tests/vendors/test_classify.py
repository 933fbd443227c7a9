"""Vendor failures → typed errors, with the vendors' real exception classes and exact texts."""

from __future__ import annotations

import json
from http.client import RemoteDisconnected

import pandas as pd
import pytest
import requests

from pitlake.errors import (
    DataNotReadyError,
    InvalidArgumentsError,
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.akshare.classify import classify_akshare
from pitlake.vendors.classify import check_reply, classify
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


# ---------------------------------------------------------------- AkShare


def test_akshare_east_money_disconnect_and_proxy_are_retryable_transport_errors():
    exc = requests.exceptions.ConnectionError(
        ("Connection aborted.", RemoteDisconnected("Remote end closed connection without response"))
    )
    err = classify_akshare(exc, endpoint="stock_zh_a_hist")
    assert type(err) is VendorError and err.retryable
    assert "Connection aborted" in str(err)
    proxy = classify_akshare(requests.exceptions.ProxyError("Unable to connect to proxy"))
    assert type(proxy) is VendorError and proxy.retryable


def test_akshare_curl_cffi_errors_are_transport_errors_though_not_requests_subclasses():
    from curl_cffi.requests.exceptions import DNSError, Timeout

    exc = DNSError("Failed to resolve host: search-api-web.eastmoney.com", 6)
    assert not isinstance(exc, requests.RequestException)
    assert isinstance(exc, OSError)
    err = classify_akshare(exc, endpoint="stock_news_em")
    assert type(err) is VendorError and err.retryable
    late = classify_akshare(Timeout("Operation timed out", 28))
    assert type(late) is VendorError and late.retryable and "timed out" in str(late)


def test_akshare_non_json_bodies_are_retryable():
    requests_json = requests.exceptions.JSONDecodeError("Expecting value", "<html>", 0)
    assert isinstance(requests_json, ValueError)
    err = classify_akshare(requests_json)
    assert type(err) is VendorError and err.retryable
    try:
        json.loads("<html>")
    except json.JSONDecodeError as exc:
        std = classify_akshare(exc)
    assert type(std) is VendorError and std.retryable


@pytest.fixture(scope="module")
def akshare_errors():
    """The real akshare classes (importing them imports akshare: about a second)."""
    from akshare import exceptions
    from akshare.utils import demjson

    return exceptions, demjson


def test_akshare_sina_html_reply_via_demjson(akshare_errors):
    _, demjson = akshare_errors
    exc = demjson.JSONDecodeError("Can not decode value starting with character '<'")
    err = classify_akshare(exc, endpoint="stock_zh_a_daily")
    assert type(err) is VendorError and err.retryable


def test_akshare_own_exception_types(akshare_errors):
    exceptions, _ = akshare_errors
    limited = classify_akshare(exceptions.RateLimitError("Rate limit exceeded. Status code: 429"))
    assert type(limited) is VendorRateLimitError and limited.retry_after is None
    assert limited.retryable
    network = classify_akshare(exceptions.NetworkError("Failed to connect after 3 attempts"))
    assert type(network) is VendorError and network.retryable
    parsing = classify_akshare(exceptions.DataParsingError("Failed to parse JSON response"))
    assert type(parsing) is VendorError and parsing.retryable is False
    api_5xx = classify_akshare(exceptions.APIError("API request failed", status_code=503))
    assert type(api_5xx) is VendorError and api_5xx.retryable
    api_404 = classify_akshare(exceptions.APIError("API request failed", status_code=404))
    assert type(api_404) is VendorError and api_404.retryable is False


def test_akshare_no_data_shapes():
    sina = classify_akshare(
        ValueError("sina hfq factor not available"), endpoint="stock_zh_a_daily"
    )
    assert type(sina) is NoMarketDataError
    try:
        payload = {"result": None, "success": False, "message": "返回数据为空", "code": 9201}
        payload["result"]["data"]  # what AkShare does with East Money's empty datacenter reply
    except TypeError as exc:
        em = classify_akshare(exc, endpoint="stock_lhb_detail_em")
    assert type(em) is NoMarketDataError
    assert em.status.value == "NO_DATA"


def test_akshare_schema_drift_and_pandas3_breakage_are_not_retried():
    length = classify_akshare(
        ValueError("Length mismatch: Expected axis has 5 elements, new values have 6 elements")
    )
    assert type(length) is VendorError and length.retryable is False
    missing = classify_akshare(KeyError("klines"))
    assert type(missing) is VendorError and missing.retryable is False
    frame = pd.DataFrame({"a": [1.0, None]})
    try:
        frame.fillna(method="ffill")  # removed in pandas 3
    except TypeError as exc:
        removed = classify_akshare(exc)
    assert type(removed) is VendorError and removed.retryable is False
    try:
        frame.applymap(str)  # removed in pandas 3
    except AttributeError as exc:
        gone = classify_akshare(exc)
    assert type(gone) is VendorError and gone.retryable is False


def test_missing_library_is_not_configured():
    err = classify_akshare(ModuleNotFoundError("No module named 'akshare'"))
    assert type(err) is VendorNotConfiguredError


# ---------------------------------------------------------------- dispatch and replies


def test_typed_errors_pass_through_and_gain_their_origin():
    original = DataNotReadyError("not yet")
    again = classify("akshare", original, endpoint="stock_zh_a_hist")
    assert again is original
    assert (again.vendor, again.endpoint) == ("akshare", "stock_zh_a_hist")
    bad = InvalidArgumentsError("bad symbol")
    assert classify("tushare", bad) is bad


def test_unknown_vendor_still_gets_a_typed_error():
    err = classify("other", RuntimeError("boom"), endpoint="x")
    assert type(err) is VendorError and err.vendor == "other" and err.retryable is False


def test_check_reply_turns_non_data_answers_into_errors():
    with pytest.raises(NoMarketDataError):
        check_reply("akshare", "stock_zh_a_hist", pd.DataFrame())
    with pytest.raises(VendorError) as broken:
        check_reply("tushare", "daily", pd.DataFrame())
    assert type(broken.value) is VendorError
    with pytest.raises(VendorError, match="got None"):
        check_reply("akshare", "news_cctv", None)
    empty_with_columns = pd.DataFrame(columns=["ts_code", "trade_date"])
    assert check_reply("tushare", "daily", empty_with_columns) is empty_with_columns


def test_rate_quota_reads_the_calls_and_window_a_refusal_names():
    from pitlake.vendors.tushare.classify import rate_quota

    assert rate_quota(
        "抱歉，您每分钟最多访问该接口500次，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。"
    ) == (500, 60.0)
    assert rate_quota("抱歉，您每小时最多访问该接口2次") == (2, 3600.0)
    assert rate_quota("抱歉，您每天最多访问该接口10000次") == (10000, 86400.0)
    assert rate_quota("抱歉，您访问接口(stock_basic)频率超限") is None
    assert rate_quota("") is None
