"""What the data-quality dashboard shows, computed from the catalog (docs/design.md §9).

Plain Python and JSON-shaped output, so it is testable without a server and
`/dashboard/data.json` is exactly what the page renders:

- freshness: per dataset, the latest successful fetch (OK or NO_DATA) against the latest
  closed session at the reference instant, and the lag in XSHG sessions;
- coverage: datasets × the last sessions, one cell per (dataset, session) with the ledger
  status (the worst one when several symbols or a window's end fall on it);
- validation: the share of validated batches that passed, per day, and the failed expectations;
- quarantine, recent runs, and whether Data Docs exist.

The reference instant ("as of") only moves the yardstick: the latest closed session that lag is
measured against, and the end of the coverage grid. The ledger shown is its current state
(entries dated after the reference are left out), not the ledger as it stood back then.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from pitlake import schemas
from pitlake.calendar import XSHG, beijing
from pitlake.errors import CalendarRangeError, InvalidArgumentsError
from pitlake.lake.catalog import (
    WHOLE_MARKET,
    Catalog,
    LedgerEntry,
    ValidationRecord,
    ledger_table,
    runs_table,
)
from pitlake.pit import iso_beijing, parse_cutoff
from pitlake.statuses import DASHBOARD_CELL_CODE, DASHBOARD_CELL_ORDER, LedgerStatus

STALE_ENV = "PITLAKE_STALE_SESSIONS"
DEFAULT_STALE_SESSIONS = 1
GRID_SESSIONS = 60
PASS_RATE_POINTS = 60
VALIDATIONS_PER_DATASET = 2000
QUARANTINE_LIMIT = 20
QUARANTINE_SAMPLE_ROWS = 5
RUNS_LIMIT = 15
NEVER = "NEVER"  # a cell, or a dataset, with no ledger entry at all

# Datasets that are always listed (what a nightly run ingests); others appear once the ledger
# holds entries for them (the calendar, written by backfills).
_ALWAYS_SHOWN = schemas.NIGHTLY_DATASETS


@dataclass(frozen=True)
class StatusStyle:
    """How one ledger status reads on the dashboard: a code letter (so the grid works in
    greyscale and for colour-blind readers), a label and what it means."""

    status: str
    code: str
    label: str
    meaning: str

    def to_dict(self) -> dict[str, str]:
        return {
            "status": self.status,
            "code": self.code,
            "label": self.label,
            "meaning": self.meaning,
        }


# The label and meaning of each ledger status; its letter and its rank come from pitlake/statuses.py.
_EXPLAINED: dict[LedgerStatus, tuple[str, str]] = {
    LedgerStatus.OK: (LedgerStatus.OK.value, "fetched, validated and written"),
    LedgerStatus.NO_DATA: ("no data", "the vendor answered with no rows (e.g. no listings)"),
    LedgerStatus.NOT_READY: ("not ready", "not published yet (or an older date came back)"),
    LedgerStatus.RATE_LIMITED: ("rate limited", "the vendor's quota ran out"),
    LedgerStatus.PERMISSION_DENIED: ("permission denied", "the token lacks the right"),
    LedgerStatus.UPSTREAM_ERROR: ("upstream error", "transport error, 5xx, timeout"),
    LedgerStatus.REJECTED: ("rejected", "the gate quarantined the batch"),
    LedgerStatus.NOT_CONFIGURED: ("not configured", "no token or library for a vendor"),
    LedgerStatus.SKIPPED: ("skipped", "not a session: nothing to fetch"),
}
STATUS_STYLES: tuple[StatusStyle, ...] = (
    *(StatusStyle(s.value, DASHBOARD_CELL_CODE[s], *_EXPLAINED[s]) for s in _EXPLAINED),
    StatusStyle(NEVER, "·", "never fetched", "no ledger entry for this dataset and session"),
)
STYLE_OF: dict[str, StatusStyle] = {s.status: s for s in STATUS_STYLES}

_RANK: dict[str, int] = {s.value: i for i, s in enumerate(DASHBOARD_CELL_ORDER)}


def worst_status(statuses: Iterable[str]) -> str:
    """The status a cell shows for these entries (NEVER for none)."""
    present = [str(s) for s in statuses]
    return min(present, key=lambda s: _RANK.get(s, -1)) if present else NEVER


# ---------------------------------------------------------------- reference


def stale_threshold(environ: Mapping[str, str] | None = None) -> tuple[int, str | None]:
    """Lag (in sessions) beyond which a dataset is stale: $PITLAKE_STALE_SESSIONS, default 1.
    A bad value falls back to the default with a note (the dashboard still renders)."""
    raw = (os.environ if environ is None else environ).get(STALE_ENV, "").strip()
    if not raw:
        return DEFAULT_STALE_SESSIONS, None
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        return DEFAULT_STALE_SESSIONS, (
            f"{STALE_ENV}={raw[:20]!r} is not a whole number ≥ 0; using {DEFAULT_STALE_SESSIONS}"
        )
    return value, None


@dataclass(frozen=True)
class Reference:
    """The instant the dashboard measures against, and the latest session closed by then."""

    as_of: datetime  # Beijing
    source: str  # "as_of" (query), "now", or "pin" (the server's start-up pin)
    session: date
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "as_of": iso_beijing(self.as_of),
            "as_of_date": self.as_of.date().isoformat(),
            "source": self.source,
            "latest_closed_session": self.session.isoformat(),
            "notes": list(self.notes),
        }


def resolve_reference(
    as_of: str | date | datetime | None,
    *,
    now: datetime | None = None,
    pin: datetime | None = None,
) -> Reference:
    """`as_of` (a date = the end of that Beijing day, or an ISO timestamp), else now; never
    later than the server's pin. Past the end of the trading calendar the last known session
    is used, and the page says so. Raises InvalidArgumentsError for an unreadable as_of."""
    notes: list[str] = []
    if as_of is None or (isinstance(as_of, str) and not as_of.strip()):
        at, source = parse_cutoff(None, now=now), "now"
    else:
        at, source = parse_cutoff(as_of), "as_of"
    if pin is not None and at > pin:
        notes.append(f"the server is pinned to {iso_beijing(pin)}: the reference is clamped to it")
        at, source = beijing(pin), "pin"
    if at.date() < XSHG.first:
        raise InvalidArgumentsError(f"as_of {at.date()} is before the first XSHG session")
    try:
        session = XSHG.latest_closed_session(at)
    except CalendarRangeError:
        session = XSHG.session_on_or_before(XSHG.last)
        notes.append(
            f"the trading calendar is known through {XSHG.last}; lag is measured against its "
            f"last session {session}"
        )
    return Reference(as_of=at, source=source, session=session, notes=tuple(notes))


# ---------------------------------------------------------------- datasets


def datasets_in_view(catalog: Catalog) -> list[str]:
    """The nightly datasets, then any other dataset the ledger holds, in schema order."""
    with catalog.engine.connect() as conn:
        present = {r[0] for r in conn.execute(select(ledger_table.c.dataset).distinct())}
    extra = [d for d in schemas.DATASETS if d in present and d not in _ALWAYS_SHOWN]
    unknown = sorted(present - set(_ALWAYS_SHOWN) - set(schemas.DATASETS))
    return [*_ALWAYS_SHOWN, *extra, *unknown]


def is_empty(catalog: Catalog) -> bool:
    """Nothing ingested yet: no ledger entry and no run."""
    with catalog.engine.connect() as conn:
        ledger = conn.execute(select(ledger_table.c.dataset).limit(1)).first()
        runs = conn.execute(select(runs_table.c.run_id).limit(1)).first()
    return ledger is None and runs is None


# ---------------------------------------------------------------- freshness


def freshness_state(lag: int | None, threshold: int) -> str:
    """current (lag 0), within (behind by at most the threshold), stale, or never."""
    if lag is None:
        return "never"
    if lag == 0:
        return "current"
    return "within" if lag <= threshold else "stale"


def freshness(
    catalog: Catalog, ref: Reference, datasets: Sequence[str], threshold: int
) -> list[dict[str, Any]]:
    """Per dataset: the latest successful fetch dated on or before the reference day, the
    latest attempt (any status), and the lag in sessions to the latest closed session."""
    t = ledger_table.c
    until = ref.as_of.date()
    latest_ok = catalog.latest_ok_dates(until)
    with catalog.engine.connect() as conn:
        last_date = dict(
            conn.execute(
                select(t.dataset, func.max(t.date_key))
                .where(t.date_key <= until)
                .group_by(t.dataset)
            ).all()
        )
    out = []
    for ds in datasets:
        ok_date = latest_ok.get(ds)
        lag = XSHG.sessions_count_between(ok_date, ref.session) if ok_date is not None else None
        last = last_date.get(ds)
        last_status, last_message = None, ""
        if last is not None:
            entries = catalog.ledger_entries(ds, last, last)
            last_status = worst_status(str(e.status) for e in entries)
            shown = [e for e in entries if str(e.status) == last_status]
            last_message = shown[0].message if shown else ""
        out.append(
            {
                "dataset": ds,
                "latest_ok": ok_date.isoformat() if ok_date else None,
                "latest_closed_session": ref.session.isoformat(),
                "lag_sessions": lag,
                "threshold": threshold,
                "state": freshness_state(lag, threshold),
                "last_attempt": last.isoformat() if last else None,
                "last_attempt_status": last_status,
                "last_attempt_message": last_message,
            }
        )
    return out


# ---------------------------------------------------------------- coverage


def grid_sessions(end: date, count: int = GRID_SESSIONS) -> list[date]:
    """The last `count` sessions ending at `end` (a session), oldest first."""
    start = max(XSHG.first, end - timedelta(days=count * 2 + 40))
    return XSHG.sessions_between(start, end)[-count:]


def trace_text(trace: Iterable[Mapping[str, Any]]) -> str:
    """A vendor trace on one line: 'tushare UPSTREAM_ERROR ×3: 系统内部错误; akshare OK'."""
    parts = []
    for step in trace:
        vendor = step.get("vendor") or "?"
        outcome = step.get("outcome") or step.get("status") or ""
        attempts = step.get("attempts")
        text = f"{vendor} {outcome}".strip()
        if isinstance(attempts, int) and attempts > 1:
            text += f" ×{attempts}"
        message = step.get("message")
        if message:
            text += f": {message}"
        parts.append(text)
    return "; ".join(parts)


@dataclass
class _CellParts:
    """Every ledger fact that lands on one (dataset, session) cell."""

    entries: list[LedgerEntry] = field(default_factory=list)  # whole-market, full detail
    # per-symbol aggregates: status → [count, rows, example symbol, date_key]
    symbols: dict[str, list[Any]] = field(default_factory=dict)
    dates: set[date] = field(default_factory=set)


def _column(d: date, dataset: str, index: Mapping[date, int], window_keyed: bool) -> int | None:
    """The grid column a ledger date falls on. A window dataset's entry is dated at the
    window's end, which may be a weekend or holiday: it shows on the session before."""
    if d in index:
        return index[d]
    if not window_keyed:
        return None
    try:
        return index.get(XSHG.session_on_or_before(d))
    except CalendarRangeError:
        return None


