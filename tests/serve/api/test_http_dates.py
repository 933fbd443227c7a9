"""Date semantics and statuses over HTTP (issue item 2): each row mapped faithfully from Lake
to the envelope and an HTTP code."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read.engine import DuckReader
from tests.serve.api.conftest import assert_envelope
from tests.serve.api.lakebuild import A, B


def get(client: TestClient, path: str, **params: object) -> tuple[int, dict]:
    r = client.get(path, params=params)
    return r.status_code, assert_envelope(r.json())


def test_a_weekend_answers_the_latest_session_and_shows_both_dates(client: TestClient) -> None:
    code, body = get(client, "/v1/quotes", symbol=A, date="2025-06-07", as_of="2025-06-08")
    assert code == 200 and body["status"] == "OK"
    assert body["date_status"] == "LATEST_TRADING_DAY"
    assert body["requested_date"] == "2025-06-07" and body["effective_trade_date"] == "2025-06-06"
    assert [(d["symbol"], d["trade_date"], d["close"]) for d in body["data"]] == [
        (A, "2025-06-06", 1504.0)
    ]
    assert "not an XSHG session" in body["message"]


def test_a_holiday_answers_the_session_before_it(client: TestClient) -> None:
    """Dragon Boat 2025: 05-31 … 06-02 closed; 06-02 is a Monday."""
    code, body = get(client, "/v1/quotes", symbol=B, date="2025-06-02", as_of="2025-06-02")
    assert code == 200 and body["status"] == "OK"
    assert body["date_status"] == "LATEST_TRADING_DAY"
    assert (body["requested_date"], body["effective_trade_date"]) == ("2025-06-02", "2025-05-30")
    assert [d["trade_date"] for d in body["data"]] == ["2025-05-30"]


def test_a_session_asked_before_its_close_is_not_ready_never_the_previous_one(
    client: TestClient,
) -> None:
    code, body = get(
        client, "/v1/quotes", symbol=A, date="2025-06-06", as_of="2025-06-06T14:00:00+08:00"
    )
    assert code == 200
    assert body["status"] == "NOT_READY" and body["retryable"] is True
    assert body["data"] == []  # not 06-05's bar passed off as 06-06's
    assert body["date_status"] == "STALE" and body["effective_trade_date"] == "2025-06-05"
    assert body["as_of"] == "2025-06-06T14:00:00+08:00"
    at_close = client.get(
        "/v1/quotes", params={"symbol": A, "date": "2025-06-06", "as_of": "2025-06-06T15:00+08:00"}
    ).json()
    assert at_close["status"] == "OK" and at_close["data"][0]["trade_date"] == "2025-06-06"


def test_an_unencoded_plus_in_the_as_of_is_repaired(client: TestClient) -> None:
    """'+08:00' typed into a URL arrives as ' 08:00'; the exact timestamp shape is repaired."""
    r = client.get(f"/v1/quotes?symbol={A}&date=2025-06-06&as_of=2025-06-06T14:00+08:00")
    body = r.json()
    assert r.status_code == 200 and body["as_of"] == "2025-06-06T14:00:00+08:00"
    assert body["status"] == "NOT_READY"


def test_a_symbol_without_a_dragon_tiger_record_on_a_fetched_session_is_no_data(
    client: TestClient,
) -> None:
    code, body = get(client, "/v1/dragon-tiger", symbol=B, date="2025-06-04", as_of="2025-06-05")
    assert code == 200 and body["status"] == "NO_DATA"
    assert body["data"] == [] and body["retryable"] is False
    code, listed = get(client, "/v1/dragon-tiger", symbol=A, date="2025-06-04", as_of="2025-06-05")
    assert listed["status"] == "OK" and len(listed["data"]) == 2
    assert {d["symbol"] for d in listed["data"]} == {A}


def test_the_whole_market_list_on_a_session_never_fetched_is_unknown(client: TestClient) -> None:
    _, body = get(client, "/v1/dragon-tiger", date="2025-06-10", as_of="2025-06-11")
    assert body["status"] == "UNKNOWN" and body["data"] == []


@pytest.mark.parametrize(
    ("day", "status"),
    [
        ("2025-06-09", "UPSTREAM_ERROR"),
        ("2025-06-10", "RATE_LIMITED"),
        ("2025-06-11", "PERMISSION_DENIED"),
    ],
)
def test_a_failed_fetch_is_reported_never_an_empty_ok(
    client: TestClient, day: str, status: str
) -> None:
    code, body = get(client, "/v1/quotes", symbol=A, date=day, as_of="2025-06-12")
    assert code == 200
    assert body["status"] == status and body["data"] == []
    assert body["retryable"] is (status != "PERMISSION_DENIED")
    assert body["meta"]["vendor_trace"][0]["status"] == status
    assert body["effective_trade_date"] == "2025-06-06" and body["date_status"] == "STALE"


def test_a_range_with_a_failed_session_reports_the_failure_beside_the_rows(
    client: TestClient,
) -> None:
    _, body = get(
        client, "/v1/quotes", symbol=A, start="2025-06-05", end="2025-06-09", as_of="2025-06-12"
    )
    assert body["status"] == "UPSTREAM_ERROR"
    assert [d["trade_date"] for d in body["data"]] == ["2025-06-05", "2025-06-06"]
    assert [g["date"] for g in body["meta"]["gaps"]] == ["2025-06-09"]


def test_valuation_not_published_is_not_ready(client: TestClient) -> None:
    _, body = get(client, "/v1/valuation", symbol=A, date="2025-06-06", as_of="2025-06-07")
    assert body["status"] == "NOT_READY" and body["retryable"] is True and body["data"] == []


def test_financials_news_calendar_answer_their_envelopes(client: TestClient) -> None:
    _, fin = get(client, "/v1/financials", symbol=A, latest_only="true", as_of="2025-06-08")
    assert fin["status"] == "OK" and [d["report_period"] for d in fin["data"]] == ["2025-03-31"]
    _, early = get(client, "/v1/financials", symbol=A, as_of="2025-03-27")
    assert early["status"] == "NO_DATA" and early["data"] == []
    _, nothing = get(client, "/v1/financials", symbol=B, as_of="2025-06-08")
    assert nothing["status"] == "NO_DATA" and nothing["data"] == []
    _, news = get(
        client, "/v1/news", symbol=A, end="2025-06-06", lookback_days=3, as_of="2025-06-06"
    )
    assert news["status"] == "OK" and [d["news_id"] for d in news["data"]] == ["n3", "n1"]
    _, evening = get(
        client, "/v1/news", symbol=A, date="2025-06-05", as_of="2025-06-05T19:00+08:00"
    )
    assert [d["news_id"] for d in evening["data"]] == []  # n3 is published at 20:00
    _, cal = get(client, "/v1/calendar", start="2025-05-30", end="2025-06-03", as_of="2025-06-03")
    assert [(d["date"], d["is_open"]) for d in cal["data"]] == [
        ("2025-05-30", True),
        ("2025-05-31", False),
        ("2025-06-01", False),
        ("2025-06-02", False),
        ("2025-06-03", True),
    ]


def test_as_of_omitted_means_now(client: TestClient) -> None:
    """The injected clock says 2025-12-31 12:00 Beijing."""
    _, body = get(client, "/v1/calendar")
    assert body["as_of"] == "2025-12-31T12:00:00+08:00" and body["requested_date"] == "2025-12-31"


# ---------------------------------------------------------------- bad input, before any read

BAD_INPUTS = [
    ("/v1/quotes", {"symbol": "../../etc/passwd"}),
    ("/v1/quotes", {"symbol": "600519.SH'; DROP TABLE ledger;--"}),
    ("/v1/quotes", {"symbols": "600519.SH,1 OR 1=1"}),
    ("/v1/quotes", {"symbol": A, "date": "2025-13-01"}),
    ("/v1/quotes", {"symbol": A, "date": "../../catalog.db"}),
    ("/v1/quotes", {"symbol": A, "start": "2025-06-06", "end": "2025-06-03"}),
    ("/v1/quotes", {"symbol": A, "date": "2025-06-03", "start": "2025-06-01"}),
    ("/v1/quotes", {"symbol": A, "as_of": "yesterday"}),
    ("/v1/quotes", {"symbol": A, "as_of": "2025-06-03' OR '1'='1"}),
    ("/v1/quotes", {}),
    ("/v1/valuation", {"symbol": "999999.SH"}),
    ("/v1/financials", {"symbol": A, "period": "2025-05-31"}),
    ("/v1/financials", {"symbol": "%2e%2e%2f"}),
    ("/v1/news", {"symbol": A, "start": "2025-06-01", "lookback_days": 3}),
    ("/v1/news", {"symbol": "..\\..\\windows"}),
    ("/v1/dragon-tiger", {"date": "2025-06-04", "start": "2025-06-01"}),
    ("/v1/dragon-tiger", {"date": "20250631"}),
    ("/v1/calendar", {"start": "1/2/2025"}),
    ("/v1/snapshot", {"symbol": A, "datasets": "quotes,../../etc"}),
    ("/v1/snapshot", {"symbol": "sh600519;rm -rf /"}),
    ("/v1/snapshot", {}),
    ("/v1/status", {"as_of": "2025-02-30"}),
]


@pytest.fixture
def reads_forbidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any file, DuckDB or ledger access fails the test (it would surface as a 503)."""

    def forbidden(*_a: object, **_k: object) -> None:
        raise AssertionError("read before validation")

    for cls, name in (
        (LakeStore, "files"),
        (LakeStore, "list_partitions"),
        (DuckReader, "table"),
        (DuckReader, "rows"),
        (Catalog, "ledger_entries"),
    ):
        monkeypatch.setattr(cls, name, forbidden)


