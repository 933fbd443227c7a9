"""A run survives a broken unit and always records its summary; NOT_READY is refetched by
Prefect's retry of the unit's task, at once on a replay; the summary says why a run did
nothing or skipped a date. In a real Prefect server, over the bundled sample."""

from __future__ import annotations

import json
import time
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from pitlake.lake.catalog import Catalog
from pitlake.pipeline import commit as commit_module
from pitlake.pipeline.ledger import rows_by_scope
from pitlake.pipeline.units import Unit
from tests.flows.conftest import REPO
from tests.flows.helpers import (
    by_dataset,
    inject,
    ledger,
    listed_on,
    run_backfill,
    run_nightly,
    summary,
)
from tests.flows.test_cli_and_dask import _cli


def _recorded_summary(lake: Path, state: object) -> dict:
    run_id = summary(state)["scope"].rsplit("run ", 1)[1]
    with Catalog(lake_root=lake) as c:
        run = c.run(run_id)
    assert run is not None and run.summary, "the run recorded no summary"
    return run.summary


def test_the_reported_symbols_backfill_completes(prefect_server, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    args = ["ingest", "--source", f"replay:{REPO / 'sample'}", "--start", "2025-06-02"]
    args += ["--end", "2025-06-06", "--symbols", "600519.SH", "--lake", str(lake), "--json"]
    r = _cli(args, {**__import__("os").environ, **prefect_server})
    assert "Traceback" not in r.stdout + r.stderr and "no summary" not in r.stderr, r.stderr
    assert r.returncode == 0, r.stderr[-2000:]
    s = by_dataset(json.loads(r.stdout))
    assert s["news"]["status"] == "OK" and s["quotes"]["status"] == "OK"
    assert str(ledger(lake, "news", "2025-06-06", "600519.SH").status) == "OK"
    assert str(ledger(lake, "quotes", "2025-06-06", "600519.SH").status) == "OK"


def test_a_backfill_survives_a_broken_commit_of_one_dataset(
    lake: Path, replay: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = rows_by_scope

    def broken(unit: Unit, frame: pd.DataFrame) -> dict:
        if unit.dataset == "valuation":
            raise RuntimeError("planted commit bug")
        return real(unit, frame)

    monkeypatch.setattr(commit_module, "rows_by_scope", broken)
    state = run_backfill(
        lake, replay, "2025-06-03", "2025-06-05", datasets=["quotes", "valuation", "news"]
    )
    assert state.is_failed()
    s = by_dataset(_recorded_summary(lake, state))
    assert s["valuation"]["status"] == "UPSTREAM_ERROR"
    assert "RuntimeError: planted commit bug" in s["valuation"]["message"]
    assert s["quotes"]["status"] == "OK" and s["news"]["status"] in ("OK", "NO_DATA")
    for d in ("2025-06-03", "2025-06-04", "2025-06-05"):
        assert str(ledger(lake, "valuation", d).status) == "UPSTREAM_ERROR"
        assert str(ledger(lake, "quotes", d).status) == "OK"


def test_a_nightly_survives_a_broken_gate_of_one_dataset(
    lake: Path, replay: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pitlake.expectations.gate as gate_mod

    real = gate_mod.validate

    def broken(dataset: str, frame: pd.DataFrame, ctx: object) -> object:
        if dataset == "adj_factors":
            raise KeyError("planted gate bug")
        return real(dataset, frame, ctx)

    monkeypatch.setattr(gate_mod, "validate", broken)
    state = run_nightly(lake, replay, "2025-06-03", datasets=["quotes", "adj_factors", "news"])
    assert state.is_failed()
    s = by_dataset(_recorded_summary(lake, state))
    assert s["adj_factors"]["status"] == "UPSTREAM_ERROR"
    assert "gate failed: KeyError" in s["adj_factors"]["message"]
    assert s["quotes"]["status"] == "OK" and s["news"]["status"] in ("OK", "NO_DATA")
    assert str(ledger(lake, "adj_factors", "2025-06-03").status) == "UPSTREAM_ERROR"
    assert str(ledger(lake, "quotes", "2025-06-03").status) == "OK"


def test_not_ready_is_refetched_by_a_prefect_retry_without_waiting_on_a_replay(
    lake: Path, replay: Path
) -> None:
    """The first answer is the previous session's (not published yet); the task's retry
    fetches again and gets the session. 900 s asked, none waited: a replay has nothing
    later to publish."""
    inject(replay, "tushare", "daily", {"error": "stale", "times": 1})
    t0 = time.monotonic()
    state = run_nightly(
        lake,
        replay,
        "2025-06-03",
        datasets=["quotes"],
        not_ready_retries=1,
        not_ready_delay_seconds=900.0,
    )
    assert time.monotonic() - t0 < 120
    assert state.is_completed(), state.message
    entry = ledger(lake, "quotes", "2025-06-03")
    assert str(entry.status) == "OK" and entry.rows == listed_on(replay, "2025-06-03")


def test_not_ready_without_refetches_left_says_a_replay_was_not_waited_for(
    lake: Path, replay: Path
) -> None:
    inject(replay, "tushare", "daily", {"error": "stale", "times": 1})
    state = run_nightly(lake, replay, "2025-06-03", datasets=["quotes"], not_ready_retries=0)
    assert state.is_failed()
    s = summary(state)
    assert by_dataset(s)["quotes"]["status"] == "NOT_READY"
    assert "a replay publishes nothing later" in s["note"]


def test_a_non_session_says_why_and_a_finished_backfill_says_nothing_was_left(
    lake: Path, replay: Path
) -> None:
    s = by_dataset(summary(run_nightly(lake, replay, "2025-06-01", datasets=["quotes"])))
    assert s["quotes"]["message"] == "2025-06-01 is not an XSHG session (Sunday)"
    assert run_backfill(lake, replay, "2025-06-03", "2025-06-04", datasets=["quotes"])
    again = summary(run_backfill(lake, replay, "2025-06-03", "2025-06-04", datasets=["quotes"]))
    assert again["datasets"] == [] and again["note"].startswith("nothing left to do")
    assert "--force" in again["note"]
    assert str(ledger(lake, "quotes", date(2025, 6, 4).isoformat()).status) == "OK"
