"""Prefect tasks: each wraps one function of `pitlake.ingest`, nothing more.

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

from pitlake import ingest as core
from pitlake.errors import (
    InvalidArgumentsError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
)


def retry_transient(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect `retry_condition_fn`: retry only what can succeed on a second try."""
    try:
        state.result()
    except (InvalidArgumentsError, VendorNotConfiguredError, VendorPermissionError):
        return False
    except VendorError as e:
        return bool(e.retryable)
    except OSError:
        return True
    except Exception as e:  # a locked SQLite catalog, a dropped PostgreSQL connection
        return type(e).__name__ in {"OperationalError", "InterfaceError"}
    return False


_common: dict[str, Any] = {
    "cache_policy": NO_CACHE,
    "retries": 2,
    "retry_delay_seconds": [1, 5],
    "retry_condition_fn": retry_transient,
}


@task(name="fetch", **_common)
def fetch_unit(spec: core.EnvSpec, unit: core.Unit) -> core.Batch:
    return core.fetch(core.env_for(spec), unit)


@task(name="gate", cache_policy=NO_CACHE)
def gate_batches(
    spec: core.EnvSpec,
    batches: list[core.Batch],
    align_on: date | None = None,
) -> list[Any]:
    return core.gate(core.env_for(spec), batches, align_on=align_on)


@task(name="commit", **_common)
def commit_batches(
    spec: core.EnvSpec, batches: list[core.Batch], verdicts: list[Any]
) -> list[core.UnitOutcome]:
    return core.commit(core.env_for(spec), batches, verdicts)


@task(name="backfill-chunk", **_common)
def backfill_chunk(
    spec: core.EnvSpec,
    dataset: str,
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    force: bool = False,
) -> list[core.UnitOutcome]:
    return core.backfill_chunk(core.env_for(spec), dataset, start, end, symbols, force=force)


@task(name="skip", cache_policy=NO_CACHE)
def skip_dataset(spec: core.EnvSpec, dataset: str, day: date, reason: str) -> core.UnitOutcome:
    return core.skip(core.env_for(spec), dataset, day, reason)


@task(name="record-run", cache_policy=NO_CACHE)
def start_run(spec: core.EnvSpec, flow: str, params: dict[str, Any]) -> None:
    core.env_for(spec).catalog.start_run(spec.run_id, flow, params)


@task(name="finish-run", cache_policy=NO_CACHE)
def finish_run(spec: core.EnvSpec, summary: dict[str, Any]) -> None:
    status = "COMPLETED" if summary["completed"] else "FAILED"
    core.env_for(spec).catalog.finish_run(spec.run_id, status, summary)
