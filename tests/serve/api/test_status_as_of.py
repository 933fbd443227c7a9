"""/v1/status as of a cutoff shows no instant after it (issue 27 item 4): a fetch recorded
later (a re-fetch, a backfill) still counts, but its recorded_at is null before it happened."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

from fastapi.testclient import TestClient

from pitlake.lake.catalog import Catalog

BJ = timezone(timedelta(hours=8))
REFETCH = datetime(2025, 6, 13, 9, 0, tzinfo=BJ)


def test_a_fetch_recorded_after_the_cutoff_shows_no_recorded_at(
    writable_lake: Path, make_client: Callable[..., TestClient]
) -> None:
    with Catalog(lake_root=writable_lake) as cat:
        cat.record_ledger("quotes", "2025-06-12", "OK", rows=5, vendor="tushare", at=REFETCH)
    client = make_client(writable_lake)

    def quotes_row(as_of: str) -> dict:
        body = client.get("/v1/status", params={"as_of": as_of}).json()
        return next(r for r in body["data"] if r["dataset"] == "quotes")

    before = quotes_row("2025-06-12T20:00:00+08:00")
    assert before["latest_session"] == "2025-06-12" and before["latest_session_status"] == "OK"
    assert before["latest_session_recorded_at"] is None  # 06-13 09:00 is after the cutoff
    after = quotes_row("2025-06-13T10:00:00+08:00")
    assert after["latest_session_recorded_at"] == "2025-06-13T09:00:00+08:00"
