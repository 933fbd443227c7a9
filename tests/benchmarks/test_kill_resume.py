"""A backfill SIGKILLed at a point chosen from its progress resumes without loss or duplicates.

The killed run is a forked process (it inherits the imports, so it starts in milliseconds) that
kills itself with SIGKILL at a deterministic point: right after its kth ledger entry (a unit
boundary, inside a chunk whose partition is already written), or inside its 2nd curated
partition write or its 3rd raw answer write (temp file written and fsynced, not yet renamed). The rerun happens here, in
process, into the same lake; a clean lake of the same window is the reference.
"""

from __future__ import annotations

import multiprocessing
import signal
from datetime import date
from pathlib import Path
from typing import Any

import pitlake.expectations.context  # noqa: F401  # the gate's imports, loaded before the fork
import pytest

from benchmarks.bench_faults import (
    backfill,
    count_publishes,
    die_after_ledger,
    lake_facts,
    ledger_done,
    open_env,
)

START, END = date(2024, 1, 2), date(2024, 1, 8)  # 5 sessions
DATASETS = ["quotes", "adj_factors"]  # in this order: the kill points below depend on it
SYMBOLS = 50
UNITS = 5 * len(DATASETS)


def _run(root: Path, run_id: str) -> list[tuple[str, str]]:
    env = open_env(root, END, SYMBOLS, run_id)
    try:
        return [(o.dataset, o.date_key) for o in backfill(env, START, END, DATASETS)]
    finally:
        env.close()


def _killed_run(root: Path, after_ledger: int, at_write: int, zone: str) -> None:
    env = open_env(root, END, SYMBOLS, "killed")
    if after_ledger:
        die_after_ledger(env, after_ledger)
    count_publishes(at_write, zone)
    backfill(env, START, END, DATASETS)
    env.close()


def _kill(root: Path, *, after_ledger: int = 0, at_write: int = 0, zone: str = "curated") -> int:
    proc = multiprocessing.get_context("fork").Process(
        target=_killed_run, args=(root, after_ledger, at_write, zone)
    )
    proc.start()
    proc.join(timeout=120)
    return proc.exitcode if proc.exitcode is not None else 0


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("clean")
    units = _run(root, "clean")
    return {"units": set(units), "facts": lake_facts(root)}


def _assert_resumed(root: Path, clean: dict[str, Any], pending: set[tuple[str, str]]) -> None:
    rerun = _run(root, "rerun")
    assert sorted(rerun) == sorted(pending)  # exactly the units not in the ledger, once each
    after = lake_facts(root)
    for ds in DATASETS:  # same rows (every column but run_id, ingested_at) as the clean lake
        assert after[ds] == clean["facts"][ds], ds
        assert after[ds]["rows"] == after[ds]["distinct_key_versions"]  # no duplicate versions
    assert after["tmp_files"] == []
    assert after["unreadable"] == []
    assert after["parquet_files"] > 0
    assert ledger_done(root) == clean["units"]  # the ledger is complete


def test_clean_run_is_the_full_window(clean: dict[str, Any]) -> None:
    assert len(clean["units"]) == UNITS
    assert all(clean["facts"][ds]["rows"] > 0 for ds in DATASETS)


def test_killed_at_a_unit_boundary_mid_chunk_resumes(tmp_path: Path, clean: dict[str, Any]) -> None:
    # 7 = quotes' 5 units and 2 of adj_factors' 5, whose partition write has already happened.
    assert _kill(tmp_path, after_ledger=7) == -signal.SIGKILL
    done = ledger_done(tmp_path)
    assert len(done) == 7
    at_kill = lake_facts(tmp_path)
    assert at_kill["adj_factors"] == clean["facts"]["adj_factors"]  # written, ledger partial
    _assert_resumed(tmp_path, clean, clean["units"] - done)


