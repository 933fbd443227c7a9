"""The symbols a per-symbol dataset (news) asks about come from the security master known at
the run, never from the quotes already stored (issue 32 item 1, decision 38). Over the
bundled sample: 603398.SH lists on 2025-06-10 and has news from 2025-04-17 on."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pitlake.read.lake import Lake
from tests.flows.conftest import SAMPLE
from tests.flows.helpers import by_dataset, run_backfill, summary

NEW = "603398.SH"  # lists on 2025-06-10
DATASETS = ["securities", "quotes", "news"]


def _news(lake: Path, start: str, end: str) -> list[dict]:
    with Lake(lake) as lk:
        r = lk.news(NEW, start=start, end=end, as_of=end)
    return [d for d in r.data if NEW in d["symbols"]]


@contextmanager
def _unwritable(path: Path) -> Iterator[None]:
    """No file can be created in `path` (root ignores modes: the immutable flag then)."""
    if os.geteuid() != 0:
        path.chmod(0o555)
        try:
            yield
        finally:
            path.chmod(0o755)
        return
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("running as root on a filesystem without chattr +i")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_failed_quotes_write_does_not_hide_a_new_listing_from_news(lake: Path) -> None:
    run_backfill(lake, SAMPLE, "2025-04-01", "2025-05-15", datasets=DATASETS)
    with _unwritable(lake / "curated" / "quotes" / "year=2025"):
        failed = by_dataset(
            summary(run_backfill(lake, SAMPLE, "2025-05-16", "2025-06-30", datasets=DATASETS))
        )
    assert failed["quotes"]["status"] != "OK"  # the fault took
    again = summary(run_backfill(lake, SAMPLE, "2025-05-16", "2025-06-30", datasets=DATASETS))
    assert again["completed"], again
    assert len(_news(lake, "2025-05-16", "2025-06-30")) == 2


def test_two_half_ingests_hold_the_news_of_one_full_ingest(tmp_path: Path) -> None:
    halves, full = tmp_path / "halves", tmp_path / "full"
    run_backfill(halves, SAMPLE, "2025-04-01", "2025-05-15", datasets=DATASETS)
    run_backfill(halves, SAMPLE, "2025-05-16", "2025-06-30", datasets=DATASETS)
    run_backfill(full, SAMPLE, "2025-04-01", "2025-06-30", datasets=DATASETS)
    whole = _news(full, "2025-04-01", "2025-06-30")
    assert len(whole) == 3
    got = _news(halves, "2025-04-01", "2025-06-30")
    assert sorted(d["news_id"] for d in got) == sorted(d["news_id"] for d in whole)


def test_a_lake_that_cannot_be_written_is_named_and_exits_5(prefect_server, lake: Path) -> None:
    """A local write failure is LAKE_UNWRITABLE (not the vendor's UPSTREAM_ERROR), and the
    CLI exits 5, as its help says (issue 32 item 4)."""
    import json

    from tests.flows.test_cli_and_dask import _cli

    run_backfill(lake, SAMPLE, "2025-06-02", "2025-06-03", datasets=["quotes"])
    args = ["ingest", "--source", f"replay:{SAMPLE}", "--start", "2025-06-04", "--end"]
    args += ["2025-06-05", "--datasets", "quotes", "--lake", str(lake), "--json"]
    with _unwritable(lake / "curated" / "quotes" / "year=2025"):
        r = _cli(args, {**os.environ, **prefect_server})
    assert r.returncode == 5, r.stderr[-2000:]
    quotes = by_dataset(json.loads(r.stdout))["quotes"]
    assert quotes["status"] == "LAKE_UNWRITABLE", quotes
