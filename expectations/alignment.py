"""The run-level step: all trade-date datasets of one nightly run carry one effective trade
date; a batch behind it is NOT_READY, any other mismatch REJECTED."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime

import numpy as np
import pandas as pd
from pitlake.expectations import derive as d
from pitlake.expectations.findings import run_check_verdict
from pitlake.expectations.run_context import RunContext
from pitlake.expectations.verdict import (
    CheckResult,
    FailedExpectation,
    Outcome,
    Severity,
    Verdict,
    utc_now,
)
from pitlake.schemas import TRADE_DATE_DATASETS

from pitlake.calendar import to_date
from pitlake.statuses import LedgerStatus

# ---------------------------------------------------------------- run-level alignment


def batch_trade_dates(frame: pd.DataFrame) -> list[date]:
    """Distinct trade dates a batch carries (invalid or missing dates are not dates)."""
    if not isinstance(frame, pd.DataFrame) or "trade_date" not in frame.columns:
        return []
    day = d.days(frame["trade_date"], len(frame))
    return sorted(pd.Timestamp(v).date() for v in pd.unique(day[~np.isnat(day)]))


def _reference_date(dates: dict[str, list[date]]) -> date | None:
    """The run's effective trade date when none is given: the date of the first trade-dated
    dataset in registry order (the bars) that carries one, else the date most datasets carry
    (ties: the latest)."""
    single = {name: ds[0] for name, ds in dates.items() if len(ds) == 1}
    lead = TRADE_DATE_DATASETS[0]
    if lead in single:
        return single[lead]
    if not single:
        return None
    counts: dict[date, int] = {}
    for x in single.values():
        counts[x] = counts.get(x, 0) + 1
    return max(counts, key=lambda x: (counts[x], x))


def check_alignment(
    batches: Mapping[str, pd.DataFrame],
    expected_date: date | str | None = None,
    *,
    run_id: str = "",
    at: datetime | None = None,
) -> dict[str, Verdict]:
    """All trade-date datasets of one nightly run must carry one effective trade date.

    Returns a verdict for every trade-date dataset in `batches`: pass, or reject naming the
    batch's date(s) and the run's. A batch behind the run's date gets NOT_READY (its vendor has
    not published the date yet); any other mismatch REJECTED."""
    at = at or utc_now()
    dates = {
        name: batch_trade_dates(frame)
        for name, frame in batches.items()
        if name in TRADE_DATE_DATASETS
    }
    reference = to_date(expected_date) if expected_date is not None else _reference_date(dates)
    description = "every trade-date dataset of a nightly run carries the run's effective trade date"
    out: dict[str, Verdict] = {}
    for name, ds in dates.items():
        ctx = RunContext(
            run_id=run_id, fetched_at=at, expected_trade_date=reference, validated_at=at
        )
        frame = batches[name]
        aligned = not ds or (reference is not None and ds == [reference])
        carried = ", ".join(x.isoformat() for x in ds)
        check = CheckResult(
            name="trade_date_aligned",
            expectation_type="pitlake_alignment",
            column="trade_date",
            severity=Severity.BLOCKING,
            success=aligned,
            description=description,
        )
        common = dict(
            trade_dates=[x.isoformat() for x in ds],
            expected_trade_date=reference.isoformat() if reference else None,
        )
        if aligned:
            out[name] = run_check_verdict(
                name,
                frame,
                check,
                ctx,
                at,
                outcome=Outcome.PASS,
                ledger_status=LedgerStatus.OK,
                message=f"{name}: aligned on {carried or 'no rows'}",
                **common,
            )
            continue
        behind = reference is not None and max(ds) < reference
        ref_text = reference.isoformat() if reference else "undetermined"
        failure = FailedExpectation(
            name="trade_date_aligned",
            expectation_type="pitlake_alignment",
            column="trade_date",
            severity=Severity.BLOCKING,
            description=description,
            unexpected_count=len(frame),
            details={
                "batch_trade_dates": [x.isoformat() for x in ds],
                "run_effective_trade_date": reference.isoformat() if reference else None,
            },
        )
        out[name] = run_check_verdict(
            name,
            frame,
            check,
            ctx,
            at,
            outcome=Outcome.REJECT,
            ledger_status=LedgerStatus.NOT_READY if behind else LedgerStatus.REJECTED,
            failed=[failure],
            message=f"{name}: misaligned: the batch carries {carried} but the run's "
            f"effective trade date is {ref_text}",
            stale=behind,
            **common,
        )
    return out
