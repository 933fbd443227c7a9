"""Prefect tasks: each wraps one function of `pitlake.pipeline`, nothing more.

Retries follow the error type (`retry_transient`): a transient vendor or storage failure is
retried; invalid arguments, a missing configuration or a permission denial never are. The
vendor layer has already retried rate limits and transport errors with tenacity inside the call;
these task retries are the outer, coarser net.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE

from pitlake.lake.run_liveness import start_heartbeat, stop_heartbeat, this_process
from pitlake.pipeline.backfill import backfill_chunk as run_chunk
from pitlake.pipeline.backfill import fail_chunk as end_chunk
from pitlake.pipeline.commit import commit
from pitlake.pipeline.failures import fail_units as end_units
from pitlake.pipeline.failures import retryable
from pitlake.pipeline.fetch import fetch
from pitlake.pipeline.gating import gate
from pitlake.pipeline.ledger import skip
from pitlake.pipeline.resources import EnvSpec, env_for
from pitlake.pipeline.summary import RunSummary
from pitlake.pipeline.units import Batch, Unit, UnitOutcome
from pitlake.statuses import LedgerStatus


def retry_transient(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect `retry_condition_fn`: retry only what can succeed on a second try."""
    try:
        state.result()
    except Exception as e:
        return retryable(e)
    return False


class NotReadyYet(Exception):
    """A unit ended NOT_READY with refetches left: raised so Prefect retries the task after
    its `retry_delay_seconds` (the vendor may publish meanwhile)."""


def retry_not_ready(task: Any, task_run: Any, state: Any) -> bool:
    try:
        state.result()
    except NotReadyYet:
        return True
    except Exception:
        return False
    return False


_common: dict[str, Any] = {
    "cache_policy": NO_CACHE,
    "retries": 2,
    "retry_delay_seconds": [1, 5],
    "retry_condition_fn": retry_transient,
}


@task(name="fetch", **_common)
def fetch_unit(spec: EnvSpec, unit: Unit) -> Batch:
    return fetch(env_for(spec), unit)


@task(name="gate", cache_policy=NO_CACHE)
def gate_batches(
    spec: EnvSpec,
    batches: list[Batch],
    align_on: date | None = None,
) -> list[Any]:
    return gate(env_for(spec), batches, align_on=align_on)


@task(name="commit", **_common)
def commit_batches(spec: EnvSpec, batches: list[Batch], verdicts: list[Any]) -> list[UnitOutcome]:
    return commit(env_for(spec), batches, verdicts)


@task(name="ingest-unit", cache_policy=NO_CACHE, retry_condition_fn=retry_not_ready)
def ingest_unit(
    spec: EnvSpec,
    unit: Unit,
    day: date,
    not_ready_retries: int = 0,
    not_ready_delay_seconds: float = 0.0,
) -> UnitOutcome:
    """One nightly unit: fetch → gate → commit (each its own task, with its own transient
    retries). A step that still fails ends the unit with a typed ledger status. A NOT_READY
    outcome with refetches left raises `NotReadyYet`, so the refetch is Prefect's retry of
    this task (`ingest_unit.with_options(retries=…, retry_delay_seconds=…)`), not a sleep."""
    from prefect import get_run_logger
    from prefect.runtime import task_run

    step = "fetch"
    try:
        batch = fetch_unit(spec, unit)
        step = "gate"
        verdicts = gate_batches(spec, [batch], align_on=day)
        step = "commit"
        out = commit_batches(spec, [batch], verdicts)[0]
    except Exception as e:
        return end_units(env_for(spec), [unit], e, step=step)[0]
    attempt = task_run.run_count
    if out.status == LedgerStatus.NOT_READY and attempt <= not_ready_retries:
        get_run_logger().warning(
            "not published yet: %s; fetching again in %.0f s (refetch %d of %d)",
            unit.label,
            not_ready_delay_seconds,
            attempt,
            not_ready_retries,
        )
        raise NotReadyYet(f"{unit.label}: {out.message}")
    return out


@task(name="record-failure", cache_policy=NO_CACHE)
def fail_units(
    spec: EnvSpec, units: list[Unit], exc: BaseException, step: str
) -> list[UnitOutcome]:
    return end_units(env_for(spec), units, exc, step=step)


@task(name="record-chunk-failure", cache_policy=NO_CACHE)
def fail_chunk(
    spec: EnvSpec,
    dataset: str,
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    exc: BaseException,
    force: bool = False,
) -> list[UnitOutcome]:
    return end_chunk(env_for(spec), dataset, start, end, symbols, exc, force=force)


@task(name="backfill-chunk", **_common)
def backfill_chunk(
    spec: EnvSpec,
    dataset: str,
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    force: bool = False,
) -> list[UnitOutcome]:
    return run_chunk(env_for(spec), dataset, start, end, symbols, force=force)


@task(name="skip", cache_policy=NO_CACHE)
def skip_dataset(spec: EnvSpec, dataset: str, day: date, reason: str) -> UnitOutcome:
    return skip(env_for(spec), dataset, day, reason)


@task(name="record-run", cache_policy=NO_CACHE)
def start_run(spec: EnvSpec, flow: str, params: dict[str, Any]) -> None:
    """Record the run with who runs it, and beat while this process lives (a killed run is
    then shown ABANDONED, not RUNNING for good: `run_liveness`)."""
    catalog = env_for(spec).catalog
    catalog.start_run(spec.run_id, flow, params, holder=this_process())
    start_heartbeat(catalog, spec.run_id)


@task(name="finish-run", cache_policy=NO_CACHE)
def finish_run(spec: EnvSpec, summary: RunSummary) -> None:
    status = "COMPLETED" if summary.completed else "FAILED"
    stop_heartbeat(spec.run_id)
    env_for(spec).catalog.finish_run(spec.run_id, status, summary.to_dict())
