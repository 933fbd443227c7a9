"""GX results → the gate's findings: failed expectations with counts and sample rows, one
check result per expectation, and the verdict (write, write flagged, quarantine) with its
ledger status and partitions."""

from __future__ import annotations

import logging
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd
from pitlake.expectations import derive as d
from pitlake.expectations.run_context import RunContext
from pitlake.expectations.verdict import (
    SAMPLE_ROWS,
    CheckResult,
    FailedExpectation,
    Outcome,
    Severity,
    Verdict,
    json_safe,
)
from pitlake.schemas import BITEMPORAL_COLUMNS, SCHEMAS, Dataset

from pitlake.pit import KnownAtBasis
from pitlake.statuses import LedgerStatus

log = logging.getLogger(__name__)


OPTIONAL_COLUMNS = ("ingested_at", "run_id")
REQUIRED_BITEMPORAL = tuple(c for c in BITEMPORAL_COLUMNS if c not in OPTIONAL_COLUMNS)
ALIGNMENT_SUITE = "pitlake.alignment"
# known_at derived from a date by convention (a close, the end of a day, a deadline). Such a
# known_at after the fetch means the date has not fully arrived yet (a pre-close bar, a
# day-end list fetched the same evening): NOT_READY, retried later. After-fetch instants the
# vendor stamped itself (published) are errors: REJECTED.
DATE_DERIVED_BASES = frozenset(
    {
        KnownAtBasis.SESSION_CLOSE,
        KnownAtBasis.EX_DATE_OPEN,
        KnownAtBasis.PRE_OPEN,
        KnownAtBasis.DAY_END,
        KnownAtBasis.ANNOUNCEMENT,
        KnownAtBasis.REVISION,
        KnownAtBasis.STATUTORY_DEADLINE,
    }
)
SUMMARY = {"result_format": "SUMMARY", "partial_unexpected_count": SAMPLE_ROWS}


# ---------------------------------------------------------------- reading GX results


def check_meta(config: Any) -> tuple[str, str | None]:
    meta = config.meta or {}
    return meta.get("check") or config.type, meta.get("column")


def _severity(config: Any) -> Severity:
    return (
        Severity.WARNING
        if str(getattr(config.severity, "value", config.severity)) == ("warning")
        else Severity.BLOCKING
    )


def error_of(result: Any) -> str | None:
    info = result.exception_info or {}
    if info.get("raised_exception"):
        return str(info.get("exception_message") or "raised")
    for value in info.values():
        if isinstance(value, dict) and value.get("raised_exception"):
            return str(value.get("exception_message") or "raised")
    return None


def _sample_rows(
    frame: pd.DataFrame,
    vf: pd.DataFrame,
    positions: list[Any],
    derived_cols: list[str],
    schema: Dataset,
) -> list[dict[str, Any]]:
    pos = [int(p) for p in positions if isinstance(p, int | np.integer)][:SAMPLE_ROWS]
    pos = [p for p in pos if 0 <= p < len(frame)]
    if not pos:
        return []
    cols = [c for c in schema.all_columns if c in frame.columns]
    rows = frame.iloc[pos][cols].to_dict(orient="records")
    for row, p in zip(rows, pos, strict=True):
        for c in derived_cols:
            row[c] = vf[c].iloc[p]
    return json_safe(rows)


