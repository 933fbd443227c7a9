"""pitlake's Dask worker preload (flows/dask_preload.py, decision 62) and the backfill's order of
chunks across datasets (flows.backfill.interleaved)."""

from __future__ import annotations

import sys

from pitlake.flows.backfill import interleaved
from pitlake.flows.runtime import PRELOAD


def _worker_state() -> dict[str, bool]:
    from pitlake.expectations import warm

    warm.ready()
    context = sys.modules.get("pitlake.expectations.context")
    return {
        "tasks": "pitlake.tasks.ingest" in sys.modules,
        "gate": context is not None and context._state is not None,
    }


def test_a_preloaded_worker_has_the_tasks_and_the_gate_before_its_first_task() -> None:
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            preload=[PRELOAD],
        ) as cluster,
        Client(cluster) as client,
    ):
        (state,) = client.run(_worker_state).values()
    assert state == {"tasks": True, "gate": True}


def test_the_local_cluster_pitlake_starts_preloads_its_workers(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from pitlake.flows import runtime

    monkeypatch.setenv("PITLAKE_TASK_RUNNER", "dask")
    monkeypatch.delenv("PITLAKE_DASK_ADDRESS", raising=False)
    runner = runtime.task_runner()
    assert runner.cluster_kwargs["preload"] == [PRELOAD]


def test_each_month_starts_with_the_next_dataset_and_every_chunk_comes_once() -> None:
    months = [(f"2024-{m:02d}-01", f"2024-{m:02d}-28") for m in range(1, 5)]
    order = interleaved({"quotes": months, "adj_factors": months, "valuation": months[:3]})
    assert sorted(order) == sorted(
        [(ds, lo, hi) for ds in ("quotes", "adj_factors") for lo, hi in months]
        + [("valuation", lo, hi) for lo, hi in months[:3]]
    )
    firsts = [order[i][0] for i in (0, 3, 6)]
    assert firsts == ["quotes", "adj_factors", "valuation"]  # no endpoint always last
    assert [lo for _, lo, _ in order] == sorted(lo for _, lo, _ in order)  # month by month
