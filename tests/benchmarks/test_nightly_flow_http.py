"""The nightly command as operators run it (`pitlake ingest`, its Prefect flow, the live Tushare
client over HTTP) against the simulator on loopback: one whole-market call per by-date
endpoint, every dataset stored, the run recorded — what bench_nightly_flow measures at scale."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from benchmarks.bench_nightly_flow import run


def test_the_nightly_command_runs_against_the_http_simulator(tmp_path: Path) -> None:
    result = run(date(2025, 6, 10), latency=0.0, out=tmp_path / "lake", symbols=30)
    assert result["exit_code"] == 0
    calls = result["calls_per_endpoint"]
    for endpoint in ("daily", "adj_factor", "daily_basic", "top_list", "disclosure_date"):
        assert calls[endpoint] == 1  # whole-market by-date calls, not one per symbol
    assert result["http_replies"] == {"ok": sum(calls.values())}
    statuses = result["statuses"]
    for dataset in ("quotes", "adj_factors", "valuation"):
        assert statuses[dataset][0] == "OK" and statuses[dataset][1] >= 25
    assert statuses["financials"] == ["NO_DATA", 0]  # nobody announced on 2025-06-10
    assert 0 < result["flow_run_wall_s"] <= result["command_wall_s"]
