"""The data-quality gate: one batch in, one Verdict out (write / write flagged / quarantine).

`validate(dataset, frame, ctx)` runs the dataset's GX suite on the batch plus its derived
columns. `check_alignment(batches, date)` is the run-level step: all trade-date datasets of one
nightly run must carry the same effective trade date. `validate_run` does both and merges them.

Fail closed: any exception while validating (inside GX or here) is a reject verdict, never a
pass. A batch answering a request for D with older rows is STALE: rejected with ledger status
NOT_READY, so nothing older is passed off as D and the date is retried later. So is a batch
fetched before its dates' known_at have come (a bar fetched before the 15:00 close, a day-end
dragon-tiger list fetched the same evening). Every other reject is REJECTED.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd
from pitlake.expectations import derive as d
from pitlake.expectations.verdict import (
    SAMPLE_ROWS,
    CheckResult,
    FailedExpectation,
    Outcome,
    Severity,
    Verdict,
    json_safe,
    utc_now,
)
from pitlake.schemas import BITEMPORAL_COLUMNS, SCHEMAS, TRADE_DATE_DATASETS, Dataset

from pitlake.calendar import beijing, to_date
from pitlake.errors import InvalidArgumentsError
from pitlake.pit import KnownAtBasis, end_of_beijing_day, iso_beijing, latest_admissible_known_at
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
        KnownAtBasis.DAY_END,
        KnownAtBasis.ANNOUNCEMENT,
        KnownAtBasis.REVISION,
        KnownAtBasis.STATUTORY_DEADLINE,
    }
)
SUMMARY = {"result_format": "SUMMARY", "partial_unexpected_count": SAMPLE_ROWS}


@dataclass(frozen=True)
class RunContext:
    """What the gate must know about the run that fetched the batch.

    Give `expected_trade_date` (nightly) or `window_start`/`window_end` (backfill) for the
    trade-date datasets. `fetched_at` is the bound for known_at and publish times ("not after
    ingestion"); naive datetimes are Beijing wall time. `ingested_at` is carried for callers
    and does not change the checks."""

    run_id: str
    fetched_at: datetime
    expected_trade_date: date | None = None
    window_start: date | None = None
    window_end: date | None = None
    ingested_at: datetime | None = None
    previous_row_count: int | None = None  # the previous session's rows (whole-market sets)
    st_symbols: Collection[str] = frozenset()  # canonical codes or names of ST stocks
    # Listed on the batch's day (symbols), or symbol → first trading day: no price limit then.
    new_listings: Collection[str] | Mapping[str, date] = frozenset()
    row_count_floor: float | None = None  # overrides suites.ROW_COUNT_FLOOR
    validated_at: datetime | None = None  # the verdict's clock; now when None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "fetched_at", beijing(self.fetched_at))
        if self.ingested_at is not None:
            set_(self, "ingested_at", beijing(self.ingested_at))
        for name in ("expected_trade_date", "window_start", "window_end"):
            value = getattr(self, name)
            if value is not None:
                set_(self, name, to_date(value))
        if (self.window_start is None) != (self.window_end is None):
            raise InvalidArgumentsError("give both window_start and window_end, or neither")
        if self.window_start and self.window_end and self.window_start > self.window_end:
            raise InvalidArgumentsError(
                f"window start {self.window_start} is after end {self.window_end}"
            )
        set_(self, "st_symbols", frozenset(self.st_symbols))
        if not isinstance(self.new_listings, Mapping):
            set_(self, "new_listings", frozenset(self.new_listings))

    @property
    def requested_days(self) -> list[date] | None:
        """The trade dates a batch may carry: [D], every day of the window, or None."""
        if self.expected_trade_date is not None:
            return [self.expected_trade_date]
        if self.window_start is not None and self.window_end is not None:
            n = (self.window_end - self.window_start).days
            return [self.window_start + timedelta(days=i) for i in range(n + 1)]
        return None


# ---------------------------------------------------------------- preparing the batch


def derived_columns(dataset: str, frame: pd.DataFrame, ctx: RunContext) -> dict[str, Any]:
    """The `_dq_` columns this dataset's suite checks (arrays aligned with `frame`'s rows)."""
    extra: dict[str, Any] = dict(d.known_at_limit_column(frame, ctx.fetched_at))
    if dataset in TRADE_DATE_DATASETS:
        extra.update(d.trade_date_columns(dataset, frame))
    if dataset == "quotes":
        extra.update(d.quotes_columns(frame))
    if dataset in ("quotes", "dragon_tiger"):
        day = extra[d.TRADE_DAY]
        extra.update(d.price_move_columns(dataset, frame, day, ctx.st_symbols, ctx.new_listings))
    if dataset == "financials":
        extra.update(d.financials_columns(frame))
    return extra


_REFERENCED: dict[object, list[str]] = {}  # suite expectations live as long as the process


def referenced_columns(expectation: Any) -> list[str]:
    """Columns an expectation reads ([] for table-level ones). Cached: building an
    expectation's configuration costs GX ~0.1 ms each time."""
    key = expectation.id  # set once the suite is registered in the context
    if key is None or key not in _REFERENCED:
        kw = expectation.configuration.kwargs
        cols = [kw[k] for k in ("column", "column_A", "column_B") if kw.get(k)]
        cols += list(kw.get("column_list") or [])
        if key is None:
            return cols
        _REFERENCED[key] = cols
    return _REFERENCED[key]


