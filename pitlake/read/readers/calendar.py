"""The reader of the calendar: XSHG days in [start, end] (default: the cutoff's day) with
is_open as known at the cutoff (`pitlake.calendar_notices`: past days as they happened, later
days as announced by then, the rest unknown) — the offline exchange calendar where it reaches, the
stored vendor calendar known at the cutoff beyond it (and where they disagree, the answer says
so)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from pitlake.calendar import FIRST_SESSION
from pitlake.calendar_notices import as_known
from pitlake.envelope import Result
from pitlake.read import arguments, scans
from pitlake.read.cutoff import Ask
from pitlake.read.engine import Params, col, visible
from pitlake.schemas import Dataset
from pitlake.schemas.query import Query
from pitlake.statuses import DateStatus, ResultStatus

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

EXCHANGE = "XSHG"
OFFLINE_SOURCE = "exchange_calendars"


def prepare(lake: Lake, spec: Dataset, q: Query, ask: Ask) -> Callable[[], Result]:
    """Check the query (InvalidArgumentsError on a bad value): the read to run."""
    start, end = arguments.one_day(q.date, q.start, q.end)  # type: ignore[attr-defined]
    lo, hi = arguments.calendar_days(start, end, ask)
    return partial(answer, lake, spec, lo, hi, ask)


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    """Calendar rows (built as JSON rows) in their columnar types."""
    return pa.table(
        {
            "date": pa.array([date.fromisoformat(r["date"]) for r in rows], pa.date32()),
            "is_open": pa.array([r["is_open"] for r in rows], pa.bool_()),
            "source": pa.array([r["source"] for r in rows], pa.string()),
        }
    )


def answer(lake: Lake, schema: Dataset, start: date, end: date, ask: Ask) -> Result:
    cal = lake.trading_calendar
    offline_last = cal.offline_last
    stored: dict[date, dict[str, Any]] = {}
    files = lake.store.files(schema.name, scans.years(start, end))
    if files:
        p = Params()
        where = [
            f"{col('date')} BETWEEN {p.add(start)} AND {p.add(end)}",
            f"{col('exchange')} = {p.add(EXCHANGE)}",
            *visible(p, ask.cutoff, None),
        ]
        table = lake.reader.latest_versions(schema, files, where, p)
        if table is not None:
            stored = {r["date"]: r for r in table.to_pylist()}
    rows: list[dict[str, Any]] = []
    missing: list[date] = []
    mismatches: list[dict[str, Any]] = []
    d = start
    while d <= end:
        known = None
        if FIRST_SESSION <= d <= offline_last:
            known = as_known(d, cal.is_session(d), ask.cutoff)
        elif d < FIRST_SESSION:
            known = False
        if known is not None:
            rows.append({"date": d.isoformat(), "is_open": known, "source": OFFLINE_SOURCE})
            if d in stored and bool(stored[d]["is_open"]) != known:
                mismatches.append(
                    {
                        "date": d.isoformat(),
                        "vendor": stored[d]["source"],
                        "vendor_is_open": stored[d]["is_open"],
                    }
                )
        elif d in stored:
            rows.append(
                {
                    "date": d.isoformat(),
                    "is_open": bool(stored[d]["is_open"]),
                    "source": stored[d]["source"],
                }
            )
        else:
            missing.append(d)
        d += timedelta(days=1)
    notes = list(ask.notes)
    status = ResultStatus.OK
    if missing:
        status = ResultStatus.UNKNOWN
        notes.append(_missing_note(missing, offline_last, ask, schema.name))
    if mismatches:
        notes.append(
            f"The stored vendor calendar disagrees with {EXCHANGE} on {len(mismatches)} day(s)."
        )
    cutoff_day = ask.cutoff.date().isoformat()
    open_days = [r["date"] for r in rows if r["is_open"] and r["date"] <= cutoff_day]
    meta: dict[str, Any] = {"rows": len(rows), "known_at_max": None, "pinned": ask.pinned}
    if mismatches:
        meta["mismatches"] = mismatches
    return Result(
        status=status,
        requested_date=end.isoformat(),
        effective_trade_date=open_days[-1] if open_days else None,
        date_status=DateStatus.NOT_APPLICABLE,
        as_of=ask.as_of,
        source=",".join(sorted({r["source"] for r in rows})) or None,
        message=" ".join(notes),
        data=rows,
        meta=meta,
        table=_table(rows),
    )


def _missing_note(missing: list[date], offline_last: date, ask: Ask, dataset: str) -> str:
    """Why days have no status: not announced by the cutoff, or past every calendar held."""
    span = f"{missing[0]}…{missing[-1]} ({len(missing)} days)"
    if missing[0] <= offline_last:
        return (
            f"No calendar known for {span} as of {ask.cutoff.date()}: those days' holidays "
            "had not been announced then."
        )
    return (
        f"No calendar known for {span}: the offline calendar ends {offline_last}; ingest the "
        f"{dataset} dataset to extend it."
    )
