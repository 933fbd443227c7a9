"""/v1/snapshot (sections, the aligned flag, flagged fallbacks) and /v1/status (freshness)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pitlake.lake.catalog import Catalog
from pitlake.serve.api.models import SnapshotEnvelope, StatusEnvelope
from tests.lake.conftest import bj
from tests.serve.api.conftest import assert_envelope
from tests.serve.api.lakebuild import A, B


def snapshot(client: TestClient, **params: object) -> dict:
    r = client.get("/v1/snapshot", params=params)
    assert r.status_code == 200, r.text
    body = assert_envelope(r.json())
    SnapshotEnvelope.model_validate(body)
    return body


def sections(body: dict) -> dict[str, dict]:
    return {s["dataset"]: s for s in body["data"]}


def test_aligned_sections_share_one_session(client: TestClient) -> None:
    body = snapshot(client, symbols=f"{A},{B}", date="2025-06-05", as_of="2025-06-08")
    assert body["meta"]["aligned"] is True and body["status"] == "OK"
    assert body["effective_trade_date"] == "2025-06-05" and body["date_status"] == "CURRENT"
    assert body["meta"]["sessions"] == {
        "quotes": "2025-06-05",
        "valuation": "2025-06-05",
        "dragon_tiger": "2025-06-05",
        "limit_prices": "2025-06-05",
        "limit_pools": "2025-06-05",
    }
    sec = sections(body)
    assert list(sec) == [
        *("quotes", "valuation", "dragon_tiger", "limit_prices", "limit_pools"),
        *("financials", "news", "announcements", "disclosure_schedule", "new_shares"),
    ]
    for name in ("quotes", "valuation", "dragon_tiger", "limit_prices", "limit_pools"):
        assert sec[name]["effective_trade_date"] == "2025-06-05"
    assert {d["symbol"] for d in sec["quotes"]["data"]} == {A, B}
    # Nobody on the 06-05 list: a successful fetch with nothing for them, about 06-05.
    assert sec["dragon_tiger"]["status"] == "NO_DATA"
    assert sec["dragon_tiger"]["date_status"] == "CURRENT"
    assert sec["financials"]["date_status"] == "NOT_APPLICABLE"
    assert body["meta"]["rows"] == len(sec) == 10  # one per section
    assert sec["limit_pools"]["status"] == "NO_DATA"  # fetched; nobody at a limit that day


def test_misaligned_sections_are_reported_side_by_side_never_merged(client: TestClient) -> None:
    body = snapshot(client, symbols=f"{A},{B}", date="2025-06-06", as_of="2025-06-08")
    assert body["meta"]["aligned"] is False
    assert body["effective_trade_date"] is None  # no single "today"
    assert body["date_status"] == "STALE"
    assert body["status"] == "NOT_READY" and body["retryable"] is True
    assert body["meta"]["sessions"]["quotes"] == "2025-06-06"
    assert body["meta"]["sessions"]["valuation"] == "2025-06-05"
    assert "NOT aligned" in body["message"]
    sec = sections(body)
    quotes, valuation = sec["quotes"], sec["valuation"]
    assert quotes["status"] == "OK" and quotes["date_status"] == "CURRENT"
    assert {d["trade_date"] for d in quotes["data"]} == {"2025-06-06"}
    # valuation for 06-06 was not published: the 06-05 rows, flagged as such
    assert valuation["status"] == "NOT_READY" and valuation["date_status"] == "STALE"
    assert valuation["effective_trade_date"] == "2025-06-05"
    assert {d["trade_date"] for d in valuation["data"]} == {"2025-06-05"}
    assert valuation["meta"]["fallback"] == {"effective_trade_date": "2025-06-05", "status": "OK"}
    assert valuation["meta"]["rows"] == 2
    assert "flagged STALE" in valuation["message"]


def test_a_weekend_snapshot_is_latest_trading_day(client: TestClient) -> None:
    body = snapshot(client, symbol=A, datasets="quotes,dragon-tiger", as_of="2025-06-08")
    assert body["meta"]["aligned"] is True
    assert body["requested_date"] == "2025-06-08" and body["effective_trade_date"] == "2025-06-06"
    assert body["date_status"] == "LATEST_TRADING_DAY"
    assert [s["dataset"] for s in body["data"]] == ["quotes", "dragon_tiger"]


def test_only_undated_sections_are_trivially_aligned(client: TestClient) -> None:
    body = snapshot(client, symbol=A, datasets="financials,news", as_of="2025-06-08")
    assert body["meta"]["aligned"] is True and body["meta"]["sessions"] == {}
    assert body["date_status"] == "NOT_APPLICABLE" and body["effective_trade_date"] is None


def test_a_failed_session_misaligns_and_reports_the_failure(client: TestClient) -> None:
    body = snapshot(
        client, symbol=A, datasets="quotes,dragon_tiger", date="2025-06-09", as_of="2025-06-12"
    )
    # quotes failed on 06-09 and dragon_tiger was never fetched then: each answers its last
    # fetched session, 06-06 for both (issue 13 item 2), so they align there — as STALE.
    assert body["status"] == "UPSTREAM_ERROR" and body["meta"]["aligned"] is True
    assert body["effective_trade_date"] == "2025-06-06" and body["date_status"] == "STALE"
    assert sections(body)["dragon_tiger"]["date_status"] == "STALE"
    quotes = sections(body)["quotes"]
    assert quotes["status"] == "UPSTREAM_ERROR" and quotes["effective_trade_date"] == "2025-06-06"
    assert [d["trade_date"] for d in quotes["data"]] == ["2025-06-06"]  # flagged fallback
    assert "Not OK: quotes: UPSTREAM_ERROR" in body["message"]


@pytest.mark.parametrize(
    "params",
    [
        {"symbol": A, "datasets": "calendar"},
        {"symbol": A, "datasets": "status"},
        {"symbol": A, "datasets": "prices"},
        {"symbols": ",".join(f"{600000 + i}.SH" for i in range(201))},
    ],
)
def test_snapshot_refuses_what_it_cannot_answer(client: TestClient, params: dict) -> None:
    r = client.get("/v1/snapshot", params=params)
    assert r.status_code == 400 and r.json()["status"] == "INVALID_ARGUMENTS"


# ---------------------------------------------------------------- freshness


def freshness(client: TestClient, as_of: str) -> dict[str, dict]:
    r = client.get("/v1/status", params={"as_of": as_of})
    assert r.status_code == 200
    body = assert_envelope(r.json())
    StatusEnvelope.model_validate(body)
    assert body["status"] == "OK" and body["date_status"] == "NOT_APPLICABLE"
    return {row["dataset"]: row for row in body["data"]} | {"": body}


def test_freshness_counts_sessions_behind_the_latest_closed_one(client: TestClient) -> None:
    rows = freshness(client, "2025-06-11T16:00:00+08:00")
    assert rows[""]["effective_trade_date"] == "2025-06-11"
    quotes = rows["quotes"]
    assert quotes["latest_ok_date"] == "2025-06-06" and quotes["latest_session"] == "2025-06-11"
    assert quotes["lag_sessions"] == 3 and quotes["fresh"] is False
    assert quotes["latest_session_status"] == "PERMISSION_DENIED"
    assert rows["valuation"]["latest_ok_date"] == "2025-06-05"
    assert rows["valuation"]["lag_sessions"] == 4
    assert "quotes (3 behind)" in rows[""]["message"]


def test_freshness_before_the_close_looks_at_the_previous_session(client: TestClient) -> None:
    rows = freshness(client, "2025-06-06T14:59:00+08:00")
    assert rows["quotes"]["latest_session"] == "2025-06-05"
    assert rows["quotes"]["fresh"] is True and rows["quotes"]["lag_sessions"] == 0
    assert rows["valuation"]["fresh"] is True


def test_freshness_follows_the_ledger(
    writable_lake: Path, make_client: Callable[..., TestClient]
) -> None:
    cat = Catalog(lake_root=writable_lake)
    cat.record_ledger("quotes", "2025-06-12", "OK", rows=2, at=bj("2025-06-12", "18:00"))
    cat.close()
    rows = freshness(make_client(writable_lake), "2025-06-12T20:00:00+08:00")
    assert rows["quotes"]["fresh"] is True and rows["quotes"]["latest_session_status"] == "OK"
    rows = freshness(make_client(writable_lake), "2025-05-20")
    assert rows["quotes"]["latest_ok_date"] is None and rows["quotes"]["lag_sessions"] is None
    assert rows["quotes"]["fresh"] is False
    assert "quotes (no successful fetch)" in rows[""]["message"]
