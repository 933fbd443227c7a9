"""Baostock at the socket: the real installed library parses the bytes a local server sends
(tests/vendors/wire/baostock_wire.py), under pitlake's live client. Each kind of answer becomes
data or the right typed error, never an empty frame passed off as data."""

from __future__ import annotations

import contextlib
import io
from datetime import date
from unittest import mock

import pytest

from pitlake.errors import (
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.baostock.classify import BaostockReplyError, classify_baostock
from pitlake.vendors.baostock.client import BaostockClient, _drop_session
from pitlake.vendors.baostock.fields import K_FIELDS
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.canary import is_transport
from pitlake.vendors.plugins import plugin
from tests.vendors.baostock.recorded import D3, D4, FETCHED_AT, client
from tests.vendors.wire.baostock_wire import replies, reply, server

K_PARAMS = {
    "code": "sh.600519",
    "fields": ",".join(K_FIELDS),
    "start_date": "2025-06-03",
    "end_date": "2025-06-04",
    "frequency": "d",
    "adjustflag": "3",
}


@pytest.fixture
def bs():
    """The local server, fresh replies each test; the process's login kept across tests."""
    srv = server()
    yield srv
    srv.serve([])


def fetch(dataset: str, symbols=("600519.SH",), **kw):
    req = FetchRequest(dataset, start=kw.pop("start", D3), end=kw.pop("end", D4), symbols=symbols)
    return plugin("baostock").adapter(client()).fetch(req, FETCHED_AT)


def test_bars_are_parsed_by_the_library_from_compressed_pages(bs):
    bs.serve(replies("query_history_k_data_plus.normal"))
    frame = client().call("query_history_k_data_plus", **K_PARAMS)
    assert list(frame.columns) == list(K_FIELDS)
    assert frame["close"].tolist() == ["1567.0000", "1552.1800"]  # text, as the library gives
    sent = bs.queries("query_history_k_data_plus")[0]
    assert sent.msg_type == "95" and sent.crc_ok  # the library's own message, checksum and all
    assert sent.params["adjustflag"] == "3" and sent.params["code"] == "sh.600519"


def test_login_happens_once_per_process(bs):
    _drop_session()
    bs.serve(replies("query_history_k_data_plus.normal", "query_adjust_factor.normal"))
    c = client()
    c.call("query_history_k_data_plus", **K_PARAMS)
    client().call(
        "query_adjust_factor", code="sh.600519", start_date="1990-12-19", end_date="2025-06-04"
    )
    c.call("query_history_k_data_plus", **K_PARAMS)
    assert [r.method for r in bs.requests].count("login") == 1


def test_an_empty_answer_is_no_data_never_an_empty_frame(bs):
    bs.serve(replies("query_history_k_data_plus.empty"))
    frame = client().call("query_history_k_data_plus", **K_PARAMS)
    assert frame.empty and list(frame.columns) == list(K_FIELDS)  # the answer as it came
    with pytest.raises(NoMarketDataError):
        fetch("quotes")


def test_a_no_data_code_is_no_data(bs):
    bs.serve(replies("query_history_k_data_plus.no_data"))
    with pytest.raises(NoMarketDataError, match="无效的证券代码"):
        client().call("query_history_k_data_plus", **K_PARAMS)
    with pytest.raises(NoMarketDataError):
        fetch("quotes")


def test_not_logged_in_logs_in_again_once(bs):
    bs.serve(replies("query_history_k_data_plus.not_logged_in", "query_history_k_data_plus.normal"))
    frame = client().call("query_history_k_data_plus", **K_PARAMS)
    assert len(frame) == 2
    methods = [r.method for r in bs.requests]
    assert methods[-3:] == ["query_history_k_data_plus", "login", "query_history_k_data_plus"]


def test_not_logged_in_after_a_fresh_login_is_a_retryable_failure(bs):
    bs.serve(
        [reply(method="query_history_k_data_plus", error_code="10001001", error_msg="用户未登陆")]
    )
    with pytest.raises(VendorError) as info:
        client().call("query_history_k_data_plus", **K_PARAMS)
    assert type(info.value) is VendorError and info.value.retryable
    assert "用户未登陆" in str(info.value)


def test_a_refused_login_is_not_configured(bs):
    _drop_session()
    bs.serve(replies("login.refused"))
    with pytest.raises(VendorNotConfiguredError, match="客户端版本号过期"):
        client().call("query_history_k_data_plus", **K_PARAMS)
    bs.serve([])
    _drop_session()


def test_pages_are_read_to_the_end(bs):
    """More rows than a page: the library asks for page 2 itself (2 rows a page here)."""
    rows = reply(method="query_adjust_factor", fields="code,dividOperateDate,backAdjustFactor")
    page1 = reply(
        **{
            **rows.__dict__,
            "page": 1,
            "record": [["sh.600519", "2023-06-30", "8.0"], ["sh.600519", "2023-12-20", "8.1"]],
        }
    )
    page2 = reply(**{**rows.__dict__, "page": 2, "record": [["sh.600519", "2024-06-19", "8.3"]]})
    bs.serve([page1, page2])
    with mock.patch("baostock.common.contants.BAOSTOCK_PER_PAGE_COUNT", 2):
        frame = client().call(
            "query_adjust_factor", code="sh.600519", start_date="1990-12-19", end_date="2025-06-04"
        )
    assert frame["dividOperateDate"].tolist() == ["2023-06-30", "2023-12-20", "2024-06-19"]
    assert [r.params["page"] for r in bs.queries("query_adjust_factor")] == ["1", "2"]


def test_a_page_that_never_comes_is_a_failure_not_a_short_frame(bs):
    page1 = reply(
        method="query_adjust_factor",
        fields="code,dividOperateDate,backAdjustFactor",
        page=1,
        record=[["sh.600519", "2023-06-30", "8.0"], ["sh.600519", "2023-12-20", "8.1"]],
    )
    bs.serve([page1, reply(method="query_adjust_factor", page=2, close=True)])
    with mock.patch("baostock.common.contants.BAOSTOCK_PER_PAGE_COUNT", 2):
        with pytest.raises(VendorError) as info:
            client().call(
                "query_adjust_factor",
                code="sh.600519",
                start_date="1990-12-19",
                end_date="2025-06-04",
            )
    assert info.value.retryable and "cut after 2 rows" in str(info.value)
    bs.serve(replies("query_adjust_factor.normal"))  # the next call logs in afresh and serves
    assert (
        len(
            client().call(
                "query_adjust_factor",
                code="sh.600519",
                start_date="1990-12-19",
                end_date="2025-06-04",
            )
        )
        == 4
    )


def test_the_library_prints_nothing_to_stdout(bs):
    """stdout is the MCP server's channel: "login success!" must not reach it."""
    _drop_session()
    bs.serve(replies("query_history_k_data_plus.normal"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        client().call("query_history_k_data_plus", **K_PARAMS)
    assert out.getvalue() == ""


def test_a_server_that_is_not_there_is_a_retryable_failure():
    _drop_session()
    with pytest.raises(VendorError) as info:
        BaostockClient(server=("127.0.0.1", 9), timeout=2).call(
            "query_history_k_data_plus", **K_PARAMS
        )
    assert info.value.retryable and not isinstance(info.value, VendorNotConfiguredError)
    assert "cannot connect to Baostock at ('127.0.0.1', 9)" in str(info.value)
    assert is_transport(info.value)  # `pitlake vendors check` says "unreachable"
    _drop_session()


@pytest.mark.parametrize(
    ("code", "typed"),
    [
        ("10001005", VendorRateLimitError),
        ("10001006", VendorPermissionError),
        ("10001011", VendorNotConfiguredError),
        ("10004013", NoMarketDataError),
        ("10002003", VendorError),
        ("10004006", VendorError),
    ],
)
def test_error_codes_are_typed(code, typed):
    err = classify_baostock(BaostockReplyError(code, "…"), endpoint="query_profit_data")
    assert type(err) is typed and err.vendor == "baostock"
    assert err.retryable == (code in ("10001005", "10002003"))


@pytest.mark.parametrize(
    ("dataset", "names"),
    [
        ("adj_factors", ("query_adjust_factor.empty",)),
        (
            "financials",
            ("query_profit_data.empty", "query_balance_data.empty", "query_cash_flow_data.empty"),
        ),
    ],
)
def test_empty_answers_of_every_query_are_no_data(bs, dataset, names):
    bs.serve(replies(*names))
    kw = {"start": date(2025, 4, 1), "end": date(2025, 4, 30)} if dataset == "financials" else {}
    with pytest.raises(NoMarketDataError):
        fetch(dataset, **kw)
    assert not bs.unmatched  # every call was answered (empty), none fell to "no reply"
