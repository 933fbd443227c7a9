"""Every refusal is an envelope that says how the server is pinned (issue 27 item 12): an
unknown route (404), a method a route does not take (405), a bad token (401), a bad value
(422), an unknown parameter (400)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from tests.serve.api.conftest import assert_envelope


def test_an_unknown_route_is_an_envelope_naming_the_nearest(client: TestClient) -> None:
    r = client.get("/v1/quote", params={"symbol": "600519"})
    assert r.status_code == 404
    body = assert_envelope(r.json())
    assert body["status"] == "INVALID_ARGUMENTS" and "did you mean /v1/quotes?" in body["message"]


def test_a_wrong_method_is_an_envelope_naming_the_methods(client: TestClient) -> None:
    r = client.put("/v1/quotes", json={})
    assert r.status_code == 405 and "GET" in r.headers["allow"]
    body = assert_envelope(r.json())
    assert body["status"] == "INVALID_ARGUMENTS" and "PUT" in body["message"]
    assert "GET" in body["message"]


def test_refusals_on_a_pinned_server_say_pinned(make_client: Callable[..., TestClient]) -> None:
    pinned = make_client(as_of_pin="2025-06-05", token="s3cret")
    auth = {"Authorization": "Bearer s3cret"}
    answers = {
        401: pinned.get("/v1/quotes", params={"symbol": "600519"}),
        422: pinned.get(
            "/v1/news", params={"symbol": "600519", "lookback_days": "many"}, headers=auth
        ),
        404: pinned.get("/v1/nope", headers=auth),
        405: pinned.put("/v1/quotes", headers=auth),
        400: pinned.get("/v1/quotes", params={"symbol": "600519", "asof": "x"}, headers=auth),
    }
    for code, r in answers.items():
        assert r.status_code == code, (code, r.text[:200])
        assert assert_envelope(r.json())["meta"]["pinned"] is True, code
