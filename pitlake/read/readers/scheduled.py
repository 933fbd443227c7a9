"""The reader of scheduled plans (a disclosure schedule): the latest version of each plan
public by the cutoff, kept when the day it is for (the spec's `date_column`) falls in the
Beijing days [start, end] (default: the cutoff's day and the 30 days after it).

The window is applied after the latest version is chosen: a plan moved out of the window by a
later version (a reschedule public by the cutoff) is not answered with its older date, and
one moved in by a version public only after the cutoff is not answered at all. A query field
named after a key column (e.g. `report_period`) keeps the rows with that value."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from pitlake.calendar import to_date
from pitlake.envelope import Result
from pitlake.errors import InvalidArgumentsError
from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.read import arguments, gaps, scans
from pitlake.read.answer import undated
from pitlake.read.cutoff import Ask
from pitlake.read.engine import Params, col, visible
from pitlake.read.status import BENIGN_ANSWER, LedgerView, combine, describe_gaps
from pitlake.schemas import Dataset
from pitlake.schemas.query import Query

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

DEFAULT_AHEAD_DAYS = 30  # a window given by neither end: the cutoff's day and the next 30
MAX_WINDOW_DAYS = 366
SYMBOL = "symbol"


def window(start: Any, end: Any, ask: Ask) -> tuple[date, date]:
    lo = to_date(start) if start is not None else None
    hi = to_date(end) if end is not None else None
    if lo is None:
        lo = hi if hi is not None else ask.cutoff.date()
    if hi is None:
        hi = lo + timedelta(days=DEFAULT_AHEAD_DAYS)
    if lo > hi:
        raise InvalidArgumentsError(f"start {lo} is after end {hi}")
    if (hi - lo).days > MAX_WINDOW_DAYS:
        raise InvalidArgumentsError(f"range longer than {MAX_WINDOW_DAYS} days")
    return lo, hi


def key_filters(spec: Dataset, q: Query) -> dict[str, Any]:
    """Query fields named after a key column (other than the symbol): equality filters."""
    out = {}
    for name in type(q).model_fields:
        if name in spec.key and name != SYMBOL and getattr(q, name) is not None:
            out[name] = to_date(getattr(q, name)) if _is_date(spec, name) else getattr(q, name)
    return out


def _is_date(spec: Dataset, name: str) -> bool:
    return pa.types.is_date32(spec.arrow_schema.field(name).type)


def prepare(lake: Lake, spec: Dataset, q: Query, ask: Ask) -> Callable[[], Result]:
    """Check the query (InvalidArgumentsError on a bad value): the read to run."""
    syms = arguments.symbols(q.symbols, required=False)  # type: ignore[attr-defined]
    start, end = arguments.one_day(q.date, q.start, q.end)  # type: ignore[attr-defined]
    lo, hi = window(start, end, ask)
    return partial(answer, lake, spec, syms, lo, hi, key_filters(spec, q), ask)


def answer(
    lake: Lake,
    schema: Dataset,
    symbols: list[str],
    lo: date,
    hi: date,
    filters: dict[str, Any],
    ask: Ask,
) -> Result:
    assert schema.date_column is not None, f"{schema.name}: a scheduled dataset names its day"
    p = Params()
    where = list(visible(p, ask.cutoff, ask.as_ingested))
    if symbols:
        where.append(f"{col(SYMBOL)} IN {p.in_list(symbols)}")
    for name, value in filters.items():
        where.append(f"{col(name)} = {p.add(value)}")
    # plans for days in the window belong to periods of that year or the year before
    files = lake.store.files(schema.name, scans.years(date(lo.year - 1, 1, 1), hi))
    table = lake.reader.latest_versions(schema, files, where, p, order=list(schema.key))
    frame = table if table is not None and table.num_rows else scans.empty_table(schema)
    if frame.num_rows:
        day = frame.column(schema.date_column)
        frame = frame.filter(
            pc.and_(pc.greater_equal(day, pa.scalar(lo)), pc.less_equal(day, pa.scalar(hi)))
        )
        frame = frame.sort_by(
            [(schema.date_column, "ascending"), *((k, "ascending") for k in schema.key)]
        )
    ledger = LedgerView(lake.catalog.ledger_entries(schema.name, symbol=[WHOLE_MARKET]))
    notes = list(ask.notes)
    found = []
    if frame.num_rows == 0:
        found = [gaps.undated_gap(WHOLE_MARKET, ledger.for_symbol(WHOLE_MARKET), None)]
    status = combine([g.status for g in found], frame.num_rows > 0)
    if found and status not in BENIGN_ANSWER:
        notes.append(describe_gaps(found))
    elif frame.num_rows == 0:
        notes.append(f"No {schema.name} entry for {lo} … {hi} public by the as-of.")
    return undated(
        frame,
        schema,
        ask,
        status,
        notes,
        found,
        ledger.entries[-20:],
        requested_date=hi.isoformat(),
        extra_meta={"window": {"start": lo.isoformat(), "end": hi.isoformat()}},
    )