def test_killed_inside_a_partition_write_leaves_the_old_file_and_resumes(
    tmp_path: Path, clean: dict[str, Any]
) -> None:
    assert _kill(tmp_path, at_write=2) == -signal.SIGKILL  # adj_factors' write
    at_kill = lake_facts(tmp_path)
    assert [Path(p).parts[:2] for p in at_kill["tmp_files"]] == [("curated", "adj_factors")]
    assert "adj_factors" not in at_kill  # the temp file was never published
    assert at_kill["quotes"] == clean["facts"]["quotes"]
    done = ledger_done(tmp_path)
    assert {ds for ds, _ in done} == {"quotes"}
    _assert_resumed(tmp_path, clean, clean["units"] - done)


def test_killed_inside_a_raw_answer_write_leaves_no_temp_file_after_the_rerun(
    tmp_path: Path, clean: dict[str, Any]
) -> None:
    # Raw answers are written under names no later run reuses: only the sweep of temp files
    # whose writer is gone (pitlake.lake.tempfiles) removes this one.
    assert _kill(tmp_path, at_write=3, zone="raw") == -signal.SIGKILL  # a quotes answer
    at_kill = lake_facts(tmp_path)
    assert any(Path(p).parts[:3] == ("raw", "tushare", "daily") for p in at_kill["tmp_files"])
    assert ledger_done(tmp_path) == set()
    _assert_resumed(tmp_path, clean, clean["units"])


# ---------------------------------------------------------------- years, killed at a random point

YEARS_START, YEARS_END = date(2023, 1, 1), date(2024, 12, 31)  # two years, 24 month chunks each
YEARS_DATASETS = ["quotes", "adj_factors", "valuation"]  # the 20-year backfill's datasets
YEARS_SYMBOLS = 5  # the kill and the resume are about units and files, not the market's size
KILL_SEED = 59


def _years_run(root: Path, run_id: str) -> list[tuple[str, str]]:
    env = open_env(root, YEARS_END, YEARS_SYMBOLS, run_id)
    try:
        outcomes = backfill(env, YEARS_START, YEARS_END, YEARS_DATASETS)
        return [(o.dataset, o.date_key) for o in outcomes]
    finally:
        env.close()


def _years_killed_run(root: Path, after_ledger: int) -> None:
    env = open_env(root, YEARS_END, YEARS_SYMBOLS, "killed")
    die_after_ledger(env, after_ledger)
    backfill(env, YEARS_START, YEARS_END, YEARS_DATASETS)
    env.close()


def test_years_of_backfill_killed_at_a_random_point_rerun_to_the_same_lake_and_ledger(
    tmp_path: Path,
) -> None:
    """Two years of the 20-year backfill's datasets: a real SIGKILL at a ledger entry drawn
    in 20–80 % of the run (seeded: the same point every time), then a rerun into the same lake;
    the lake (every row, each (key, known_at) once, no temp file, every file readable) and the
    ledger equal an uninterrupted run's, and the rerun fetched exactly what the ledger lacked."""
    import random

    from pitlake.calendar import sessions_between

    clean_root = tmp_path / "clean"
    clean_units = set(_years_run(clean_root, "clean"))
    clean_facts = lake_facts(clean_root)
    sessions = sessions_between(YEARS_START, YEARS_END)
    assert len(clean_units) == len(YEARS_DATASETS) * len(sessions)  # one unit per session
    kill_at = random.Random(KILL_SEED).randint(len(clean_units) // 5, len(clean_units) * 4 // 5)
    root = tmp_path / "killed"
    proc = multiprocessing.get_context("fork").Process(
        target=_years_killed_run, args=(root, kill_at)
    )
    proc.start()
    proc.join(timeout=600)
    assert proc.exitcode == -signal.SIGKILL
    done = ledger_done(root)
    assert len(done) == kill_at
    rerun = _years_run(root, "rerun")
    assert sorted(rerun) == sorted(clean_units - done)  # exactly the units the ledger lacked
    after = lake_facts(root)
    for ds in YEARS_DATASETS:
        assert after[ds] == clean_facts[ds], ds
        assert after[ds]["rows"] == after[ds]["distinct_key_versions"]
    assert after["tmp_files"] == [] and after["unreadable"] == []
    assert ledger_done(root) == clean_units
