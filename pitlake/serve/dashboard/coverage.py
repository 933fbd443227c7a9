"""The coverage grid: datasets × the last sessions, one cell per (dataset, session) with the
ledger status (the worst one when several symbols or a window's end fall on it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from pitlake import schemas
from pitlake.calendar import XSHG
from pitlake.errors import CalendarRangeError
from pitlake.lake.catalog import WHOLE_MARKET, Catalog
from pitlake.lake.catalog_values import LedgerEntry
from pitlake.pit import iso_beijing
from pitlake.serve.dashboard.reference import Reference
from pitlake.serve.dashboard.styles import NEVER, STYLE_OF, worst_status
from pitlake.statuses import LedgerStatus

GRID_SESSIONS = 60


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
    for ds, d, status, n, rows, example in catalog.symbol_entry_counts(lo, hi):
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
