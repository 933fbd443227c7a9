"""The backfill flow: resumable, complete for as-of answers inside its window, and equal to
what nightly runs made visible (the time-travel property)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pitlake.calendar import sessions_between
from pitlake.read.lake import Lake
from tests.flows.helpers import (
    by_dataset,
    curated_hashes,
    inject,
    ledger,
    run_backfill,
    run_nightly,
    summary,
)

SYMBOLS = [
    "600519.SH",
    "601318.SH",
    "000001.SZ",
    "000002.SZ",
    "688981.SH",
    "300750.SZ",
    "430047.BJ",
    "600234.SH",
    "002594.SZ",
    "920099.BJ",
]


def _answers(lake: Path, d: str) -> dict[str, Any]:
    """Every dataset's as-of-D answer, without the columns that say *when this lake* stored
    a row (ingested_at, run_id): those differ between two lakes by construction."""
    lk = Lake(lake)
    reads = {
        "quotes": lk.quotes(SYMBOLS, start="2025-05-20", end=d, as_of=d),
        "qfq": lk.quotes(
            ["600519.SH", "000001.SZ"], start="2025-05-20", end=d, as_of=d, adjust="qfq"
        ),
        "valuation": lk.valuation(SYMBOLS, start="2025-05-20", end=d, as_of=d),
        "dragon_tiger": lk.dragon_tiger(start="2025-04-01", end=d, as_of=d),
        "financials": lk.financials(SYMBOLS, as_of=d),
        "latest_report": lk.financials(SYMBOLS, as_of=d, latest_only=True),
        "news": lk.news(None, start="2025-05-25", end=d, as_of=d),
    }
    return {
        name: (
            str(r.status),
            r.effective_trade_date,
            [
                json.dumps(
                    {k: v for k, v in row.items() if k not in ("ingested_at", "run_id")},
                    sort_keys=True,
                    default=str,
                )
                for row in r.data
            ],
        )
        for name, r in reads.items()
    }


def test_backfill_equals_nightly_runs_as_of_each_session(tmp_path: Path, replay: Path) -> None:
    nightly_lake, backfill_lake = tmp_path / "nightly", tmp_path / "backfill"
    # Both lakes hold the same history before the window ...
    assert run_backfill(nightly_lake, replay, "2025-04-01", "2025-06-04").is_completed()
    # ... then one runs the nightly flow each session, the other one backfill over all of it.
    window = [d.isoformat() for d in sessions_between("2025-06-05", "2025-06-12")]
    for d in window:
        assert run_nightly(nightly_lake, replay, d).is_completed(), d
    assert run_backfill(backfill_lake, replay, "2025-04-01", "2025-06-12").is_completed()
    for d in window:
        a, b = _answers(nightly_lake, d), _answers(backfill_lake, d)
        for name in a:
            assert a[name] == b[name], f"{name} as of {d} differs"
    # The window holds the 688981.SH Q1 correction (2025-06-10): before it the first figures,
    # from it the corrected ones — in both lakes.
    before = Lake(backfill_lake).financials(
        ["688981.SH"], as_of="2025-06-09", statement="income", periods=["2025-03-31"]
    )
    after = Lake(backfill_lake).financials(
        ["688981.SH"], as_of="2025-06-10", statement="income", periods=["2025-03-31"]
    )
    assert before.data[0]["known_at_basis"] == "announcement"
    assert after.data[0]["known_at_basis"] == "revision"
    assert before.data[0]["revenue"] != after.data[0]["revenue"]


def test_backfill_is_resumable_and_force_refetches_nothing_new(lake: Path, replay: Path) -> None:
    assert run_backfill(
        lake, replay, "2025-05-01", "2025-05-31", datasets=["quotes", "adj_factors"]
    ).is_completed()
    hashes = curated_hashes(lake)
    again = run_backfill(
        lake, replay, "2025-05-01", "2025-05-31", datasets=["quotes", "adj_factors"]
    )
    assert again.is_completed()
    assert summary(again)["datasets"] == []  # the ledger had every unit: nothing fetched
    forced = run_backfill(lake, replay, "2025-05-01", "2025-05-31", datasets=["quotes"], force=True)
    assert forced.is_completed()
    s = by_dataset(summary(forced))
    assert s["quotes"]["units"] == len(sessions_between("2025-05-01", "2025-05-31"))
    assert s["quotes"]["rows_added"] == 0
    assert curated_hashes(lake) == hashes


def test_backfill_failure_marks_exactly_the_failed_session(lake: Path, replay: Path) -> None:
    inject(
        replay, "tushare", "daily", {"error": "upstream_error", "match": {"trade_date": "20250514"}}
    )
    inject(replay, "akshare", "stock_zh_a_hist", {"error": "upstream_error"})
    inject(replay, "akshare", "stock_zh_a_daily", {"error": "upstream_error"})
    inject(replay, "akshare", "stock_zh_a_hist_tx", {"error": "upstream_error"})
    state = run_backfill(lake, replay, "2025-05-12", "2025-05-16", datasets=["quotes"])
    assert state.is_failed()
    statuses = {
        d.isoformat(): str(ledger(lake, "quotes", d.isoformat()).status)
        for d in sessions_between("2025-05-12", "2025-05-16")
    }
    assert statuses == {
        "2025-05-12": "OK",
        "2025-05-13": "OK",
        "2025-05-14": "UPSTREAM_ERROR",
        "2025-05-15": "OK",
        "2025-05-16": "OK",
    }
    # the repair run fetches only the failed session
    for f in replay.glob("*/*.error.json"):
        f.unlink()
    repair = run_backfill(lake, replay, "2025-05-12", "2025-05-16", datasets=["quotes"])
    assert repair.is_completed()
    assert by_dataset(summary(repair))["quotes"]["units"] == 1
    assert str(ledger(lake, "quotes", "2025-05-14").status) == "OK"
