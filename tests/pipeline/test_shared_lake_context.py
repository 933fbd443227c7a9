"""What a run reads back from the lake (the master's symbols, a series' owning vendor) follows
writes by another RunEnv on the same lake: each worker process of a Dask cluster opens its own,
and a cached universe from before another worker stored the master made the statements of a
Dask backfill one whole-market NO_DATA (issue 31)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from pitlake import schemas
from pitlake.pipeline.nightly import run_session
from pitlake.pipeline.resources import RunEnv

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
D = date(2025, 6, 3)


def test_a_second_env_sees_the_master_and_the_owners_another_one_stored(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    reader = RunEnv(lake, source=f"replay:{SAMPLE}", run_id="worker-1")
    writer = RunEnv(lake, source=f"replay:{SAMPLE}", run_id="worker-2")
    try:
        assert reader.universe() is None  # nothing stored yet: asked (and kept) now
        assert reader.series_owner("adj_factors", "600519.SH") is None
        done = run_session(writer, D, [schemas.SECURITY_MASTER, "adj_factors"], None)
        assert {o.status for o in done} == {"OK"}
        universe = reader.universe()
        assert universe is not None and "600519.SH" in universe
        assert universe == writer.universe()
        assert reader.series_owner("adj_factors", "600519.SH") == "tushare"
    finally:
        reader.close()
        writer.close()
