"""A backfill chunk: one dataset over one window, its pending units in groups (one gate run
and one store write per group)."""

from __future__ import annotations

from datetime import date

from pitlake import progress
from pitlake.pipeline.failures import chunk_failed, fail_units, retryable
from pitlake.pipeline.planning import backfill_units
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.run import run_units
from pitlake.pipeline.units import UnitOutcome

GROUP = 200  # units per gate run and store write


def backfill_chunk(
    env: RunEnv,
    dataset: str,
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    *,
    force: bool = False,
    group: int = GROUP,
) -> list[UnitOutcome]:
    """One dataset over one chunk: its pending units in groups, each unit ending with its own
    ledger entry."""
    try:
        units = backfill_units(env, dataset, start, end, symbols, force=force)
    except Exception as e:
        if retryable(e):
            raise
        return [chunk_failed(dataset, start, end, symbols, e, step="planning")]
    progress.plan(len(units))
    outcomes: list[UnitOutcome] = []
    for i in range(0, len(units), group):
        outcomes += run_units(env, units[i : i + group], window=(start, end))
    return outcomes


def fail_chunk(
    env: RunEnv,
    dataset: str,
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    exc: BaseException,
    *,
    force: bool = False,
) -> list[UnitOutcome]:
    """A chunk whose task failed for good (retries exhausted): its pending units end with the
    exception's status in the ledger, so the run's other chunks and its summary stand."""
    try:
        units = backfill_units(env, dataset, start, end, symbols, force=force)
    except Exception:
        units = []
    if not units:
        return [chunk_failed(dataset, start, end, symbols, exc, step="chunk")]
    return fail_units(env, units, exc, step="chunk")
