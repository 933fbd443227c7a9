"""Wire-level contract of every Tushare DataApi endpoint pitlake calls: recorded JSON replies
(normal, empty, blocked/HTML, HTTP error page, rate limit, permission denial) served under the
live TushareClient with only requests' transport replaced, then the Tushare fetchers, asserting
canonical rows or the right typed error. The normal and empty replies are also read by the
installed tushare SDK (`tushare.pro.client.DataApi`), which must build the same frame from the
same request: when Tushare's protocol or pitlake's reading of it drifts, these tests say where.
"""

from __future__ import annotations

import json
from datetime import date, datetime, timezone

import pandas as pd
import pytest

from pitlake.errors import (
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.base import VendorAdapter
from pitlake.vendors.tushare import PLUGIN as TUSHARE
from tests.vendors.wire.http_replay import HttpReplay
from tests.vendors.wire.tushare_wire import (
    ENDPOINTS,
    SCENARIOS,
    TOKEN,
    contributed,
    live_client,
    serve,
)

FETCHED = datetime(2025, 6, 4, 13, 0, tzinfo=timezone.utc)


def adapter(client) -> VendorAdapter:
    return TUSHARE.adapter(client, news_sources=("sina",), max_parallel=1)


def run(endpoint: str, kind: str, *, times: int | None = None):
    """Fetch the endpoint's scenario with `kind` served to it (the companions normal)."""
    sc = SCENARIOS[endpoint]
    replay = HttpReplay()
    if times is not None:
        serve(replay, endpoint, kind, times=times)
        serve(replay, endpoint, "normal")
    else:
        serve(replay, endpoint, kind)
    for other in sc.companions:
        serve(replay, other, "normal")
    with replay.active():
        try:
            outcome = adapter(live_client()).fetch(sc.request, FETCHED)
        except Exception as exc:
            outcome = exc
    assert not replay.unmatched, [c.url for c in replay.unmatched]
    return outcome, replay


def asked(replay: HttpReplay, endpoint: str) -> list[dict]:
    return [c.json_body() for c in replay.served(rf"/dataapi/{endpoint}$")]


# ---------------------------------------------------------------- the request on the wire


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("kind", ["normal", "empty"])
def test_the_client_sends_the_sdks_request_and_reads_its_frame(endpoint: str, kind: str) -> None:
    from tushare.pro.client import DataApi

    sc = SCENARIOS[endpoint]
    _, replay = run(endpoint, "normal")
    (body, *_) = asked(replay, endpoint)
    params = {k: v for k, v in body["params"].items() if k != "ts_type_name"}
    sdk_replay, ours_replay = HttpReplay(), HttpReplay()
    for r in (sdk_replay, ours_replay):
        serve(r, endpoint, kind)
    with sdk_replay.active():
        sdk_frame = DataApi(TOKEN).query(endpoint, fields=body["fields"], **params)
    with ours_replay.active():
        our_frame = live_client().inner.call(endpoint, fields=body["fields"], **params)
    # the same bytes asked: URL, api_name, token, params (with the SDK's ts_type_name), fields
    (sdk_call,) = sdk_replay.calls
    (our_call,) = ours_replay.calls
    assert our_call.url == sdk_call.url == f"http://api.waditu.com/dataapi/{endpoint}"
    assert our_call.json_body() == sdk_call.json_body()
    assert our_call.json_body()["token"] == TOKEN
    pd.testing.assert_frame_equal(our_frame, sdk_frame)
    assert sc.endpoint == endpoint


def test_major_news_asks_for_content_and_statements_for_their_fields() -> None:
    _, replay = run("major_news", "normal")
    (body,) = asked(replay, "major_news")
    assert "content" in body["fields"].split(",")  # 默认不显示，需要在fields里指定
    _, replay = run("income", "normal")
    (body,) = asked(replay, "income")
    assert {"update_flag", "f_ann_date", "n_income_attr_p"} <= set(body["fields"].split(","))


# ---------------------------------------------------------------- normal answers


def test_daily_normal_reply_gives_bars_in_shares_and_yuan() -> None:
    out, _ = run("daily", "normal")
    r = out.frame.set_index("symbol").loc["600519.SH"]
    assert r["trade_date"] == date(2025, 6, 3)
    assert r["close"] == 1555.0 and r["pre_close"] == 1545.0
    assert r["volume"] == pytest.approx(3_123_450.0)  # 31234.5 手 × 100
    assert r["amount"] == pytest.approx(4_853_231_000.0)  # 4853231 千元 × 1000
    assert set(out.frame["source"]) == {"tushare"}


def test_adj_factor_normal_reply_gives_factors() -> None:
    out, _ = run("adj_factor", "normal")
    assert out.frame.set_index("symbol")["adj_factor"].to_dict() == {
        "600519.SH": 8.4167,
        "000001.SZ": 127.7841,
    }


def test_daily_basic_normal_reply_gives_shares_and_yuan() -> None:
    out, _ = run("daily_basic", "normal")
    r = out.frame.set_index("symbol").loc["600519.SH"]
    assert r["total_share"] == pytest.approx(1_256_197_800.0)  # 万股 × 10^4
    assert r["total_mv"] == pytest.approx(1_953_387_579_000.0)  # 万元 × 10^4
    assert pd.isna(out.frame.set_index("symbol").loc["000001.SZ", "dv_ratio"])  # null → NaN


@pytest.mark.parametrize("endpoint", ["income", "balancesheet", "cashflow"])
def test_statement_normal_replies_give_every_statement(endpoint: str) -> None:
    out, _ = run(endpoint, "normal")
    f = out.frame
    assert set(f["statement"]) == {"income", "balance", "cashflow"}
    income = f[(f["statement"] == "income") & (f["report_period"] == date(2025, 3, 31))].iloc[0]
    assert income["net_profit_parent"] == 26847209000.0  # 元, as answered
    assert income["ann_date"] == date(2025, 4, 25)
    assert income["report_type"] == "1"


def test_disclosure_date_normal_reply_asks_each_announcer_for_its_statements() -> None:
    out, replay = run("disclosure_date", "normal")
    (lookup,) = asked(replay, "disclosure_date")
    assert lookup["params"]["actual_date"] == "20250603"
    for st in ("income", "balancesheet", "cashflow"):
        assert [b["params"]["ts_code"] for b in asked(replay, st)] == ["600519.SH"]
    assert set(out.frame["symbol"]) == {"600519.SH"}


@pytest.mark.parametrize("endpoint", ["news", "major_news"])
def test_news_normal_replies_give_items_from_both_feeds(endpoint: str) -> None:
    out, _ = run(endpoint, "normal")
    f = out.frame.set_index("title")
    assert f.loc["茅台分红", "symbols"] == ["600519.SH"]
    assert f.loc["茅台分红", "sources"] == ["tushare:sina"]
    assert f.loc["国务院常务会议部署稳就业举措", "content"].startswith("国务院总理")
    assert f.loc["国务院常务会议部署稳就业举措", "sources"] == ["tushare:新华网"]
    assert "央行今日开展1000亿元逆回购操作。" in set(f.index)  # untitled flash: titled by content


@pytest.mark.parametrize("endpoint", ["top_list", "top_inst"])
def test_dragon_tiger_normal_replies_give_rows_with_seats(endpoint: str) -> None:
    out, _ = run(endpoint, "normal")
    (r,) = out.frame.to_dict("records")
    assert r["symbol"] == "000001.SZ" and r["net_buy"] == 69_700_000.0
    seats = json.loads(r["seats"])
    assert [s["side"] for s in seats] == ["buy", "sell"]
    assert [s["net"] for s in seats] == [50_200_000.0, -29_500_000.0]


def test_trade_cal_normal_reply_gives_the_holiday_closed() -> None:
    out, _ = run("trade_cal", "normal")
    days = dict(zip(out.frame["date"], out.frame["is_open"], strict=True))
    assert days == {
        date(2025, 5, 30): True,
        date(2025, 5, 31): False,
        date(2025, 6, 1): False,
        date(2025, 6, 2): False,
        date(2025, 6, 3): True,
    }
    assert set(out.frame["exchange"]) == {"XSHG"}


def test_new_share_normal_reply_gives_issue_prices_in_yuan_dated_by_the_subscription() -> None:
    out, replay = run("new_share", "normal")
    (body,) = asked(replay, "new_share")
    # a nightly session asks the subscription days around it, every documented field named
    assert body["params"]["start_date"] == "20250503" and body["params"]["end_date"] == "20250704"
    assert "price" in body["fields"].split(",") and "issue_date" in body["fields"].split(",")
    f = out.frame.set_index("symbol")
    listed = f.loc["603398.SH"]
    assert listed["issue_price"] == 18.0 and listed["sub_code"] == "732398"
    assert listed["ipo_date"] == date(2025, 5, 29) and listed["list_date"] == date(2025, 6, 10)
    assert listed["shares_offered"] == 40_000_000.0  # 4000 万股 × 10^4
    assert listed["funds"] == pytest.approx(720_000_000.0)  # 7.2 亿元 × 10^8
    # known at the end of the session after the subscription (T+1), a date-only basis
    assert listed["known_at"] == pd.Timestamp("2025-05-30 23:59:59.999999+08:00")
    assert listed["known_at_basis"] == "announcement"
    # priced the day before its subscription: T+1 lies after the fetch, so first seen
    priced = f.loc["001390.SZ"]
    assert priced["issue_price"] == 9.5 and pd.isna(priced["list_date"])
    assert priced["known_at_basis"] == "first_seen" and priced["known_at"] == FETCHED
    # not priced yet: stored without a price, first seen (never dated by a later price)
    assert pd.isna(f.loc["603400.SH", "issue_price"])
    assert f.loc["603400.SH", "known_at_basis"] == "first_seen"
    assert f.loc["920118.BJ", "issue_price"] == 12.3


# ---------------------------------------------------------------- empty answers


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_an_empty_reply_is_no_rows_for_that_query_only(endpoint: str) -> None:
    out, _ = run(endpoint, "empty")
    role = SCENARIOS[endpoint].role
    if role in ("sole", "lookup"):
        assert isinstance(out, NoMarketDataError), out
        return
    assert not isinstance(out, Exception), out  # the other endpoints' rows stand
    assert not out.frame.empty
    assert not contributed(endpoint, out.frame)


# ---------------------------------------------------------------- blocked, HTML, HTTP errors


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize(
    ("kind", "text"), [("blocked_html", "not JSON"), ("http_error_html", "HTTP 502")]
)
def test_a_blocked_or_html_reply_is_a_retried_vendor_error_never_no_rows(
    endpoint: str, kind: str, text: str
) -> None:
    out, replay = run(endpoint, kind)
    assert type(out) is VendorError, out
    assert out.retryable and text in str(out)
    assert out.endpoint == endpoint and out.vendor == "tushare"
    assert len(asked(replay, endpoint)) == 3  # RetryPolicy.max_attempts


def test_the_sdk_reads_an_http_error_page_as_an_empty_frame_which_pitlake_does_not() -> None:
    from tushare.pro.client import DataApi

    replay = HttpReplay()
    serve(replay, "daily", "http_error_html")
    with replay.active():
        sdk = DataApi(TOKEN).query("daily", trade_date="20250603")
        with pytest.raises(VendorError, match="HTTP 502"):
            live_client().inner.call("daily", trade_date="20250603")
    assert sdk.empty and len(sdk.columns) == 0  # indistinguishable from "no rows"


# ---------------------------------------------------------------- rate limits


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_rate_limit_reply_is_typed_and_retried_until_served(endpoint: str) -> None:
    replay = HttpReplay()
    serve(replay, endpoint, "rate_limit")
    with replay.active(), pytest.raises(VendorRateLimitError) as info:
        live_client().inner.call(endpoint)
    assert info.value.retry_after == 60.0 and info.value.retryable
    assert TOKEN not in str(info.value)

    out, replay = run(endpoint, "rate_limit", times=1)
    normal, _ = run(endpoint, "normal")
    assert not isinstance(out, Exception), out
    pd.testing.assert_frame_equal(out.frame, normal.frame)
    assert len(asked(replay, endpoint)) >= 2  # refused, then asked again


# ---------------------------------------------------------------- permission denials


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_permission_denial_fails_only_that_endpoint(endpoint: str) -> None:
    out, replay = run(endpoint, "permission")
    bodies = asked(replay, endpoint)
    # never retried: each request asked once (securities asks stock_basic per list_status)
    assert len(bodies) == len({json.dumps(b["params"], sort_keys=True) for b in bodies}) >= 1
    role = SCENARIOS[endpoint].role
    if role in ("sole", "lookup"):
        assert isinstance(out, VendorPermissionError), out
        assert "没有访问该接口的权限" in str(out)
        return
    assert not isinstance(out, Exception), out  # the dataset is stored without it
    assert not out.frame.empty
    assert not contributed(endpoint, out.frame)


def test_a_bad_token_is_not_configured_and_asked_once() -> None:
    replay = HttpReplay()
    serve(replay, "daily", "bad_token")
    with replay.active(), pytest.raises(VendorNotConfiguredError, match="token"):
        live_client().call("daily", trade_date="20250603")
    assert len(replay.calls) == 1


# ---------------------------------------------------------------- garbage in a non-empty reply


def test_a_non_date_in_a_reply_names_the_field_and_the_function() -> None:
    replay = HttpReplay()
    spec = SCENARIOS["daily"]
    from tests.vendors.wire.tushare_wire import reply

    body = reply("daily", "normal")["json"]
    bad = {**body, "data": {**body["data"], "items": [list(body["data"]["items"][0])]}}
    bad["data"]["items"][0][1] = "2025-6-3?"
    replay.add(r"/dataapi/daily$", json=bad)
    with replay.active(), pytest.raises(VendorError) as info:
        adapter(live_client()).fetch(spec.request, FETCHED)
    assert type(info.value) is VendorError and not info.value.retryable
    assert "[tushare.daily] trade_date '2025-6-3?' is not a date" in str(info.value)


def test_a_missing_column_in_a_reply_is_schema_drift_naming_it() -> None:
    from tests.vendors.wire.tushare_wire import reply

    body = reply("daily", "normal")["json"]
    fields = [f for f in body["data"]["fields"] if f != "vol"]
    keep = [i for i, f in enumerate(body["data"]["fields"]) if f != "vol"]
    items = [[row[i] for i in keep] for row in body["data"]["items"]]
    replay = HttpReplay()
    replay.add(r"/dataapi/daily$", json={**body, "data": {"fields": fields, "items": items}})
    with replay.active(), pytest.raises(VendorError, match=r"missing columns \['vol'\]") as info:
        adapter(live_client()).fetch(SCENARIOS["daily"].request, FETCHED)
    assert info.value.endpoint == "daily"


def test_code_0_with_null_data_is_no_rows_for_that_query_only() -> None:
    """The SDK would raise TypeError (`data['fields']` of None, tushare/pro/client.py:48);
    pitlake reads it as an answer with no rows."""
    from tests.vendors.wire.tushare_wire import reply

    null = {**reply("major_news", "normal")["json"], "data": None}
    replay = HttpReplay()
    serve(replay, "news", "normal")
    replay.add(r"/dataapi/major_news$", json=null)
    with replay.active():
        out = adapter(live_client()).fetch(SCENARIOS["news"].request, FETCHED)
        with pytest.raises(NoMarketDataError):
            live_client().call("major_news")
    assert set(out.frame["title"]) == {"茅台分红", "央行今日开展1000亿元逆回购操作。"}
