"""Commit gated batches: write the passing ones (one store write per dataset), quarantine the
rejected ones, and record each unit's validation results and ledger entries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from pitlake import schemas
from pitlake.calendar import now_beijing
from pitlake.expectations.warm import ready
from pitlake.lake.killpoints import kill_point
from pitlake.pipeline.failures import retryable, unless_retryable
from pitlake.pipeline.ledger import record_ledger, rows_by_scope
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Batch, UnitOutcome
from pitlake.statuses import SUCCESSFUL_FETCH, LedgerStatus


def _outcome(batch: Batch) -> UnitOutcome:
    unit, route = batch.unit, batch.route
    return UnitOutcome(
        dataset=unit.dataset,
        date_key=unit.date_key.isoformat(),
        status=str(route.status),
        rows=len(route.frame),
        vendor=route.vendor,
        trace=list(route.trace),
        message=route.message,
        symbols=list(unit.symbols) if unit.symbols else None,
    )


def _close(
    env: RunEnv,
    out: UnitOutcome,
    batch: Batch,
    status: LedgerStatus,
    *,
    counts: dict[Any, int] | None,
    message: str,
) -> None:
    """Record a unit's ledger entries and carry the resulting status into its outcome."""
    final, final_message = record_ledger(
        env,
        batch.unit,
        status,
        counts=counts,
        vendor=batch.route.vendor,
        trace=out.trace,
        message=message,
    )
    out.status, out.message = str(final), final_message


def commit(
    env: RunEnv, batches: Sequence[Batch], verdicts: Sequence[Any | None]
) -> list[UnitOutcome]:
    """Write passing batches (one store write per dataset), quarantine rejected ones, and
    record the ledger and validation results for every unit. An unexpected exception ends
    only the unit it came from (`fail_units`); a group whose write fails is written again one
    unit at a time, so the failure names exactly the bad unit."""
    kill_point("after_gate")  # the kill suite's point between the gate and any write
    outcomes = [_outcome(b) for b in batches]
    recorded: set[int] = set()
    docs: list[Any] = []
    to_write: dict[str, list[int]] = {}
    for i, (b, v) in enumerate(zip(batches, verdicts, strict=True)):
        try:
            if _settle(env, outcomes[i], b, v, i, recorded, docs):
                to_write.setdefault(b.unit.dataset, []).append(i)
        except Exception as e:
            outcomes[i] = unless_retryable(env, [b.unit], e, step="commit")[0]
    if docs:
        # Before the writes and their ledger entries: a run killed after the ledger would
        # never validate those units again, so their Data Docs page would be lost for good;
        # killed before it, the rerun validates and publishes again.
        ready()  # the warm-up imports GX too
        from pitlake.expectations.datadocs import build_data_docs

        try:
            build_data_docs(env.docs_root, docs)
        except Exception as e:  # unpublished: leave these units to be validated again
            pending = [i for idx in to_write.values() for i in idx]
            failed = unless_retryable(env, [batches[i].unit for i in pending], e, step="data docs")
            for i, out in zip(pending, failed, strict=True):
                outcomes[i] = out
            to_write = {}
    for ds, idx in to_write.items():
        try:
            _write_group(env, ds, batches, verdicts, outcomes, idx)
        except Exception as e:
            if retryable(e) or len(idx) == 1:
                outcomes[idx[0]] = unless_retryable(env, [batches[idx[0]].unit], e, step="write")[0]
                continue
            for i in idx:
                try:
                    _write_group(env, ds, batches, verdicts, outcomes, [i])
                except Exception as e1:
                    outcomes[i] = unless_retryable(env, [batches[i].unit], e1, step="write")[0]
    return outcomes


def _settle(
    env: RunEnv,
    out: UnitOutcome,
    b: Batch,
    v: Any | None,
    i: int,
    recorded: set[int],
    docs: list[Any],
) -> bool:
    """Everything a unit needs before the write: a failed or empty fetch is recorded, a
    verdict's results are recorded (a group verdict once), a rejected batch is quarantined.
    True if the unit's rows are to be written."""
    if not b.route.ok or b.frame.empty or v is None:
        # Nothing to validate: the fetch failed, or succeeded with no rows (NO_DATA, which
        # record_ledger turns into NOT_READY for a whole market that is never empty).
        counts = {} if b.route.status in SUCCESSFUL_FETCH else None
        _close(env, out, b, b.route.status, counts=counts, message=b.route.message)
        return False
    out.gate = str(v.outcome)
    out.failed_expectations = v.failed_names()
    if id(v) not in recorded:
        recorded.add(id(v))
        docs.append(v)
        for rec in v.to_catalog_records():
            env.catalog.record_validation(**rec)
    if v.writable:
        return True
    label = f"{b.unit.dataset}-{b.unit.date_key.isoformat()}-{i}"
    path = env.store.quarantine.keep(b.unit.dataset, env.run_id, b.frame, v.to_dict(), label=label)
    env.catalog.record_quarantine(**v.quarantine_record(str(path)))
    out.quarantine = str(path)
    _close(env, out, b, v.ledger_status, counts=None, message=v.message)
    return False


def _write_group(
    env: RunEnv,
    ds: str,
    batches: Sequence[Batch],
    verdicts: Sequence[Any | None],
    outcomes: list[UnitOutcome],
    idx: list[int],
) -> None:
    """One store write for a dataset's passing units, then each unit's ledger entries."""
    frame = pd.concat([batches[i].frame for i in idx], ignore_index=True)
    result = env.store.write(ds, frame, run_id=env.run_id, ingested_at=now_beijing())
    for p in result.partitions:
        if p.value in result.written and not result.recorded:  # recorded inside the hold
            kill_point("before_record")
            env.catalog.record_partition_file(
                ds, p.value, p.path, p.rows, p.sha256, run_id=env.run_id
            )
            kill_point("after_record")
    spec = schemas.get(ds)
    if spec.one_vendor_per_symbol:
        env.note_series_owners(ds, frame)
    if ds == schemas.SECURITY_MASTER:
        env.forget_universe()
    for i in idx:
        b, out, v = batches[i], outcomes[i], verdicts[i]
        try:
            message = out.message
            if v.warnings:
                message = "; ".join(m for m in (b.route.message, v.message) if m)
            counts = rows_by_scope(b.unit, b.frame)
            _close(env, out, b, LedgerStatus.OK, counts=counts, message=message)
        except Exception as e:  # written, but its ledger entry failed: fetched again later
            outcomes[i] = unless_retryable(env, [b.unit], e, step="commit")[0]
    # One store write per dataset: its rows added are reported once, on the first unit.
    outcomes[idx[0]].rows_added = result.rows_added