@dataclass
class Prepared:
    """The batch as GX sees it. Table-level expectations (columns, dtypes, row count) read the
    caller's columns; row-level ones read a frame of just the columns they name, because GX's
    pandas engine filters the *whole* frame for every pair expectation with missing values
    (measured: ~0.9 s per pair at 5M rows and 22 columns)."""

    table: pd.DataFrame  # the caller's frame, positional index
    rows: pd.DataFrame  # referenced caller columns + derived columns, same index


def prepare(dataset: str, frame: pd.DataFrame, ctx: RunContext, expectations: list) -> Prepared:
    table = frame.reset_index(drop=True)  # a lazy copy under pandas copy-on-write
    extra = derived_columns(dataset, table, ctx)
    needed: list[str] = []
    for e in expectations:
        needed += [c for c in referenced_columns(e) if c not in needed]
    data = {
        c: extra[c] if c in extra else table[c] for c in needed if c in extra or c in table.columns
    }
    return Prepared(table, pd.DataFrame(data, index=table.index, copy=False))


def _parameters(schema: Dataset, frame: pd.DataFrame, ctx: RunContext) -> dict[str, Any]:
    from pitlake.expectations.suites import ROW_COUNT_FLOOR

    optional = [c for c in OPTIONAL_COLUMNS if c in frame.columns]
    params: dict[str, Any] = {
        "expected_columns": [*schema.columns, *REQUIRED_BITEMPORAL, *optional],
        "fetched_at": pd.Timestamp(ctx.fetched_at).tz_convert("UTC"),
    }
    if schema.name in TRADE_DATE_DATASETS:
        params["expected_trade_dates"] = [pd.Timestamp(x) for x in ctx.requested_days or []]
        floor = (
            ctx.row_count_floor
            if ctx.row_count_floor is not None
            else ROW_COUNT_FLOOR.get(schema.name, 0.0)
        )
        prev = ctx.previous_row_count
        params["min_row_count"] = math.ceil(prev * floor) if prev else 0
    return params


# ---------------------------------------------------------------- reading GX results


def _meta(config: Any) -> tuple[str, str | None]:
    meta = config.meta or {}
    return meta.get("check") or config.type, meta.get("column")


def _severity(config: Any) -> Severity:
    return (
        Severity.WARNING
        if str(getattr(config.severity, "value", config.severity)) == ("warning")
        else Severity.BLOCKING
    )


def _error_of(result: Any) -> str | None:
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


def _failure(res: Any, frame: pd.DataFrame, vf: pd.DataFrame, schema: Dataset) -> FailedExpectation:
    config = res.expectation_config
    name, column = _meta(config)
    error = _error_of(res)
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


def _check(res: Any, failure: FailedExpectation | None) -> CheckResult:
    name, column = _meta(res.expectation_config)
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


def _distinct_days(vf: pd.DataFrame | None) -> list[date]:
    if vf is None or d.TRADE_DAY not in vf.columns:
        return []
    values = pd.unique(vf[d.TRADE_DAY].dropna())
    return sorted(pd.Timestamp(v).date() for v in values)


