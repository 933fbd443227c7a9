"""The nightly ingest: every dataset for the latest closed session, gated and aligned."""

from __future__ import annotations

import time
from datetime import date
from typing import Any

from prefect import flow, get_run_logger
from prefect.futures import as_completed
from prefect.states import Completed, Failed

from flows import runtime
from flows.report import publish
from pitlake import ingest as core
from pitlake.calendar import is_session, latest_closed_session, to_date
from pitlake.envelope import LedgerStatus
from pitlake.symbols import canonical_many
from tasks.ingest import (
    commit_batches,
    fetch_unit,
    finish_run,
    gate_batches,
    skip_dataset,
    start_run,
)


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

    A non-session date is recorded SKIPPED and completes. Datasets the vendors have not
    published yet (NOT_READY) are fetched again after a delay, `not_ready_retries` times; the
    second scheduled run catches what is still missing. The run completes only if every
    dataset ended OK, NO_DATA or NOT_CONFIGURED."""
    logger = get_run_logger()
    day = to_date(trade_date) if trade_date else latest_closed_session()
    names = core.check_datasets(datasets, core.NIGHTLY_DATASETS)
    syms = tuple(canonical_many(symbols)) or None
    spec = core.EnvSpec(
        lake=runtime.default_lake(lake),
        run_id=run_id or core.new_run_id("nightly"),
        source=source,
    )
    params = {"trade_date": day.isoformat(), "datasets": names, "symbols": syms, "source": source}
    start_run(spec, "nightly", params)
    try:
        if not is_session(day):
            reason = f"{day} is not an XSHG session"
            logger.info("%s: nothing to ingest", reason)
            outcomes = [skip_dataset(spec, ds, day, reason) for ds in names]
        else:
            outcomes = _ingest_session(
                spec, day, names, syms, not_ready_retries, not_ready_delay_seconds
            )
        summary = core.summarize(outcomes)
        summary["scope"] = f"session {day}, run {spec.run_id}"
        finish_run(spec, summary)
        publish("nightly-summary", f"pitlake nightly {day}", summary)
    finally:
        core.release(spec)
    if summary["completed"]:
        return Completed(message=f"nightly {day}: all datasets OK", data=summary)
    bad = [
        f"{d['dataset']}={d['status']}"
        for d in summary["datasets"]
        if LedgerStatus(d["status"]) not in core.LEDGER_SUCCESS
    ]
    return Failed(message=f"nightly {day}: {', '.join(bad)}", data=summary)


def _ingest_session(
    spec: core.EnvSpec,
    day: date,
    names: list[str],
    syms: tuple[str, ...] | None,
    retries: int,
    delay: float,
) -> list[core.UnitOutcome]:
    final: dict[str, core.UnitOutcome] = {}
    # Per-symbol datasets (news) ask about the universe, which tonight's quotes extend:
    # they go in a second wave.
    first = [d for d in names if d not in core.UNIVERSE_DATASETS]
    later = [d for d in names if d in core.UNIVERSE_DATASETS]
    for wave in (first, later):
        if wave:
            final.update(_ingest_wave(spec, day, wave, syms, retries, delay))
    return [final[ds] for ds in names]


def _fetch_gate_commit(
    spec: core.EnvSpec, day: date, units: list[core.Unit]
) -> list[core.UnitOutcome]:
    """Each unit is gated and committed as soon as its fetch returns: the by-date datasets
    land within seconds while a reporting night's statements are still paced by the quota,
    so their gate and write no longer wait behind the slowest fetch. With the session given,
    the alignment check judges each dataset against it alone, so gating one batch at a time
    gives the same verdicts as gating them together."""
    futures = [fetch_unit.submit(spec, u) for u in units]
    index = {id(f): i for i, f in enumerate(futures)}
    outcomes: list[core.UnitOutcome | None] = [None] * len(units)
    for future in as_completed(futures):
        batch = future.result()
        verdicts = gate_batches(spec, [batch], align_on=day)
        outcomes[index[id(future)]] = commit_batches(spec, [batch], verdicts)[0]
    return [o for o in outcomes if o is not None]


def _ingest_wave(
    spec: core.EnvSpec,
    day: date,
    names: list[str],
    syms: tuple[str, ...] | None,
    retries: int,
    delay: float,
) -> dict[str, core.UnitOutcome]:
    logger = get_run_logger()
    env = core.env_for(spec)
    pending = core.nightly_units(env, day, names, syms)
    final: dict[str, core.UnitOutcome] = {}
    for attempt in range(retries + 1):
        outcomes = _fetch_gate_commit(spec, day, pending)
        for o in outcomes:
            final[o.dataset] = o
        not_ready = [u for u, o in zip(pending, outcomes, strict=True) if o.status == "NOT_READY"]
        if not not_ready or attempt == retries:
            break
        logger.warning(
            "not published yet: %s; fetching again in %.0f s",
            ", ".join(u.dataset for u in not_ready),
            delay,
        )
        time.sleep(delay)
        pending = not_ready
    return final
