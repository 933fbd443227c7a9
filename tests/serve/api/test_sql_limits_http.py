"""/v1/sql under the statement limits (issue 27 item 2): a typed 400, never a 500 or a hang."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from pitlake.read.sql_limits import MAX_ROWS_ENV, TIMEOUT_ENV
from pitlake.statuses import ResultStatus


def test_a_slow_statement_is_interrupted_on_get_and_post(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TIMEOUT_ENV, "0.3")
    slow = "SELECT sum(i) FROM range(100000000000) t(i)"
    for send in (
        lambda: client.get("/v1/sql", params={"q": slow}),
        lambda: client.post("/v1/sql", json={"q": slow}),
    ):
        started = time.monotonic()
        response = send()
        assert time.monotonic() - started < 3.0  # the statement alone would run for minutes
        assert response.status_code == 400
        body = response.json()
        assert body["status"] == ResultStatus.INVALID_ARGUMENTS and body["retryable"] is False
        assert TIMEOUT_ENV in body["message"]


def test_an_answer_past_the_row_cap_is_a_400_naming_the_cap(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_ROWS_ENV, "100")
    response = client.get("/v1/sql", params={"q": "SELECT i FROM range(100000000) t(i)"})
    assert response.status_code == 400
    assert "more than 100 rows" in response.json()["message"]


def test_an_answer_past_the_byte_cap_is_a_400_and_a_busy_one_carries_retry_after(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pitlake.read import slots, sql_limits

    monkeypatch.setenv(sql_limits.MAX_BYTES_ENV, "100000")
    response = client.get("/v1/sql", params={"q": "SELECT repeat('x', 500) FROM range(5000)"})
    assert response.status_code == 400
    assert sql_limits.MAX_BYTES_ENV in response.json()["message"]
    assert "Retry-After" not in response.headers

    monkeypatch.setattr(sql_limits, "SLOTS", sql_limits.sql_slots())
    monkeypatch.setenv(sql_limits.CONCURRENCY_ENV, "1")
    monkeypatch.setenv(sql_limits.QUEUE_WAIT_ENV, "0")
    assert sql_limits.SLOTS.acquire()
    try:
        busy = client.get("/v1/sql", params={"q": "SELECT 1"})
    finally:
        sql_limits.SLOTS.release()
    assert busy.json()["status"] == ResultStatus.RATE_LIMITED
    assert busy.headers["Retry-After"] == str(slots.RETRY_AFTER_S)
    assert client.get("/v1/sql", params={"q": "SELECT 1"}).headers.get("Retry-After") is None