def _partitions(schema: Dataset, frame: pd.DataFrame | None, ctx: RunContext) -> list[str]:
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


def _verdict(
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
        partitions=_partitions(schema, frame, ctx),
    )


def _rejection(
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
    return _verdict(
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


def validate(dataset: str, frame: pd.DataFrame, ctx: RunContext) -> Verdict:
    """Validate one canonical batch. Never raises for bad data or a GX failure: those are
    reject verdicts. An unknown dataset name is a caller bug and raises."""
    if dataset not in SCHEMAS:
        raise InvalidArgumentsError(f"unknown dataset {dataset!r}")
    at = ctx.validated_at or utc_now()
    if not isinstance(frame, pd.DataFrame):
        return _rejection(
            dataset,
            ctx,
            None,
            at,
            "batch_is_frame",
            f"the batch is a {type(frame).__name__}, not a pandas DataFrame",
        )
    if dataset in TRADE_DATE_DATASETS and ctx.requested_days is None:
        return _rejection(
            dataset,
            ctx,
            frame,
            at,
            "run_context",
            "the run context names no expected trade date and no window, so "
            "the batch's dates cannot be checked",
        )
    try:
        return _validate(dataset, frame, ctx, at)
    except Exception as exc:  # fail closed: a broken check never lets a batch through
        log.exception("gate error validating %s (run %s)", dataset, ctx.run_id)
        return _rejection(
            dataset,
            ctx,
            frame,
            at,
            "gate_error",
            "validation raised instead of finishing; the batch is rejected",
            error=f"{type(exc).__name__}: {exc}"[:500],
        )


def _run(
    dataset: str, prep: Prepared, params: dict[str, Any], expectations: list, result_format: Any
) -> list[Any]:
    """Validate table-level expectations on the caller's frame, row-level ones on the narrow
    frame; one result per expectation."""
    from pitlake.expectations.context import run_suite

    table = [e for e in expectations if not referenced_columns(e)]
    rows = [e for e in expectations if referenced_columns(e)]
    results: list[Any] = []
    for frame, only in ((prep.table, table), (prep.rows, rows)):
        if only:
            r = run_suite(dataset, frame, params, result_format=result_format, only=only)
            if len(r.results) != len(only):
                raise RuntimeError(
                    f"GX returned {len(r.results)} results for {len(only)} expectations"
                )
            results += r.results
    return results


def _validate(dataset: str, frame: pd.DataFrame, ctx: RunContext, at: datetime) -> Verdict:
    from pitlake.expectations.context import suite

    schema = SCHEMAS[dataset]
    expectations = list(suite(dataset).expectations)
    prep = prepare(dataset, frame, ctx, expectations)
    params = _parameters(schema, frame, ctx)
    first = _run(dataset, prep, params, expectations, "BOOLEAN_ONLY")
    if not first:
        raise RuntimeError("GX returned no expectation results")
    failing = [r for r in first if not r.success or _error_of(r)]
    explained: dict[str, Any] = {}
    if failing:
        # Second pass, failed expectations only: counts, sample rows and observed values.
        wanted = {_meta(r.expectation_config)[0] for r in failing}
        only = [e for e in expectations if (e.meta or {}).get("check") in wanted]
        second = _run(dataset, prep, params, only, SUMMARY)
        explained = {_meta(r.expectation_config)[0]: r for r in second}
    failed: list[FailedExpectation] = []
    checks: list[CheckResult] = []
    for res in first:
        failure = None
        if not res.success or _error_of(res):
            name = _meta(res.expectation_config)[0]
            failure = _failure(explained.get(name, res), frame, prep.rows, schema)
            if failure.error is None and _error_of(res):
                failure.error = _error_of(res)
                failure.severity = Severity.BLOCKING
            failed.append(failure)
        checks.append(_check(res, failure))
    order = {
        name: i
        for i, name in enumerate((e.meta or {}).get("check") for e in suite(dataset).expectations)
    }
    failed.sort(key=lambda f: order.get(f.name, len(order)))
    checks.sort(key=lambda c: order.get(c.name, len(order)))
    too_early = None
    if any(
        f.name == "known_at_not_after_fetch" and f.severity is Severity.BLOCKING for f in failed
    ):
        too_early = _too_early(frame, ctx)
    return _verdict(
        dataset,
        ctx,
        frame=frame,
        evaluated=len(first),
        failed=failed,
        checks=checks,
        trade_days=_distinct_days(prep.rows),
        at=at,
        suite=suite(dataset).name,
        too_early=too_early,
    )


def _too_early(frame: pd.DataFrame, ctx: RunContext) -> str | None:
    """Why the batch is merely early, or None when an after-fetch known_at is an error.

    Early: every known_at after the fetch is a date convention that falls by the end of the
    fetch's own Beijing day (a 15:00 close fetched at 14:00, a day-end list or an announcement
    fetched that evening), or a statutory deadline (such rows are knowable only then). A
    date-derived known_at on a later day means the row claims a date that has not come yet:
    an error, not something to wait for."""
    try:
        limit = latest_admissible_known_at(frame["known_at_basis"], ctx.fetched_at)
        late = frame["known_at"] > limit
        rows = frame.loc[late, ["known_at", "known_at_basis"]]
        bases = set(rows["known_at_basis"].astype(str))
        if not bases or not bases <= {str(b) for b in DATE_DERIVED_BASES}:
            return None
        day_end = pd.Timestamp(end_of_beijing_day(ctx.fetched_at.date()))
        dated = rows["known_at_basis"].astype(str) != str(KnownAtBasis.STATUTORY_DEADLINE)
        if (rows.loc[dated, "known_at"] > day_end).any():
            return None
        latest = rows["known_at"].max()
    except Exception:  # a frame too broken to tell: not a reason to retry
        return None
    return (
        f"known_at up to {iso_beijing(latest)} ({', '.join(sorted(bases))}) is after the "
        f"fetch at {iso_beijing(ctx.fetched_at)}: the date has not fully arrived"
    )


# ---------------------------------------------------------------- run-level alignment


def batch_trade_dates(frame: pd.DataFrame) -> list[date]:
    """Distinct trade dates a batch carries (invalid or missing dates are not dates)."""
    if not isinstance(frame, pd.DataFrame) or "trade_date" not in frame.columns:
        return []
    day = d.days(frame["trade_date"], len(frame))
    return sorted(pd.Timestamp(v).date() for v in pd.unique(day[~np.isnat(day)]))


def _reference_date(dates: dict[str, list[date]]) -> date | None:
    """The run's effective trade date when none is given: the quotes' date, else the date
    most datasets carry (ties: the latest)."""
    single = {name: ds[0] for name, ds in dates.items() if len(ds) == 1}
    if "quotes" in single:
        return single["quotes"]
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
            dataset=name,
            suite=ALIGNMENT_SUITE,
            run_id=run_id,
            evaluated=1,
            row_count=len(frame),
            at=at,
            checks=[check],
            trade_dates=[x.isoformat() for x in ds],
            expected_trade_date=reference.isoformat() if reference else None,
            partitions=_partitions(SCHEMAS[name], frame, ctx),
        )
        if aligned:
            out[name] = Verdict(
                outcome=Outcome.PASS,
                ledger_status=LedgerStatus.OK,
                message=f"{name}: aligned on {carried or 'no rows'}",
                **common,
            )
            continue
        behind = reference is not None and max(ds) < reference
        ref_text = reference.isoformat() if reference else "undetermined"
        message = (
            f"{name}: misaligned: the batch carries {carried} but the run's effective "
            f"trade date is {ref_text}"
        )
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
        out[name] = Verdict(
            outcome=Outcome.REJECT,
            ledger_status=LedgerStatus.NOT_READY if behind else LedgerStatus.REJECTED,
            failed=[failure],
            message=message,
            stale=behind,
            **common,
        )
    return out


def validate_run(batches: Mapping[str, pd.DataFrame], ctx: RunContext) -> dict[str, Verdict]:
    """Validate every batch of one run, then check the trade-date datasets' alignment and
    merge the two verdicts per dataset (nightly runs; a backfill window skips alignment)."""
    verdicts = {name: validate(name, frame, ctx) for name, frame in batches.items()}
    if ctx.window_start is None:
        aligned = check_alignment(
            batches, ctx.expected_trade_date, run_id=ctx.run_id, at=ctx.validated_at or utc_now()
        )
        for name, v in aligned.items():
            verdicts[name] = verdicts[name].combine(v)
    return verdicts
