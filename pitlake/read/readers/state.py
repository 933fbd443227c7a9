"""The reader of state datasets (Kind.STATE, the security master): at the cutoff T, the rows
known by T (the newest version per key) whose interval starts by T's Beijing day, turned by the
spec's state view into one row per member with its states that day (the universe).

The status comes from the ledger, as for every dataset: a lake that never fetched the dataset
by T's day answers UNKNOWN (never an empty OK list, which would read as "no stocks"); the
latest successful fetch on or before that day is the effective date, STALE when it is older
than the day's session."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from pitlake.envelope import Result
from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.lake.catalog_values import LedgerEntry
from pitlake.read.answer import meta, sources
from pitlake.read.cutoff import Ask
from pitlake.read.engine import DuckReader, Params, col, last_per_key, visible, visible_mask
from pitlake.read.gaps import fresh_status
from pitlake.read.kept import KeptByFiles
from pitlake.read.status import status_of_entry
from pitlake.schemas import Dataset
from pitlake.schemas.query import Query
from pitlake.statuses import DateStatus, ResultStatus

if TYPE_CHECKING:
    import pandas as pd

    from pitlake.lake.store import LakeStore
    from pitlake.read.lake import Lake


def prepare(lake: Lake, spec: Dataset, q: Query, ask: Ask) -> Callable[[], Result]:
    """Check the query (InvalidArgumentsError on a bad value): the read to run."""
    assert spec.state is not None, f"{spec.name}: a STATE dataset needs a state view"
    options = spec.state.check(q)
    return partial(answer, lake, spec, options, ask)


# The security master's stored rows, all versions, per file identity (kept.py): ~120k rows,
# ~15 MB in Arrow; a lake holds a few sets of partitions (the whole master, the gate's two).
_STORED_ROWS: KeptByFiles[pa.Table] = KeptByFiles(8, 256 * 1024 * 1024, lambda t: t.nbytes)


def rows_by(
    store: LakeStore,
    reader: DuckReader,
    spec: Dataset,
    day: date,
    cutoff: datetime | None,
    as_ingested: datetime | None = None,
    partitions: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The newest version per key, known by `cutoff` (None: everything stored), of the rows
    whose interval starts on or before `day` (in `partitions` only, when given). The end is
    judged after the version is chosen: filtering on it first would let an older,
    open-ended version stand in for a closed one.

    The stored rows are scanned once per file identity, sorted by key then version (kept.py);
    each call filters them (start, cutoff) and keeps each key's last row, the newest version
    with ties to the later ingestion, as `DuckReader.latest_versions` picks it."""
    files = store.files(spec.name, partitions)
    if not files:
        return spec.empty_frame()
    stored = _STORED_ROWS.get(
        (spec.name, tuple(partitions or ())), files, partial(_sorted_rows, reader, spec, files)
    )
    if stored is None:  # no local file identity (a remote lake): the query, every time
        p = Params()
        where = [f"{col('start_date')} <= {p.add(day)}"]
        if cutoff is not None:
            where += visible(p, cutoff, as_ingested)
        table = reader.latest_versions(spec, files, where, p)
    else:
        table = last_per_key(stored.filter(_shown(stored, day, cutoff, as_ingested)), spec.key)
    if table is None:
        return spec.empty_frame()
    # dates as datetime64, not date objects: the views' interval tests are array compares
    # (converting 120,000 date objects cost ~40 ms a column per view)
    return table.to_pandas(types_mapper=None, date_as_object=False)


def _sorted_rows(reader: DuckReader, spec: Dataset, files: list[Any]) -> pa.Table:
    p = Params()
    order = ", ".join(col(c) for c in (*spec.key, "known_at", "ingested_at"))
    return reader.table(f"SELECT * FROM {reader.source(files, p)} ORDER BY {order}", p)


def _shown(rows: pa.Table, day: date, cutoff: datetime | None, as_ingested: datetime | None) -> Any:
    """The rows starting by `day` and visible at the cutoff (None: every stored row)."""
    column = rows.column("start_date")
    shown = pc.less_equal(column, pa.scalar(day, type=column.type))
    if cutoff is None:
        return shown
    return pc.and_kleene(shown, visible_mask(rows, cutoff, as_ingested))


def _table(spec: Dataset, frame: pd.DataFrame) -> pa.Table:
    assert spec.state is not None
    return pa.Table.from_pandas(frame, schema=spec.state.arrow_schema, preserve_index=False)


def _status(
    lake: Lake, spec: Dataset, day: date
) -> tuple[ResultStatus, LedgerEntry | None, LedgerEntry | None]:
    """(status, the latest successful entry on or before `day`, the latest entry then)."""
    return status_of(lake.catalog.ledger_entries(spec.name, end=day, symbol=WHOLE_MARKET))


def status_of(
    entries: Sequence[LedgerEntry],
) -> tuple[ResultStatus, LedgerEntry | None, LedgerEntry | None]:
    """The state's status from its whole-market entries dated on or before the day (in date
    order): OK after a successful fetch, else the latest fetch's failure, else UNKNOWN; with
    (the latest successful entry, the latest entry). The panel asks it per session."""
    if not entries:
        return ResultStatus.UNKNOWN, None, None
    last = entries[-1]
    good = next((e for e in reversed(entries) if e.successful), None)
    if good is None:
        return status_of_entry(last), None, last
    return ResultStatus.OK, good, last


def answer(lake: Lake, spec: Dataset, options: Any, ask: Ask) -> Result:
    assert spec.state is not None
    day = ask.cutoff.date()
    notes = list(ask.notes)
    status, good, last = _status(lake, spec, day)
    rows = rows_by(lake.store, lake.reader, spec, day, ask.cutoff, ask.as_ingested)
    frame = spec.state.view(rows, day, options)
    effective: date | None = None
    date_status = DateStatus.UNKNOWN
    if good is None:
        why = (
            f"the latest fetch ({last.date_key}) ended {last.status}"
            if last is not None
            else "never fetched"
        )
        notes.append(
            f"{spec.name} on or before {day}: {why}; the {spec.asked_as} is unknown, not empty"
            + (
                " (the rows shown are what the lake holds, not a fetched answer)."
                if len(frame)
                else "."
            )
        )
    else:
        effective = good.date_key
        session = lake.trading_calendar.session_on_or_before(day)
        date_status = DateStatus.STALE if effective < session else fresh_status(day, session)
        if date_status is DateStatus.STALE:
            notes.append(
                f"The latest successful {spec.name} fetch is of {effective}, before the "
                f"session {session}: states that changed since are not in this answer."
            )
        if last is not None and last is not good and not last.successful:
            notes.append(f"The {spec.name} fetch of {last.date_key} ended {last.status}.")
        if frame.empty:
            status = ResultStatus.NO_DATA
            notes.append(
                f"No symbol listed on {day} (with the filters asked) by what was known at "
                "the as-of."
            )
    table = _table(spec, frame)
    entries = [e for e in (good, last) if e is not None]
    out = meta(table, ask, entries, gaps=[], rows=table.num_rows)
    return Result(
        status=status,
        requested_date=day.isoformat(),
        effective_trade_date=effective.isoformat() if effective else None,
        date_status=date_status,
        as_of=ask.as_of,
        source=sources(table),
        message=" ".join(n for n in notes if n),
        table=table,
        columns=[f.name for f in spec.state.fields],
        meta=out,
    )
