"""pitlake's live AkShare client with a fake akshare module: no network anywhere."""

from __future__ import annotations

import os
import threading
from datetime import date

import pandas as pd
import pytest
import requests

from pitlake.errors import (
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
)
from pitlake.vendors.akshare.client import AkshareClient
from pitlake.vendors.retry import ResilientClient, RetryPolicy
from tests.vendors.fake_transports import (
    fake_akshare,
)

# ---------------------------------------------------------------- AkShare


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