def _cell(dataset: str, day: date, parts: _CellParts | None, window_keyed: bool, catalog: Catalog):
    if parts is None:
        why = "no ledger entry for this session"
        if window_keyed:
            why += f" ({dataset} is recorded once per fetch window, dated at the window's end)"
        return {
            "date": day.isoformat(),
            "status": NEVER,
            "code": STYLE_OF[NEVER].code,
            "message": why,
        }
    statuses = [str(e.status) for e in parts.entries] + list(parts.symbols)
    status = worst_status(statuses)
    rows = sum(e.rows for e in parts.entries) + sum(v[1] for v in parts.symbols.values())
    entry = next((e for e in parts.entries if str(e.status) == status), None)
    if entry is None and status in parts.symbols:
        _, _, symbol, d = parts.symbols[status]
        entry = catalog.ledger_entry(dataset, d, symbol)
    vendors = sorted(
        {e.vendor for e in parts.entries if e.vendor}
        | ({entry.vendor} if entry and entry.vendor else set())
    )
    cell: dict[str, Any] = {
        "date": day.isoformat(),
        "status": status,
        "code": STYLE_OF.get(status, STYLE_OF[NEVER]).code,
        "rows": rows,
        "vendor": entry.vendor if entry else None,
        "vendors": vendors,
        "trace": entry.trace if entry else [],
        "trace_text": trace_text(entry.trace) if entry else "",
        "message": entry.message if entry else "",
        "run_id": entry.run_id if entry else None,
        "recorded_at": iso_beijing(entry.recorded_at) if entry else None,
        "entry_dates": sorted(d.isoformat() for d in parts.dates),
    }
    if parts.symbols:
        cell["symbols"] = {s: v[0] for s, v in sorted(parts.symbols.items())}
        if entry is not None and entry.symbol != WHOLE_MARKET:
            cell["example_symbol"] = entry.symbol
    return cell


