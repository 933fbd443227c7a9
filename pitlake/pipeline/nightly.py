"""The nightly session as a plain function: what the Prefect nightly flow does, without
Prefect (tests and benchmarks call it; the flow submits the same units as tasks)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date

from pitlake.calendar import is_session
from pitlake.pipeline.failures import chunk_failed
from pitlake.pipeline.ledger import not_a_session, skip
from pitlake.pipeline.planning import nightly_units, session_waves
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.run import ingest_unit
from pitlake.pipeline.units import UnitOutcome

WORKERS = 4  # units in flight, as the flow's thread-pool task runner


def run_session(
    env: RunEnv,
    day: date,
    datasets: Sequence[str],
    symbols: tuple[str, ...] | None = None,
    *,
    workers: int = WORKERS,
) -> list[UnitOutcome]:
    """Ingest one session: a non-session date is recorded SKIPPED with the reason; otherwise
    each wave's units are fetched, gated and committed concurrently, and every dataset ends
    with one outcome, in the order given."""
    if not is_session(day):
        reason = not_a_session(day)
        return [skip(env, ds, day, reason) for ds in datasets]
    final: dict[str, UnitOutcome] = {}
    for wave in session_waves(datasets):
        try:
            units = nightly_units(env, day, wave, symbols)
        except Exception as e:  # planning the wave failed: its datasets say why
            for ds in wave:
                final[ds] = chunk_failed(ds, day, day, symbols, e, step="planning")
            continue
        with ThreadPoolExecutor(max(1, min(workers, len(units)))) as pool:
            outcomes = list(pool.map(lambda u: ingest_unit(env, u, day), units))
        for unit, out in zip(units, outcomes, strict=True):
            final[unit.dataset] = out
    return [final[ds] for ds in datasets]