@pytest.mark.parametrize(("path", "params"), BAD_INPUTS)
def test_malformed_input_is_invalid_arguments_400_before_any_read(
    client: TestClient, reads_forbidden: None, path: str, params: dict
) -> None:
    r = client.get(path, params=params)
    body = assert_envelope(r.json())
    assert r.status_code == 400, body
    assert body["status"] == "INVALID_ARGUMENTS" and body["retryable"] is False
    assert body["data"] == [] and body["message"]


@pytest.mark.parametrize(
    ("path", "params", "where"),
    [
        ("/v1/news", {"lookback_days": "abc"}, "lookback_days"),
        ("/v1/news", {"lookback_days": 0}, "lookback_days"),
        ("/v1/news", {"limit": 100000}, "limit"),
        ("/v1/quotes", {"symbol": A, "adjust": "sideways"}, "adjust"),
        ("/v1/financials", {"symbol": A, "latest_only": "maybe"}, "latest_only"),
        ("/v1/financials", {"symbol": A, "statement": "profit"}, "statement"),
        ("/v1/quotes", {"symbol": A, "as_of": "2" * 100}, "as_of"),
    ],
)
def test_parameter_validation_errors_are_reshaped_into_the_envelope(
    client: TestClient, reads_forbidden: None, path: str, params: dict, where: str
) -> None:
    r = client.get(path, params=params)
    body = assert_envelope(r.json())
    assert r.status_code == 422
    assert body["status"] == "INVALID_ARGUMENTS" and body["retryable"] is False
    assert where in body["message"]
    assert body["meta"]["errors"][0]["loc"] == where


def test_unknown_routes_stay_404(client: TestClient) -> None:
    assert client.get("/v1/nope").status_code == 404
    assert client.post("/v1/status").status_code == 405  # /v1/quotes takes POST (test_post.py)