def coverage(
    catalog: Catalog, ref: Reference, datasets: Sequence[str], count: int = GRID_SESSIONS
) -> dict[str, Any]:
    """Datasets × the last `count` sessions through the reference session."""
    from pitlake import schemas

    sessions = grid_sessions(ref.session, count)
    if not sessions:
        return {"sessions": [], "rows": []}
    index = {d: i for i, d in enumerate(sessions)}
    lo, hi = sessions[0], max(ref.as_of.date(), sessions[-1])
    cells: dict[tuple[str, int], _CellParts] = {}
    window_keyed = {ds: ds not in schemas.TRADE_DATE_DATASETS for ds in datasets}

    def parts_at(ds: str, d: date, status: str) -> _CellParts | None:
        if status == LedgerStatus.SKIPPED and d not in index:
            return None  # a non-session: it has no column of its own
        col = _column(d, ds, index, window_keyed.get(ds, True))
        if col is None:
            return None
        p = cells.setdefault((ds, col), _CellParts())
        p.dates.add(d)
        return p

    for e in catalog.ledger_entries(start=lo, end=hi, symbol=WHOLE_MARKET):
        p = parts_at(e.dataset, e.date_key, str(e.status))
        if p is not None:
            p.entries.append(e)
    t = ledger_table.c
    stmt = (
        select(
            t.dataset, t.date_key, t.status, func.count(), func.sum(t.row_count), func.min(t.symbol)
        )
        .where(t.symbol != WHOLE_MARKET, t.date_key >= lo, t.date_key <= hi)
        .group_by(t.dataset, t.date_key, t.status)
    )
    with catalog.engine.connect() as conn:
        grouped = conn.execute(stmt).all()
    for ds, d, status, n, rows, example in grouped:
        p = parts_at(ds, d, status)
        if p is None:
            continue
        agg = p.symbols.setdefault(status, [0, 0, example, d])
        agg[0] += int(n)
        agg[1] += int(rows or 0)
    rows_out = []
    for ds in datasets:
        wk = window_keyed.get(ds, True)
        row_cells = [
            _cell(ds, day, cells.get((ds, i)), wk, catalog) for i, day in enumerate(sessions)
        ]
        counts: dict[str, int] = {}
        for c in row_cells:
            counts[c["status"]] = counts.get(c["status"], 0) + 1
        rows_out.append(
            {
                "dataset": ds,
                "keyed_by": "window" if wk else "session",
                "counts": counts,
                "cells": row_cells,
            }
        )
    return {"sessions": [d.isoformat() for d in sessions], "rows": rows_out}


