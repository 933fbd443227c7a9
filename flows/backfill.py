"""Backfill a date range: chunked by month, resumable from the ledger, bounded per vendor."""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

from pitlake.flows import runtime
from pitlake.flows.report import publish
from pitlake.tasks.ingest import backfill_chunk, fail_chunk, finish_run, start_run
from prefect import flow, get_run_logger
from prefect.states import Completed, Failed

from pitlake import progress, schemas
from pitlake.calendar import to_date
from pitlake.pipeline.planning import check_datasets, chunks_for, month_chunks
from pitlake.pipeline.resources import EnvSpec, new_run_id, release
from pitlake.pipeline.summary import summarize
from pitlake.pipeline.units import UnitOutcome

# The master and the issue prices first (the gate reads the master's states and the issue
# prices, and per-symbol datasets, statements and news, ask about the master's symbols),
# then the trade-dated datasets and the calendar.
LATER = schemas.LATER_STAGE
STATES = schemas.GATE_FACT_DATASETS


def interleaved(chunks: dict[str, list[tuple[Any, Any]]]) -> list[tuple[str, Any, Any]]:
    """A stage's chunks month by month across its datasets (quotes Jan, factors Jan, …, factors
    Feb, …, quotes Feb, …), not dataset after dataset: each dataset calls its own endpoint,
    with a quota of its own, so the workers keep every endpoint's quota busy at once and the
    stage takes the slowest endpoint's time, not the sum of them (decision 59)."""
    rows = [[(ds, c_lo, c_hi) for c_lo, c_hi in cs] for ds, cs in chunks.items()]
    tiers = [[w for w in tier if w is not None] for tier in zip_longest(*rows)]
    # Each month starts with the next dataset: a dataset always last in its month would have
    # its endpoint's calls wait behind the others' every month, and finish last.
    return [
        w for i, tier in enumerate(tiers) for w in tier[i % len(tier) :] + tier[: i % len(tier)]
    ]


@flow(name="backfill", task_runner=runtime.task_runner(), validate_parameters=True)
def backfill(
    start: str,
    end: str,
    datasets: list[str] | None = None,
    symbols: list[str] | None = None,
    force: bool = False,
    source: str | None = None,
    lake: str | None = None,
    run_id: str | None = None,
) -> Any:
    """Ingest [start, end]. Skips units the ledger holds as OK or NO_DATA unless `force`.

    Afterwards every as-of answer with a cutoff inside the window is complete: statements
    are fetched as each symbol's whole history, so reports announced before `start` and
    corrections inside the window to old periods are present too."""
    logger = get_run_logger()
    lo, hi = to_date(start), to_date(end)
    syms = schemas.run_symbols(symbols) or None
    names = check_datasets(datasets, schemas.BACKFILL_DATASETS, syms)
    spec = EnvSpec(
        lake=runtime.default_lake(lake),
        run_id=run_id or new_run_id("backfill"),
        source=source,
    )
    chunks = month_chunks(lo, hi)
    params = {
        "start": lo.isoformat(),
        "end": hi.isoformat(),
        "datasets": names,
        "symbols": syms,
        "force": force,
        "source": source,
    }
    start_run(spec, "backfill", params)
    outcomes: list[UnitOutcome] = []
    try:
        stages = (
            [d for d in names if d in STATES],  # the gate reads their states
            [d for d in names if d not in LATER and d not in STATES],
            [d for d in names if d in LATER and d not in STATES],
        )
        progress.plan_chunks(sum(len(chunks_for(ds, lo, hi)) for ds in names))
        for stage in filter(None, stages):
            work = interleaved({ds: chunks_for(ds, lo, hi) for ds in stage})
            futures = [
                backfill_chunk.submit(spec, ds, c_lo, c_hi, syms, force) for ds, c_lo, c_hi in work
            ]
            for (ds, c_lo, c_hi), f in zip(work, futures, strict=True):
                try:
                    outcomes += f.result()
                except Exception as e:  # retries exhausted: the chunk's units end typed
                    outcomes += fail_chunk(spec, ds, c_lo, c_hi, syms, e, force)
                progress.chunk_done(f"{ds} {c_lo}..{c_hi}")
        summary = summarize(outcomes)
        summary.scope = f"{lo}..{hi} in {len(chunks)} month chunk(s), run {spec.run_id}"
        if not outcomes:
            summary.note = (
                f"nothing left to do: every unit of {', '.join(names)} over {lo}..{hi} is "
                "already OK or NO_DATA in the ledger (--force refetches them)"
            )
            logger.info(summary.note)
        finish_run(spec, summary)
        publish("backfill-summary", f"pitlake backfill {lo}..{hi}", summary.to_dict())
    finally:
        release(spec)
    data = summary.to_dict()
    if summary.completed:
        return Completed(message=f"backfill {lo}..{hi}: complete", data=data)
    failed = summary.failed_units
    return Failed(message=f"backfill {lo}..{hi}: {failed} unit(s) failed", data=data)
