"""The reader of snapshot-list datasets (index constituents): the list in force on a day, as
known at the cutoff.

- the list is named by the query's first field (`index`), checked against the spec's closed
  set of `instruments`, and held in the key's first column;
- the day is `date`, default the cutoff's Beijing day; a day after it is NOT_READY (nothing
  about it was public then);
- the answer is the newest snapshot dated on or before the day among the rows public by the
  cutoff (the latest version per key), whole; `effective_trade_date` and `meta.snapshot_date`
  name it, so an older snapshot is never passed off as one of the day itself;
- the status comes from the ledger, never from a row count: fetches dated after the snapshot
  (up to the day) that failed make the answer carry their status (`date_status` STALE: a newer
  snapshot may exist unseen); no rows with no fetch dated on or before the day is UNKNOWN,
  never an empty OK list.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import partial
from typing import TYPE_CHECKING, Any

from pitlake.calendar import to_date
from pitlake.envelope import Result
from pitlake.errors import InvalidArgumentsError
from pitlake.lake.catalog_values import LedgerEntry
from pitlake.read import scans
from pitlake.read.answer import meta, sources
from pitlake.read.cutoff import Ask
from pitlake.read.engine import Params, col, visible
from pitlake.read.gaps import fresh_status
from pitlake.read.status import Gap, LedgerView, combine, describe_gaps, status_of_entry
from pitlake.schemas import BITEMPORAL_COLUMNS, Dataset
from pitlake.schemas.query import Query
from pitlake.statuses import DateStatus, ResultStatus

if TYPE_CHECKING:
    from pitlake.read.lake import Lake


def prepare(lake: Lake, spec: Dataset, q: Query, ask: Ask) -> Callable[[], Result]:
    """Check the query (InvalidArgumentsError on a bad value): the read to run."""
    field = next(iter(type(q).model_fields))
    value = getattr(q, field, None)
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgumentsError(f"give one {field}, e.g. {spec.instruments[0]}")
    owner = {i.upper(): i for i in spec.instruments}.get(value.strip().upper())
    if owner is None:
        raise InvalidArgumentsError(
            f"unknown {field} {value!r}: expected one of {', '.join(spec.instruments)}"
        )
    day = to_date(q.date) if q.date is not None else ask.cutoff.date()  # type: ignore[attr-defined]
    return partial(answer, lake, spec, owner, day, ask)


def newest_snapshot(
    lake: Lake, spec: Dataset, files: list[Any], where: list[str], p: Params
) -> date | None:
    """The greatest snapshot date among the rows matching `where`."""
    date_col = spec.date_column
    assert date_col is not None
    sql = f"SELECT max({col(date_col)}) FROM {lake.reader.source(files, p)} WHERE {' AND '.join(where)}"
    [(found,)] = lake.reader.rows(sql, p)
    return found


def failures_since(owner: str, entries: list[LedgerEntry], snapshot: date | None) -> list[Gap]:
    """The failed fetches dated after the snapshot answered (all, without one): a newer
    snapshot may exist unseen, so the answer carries their status. The panel asks it per
    session."""
    return [
        Gap(owner, e.date_key, status_of_entry(e), e.message, entry=e)
        for e in entries
        if (snapshot is None or e.date_key > snapshot) and not e.successful
    ]


def answer(lake: Lake, spec: Dataset, owner: str, day: date, ask: Ask) -> Result:
    owner_col, date_col = spec.key[0], spec.date_column
    assert date_col is not None
    notes = list(ask.notes)
    after_cutoff = day > ask.cutoff.date()
    files = lake.store.files(spec.name)
    snapshot: date | None = None
    table = scans.empty_table(spec)
    if files and not after_cutoff:

        def where(p: Params) -> list[str]:
            return [
                f"{col(owner_col)} = {p.add(owner)}",
                f"{col(date_col)} <= {p.add(day)}",
                *visible(p, ask.cutoff, ask.as_ingested),
            ]

        first = Params()
        snapshot = newest_snapshot(lake, spec, files, where(first), first)
        if snapshot is not None:
            p = Params()
            rows = [*where(p), f"{col(date_col)} = {p.add(snapshot)}"]
            found = lake.reader.latest_versions(spec, files, rows, p, order=spec.key)
            if found is not None and found.num_rows:
                table = found
    entries = lake.catalog.ledger_entries(spec.name, end=day)
    ledger = LedgerView(entries)
    gaps = failures_since(owner, entries, snapshot)
    status = combine([g.status for g in gaps], table.num_rows > 0)
    session = lake.trading_calendar.session_on_or_before(min(day, ask.cutoff.date()))
    date_status = DateStatus.STALE if gaps else fresh_status(day, session)
    if after_cutoff:
        status, date_status = ResultStatus.NOT_READY, DateStatus.UNKNOWN
        notes.append(
            f"The requested date {day} is after the as-of ({ask.as_of}); the list in force "
            "then was not public."
        )
    elif table.num_rows:
        notes.append(
            f"{owner} per its snapshot of {snapshot}, the newest dated on or before {day} "
            "that was public by the as-of."
        )
    elif not entries:
        status, date_status = ResultStatus.UNKNOWN, DateStatus.UNKNOWN
        notes.append(f"{spec.name} was never fetched for a date on or before {day}.")
    elif status is ResultStatus.NO_DATA:
        date_status = DateStatus.UNKNOWN
        notes.append(
            f"No {owner} snapshot dated on or before {day} was public by the as-of "
            "(the fetches succeeded)."
        )
    if gaps:
        notes.append(describe_gaps(gaps))
    extra = meta(
        table,
        ask,
        [*(g.entry for g in gaps), *entries[-1:]],  # the failures and the latest fetch
        gaps=gaps,
        rows=table.num_rows,
        view=ledger,
    )
    extra["snapshot_date"] = snapshot.isoformat() if snapshot else None
    return Result(
        status=status,
        requested_date=day.isoformat(),
        effective_trade_date=snapshot.isoformat() if snapshot and table.num_rows else None,
        date_status=date_status,
        as_of=ask.as_of,
        source=sources(table),
        message=" ".join(n for n in notes if n),
        table=table,
        columns=[*spec.columns, *BITEMPORAL_COLUMNS],
        meta=extra,
    )
