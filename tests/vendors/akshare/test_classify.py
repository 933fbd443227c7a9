"""AkShare failures → typed errors, with the library's real exception classes and texts."""

from __future__ import annotations

import json
from http.client import RemoteDisconnected

import pandas as pd
import pytest
import requests

from pitlake.errors import (
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
    VendorRateLimitError,
)
from pitlake.vendors.akshare.classify import classify_akshare

DOC = "权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。"


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
