"""A misspelled query parameter is a 400 naming it, on every route — never an answer as of
now (issue 27 item 7): `as_0f=` or `asof=` must not silently drop the caller's cutoff."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.serve.api.conftest import assert_envelope


@pytest.mark.parametrize("typo", ["as_0f", "asof", "sybmol", "AS_OF"])
def test_a_misspelled_parameter_is_refused_naming_it(client: TestClient, typo: str) -> None:
    r = client.get("/v1/financials", params={"symbol": "600519", typo: "2025-04-01"})
    assert r.status_code == 400, r.text
    body = assert_envelope(r.json())
    assert body["status"] == "INVALID_ARGUMENTS" and body["data"] == []
    assert repr(typo) in body["message"] and "/v1/financials" in body["message"]


def test_the_nearest_known_parameter_is_suggested(client: TestClient) -> None:
    r = client.get("/v1/financials", params={"symbol": "600519", "as_0f": "2025-04-01"})
    assert "did you mean 'as_of'?" in r.json()["message"]


def test_every_route_refuses_an_unknown_parameter(client: TestClient) -> None:
    """Every GET route the app declares, data or not (health, calendar, sql, dashboard …)."""
    checked = 0
    for path, ops in client.get("/openapi.json").json()["paths"].items():
        if "get" not in ops or "{" in path:
            continue
        r = client.get(path, params={"nonsense_param": "1"})
        assert r.status_code == 400, (path, r.status_code, r.text[:200])
        assert "'nonsense_param'" in r.json()["message"], path
        checked += 1
    assert checked >= 10


def test_known_parameters_and_how_to_answer_still_pass(client: TestClient) -> None:
    ok = client.get("/v1/quotes", params={"symbol": "600519", "format": "json", "limit": 1})
    assert ok.status_code == 200, ok.text
    assert client.get("/healthz").status_code == 200


def test_paging_keys_are_refused_where_a_path_does_not_page(client: TestClient) -> None:
    r = client.get("/v1/news", params={"symbol": "600519", "cursor": "x"})
    assert r.status_code == 400 and "'cursor'" in r.json()["message"]


def test_post_sql_refuses_unknown_fields_and_takes_q(client: TestClient) -> None:
    bad = client.post("/v1/sql", json={"q": "SELECT 1 AS x", "as_ingested": "2025-01-01"})
    assert bad.status_code == 422 and "as_ingested" in bad.json()["message"]
    ok = client.post("/v1/sql", json={"q": "SELECT 1 AS x"})
    assert ok.status_code == 200 and ok.json()["data"] == [{"x": 1}], ok.text
    missing = client.post("/v1/sql", json={})
    assert missing.status_code == 422 and "invalid q:" in missing.json()["message"], missing.text
