"""The nightly flow end to end over the bundled sample, in a real Prefect server."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pitlake.read.lake import Lake
from tests.flows.helpers import (
    by_dataset,
    curated_hashes,
    inject,
    ledger,
    listed_on,
    run_nightly,
    summary,
)


def test_nightly_ledger_per_dataset_on_two_sessions(lake: Path, replay: Path) -> None:
    state = run_nightly(lake, replay, "2025-04-10")
    assert state.is_completed(), state.message
    s = by_dataset(summary(state))
    assert {d: s[d]["status"] for d in s} == {
        "quotes": "OK",
        "adj_factors": "OK",
        "valuation": "OK",
        "index_quotes": "OK",
        "dragon_tiger": "OK",
        "index_members": "NO_DATA",  # not a snapshot day; AkShare's list is today's only
        "financials": s["financials"]["status"],
        "news": s["news"]["status"],
        "announcements": "OK",
        "disclosure_schedule": "OK",  # the 2024 annual and 2025 Q1 schedules, in season
        "securities": "OK",
    }
    assert ledger(lake, "quotes", "2025-04-10").rows == listed_on(replay, "2025-04-10")
    # the notices since the previous session, 600234.SH's without rec_time among them
    assert ledger(lake, "announcements", "2025-04-10").vendor == "tushare"
    assert ledger(lake, "index_quotes", "2025-04-10").rows == 8  # the eight indices
    lhb = ledger(lake, "dragon_tiger", "2025-04-10")
    assert str(lhb.status) == "OK" and lhb.rows >= 2
    assert lhb.vendor == "tushare"

    state = run_nightly(lake, replay, "2025-06-03")
    assert state.is_completed(), state.message
    assert str(ledger(lake, "dragon_tiger", "2025-06-03").status) == "NO_DATA"
    assert str(ledger(lake, "quotes", "2025-06-03").status) == "OK"
    assert ledger(lake, "index_members", "2025-06-03").rows == 10  # the monthly snapshot
    # the dragon-tiger list of 04-10 carries the stock listed for two reasons, and no
    # future-return column
    r = Lake(lake).dragon_tiger(date="2025-04-10", as_of="2025-04-10")
    assert r.status == "OK"
    reasons = [row["reason"] for row in r.data if row["symbol"] == "600234.SH"]
    assert len(reasons) == 2 and len(set(reasons)) == 2
    assert not any("上榜后" in k for row in r.data for k in row)


def test_second_run_writes_nothing(lake: Path, replay: Path) -> None:
    assert run_nightly(lake, replay, "2025-06-03").is_completed()
    before = curated_hashes(lake)
    state = run_nightly(lake, replay, "2025-06-03")
    assert state.is_completed()
    assert all(d["rows_added"] == 0 for d in summary(state)["datasets"])
    assert curated_hashes(lake) == before


def test_rate_limit_is_retried_and_completes(lake: Path, replay: Path) -> None:
    inject(replay, "tushare", "daily", {"error": "rate_limited", "times": 2})
    state = run_nightly(lake, replay, "2025-06-03", datasets=["quotes"])
    assert state.is_completed(), state.message
    entry = ledger(lake, "quotes", "2025-06-03")
    assert str(entry.status) == "OK" and entry.vendor == "tushare"
    assert entry.trace[0]["vendor"] == "tushare" and entry.trace[0]["attempts"] == 3


def test_non_session_is_skipped(lake: Path, replay: Path) -> None:
    state = run_nightly(lake, replay, "2025-06-01")  # Sunday in the Dragon Boat holiday
    assert state.is_completed()
    for ds in ("quotes", "financials", "news"):
        assert str(ledger(lake, ds, "2025-06-01").status) == "SKIPPED"
    assert not (lake / "curated").exists() or not list((lake / "curated").rglob("*.parquet"))


def test_stale_answer_is_not_ready_and_nothing_written(lake: Path, replay: Path) -> None:
    inject(replay, "tushare", "daily", {"error": "stale", "match": {"trade_date": "20250603"}})
    state = run_nightly(
        lake, replay, "2025-06-03", datasets=["quotes", "valuation"], not_ready_retries=1
    )
    assert state.is_failed()
    s = by_dataset(summary(state))
    assert s["quotes"]["status"] == "NOT_READY"
    assert s["valuation"]["status"] == "OK"  # the other dataset is unaffected
    assert str(ledger(lake, "quotes", "2025-06-03").status) == "NOT_READY"
    stored = (
        pd.concat(pd.read_parquet(p) for p in (lake / "curated" / "quotes").rglob("*.parquet"))
        if (lake / "curated" / "quotes").exists()
        else pd.DataFrame({"trade_date": []})
    )
    assert len(stored) == 0  # neither the 06-03 request nor the stale 05-30 rows
    assert list((lake / "quarantine" / "quotes").rglob("*.parquet"))
    r = Lake(lake).quotes(["600519.SH"], start="2025-06-03", end="2025-06-03", as_of="2025-06-04")
    assert r.status == "NOT_READY" and r.retryable and r.data == []


def test_permission_denied_falls_through_to_next_vendor(lake: Path, replay: Path) -> None:
    inject(replay, "tushare", "top_list", {"error": "permission_denied"})
    state = run_nightly(lake, replay, "2025-04-10", datasets=["dragon_tiger"])
    assert state.is_completed(), state.message
    entry = ledger(lake, "dragon_tiger", "2025-04-10")
    assert entry.vendor == "akshare"
    assert [t["outcome"] for t in entry.trace] == ["PERMISSION_DENIED", "OK"]