# ---------------------------------------------------------------- validation


def _verdicts(records: Iterable[ValidationRecord]) -> list[ValidationRecord]:
    """One record per verdict: a batch spanning several partitions is recorded once per
    partition, with identical outcome and instant."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for r in records:
        key = (
            r.run_id,
            r.dataset,
            r.suite,
            r.date_key,
            r.recorded_at,
            r.success,
            r.severity,
            r.failed,
        )
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def validation_day(r: ValidationRecord) -> date:
    """The session a verdict is about when it has one, else the Beijing day it ran (a
    backfill group spans many sessions)."""
    return r.date_key if r.date_key is not None else beijing(r.recorded_at).date()


def pass_rates(
    records: Iterable[ValidationRecord], points: int = PASS_RATE_POINTS
) -> list[dict[str, Any]]:
    """Per day (oldest first, the last `points` days): batches validated, passed (every
    expectation met), warned (written, flagged) and rejected (quarantined), and the pass rate."""
    days: dict[date, list[int]] = {}
    for r in _verdicts(records):
        counts = days.setdefault(validation_day(r), [0, 0, 0, 0])
        counts[0] += 1
        if r.success:
            counts[1] += 1
        elif r.severity == "warning":
            counts[2] += 1
        else:
            counts[3] += 1
    out = []
    for d in sorted(days)[-points:]:
        total, passed, warned, rejected = days[d]
        out.append(
            {
                "date": d.isoformat(),
                "total": total,
                "passed": passed,
                "warned": warned,
                "rejected": rejected,
                "rate": passed / total if total else None,
            }
        )
    return out


def failed_expectations(records: Iterable[ValidationRecord]) -> list[dict[str, Any]]:
    """Each expectation that failed, how often, and when last (most recent first)."""
    found: dict[str, dict[str, Any]] = {}
    for r in sorted(_verdicts(records), key=lambda r: (validation_day(r), r.recorded_at)):
        for f in r.failed_expectations:
            name = str(f.get("name") or f.get("expectation_type") or "?")
            item = found.setdefault(
                name,
                {
                    "name": name,
                    "description": f.get("description") or "",
                    "column": f.get("column"),
                    "severity": f.get("severity") or r.severity,
                    "failures": 0,
                    "unexpected_rows": 0,
                },
            )
            item["failures"] += 1
            item["unexpected_rows"] += int(f.get("unexpected_count") or 0)
            item["last_date"] = validation_day(r).isoformat()
            item["last_run"] = r.run_id
    return sorted(found.values(), key=lambda i: (i["last_date"], i["name"]), reverse=True)


def validation(catalog: Catalog, datasets: Sequence[str]) -> dict[str, Any]:
    out = []
    for ds in datasets:
        records = catalog.validations(ds, limit=VALIDATIONS_PER_DATASET)
        verdicts = _verdicts(records)
        passed = sum(1 for r in verdicts if r.success)
        out.append(
            {
                "dataset": ds,
                "batches": len(verdicts),
                "passed": passed,
                "rate": passed / len(verdicts) if verdicts else None,
                "points": pass_rates(verdicts),
                "failed_expectations": failed_expectations(verdicts),
            }
        )
    return {
        "basis": (
            "share of validated batches that met every expectation, per session validated "
            "(a multi-session backfill batch counts on the day it ran)"
        ),
        "datasets": out,
    }


# ---------------------------------------------------------------- quarantine and runs


def _shown_path(path: str, lake_root: Path | None) -> str:
    if lake_root is not None:
        try:
            return Path(path).resolve().relative_to(lake_root.resolve()).as_posix()
        except (ValueError, OSError):
            pass
    return path


def quarantine(
    catalog: Catalog, lake_root: Path | None, limit: int = QUARANTINE_LIMIT
) -> list[dict[str, Any]]:
    out = []
    for q in catalog.quarantines(limit):
        samples = list(q.sample_rows)[:QUARANTINE_SAMPLE_ROWS]
        columns: list[str] = []
        for row in samples:
            columns += [c for c in row if c not in columns and not str(c).startswith("_")]
        out.append(
            {
                "id": q.id,
                "dataset": q.dataset,
                "date": q.date_key.isoformat() if q.date_key else None,
                "run_id": q.run_id,
                "reason": q.reason,
                "recorded_at": iso_beijing(q.recorded_at) if q.recorded_at else None,
                "path": _shown_path(q.path, lake_root),
                "failed_expectations": [
                    {
                        "name": f.get("name") or f.get("expectation_type"),
                        "description": f.get("description") or "",
                        "column": f.get("column"),
                        "unexpected_count": f.get("unexpected_count"),
                    }
                    for f in q.failed_expectations
                ],
                "sample_columns": columns,
                "sample_rows": [[row.get(c) for c in columns] for row in samples],
                "sample_total": len(q.sample_rows),
            }
        )
    return out


def duration_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    s = round(seconds)
    if s < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{s} s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


def runs(catalog: Catalog, limit: int = RUNS_LIMIT) -> list[dict[str, Any]]:
    out = []
    for r in catalog.runs(limit):
        seconds = (r.ended_at - r.started_at).total_seconds() if r.ended_at else None
        summary = r.summary or {}
        datasets = []
        for d in summary.get("datasets") or []:
            failed = [
                {
                    "date": u.get("date"),
                    "status": u.get("status"),
                    "message": u.get("message") or "",
                    "trace_text": trace_text(u.get("trace") or []),
                }
                for u in (d.get("failed_units") or [])[:5]
            ]
            datasets.append(
                {
                    "dataset": d.get("dataset"),
                    "status": d.get("status"),
                    "units": d.get("units"),
                    "rows": d.get("rows"),
                    "rows_added": d.get("rows_added"),
                    "vendors": d.get("vendors") or [],
                    "expectations": d.get("expectations") or [],
                    "failed_units": failed,
                    "failed_count": len(d.get("failed_units") or []),
                }
            )
        out.append(
            {
                "run_id": r.run_id,
                "flow": r.flow,
                "status": r.status,
                "started_at": iso_beijing(r.started_at),
                "ended_at": iso_beijing(r.ended_at) if r.ended_at else None,
                "duration_s": seconds,
                "duration": duration_text(seconds) if seconds is not None else "running",
                "params": {k: v for k, v in (r.params or {}).items() if v not in (None, [], "")},
                "scope": summary.get("scope") or "",
                "datasets": datasets,
            }
        )
    return out


# ---------------------------------------------------------------- everything


def first_ingest_commands(lake_root: Path | None) -> list[dict[str, str]]:
    lake = str(lake_root) if lake_root is not None else "DIR"
    return [
        {
            "what": "offline, from the bundled sample (2025-04-01 … 2025-06-30)",
            "command": (
                f"pitlake ingest --source replay:sample --start 2025-04-01 --end 2025-06-30 "
                f"--lake {lake}"
            ),
        },
        {
            "what": "the latest closed session from the live vendors (needs TUSHARE_TOKEN)",
            "command": f"pitlake ingest --lake {lake}",
        },
    ]


def build_dashboard(
    catalog: Catalog,
    *,
    lake_root: str | os.PathLike[str] | None = None,
    as_of: str | date | datetime | None = None,
    now: datetime | None = None,
    pin: datetime | None = None,
    stale_sessions: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Everything the dashboard shows, JSON-shaped. Raises InvalidArgumentsError for a bad
    `as_of`. An empty lake gives the same structure with empty lists and `empty: true`."""
    root = Path(lake_root) if lake_root is not None else None
    ref = resolve_reference(as_of, now=now, pin=pin)
    notes = list(ref.notes)
    if stale_sessions is None:
        stale_sessions, note = stale_threshold(environ)
        if note:
            notes.append(note)
    datasets = datasets_in_view(catalog)
    empty = is_empty(catalog)
    dq_index = root / "dq" / "index.html" if root is not None else None
    reference = ref.to_dict()
    reference["notes"] = notes
    return {
        "generated_at": iso_beijing(parse_cutoff(None, now=now)),
        "empty": empty,
        "reference": reference,
        "stale_sessions": stale_sessions,
        "stale_env": STALE_ENV,
        "legend": [s.to_dict() for s in STATUS_STYLES],
        "datasets": datasets,
        "freshness": freshness(catalog, ref, datasets, stale_sessions),
        "coverage": coverage(catalog, ref, datasets),
        "validation": validation(catalog, datasets),
        "quarantine": quarantine(catalog, root),
        "runs": runs(catalog),
        "data_docs": {
            "url": "/dq/",
            "available": bool(dq_index is not None and dq_index.is_file()),
        },
        "first_ingest": first_ingest_commands(root) if empty else [],
    }


__all__ = [
    "DEFAULT_STALE_SESSIONS",
    "GRID_SESSIONS",
    "NEVER",
    "STALE_ENV",
    "STATUS_STYLES",
    "Reference",
    "build_dashboard",
    "coverage",
    "failed_expectations",
    "freshness",
    "pass_rates",
    "resolve_reference",
    "stale_threshold",
]
