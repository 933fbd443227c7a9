"""The nightly ingest: every dataset for the latest closed session, gated and aligned."""

from __future__ import annotations

from datetime import date
from typing import Any

from pitlake.flows import runtime
from pitlake.flows.report import publish
from pitlake.tasks.ingest import fail_units, finish_run, ingest_unit, skip_dataset, start_run
from prefect import flow, get_run_logger
from prefect.futures import as_completed, wait
from prefect.states import Completed, Failed

from pitlake import progress, schemas
from pitlake.calendar import is_session, latest_closed_session, to_date
from pitlake.pipeline.failures import chunk_failed
from pitlake.pipeline.ledger import not_a_session
from pitlake.pipeline.planning import check_datasets, nightly_units, session_stages
from pitlake.pipeline.resources import EnvSpec, env_for, new_run_id, release
from pitlake.pipeline.summary import summarize
from pitlake.pipeline.units import Unit, UnitOutcome
from pitlake.statuses import LedgerStatus
from pitlake.vendors.registry import parse_source


@flow(name="nightly", task_runner=runtime.task_runner(), validate_parameters=True)
def nightly(
    trade_date: str | None = None,
    datasets: list[str] | None = None,
    symbols: list[str] | None = None,
    source: str | None = None,
    lake: str | None = None,
    run_id: str | None = None,
    not_ready_retries: int = 1,
    not_ready_delay_seconds: float = 900.0,
) -> Any:
    """Ingest one session. With no date, the latest session closed at run time (Beijing).

    A non-session date is recorded SKIPPED (with the reason) and completes. A dataset the
    vendors have not published yet (NOT_READY) is fetched again by Prefect's retry of its
    unit task, `not_ready_retries` times, `not_ready_delay_seconds` apart — at once for a
    replay source, which has nothing later to publish; the second scheduled run catches what
    is still missing. A unit that raises ends with a typed ledger status and the others go
    on; the run always records its summary. The run completes only if every dataset ended
    OK, NO_DATA or NOT_CONFIGURED."""
    logger = get_run_logger()
    day = to_date(trade_date) if trade_date else latest_closed_session()
    syms = schemas.run_symbols(symbols) or None
    names = check_datasets(datasets, schemas.NIGHTLY_DATASETS, syms)
    spec = EnvSpec(
        lake=runtime.default_lake(lake),
        run_id=run_id or new_run_id("nightly"),
        source=source,
    )
    replay = parse_source(source).kind == "replay"
    delay = 0.0 if replay else not_ready_delay_seconds
    params = {"trade_date": day.isoformat(), "datasets": names, "symbols": syms, "source": source}
    start_run(spec, "nightly", params)
    try:
        if not is_session(day):
            reason = not_a_session(day)
            logger.info("%s: nothing to ingest", reason)
            outcomes = [skip_dataset(spec, ds, day, reason) for ds in names]
        else:
            outcomes = _ingest_session(spec, day, names, syms, not_ready_retries, delay)
        summary = summarize(outcomes)
        summary.scope = f"session {day}, run {spec.run_id}"
        if replay and any(d.status == LedgerStatus.NOT_READY for d in summary.datasets):
            summary.note = (
                f"the replay holds no rows for {day} for the NOT_READY datasets; a replay "
                "publishes nothing later, so they were not waited for (give --date a session "
                "the replay covers)"
            )
        finish_run(spec, summary)
        publish("nightly-summary", f"pitlake nightly {day}", summary.to_dict())
    finally:
        release(spec)
    data = summary.to_dict()
    if summary.completed:
        return Completed(message=f"nightly {day}: all datasets OK", data=data)
    bad = [f"{d.dataset}={d.status}" for d in summary.datasets if not d.done]
    return Failed(message=f"nightly {day}: {', '.join(bad)}", data=data)


def _ingest_session(
    spec: EnvSpec,
    day: date,
    names: list[str],
    syms: tuple[str, ...] | None,
    retries: int,
    delay: float,
) -> list[UnitOutcome]:
    """Each unit is fetched, gated and committed by its own task, so the by-date datasets
    land within seconds while a reporting night's statements are still paced by the quota.
    A wave is planned once the earlier datasets it reads are committed (`session_stages`:
    per-symbol datasets after tonight's master, the limit lists after tonight's bars), not
    after the whole earlier wave. With the session given, the alignment check judges each
    dataset against it alone, so gating one batch at a time gives the same verdicts as
    gating them together."""
    final: dict[str, UnitOutcome] = {}
    running: dict[Any, Unit] = {}  # future → its unit
    by_dataset: dict[str, list[Any]] = {}
    unit_task = ingest_unit.with_options(retries=max(0, retries), retry_delay_seconds=delay)
    progress.plan_chunks(len(names))  # one chunk per dataset tonight
    for wave, needs in session_stages(names):
        wait([f for ds in needs for f in by_dataset.get(ds, [])])
        try:
            units = nightly_units(env_for(spec), day, wave, syms)
        except Exception as e:  # planning the wave failed: its datasets say why
            for ds in wave:
                final[ds] = chunk_failed(ds, day, day, syms, e, step="planning")
                progress.chunk_done(f"{ds} {day}")
            continue
        for u in units:
            future = unit_task.submit(spec, u, day, retries, delay)
            running[future] = u
            by_dataset.setdefault(u.dataset, []).append(future)
        progress.plan(len(units))
    for future in as_completed(list(running)):
        unit = running[future]
        try:
            final[unit.dataset] = future.result()
        except Exception as e:  # the unit task itself broke: the unit still ends typed
            final[unit.dataset] = fail_units(spec, [unit], e, "ingest")[0]
        progress.advance()
        progress.chunk_done(f"{unit.dataset} {day}")
    return [final[ds] for ds in names]
