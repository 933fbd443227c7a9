"""pitlake.ingest without Prefect: how an empty whole-market answer is recorded."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from pitlake import ingest as core

SAMPLE = Path(__file__).resolve().parents[1] / "sample"
D = date(2025, 6, 3)


@pytest.fixture
def empty_quotes(tmp_path: Path) -> core.RunEnv:
    """Every quotes source answers 'no rows' (a vendor that has not published D yet)."""
    replay = tmp_path / "replay"
    shutil.copytree(SAMPLE, replay)
    no_data = json.dumps({"error": "no_data"})
    (replay / "tushare" / "daily.error.json").write_text(no_data)
    for endpoint in ("stock_zh_a_hist", "stock_zh_a_daily", "stock_zh_a_hist_tx"):
        (replay / "akshare" / f"{endpoint}.error.json").write_text(no_data)
    return core.RunEnv(tmp_path / "lake", source=f"replay:{replay}", run_id="run-1")


def _run(env: core.RunEnv, unit: core.Unit) -> core.UnitOutcome:
    batch = core.fetch(env, unit)
    return core.commit(env, [batch], core.gate(env, [batch], align_on=D))[0]


def test_an_empty_whole_market_session_is_not_ready(empty_quotes: core.RunEnv) -> None:
    out = _run(empty_quotes, core.Unit("quotes", D, trade_date=D))
    assert out.status == "NOT_READY"  # the market is never empty on a session
    assert str(empty_quotes.catalog.ledger_entry("quotes", D).status) == "NOT_READY"


def test_an_empty_symbol_is_no_data(empty_quotes: core.RunEnv) -> None:
    out = _run(empty_quotes, core.Unit("quotes", D, trade_date=D, symbols=("600519.SH",)))
    assert out.status == "NO_DATA"  # one stock can be suspended
    entry = empty_quotes.catalog.ledger_entry("quotes", D, "600519.SH")
    assert str(entry.status) == "NO_DATA"
