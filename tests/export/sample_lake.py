"""The bundled sample (sample/, replayed as the vendors) ingested into a lake by the pipeline's
own backfill units, only the datasets a panel and a qlib export read: about 10 s, and the same
answers as the demo's lake (`pitlake demo`)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from pitlake.pipeline.backfill import backfill_chunk
from pitlake.pipeline.resources import RunEnv

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
START, END = date(2025, 4, 1), date(2025, 6, 30)
DATASETS = ("securities", "index_members", "quotes", "adj_factors", "financials")


def build_sample_lake(root: Path) -> Path:
    env = RunEnv(root, source=f"replay:{SAMPLE}", run_id="sample-panel")
    try:
        for dataset in DATASETS:
            outcomes = backfill_chunk(env, dataset, START, END, None)
            failed = [o.message for o in outcomes if o.status != "OK"]
            assert not failed, (dataset, failed)
    finally:
        env.close()
    return root
