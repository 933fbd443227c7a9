"""Vendor failures → typed errors, with the vendors' real exception classes and exact texts."""

from __future__ import annotations

import pandas as pd
import pytest

from pitlake.errors import (
    DataNotReadyError,
    InvalidArgumentsError,
    NoMarketDataError,
    VendorError,
)
from pitlake.vendors.classify import check_reply, classify

DOC = "权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。"


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
