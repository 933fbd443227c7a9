"""Pinned as-of (issue item 3): a start-up pin and header-named pins clamp every request, at
every endpoint, and the answer says so."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pitlake.serve.api.app import create_app
from tests.serve.api.conftest import assert_envelope
from tests.serve.api.lakebuild import NOW, A, B

PIN = "2025-06-05T23:59:59.999999+08:00"
EARLY = "2025-06-04T23:59:59.999999+08:00"

# Every /v1 endpoint with a question whose honest answer changes after the pin.
ENDPOINTS: list[tuple[str, dict[str, object]]] = [
    ("/v1/quotes", {"symbol": A}),
    ("/v1/valuation", {"symbol": A}),
    ("/v1/financials", {"symbol": A}),
    ("/v1/news", {"symbol": A}),
    ("/v1/dragon-tiger", {"symbol": A}),
    ("/v1/calendar", {}),
    ("/v1/snapshot", {"symbols": f"{A},{B}"}),
    ("/v1/status", {}),
]


@pytest.fixture(scope="module")
def pinned(lake_dir: Path) -> Iterator[TestClient]:
    app = create_app(
        lake_dir,
        as_of_pin="2025-06-05",
        allowed_pins={"early": "2025-06-04"},
        token="",
        clock=lambda: NOW,
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


@pytest.mark.parametrize(("path", "params"), ENDPOINTS, ids=[p for p, _ in ENDPOINTS])
def test_a_later_as_of_is_clamped_to_the_pin(pinned: TestClient, path: str, params: dict) -> None:
    r = pinned.get(path, params={**params, "as_of": "2025-06-20"})
    body = assert_envelope(r.json())
    assert r.status_code == 200, body
    assert body["as_of"] == PIN
    assert body["meta"]["pinned"] is True
    assert body["meta"]["pin"] == {"name": None, "as_of": PIN, "clamped": True}
    if path != "/v1/snapshot":
        assert "clamped" in body["message"]


@pytest.mark.parametrize(("path", "params"), ENDPOINTS, ids=[p for p, _ in ENDPOINTS])
def test_no_as_of_means_the_pin_not_now(pinned: TestClient, path: str, params: dict) -> None:
    body = pinned.get(path, params=params).json()
    assert body["as_of"] == PIN and body["meta"]["pinned"] is True
    assert body["meta"]["pin"]["clamped"] is True  # "now" is after the pin


@pytest.mark.parametrize(("path", "params"), ENDPOINTS, ids=[p for p, _ in ENDPOINTS])
def test_an_earlier_as_of_is_kept(pinned: TestClient, path: str, params: dict) -> None:
    body = pinned.get(path, params={**params, "as_of": "2025-06-04"}).json()
    assert body["as_of"] == EARLY
    assert body["meta"]["pinned"] is True and body["meta"]["pin"]["clamped"] is False


@pytest.mark.parametrize(("path", "params"), ENDPOINTS, ids=[p for p, _ in ENDPOINTS])
def test_a_header_pin_clamps_further(pinned: TestClient, path: str, params: dict) -> None:
    body = pinned.get(
        path, params={**params, "as_of": "2025-06-20"}, headers={"X-Pitlake-Pin": "early"}
    ).json()
    assert body["as_of"] == EARLY
    assert body["meta"]["pin"] == {"name": "early", "as_of": EARLY, "clamped": True}


def test_nothing_after_the_pin_is_served(pinned: TestClient) -> None:
    body = pinned.get(
        "/v1/quotes", params={"symbol": A, "start": "2025-06-03", "end": "2025-06-06"}
    ).json()
    assert [d["trade_date"] for d in body["data"]] == ["2025-06-03", "2025-06-04", "2025-06-05"]
    # The range is cut at the pin's day: 06-06 is not part of a question asked on 06-05.
    assert body["status"] == "OK" and body["date_status"] == "LATEST_TRADING_DAY"
    assert body["effective_trade_date"] == "2025-06-05"
    news = pinned.get("/v1/news", params={"symbol": A, "as_of": "2025-06-30"}).json()
    assert [d["news_id"] for d in news["data"]] == ["n3", "n1"]  # published by 06-05 20:00
    snap = pinned.get("/v1/snapshot", params={"symbol": A, "as_of": "2025-06-30"}).json()
    assert snap["effective_trade_date"] == "2025-06-05" and snap["meta"]["aligned"] is True


def test_an_unknown_or_malformed_pin_is_invalid(pinned: TestClient) -> None:
    for name in ("late", "../../etc", "x" * 64):
        r = pinned.get("/v1/quotes", params={"symbol": A}, headers={"X-Pitlake-Pin": name})
        assert r.status_code == 400 and r.json()["status"] == "INVALID_ARGUMENTS"
        assert "this server allows: early" in r.json()["message"]


def test_a_header_pin_never_lifts_the_start_up_pin(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(as_of_pin="2025-06-04", allowed_pins=["late=2025-06-06"])
    body = client.get(
        "/v1/quotes", params={"symbol": A, "as_of": "2025-06-30"}, headers={"X-Pitlake-Pin": "late"}
    ).json()
    assert body["as_of"] == EARLY and body["effective_trade_date"] == "2025-06-04"
    assert body["meta"]["pin"]["name"] == "late"


def test_header_pins_work_on_an_unpinned_server(make_client: Callable[..., TestClient]) -> None:
    client = make_client(allowed_pins={"early": "2025-06-04"})
    free = client.get("/v1/quotes", params={"symbol": A, "as_of": "2025-06-20"}).json()
    assert free["meta"]["pinned"] is False and "pin" not in free["meta"]
    assert free["as_of"] == "2025-06-20T23:59:59.999999+08:00"
    held = client.get(
        "/v1/quotes",
        params={"symbol": A, "as_of": "2025-06-20"},
        headers={"X-Pitlake-Pin": "early"},
    ).json()
    assert held["as_of"] == EARLY and held["effective_trade_date"] == "2025-06-04"
    assert held["meta"]["pinned"] is True


def test_invalid_answers_under_a_pin_say_pinned(pinned: TestClient) -> None:
    body = pinned.get("/v1/quotes", params={"symbol": "nope"}).json()
    assert body["status"] == "INVALID_ARGUMENTS" and body["meta"]["pinned"] is True
