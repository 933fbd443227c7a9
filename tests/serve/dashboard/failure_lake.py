"""A lake built from a copy of `sample/` with known, injected failures: the dashboard's
browser test and its screenshot (docs/dashboard.png) both use it.

Planted in the copy (see docs/replay-format.md):
- quotes 2025-06-12: Tushare `daily` gives 600519.SH a low above its high, so the gate rejects
  the batch (ledger REJECTED, a quarantine record naming `ohlc_low`);
- valuation 2025-06-10 and 2025-06-30: Tushare `daily_basic` answers with an upstream error
  (ledger UPSTREAM_ERROR; valuation's latest OK session is then 2025-06-27);
- adj_factors 2025-05-20: Tushare `adj_factor` answers the previous session's rows ("stale"),
  so the gate holds the batch back (ledger NOT_READY).

The ingest runs the plain functions of `pitlake.pipeline` (no Prefect), the same ones the flows
call, so building takes seconds rather than a flow server's start-up.

    python -m tests.serve.dashboard.failure_lake DEST   # build a lake at DEST (for screenshots)
"""

from __future__ import annotations

import json
import shutil
import sys
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "sample"
START, END = date(2025, 4, 1), date(2025, 6, 30)

REJECTED_AT = ("quotes", "2025-06-12")
REJECTED_SYMBOL = "600519.SH"
REJECTED_EXPECTATION = "ohlc_low"
UPSTREAM_ERROR_AT = ("valuation", "2025-06-10")
UPSTREAM_ERROR_DATES = ("20250610", "20250630")
NOT_READY_AT = ("adj_factors", "2025-05-20")
DATASETS_FIRST = ("quotes", "adj_factors", "valuation", "dragon_tiger", "calendar")
DATASETS_LATER = ("financials", "news")  # their universe is the symbols quotes brought


def plant_failures(replay: Path) -> None:
    """Edit a copy of the sample replay directory in place."""
    daily = replay / "tushare" / "daily.jsonl"
    rows = [json.loads(line) for line in daily.read_text(encoding="utf-8").splitlines() if line]
    day = REJECTED_AT[1].replace("-", "")
    hit = 0
    for r in rows:
        if r["ts_code"] == REJECTED_SYMBOL and r["trade_date"] == day:
            r["low"] = round(r["high"] + 5.0, 2)  # low above high: OHLC inconsistent
            hit += 1
    assert hit == 1, f"the sample has no {REJECTED_SYMBOL} bar on {day}"
    daily.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    rules = [{"error": "upstream_error", "match": {"trade_date": d}} for d in UPSTREAM_ERROR_DATES]
    (replay / "tushare" / "daily_basic.error.json").write_text(json.dumps(rules))
    stale = {"error": "stale", "match": {"trade_date": NOT_READY_AT[1].replace("-", "")}}
    (replay / "tushare" / "adj_factor.error.json").write_text(json.dumps(stale))


def build_failure_lake(workdir: Path) -> Path:
    """Copy the sample into `workdir/replay`, plant the failures, ingest 2025-04-01 …
    2025-06-30 into `workdir/lake` as one backfill run; returns the lake directory."""
    from pitlake.pipeline.backfill import backfill_chunk
    from pitlake.pipeline.planning import chunks_for
    from pitlake.pipeline.resources import RunEnv, new_run_id
    from pitlake.pipeline.summary import summarize
    from pitlake.pipeline.units import UnitOutcome

    replay, lake = workdir / "replay", workdir / "lake"
    shutil.copytree(SAMPLE, replay, ignore=shutil.ignore_patterns("*.py", "README.md"))
    plant_failures(replay)
    run_id = new_run_id("backfill")
    env = RunEnv(lake, source=f"replay:{replay}", run_id=run_id)
    try:
        params = {"start": START.isoformat(), "end": END.isoformat(), "source": "replay:sample"}
        env.catalog.start_run(run_id, "backfill", params)
        outcomes: list[UnitOutcome] = []
        for stage in (DATASETS_FIRST, DATASETS_LATER):
            for ds in stage:
                for lo, hi in chunks_for(ds, START, END):
                    outcomes += backfill_chunk(env, ds, lo, hi, None)
        summary = summarize(outcomes).to_dict()
        summary["scope"] = f"{START}..{END}, run {run_id}"
        env.catalog.finish_run(run_id, "COMPLETED" if summary["completed"] else "FAILED", summary)
    finally:
        env.close()
    return lake


if __name__ == "__main__":
    dest = Path(sys.argv[1])
    dest.mkdir(parents=True, exist_ok=False)
    print(build_failure_lake(dest))
