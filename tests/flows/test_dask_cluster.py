"""The backfill and the nightly on a real Dask cluster (two worker processes, prefect-dask's
DaskTaskRunner) leave the same lake and ledger as the same runs in one process (issue 31).

The catalog is PostgreSQL when PITLAKE_TEST_PG_URL is set (one fresh schema per lake), SQLite
beside each lake otherwise. Worker processes take the catalog URL and the Prefect API from the
environment they are spawned with, as an ingest host's workers do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from distributed import LocalCluster
from prefect_dask import DaskTaskRunner

from pitlake import schemas
from pitlake.lake.catalog import Catalog
from pitlake.lake.catalog_engine import ENV_URL
from tests.flows.helpers import dataset_rows, summary
from tests.lake.conftest import fresh_pg_url

WINDOW = ("2025-06-03", "2025-06-06")  # four sessions of the sample, every backfill dataset
NIGHT = "2025-06-09"  # the next session, every nightly dataset


def _ingest(lake: Path, source: str, task_runner: Any | None) -> list[dict[str, Any]]:
    """The window's backfill, then the next session's nightly; both summaries."""
    from pitlake.flows.backfill import backfill
    from pitlake.flows.nightly import nightly

    if task_runner is not None:
        backfill = backfill.with_options(task_runner=task_runner)
        nightly = nightly.with_options(task_runner=task_runner)
    b = backfill(start=WINDOW[0], end=WINDOW[1], source=source, lake=str(lake), return_state=True)
    n = nightly(
        trade_date=NIGHT,
        source=source,
        lake=str(lake),
        not_ready_delay_seconds=0.0,
        return_state=True,
    )
    return [summary(b), summary(n)]


def _ledger(url: str | None, lake: Path) -> list[tuple[Any, ...]]:
    cat = Catalog(url, lake_root=lake)
    try:
        return sorted(
            (e.dataset, e.date_key, e.symbol, str(e.status), e.rows, e.vendor, e.window_start)
            for e in cat.ledger_entries()
        )
    finally:
        cat.close()


def _files(url: str | None, lake: Path) -> list[tuple[str, str, str, int]]:
    cat = Catalog(url, lake_root=lake)
    try:
        return sorted(
            (r.dataset, r.partition, str(Path(r.path).relative_to(lake)), r.rows)
            for r in cat.partition_files()
        )
    finally:
        cat.close()


def _statuses(summaries: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{d["dataset"]: str(d["status"]) for d in s["datasets"]} for s in summaries]


def test_dask_cluster_gives_the_in_process_lake_and_ledger(
    prefect_server: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = f"replay:{Path(__file__).resolve().parents[2] / 'sample'}"
    here, there = tmp_path / "in-process", tmp_path / "dask"
    with fresh_pg_url() as url_here, fresh_pg_url() as url_there:
        if url_here:
            monkeypatch.setenv(ENV_URL, url_here)
        local = _ingest(here, source, None)

        # The workers are spawned with the Dask lake's catalog URL and the test's server.
        for k, v in prefect_server.items():
            monkeypatch.setenv(k, v)
        if url_there:
            monkeypatch.setenv(ENV_URL, url_there)
        with LocalCluster(
            n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None
        ) as cluster:
            spread = _ingest(there, source, DaskTaskRunner(address=cluster.scheduler_address))

        assert _statuses(spread) == _statuses(local)
        nightly = _statuses(spread)[1]
        assert set(nightly) == set(schemas.NIGHTLY_DATASETS)
        assert "UPSTREAM_ERROR" not in nightly.values(), spread[1]
        assert nightly["quotes"] == "OK"

        ledger = _ledger(url_here, here)
        assert ledger and _ledger(url_there, there) == ledger
        assert _files(url_there, there) == _files(url_here, here)
    for dataset in schemas.DATASETS:
        assert dataset_rows(there, dataset) == dataset_rows(here, dataset), dataset
    assert any(dataset_rows(here, d) for d in schemas.DATASETS)
