"""Running units: fetch, gate and commit a group of units, each unit ending with its own
typed ledger status whichever step raised."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date

from pitlake import progress
from pitlake.pipeline.commit import commit
from pitlake.pipeline.failures import fail_units, retryable, unless_retryable
from pitlake.pipeline.fetch import fetch
from pitlake.pipeline.gating import gate
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Batch, Unit, UnitOutcome

FETCH_THREADS = 3  # concurrent fetches within one group of units (`_fetched`)


def run_units(
    env: RunEnv,
    units: Sequence[Unit],
    *,
    align_on: date | None = None,
    window: tuple[date, date] | None = None,
) -> list[UnitOutcome]:
    """Fetch, gate and commit a group of units (the body of a backfill chunk). A unit whose
    step raises ends there with a typed ledger status; the others go on."""
    batches: list[Batch] = []
    failed: list[UnitOutcome] = []
    for u, got in zip(units, _fetched(env, units), strict=True):
        if isinstance(got, Batch):
            batches.append(got)
        else:
            failed += unless_retryable(env, [u], got, step="fetch")
    progress.advance(len(units))
    try:
        verdicts = gate(env, batches, align_on=align_on, window=window)
    except Exception as e:
        if retryable(e) or len(batches) == 1:
            return failed + unless_retryable(env, [b.unit for b in batches], e, step="gate")
        # Validated one at a time: the failure names exactly the bad unit.
        kept: list[Batch] = []
        verdicts = []
        for b in batches:
            try:
                verdicts.append(gate(env, [b], align_on=align_on, window=window)[0])
                kept.append(b)
            except Exception as e1:
                failed += unless_retryable(env, [b.unit], e1, step="gate")
        batches = kept
    return failed + commit(env, batches, verdicts)


def _fetched(env: RunEnv, units: Sequence[Unit]) -> list[Batch | Exception]:
    """Each unit's batch, or what its fetch raised, in the units' order. Fetched on
    FETCH_THREADS threads: a unit's fetch is mostly waiting (the vendor's latency, the quota's
    pacing), and one caller at a time leaves a per-endpoint quota idle (a 150-ms call paced at
    475/min needs two callers to keep up; decision 59). The vendor's in-flight bound and its
    quota still hold: every call goes through the same ResilientClient."""

    def one(u: Unit) -> Batch | Exception:
        try:
            return fetch(env, u)
        except Exception as e:
            return e

    if len(units) < 2:
        return [one(u) for u in units]
    with ThreadPoolExecutor(max_workers=FETCH_THREADS, thread_name_prefix="fetch") as pool:
        return list(pool.map(one, units))


def ingest_unit(env: RunEnv, unit: Unit, day: date) -> UnitOutcome:
    """One nightly unit: fetch → gate against the session → commit. Whatever step raises,
    transient or not, ends the unit with a typed ledger status (the Prefect flow retries
    transient steps first, as tasks)."""
    step = "fetch"
    try:
        batch = fetch(env, unit)
        step = "gate"
        verdicts = gate(env, [batch], align_on=day)
        step = "commit"
        return commit(env, [batch], verdicts)[0]
    except Exception as e:
        return fail_units(env, [unit], e, step=step)[0]