def _details(result: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in (
        "observed_value",
        "details",
        "partial_unexpected_list",
        "unexpected_percent",
        "missing_count",
    ):
        if key in result and result[key] not in (None, [], {}):
            out[key] = result[key]
    return json_safe(out)


def failure_of(
    res: Any, frame: pd.DataFrame, vf: pd.DataFrame, schema: Dataset
) -> FailedExpectation:
    config = res.expectation_config
    name, column = check_meta(config)
    error = error_of(res)
    result = res.result or {}
    kwargs = config.kwargs or {}
    derived_cols = [
        kwargs[k]
        for k in ("column", "column_A", "column_B")
        if str(kwargs.get(k, "")).startswith(d.DQ_PREFIX) and kwargs[k] in vf.columns
    ]
    count = result.get("unexpected_count")
    return FailedExpectation(
        name=name,
        expectation_type=config.type,
        column=column,
        # An expectation that raised is a GX failure: blocking whatever its declared severity.
        severity=Severity.BLOCKING if error else _severity(config),
        description=config.description or "",
        unexpected_count=int(count) if count is not None else None,
        sample_rows=_sample_rows(
            frame, vf, result.get("partial_unexpected_index_list") or [], derived_cols, schema
        ),
        details=_details(result),
        error=error,
    )


def check_result(res: Any, failure: FailedExpectation | None) -> CheckResult:
    name, column = check_meta(res.expectation_config)
    return CheckResult(
        name=name,
        expectation_type=res.expectation_config.type,
        column=column,
        severity=failure.severity if failure else _severity(res.expectation_config),
        success=failure is None,
        description=res.expectation_config.description or "",
        unexpected_count=failure.unexpected_count if failure else 0,
    )


# ---------------------------------------------------------------- verdicts


def distinct_days(vf: pd.DataFrame | None) -> list[date]:
    if vf is None or d.TRADE_DAY not in vf.columns:
        return []
    values = pd.unique(vf[d.TRADE_DAY].dropna())
    return sorted(pd.Timestamp(v).date() for v in values)


def partitions_of(schema: Dataset, frame: pd.DataFrame | None, ctx: RunContext) -> list[str]:
    """Partition values (e.g. "2025") the batch's rows fall in, for the catalog."""
    if frame is None or not len(frame):
        return []
    try:
        values = pd.unique(schema.partitioning.derive(frame).dropna().astype(str))
        if len(values):
            return sorted(str(v) for v in values)
    except Exception:  # a batch too broken to partition still gets a record
        pass
    anchor = ctx.expected_trade_date or ctx.window_start
    if anchor is not None and schema.partitioning.name == "year":
        return [str(anchor.year)]
    return ["unknown"]


def _describe(failures: list[FailedExpectation]) -> str:
    parts = []
    for f in failures:
        n = f" ({f.unexpected_count} rows)" if f.unexpected_count else ""
        parts.append(f"{f.name}{n}" + (f" [error: {f.error}]" if f.error else ""))
    return ", ".join(parts)


def verdict_of(
    dataset: str,
    ctx: RunContext,
    *,
    frame: pd.DataFrame | None,
    evaluated: int,
    failed: list[FailedExpectation],
    checks: list[CheckResult],
    trade_days: list[date],
    at: datetime,
    suite: str,
    too_early: str | None = None,
) -> Verdict:
    schema = SCHEMAS[dataset]
    blocking = [f for f in failed if f.severity is Severity.BLOCKING]
    expected = ctx.expected_trade_date
    stale = bool(
        expected is not None
        and trade_days
        and max(trade_days) < expected
        and any(f.name == "trade_date_expected" for f in blocking)
    )
    returned = ", ".join(x.isoformat() for x in trade_days)
    if blocking:
        outcome = Outcome.REJECT
        ledger = LedgerStatus.NOT_READY if stale or too_early else LedgerStatus.REJECTED
        message = f"{dataset}: rejected: {_describe(blocking)}"
        if stale:
            message = (
                f"{dataset}: stale: requested {expected}, the vendor returned {returned}; "
                f"ledger NOT_READY (retry later). " + message
            )
        elif too_early:
            message = f"{dataset}: not ready: {too_early}; ledger NOT_READY (retry later). " + (
                message
            )
    elif failed:
        outcome, ledger = Outcome.WARN, LedgerStatus.OK
        message = f"{dataset}: written with warnings: {_describe(failed)}"
    else:
        outcome, ledger = Outcome.PASS, LedgerStatus.OK
        n = len(frame) if frame is not None else 0
        message = f"{dataset}: {evaluated} expectations passed on {n} rows"
    window = (
        (ctx.window_start.isoformat(), ctx.window_end.isoformat())
        if ctx.window_start and ctx.window_end
        else None
    )
    return Verdict(
        dataset=dataset,
        suite=suite,
        run_id=ctx.run_id,
        outcome=outcome,
        ledger_status=ledger,
        evaluated=evaluated,
        row_count=len(frame) if frame is not None else 0,
        at=at,
        failed=failed,
        checks=checks,
        message=message,
        stale=stale,
        trade_dates=[x.isoformat() for x in trade_days],
        expected_trade_date=expected.isoformat() if expected else None,
        window=window,
        partitions=partitions_of(schema, frame, ctx),
    )


def rejection(
    dataset: str,
    ctx: RunContext,
    frame: Any,
    at: datetime,
    name: str,
    description: str,
    error: str | None = None,
    trade_days: list[date] | None = None,
) -> Verdict:
    from pitlake.expectations.suites import suite_name

    failure = FailedExpectation(
        name=name,
        expectation_type="pitlake_gate",
        column=None,
        severity=Severity.BLOCKING,
        description=description,
        error=error,
    )
    check = CheckResult(
        name=name,
        expectation_type="pitlake_gate",
        column=None,
        severity=Severity.BLOCKING,
        success=False,
        description=description,
    )
    return verdict_of(
        dataset,
        ctx,
        frame=frame if isinstance(frame, pd.DataFrame) else None,
        evaluated=1,
        failed=[failure],
        checks=[check],
        trade_days=trade_days or [],
        at=at,
        suite=suite_name(dataset),
    )


def run_check_verdict(
    name: str,
    frame: pd.DataFrame,
    check: CheckResult,
    ctx: RunContext,
    at: datetime,
    *,
    outcome: Outcome,
    ledger_status: LedgerStatus,
    message: str,
    failed: list[FailedExpectation] | None = None,
    **extra: Any,
) -> Verdict:
    """The verdict of one run-level check over a whole batch (the alignment of a night's
    trade dates, the limit cross-checks): one check evaluated, its rows' partitions named."""
    return Verdict(
        dataset=name,
        suite=ALIGNMENT_SUITE,
        run_id=ctx.run_id,
        outcome=outcome,
        ledger_status=ledger_status,
        evaluated=1,
        row_count=len(frame),
        at=at,
        failed=failed or [],
        checks=[check],
        message=message,
        partitions=partitions_of(SCHEMAS[name], frame, ctx),
        **extra,
    )
