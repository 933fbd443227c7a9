"""The nightly flow end to end over the bundled sample, in a real Prefect server."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

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
        "limit_prices": "OK",
        # only the ST stock is at its limit on 04-10, and both vendors leave ST out: fetched,
        # nobody on the lists — a successful empty fetch, not a failure
        "limit_pools": "NO_DATA",
        "financials": s["financials"]["status"],
        "news": s["news"]["status"],
        "announcements": "OK",
        "disclosure_schedule": "OK",  # the 2024 annual and 2025 Q1 schedules, in season
        "securities": "OK",
        "new_shares": "NO_DATA",  # no IPO subscribed 03-10 … 05-11 (603398.SH: 05-29)
    }
    assert ledger(lake, "quotes", "2025-04-10").rows == listed_on(replay, "2025-04-10")
    # the notices since the previous session, 600234.SH's without rec_time among them
    assert ledger(lake, "announcements", "2025-04-10").vendor == "tushare"
    assert ledger(lake, "limit_prices", "2025-04-10").rows == 11  # every code listed then
    assert ledger(lake, "index_quotes", "2025-04-10").rows == 8  # the eight indices
    lhb = ledger(lake, "dragon_tiger", "2025-04-10")
    assert str(lhb.status) == "OK" and lhb.rows >= 2
    assert lhb.vendor == "tushare"

    state = run_nightly(lake, replay, "2025-06-03")
    assert state.is_completed(), state.message
    assert str(ledger(lake, "dragon_tiger", "2025-06-03").status) == "NO_DATA"
    assert str(ledger(lake, "quotes", "2025-06-03").status) == "OK"
    assert ledger(lake, "index_members", "2025-06-03").rows == 10  # the monthly snapshot
    assert ledger(lake, "new_shares", "2025-06-03").rows == 1  # 603398.SH, subscribed 05-29
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


def test_the_gate_warns_naming_the_code_a_vendor_pool_disagrees_on(
    lake: Path, replay: Path
) -> None:
    """2025-06-18: Tushare lists 688981.SH as a limit-up; the bars of the same run close it
    +16.12 %, under its 20 % limit. The batch is written (a warning, not a rejection) and the
    validation record names the code."""
    from pitlake.lake.catalog import Catalog

    state = run_nightly(
        lake, replay, "2025-06-18", datasets=["quotes", "limit_prices", "limit_pools"]
    )
    assert state.is_completed(), state.message
    assert str(ledger(lake, "limit_pools", "2025-06-18").status) == "OK"
    c = Catalog(lake_root=lake)
    try:
        records = c.validations("limit_pools")
        prices = c.validations("limit_prices")
    finally:
        c.close()
    warned = [r for r in records if r.severity == "warning" and not r.success]
    assert warned, records
    assert "688981.SH" in json.dumps(warned[0].failed_expectations, ensure_ascii=False)
    assert all(r.success for r in prices)  # the published limit prices are the rule's


def test_the_last_wave_lands_while_the_statements_are_still_fetched(
    lake: Path, replay: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The flow plans the limit lists and news once the master and the bars are committed
    (planning.session_stages), not after the whole second wave: a statements fetch that
    waits for them still ends OK."""
    import threading

    from pitlake.tasks import ingest as tasks

    later_done = threading.Event()
    waited: list[bool] = []
    real_fetch, real_commit = tasks.fetch_unit, tasks.commit_batches

    def fetch(spec, unit):  # type: ignore[no-untyped-def]
        if unit.dataset == "financials":
            waited.append(later_done.wait(timeout=60))
        return real_fetch(spec, unit)

    def commit(spec, batches, verdicts):  # type: ignore[no-untyped-def]
        out = real_commit(spec, batches, verdicts)
        if any(b.unit.dataset == "limit_prices" for b in batches):
            later_done.set()
        return out

    monkeypatch.setattr(tasks, "fetch_unit", fetch)
    monkeypatch.setattr(tasks, "commit_batches", commit)
    names = ["securities", "new_shares", "quotes", "financials", "limit_prices", "news"]
    state = run_nightly(lake, replay, "2025-06-03", datasets=names)
    assert waited == [True], "the limit prices waited for the statements"
    got = by_dataset(summary(state))
    assert got["limit_prices"]["status"] == "OK" and got["financials"]["status"] in (
        "OK",
        "NO_DATA",
    )
