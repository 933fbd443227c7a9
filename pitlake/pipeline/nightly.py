"""The nightly session as a plain function: what the Prefect nightly flow does, without
Prefect (tests and benchmarks call it; the flow submits the same units as tasks)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from datetime import date

from pitlake.calendar import is_session
from pitlake.pipeline.failures import chunk_failed
from pitlake.pipeline.ledger import not_a_session, skip
from pitlake.pipeline.planning import nightly_units, session_stages
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
    each wave's units are fetched, gated and committed concurrently, a wave starting once the
    earlier datasets it reads are committed (`session_stages`), and every dataset ends with
    one outcome, in the order given."""
    if not is_session(day):
        reason = not_a_session(day)
        return [skip(env, ds, day, reason) for ds in datasets]
    final: dict[str, UnitOutcome] = {}
    running: dict[str, list[Future[UnitOutcome]]] = {}
    with ThreadPoolExecutor(max(1, workers)) as pool:
        for wave, needs in session_stages(datasets):
            wait([f for ds in needs for f in running.get(ds, [])])
            try:
                units = nightly_units(env, day, wave, symbols)
            except Exception as e:  # planning the wave failed: its datasets say why
                for ds in wave:
                    final[ds] = chunk_failed(ds, day, day, symbols, e, step="planning")
                continue
            for u in units:
                running.setdefault(u.dataset, []).append(pool.submit(ingest_unit, env, u, day))
        for ds, futures in running.items():
            for f in futures:
                final[ds] = f.result()
    return [final[ds] for ds in datasets]
