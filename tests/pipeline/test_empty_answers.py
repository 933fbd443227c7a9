"""pitlake.pipeline without Prefect: how an empty whole-market answer is recorded."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from pitlake.pipeline.commit import commit
from pitlake.pipeline.fetch import fetch
from pitlake.pipeline.gating import gate
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Unit, UnitOutcome

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
D = date(2025, 6, 3)


@pytest.fixture
def empty_quotes(tmp_path: Path) -> RunEnv:
    """Every quotes source answers 'no rows' (a vendor that has not published D yet)."""
    replay = tmp_path / "replay"
    shutil.copytree(SAMPLE, replay)
    no_data = json.dumps({"error": "no_data"})
    (replay / "tushare" / "daily.error.json").write_text(no_data)
    for endpoint in ("stock_zh_a_hist", "stock_zh_a_daily", "stock_zh_a_hist_tx"):
        (replay / "akshare" / f"{endpoint}.error.json").write_text(no_data)
    return RunEnv(tmp_path / "lake", source=f"replay:{replay}", run_id="run-1")


def _run(env: RunEnv, unit: Unit) -> UnitOutcome:
    batch = fetch(env, unit)
    return commit(env, [batch], gate(env, [batch], align_on=D))[0]


def test_an_empty_whole_market_session_is_not_ready(empty_quotes: RunEnv) -> None:
    out = _run(empty_quotes, Unit("quotes", D, trade_date=D))
    assert out.status == "NOT_READY"  # the market is never empty on a session
    assert str(empty_quotes.catalog.ledger_entry("quotes", D).status) == "NOT_READY"


def test_an_empty_symbol_is_no_data(empty_quotes: RunEnv) -> None:
    out = _run(empty_quotes, Unit("quotes", D, trade_date=D, symbols=("600519.SH",)))
    assert out.status == "NO_DATA"  # one stock can be suspended
    entry = empty_quotes.catalog.ledger_entry("quotes", D, "600519.SH")
    assert str(entry.status) == "NO_DATA"


def test_raw_capture_keeps_one_file_per_answer_in_answer_order(tmp_path: Path) -> None:
    """Raw answers are written by several threads; each still gets its own file, numbered in
    the order the adapter asked (symbol by symbol, statement by statement), with the call's
    parameters in its metadata."""
    import pyarrow.parquet as pq

    env = RunEnv(tmp_path / "lake", source=f"replay:{SAMPLE}", run_id="run-raw", capture_raw=True)
    symbols = ("600519.SH", "000001.SZ", "300750.SZ")
    batch = fetch(env, Unit("financials", D, start=D, end=D, symbols=symbols))
    env.close()
    assert batch.route.ok
    files = list((tmp_path / "lake" / "raw").rglob("run-raw-*.parquet"))
    seqs = sorted(int(p.stem.rsplit("-", 1)[1]) for p in files)
    assert len(files) >= 6 and seqs == list(range(seqs[0], seqs[0] + len(files)))
    asked = []
    for p in sorted(files, key=lambda p: int(p.stem.rsplit("-", 1)[1])):
        meta = pq.read_metadata(p).metadata
        asked.append(
            (json.loads(meta[b"pitlake.params"])["ts_code"], meta[b"pitlake.endpoint"].decode())
        )
    order = {"income": 0, "balancesheet": 1, "cashflow": 2}
    rank = [(symbols.index(code), order[endpoint]) for code, endpoint in asked]
    assert rank == sorted(rank) and len(set(rank)) == len(rank)
    assert {code for code, _ in asked} == set(symbols)
