"""A unit's ledger entries: which (date, scope) pairs it is about, how many rows each got, and
the status each ends with."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd

from pitlake import schemas
from pitlake.calendar import sessions_between
from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Unit, UnitOutcome
from pitlake.schemas import Kind
from pitlake.statuses import RUN_DONE, SUCCESSFUL_FETCH, LedgerStatus


def scopes(unit: Unit) -> list[str]:
    return list(unit.symbols) if unit.symbols else [WHOLE_MARKET]


# Kinds whose window is recorded session by session: an as-of read inside the window then
# finds its session's entry (a state dataset's window answers for every day in it).
PER_SESSION: frozenset[Kind] = frozenset({Kind.TRADE_DATED, Kind.STATE})


def session_keys(unit: Unit) -> list[date]:
    """The dates a unit's ledger entries are about: a trade-dated (or state) window has one
    per session."""
    if unit.trade_date is not None or schemas.get(unit.dataset).kind not in PER_SESSION:
        return [unit.date_key]
    assert unit.start is not None and unit.end is not None
    return sessions_between(unit.start, unit.end)


def rows_by_scope(unit: Unit, frame: pd.DataFrame) -> dict[tuple[date, str], int]:
    """Row counts per (ledger date, scope) for the rows a unit brought."""
    counts: dict[tuple[date, str], int] = {}
    spec = schemas.get(unit.dataset)
    date_col = spec.date_column
    by_date = spec.kind is Kind.TRADE_DATED and unit.trade_date is None
    for d in session_keys(unit):
        part = frame
        if by_date and date_col is not None and not frame.empty:
            part = frame[pd.to_datetime(frame[date_col]).dt.date == d]
        for scope in scopes(unit):
            counts[(d, scope)] = len(part) if scope == WHOLE_MARKET else _rows_about(part, scope)
    return counts


def _rows_about(frame: pd.DataFrame, symbol: str) -> int:
    """Rows about one symbol: its `symbol` rows, or the items whose `symbols` list names it
    (news). A frame with neither column is all about the symbols the unit asked for."""
    if frame.empty:
        return 0
    if "symbol" in frame.columns:
        return int((frame["symbol"] == symbol).sum())
    if "symbols" in frame.columns:
        return sum(
            1
            for cell in frame["symbols"]
            if hasattr(cell, "__iter__") and not isinstance(cell, str) and symbol in list(cell)
        )
    return len(frame)


def record_ledger(
    env: RunEnv,
    unit: Unit,
    status: LedgerStatus,
    *,
    counts: dict[tuple[date, str], int] | None,
    vendor: str | None,
    trace: list[dict[str, Any]],
    message: str,
) -> tuple[LedgerStatus, str]:
    """One ledger entry per (date, scope). On success a scope without rows is NO_DATA — or
    NOT_READY for a whole-market dataset that is never empty on a session (an empty answer
    means the vendor has not published the date yet)."""
    never_empty = schemas.get(unit.dataset).never_empty
    worst, worst_msg = status, message
    keys = session_keys(unit)
    # one entry for a whole window: it says which days it covered (a session's entry is its day)
    window_start = unit.start if keys == [unit.date_key] and unit.trade_date is None else None
    for d in keys:
        for scope in scopes(unit):
            s, rows, msg = status, 0, message
            if counts is not None:
                rows = counts.get((d, scope), 0)
                if status in SUCCESSFUL_FETCH:
                    rows += unit.covered_rows if scope == WHOLE_MARKET else 0
                    s = LedgerStatus.OK if rows else LedgerStatus.NO_DATA
                    if not rows and scope == WHOLE_MARKET and never_empty:
                        s = LedgerStatus.NOT_READY
                        msg = f"no {unit.dataset} rows for session {d}: not published yet"
            if s not in RUN_DONE:
                worst, worst_msg = s, msg
            env.catalog.record_ledger(
                unit.dataset,
                d,
                s,
                symbol=scope,
                rows=rows,
                vendor=vendor,
                trace=trace,
                message=msg,
                run_id=env.run_id,
                window_start=window_start,
                symbols_asked=symbols_asked(unit, s) if scope == WHOLE_MARKET else None,
            )
    return worst, worst_msg


def symbols_asked(unit: Unit, status: LedgerStatus) -> frozenset[str] | None:
    """What a universe unit's whole-market entry records as asked: on success the symbols it
    asked, with those a top-up's earlier fetch covered; None for a failure (it vouches for
    no symbol, so the next run asks the whole universe again) and for other units."""
    if unit.fetch_symbols is None or status not in SUCCESSFUL_FETCH:
        return None
    return frozenset(unit.fetch_symbols) | (unit.covered or frozenset())


def not_a_session(day: date) -> str:
    """Why a date has nothing to ingest, as the summary shows it: '2025-06-07 is not an XSHG
    session (Saturday)'; a weekday names the holiday closure."""
    weekday = day.strftime("%A")
    why = weekday if day.weekday() >= 5 else f"{weekday}, an exchange holiday"
    return f"{day} is not an XSHG session ({why})"


def skip(env: RunEnv, dataset: str, day: date, reason: str) -> UnitOutcome:
    """A non-session date: nothing to fetch, recorded so the ledger says why."""
    env.catalog.record_ledger(dataset, day, LedgerStatus.SKIPPED, message=reason, run_id=env.run_id)
    return UnitOutcome(
        dataset=dataset, date_key=day.isoformat(), status=LedgerStatus.SKIPPED, message=reason
    )
