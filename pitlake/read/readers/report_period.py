"""The reader of report-period datasets (statements): the versions known at the cutoff, the
latest version per key; `latest_only` keeps the greatest report_period per (symbol, statement,
report_type) — a late restatement of an old period never displaces a newer period."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import partial
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from pitlake.envelope import Result
from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.read import arguments, gaps, kept_key_order, kept_reports, scans, superseded
from pitlake.read.answer import undated
from pitlake.read.cutoff import Ask
from pitlake.read.engine import Params, col, visible
from pitlake.read.status import BENIGN_ANSWER, LedgerView, combine, describe_gaps
from pitlake.schemas import Dataset
from pitlake.schemas.query import Query, choices

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

PERIOD = "report_period"  # the column a report-period row is dated by
# Reads of more symbols are answered in the kept key order of the files (kept_key_order.py),
# else drop the superseded rows before the sort (superseded.py); a few symbols' rows sort in
# milliseconds, less than applying the cutoff to ~900k kept versions (~10 ms).
BULK_SYMBOLS = 200
# Latest-report reads of at most this many symbols are answered from the kept files
# (kept_reports.py): a snapshot's (up to 200 symbols).
KEPT_SYMBOLS = 200


def prepare(lake: Lake, spec: Dataset, q: Query, ask: Ask) -> Callable[[], Result]:
    """Check the query (InvalidArgumentsError on a bad value): the read to run."""
    syms = arguments.symbols(q.symbols, required=True)  # type: ignore[attr-defined]
    statement = arguments.choice(
        "statement", q.statement, choices(type(q), "statement"), default=None
    )  # type: ignore[attr-defined]
    wanted = arguments.periods(q.periods)  # type: ignore[attr-defined]
    latest_only = arguments.flag("latest_only", q.latest_only)  # type: ignore[attr-defined]
    return partial(answer, lake, spec, syms, ask, statement, wanted, latest_only)


def answer(
    lake: Lake,
    schema: Dataset,
    symbols: list[str],
    ask: Ask,
    statement: str | None,
    periods: list[date] | None,
    latest_only: bool,
) -> Result:
    values = sorted({str(d.year) for d in periods}) if periods else None
    files = lake.store.files(schema.name, values)
    frame = None
    if latest_only and files and len(symbols) <= KEPT_SYMBOLS:
        frame = kept_reports.latest_reports(lake, schema, files, symbols, ask, statement, periods)
    elif not latest_only and files and len(symbols) > BULK_SYMBOLS:
        frame = kept_key_order.versions(lake, schema, files, symbols, ask, statement, periods)
    if frame is None:
        frame = _scanned(lake, schema, files, symbols, ask, statement, periods, latest_only)
    ledger = LedgerView(
        lake.catalog.ledger_entries(schema.name, symbol=sorted({*symbols, WHOLE_MARKET}))
    )
    present = set(pc.unique(frame.column("symbol")).to_pylist())
    found = [
        gaps.undated_gap(s, ledger.for_symbol(s), periods) for s in symbols if s not in present
    ]
    status = combine([g.status for g in found], frame.num_rows > 0)
    notes = list(ask.notes)
    if found:
        if status in BENIGN_ANSWER:
            notes.append(
                "No statement version public by the as-of for: "
                + ", ".join(g.symbol for g in found)
                + "."
            )
        else:
            notes.append(describe_gaps(found))
    return undated(frame, schema, ask, status, notes, found, ledger.entries)


def _scanned(
    lake: Lake,
    schema: Dataset,
    files: list[Any],
    symbols: list[str],
    ask: Ask,
    statement: str | None,
    periods: list[date] | None,
    latest_only: bool,
) -> pa.Table:
    """The answer's rows from scans of the files, sorted by key."""
    order = list(schema.key)  # the key: a total order
    group = [c for c in order if c != PERIOD]  # one report per group: (symbol, statement, type)

    def conditions(p: Params) -> list[str]:
        where = [
            f"{col('symbol')} IN {p.in_list(symbols)}",
            *visible(p, ask.cutoff, ask.as_ingested),
        ]
        if statement is not None:
            where.append(f"{col('statement')} = {p.add(statement)}")
        if periods is not None:
            where.append(f"{col(PERIOD)} IN {p.in_list(periods)}")
        return where

    p = Params()
    where = conditions(p)
    if latest_only and files:
        # Two passes (performance only, same rows): the newest visible report period per
        # group from a narrow scan of every year file, then the full latest versions of just
        # those periods, from just their year files.
        newest = scans.newest_periods(lake, files, conditions, group)
        where.append(f"{col(PERIOD)} IN {p.in_list(newest)}" if newest else "FALSE")
        files = lake.store.files(schema.name, sorted({str(d.year) for d in newest}))
    gone = _superseded(lake, schema, files, ask) if len(symbols) > BULK_SYMBOLS else None
    table = lake.reader.latest_versions(schema, files, where, p, order=order, superseded=gone)
    frame = table if table is not None and table.num_rows else scans.empty_table(schema)
    if latest_only and frame.num_rows:
        newest_t = frame.group_by(group).aggregate([(PERIOD, "max")])
        frame = frame.join(newest_t, keys=group)
        keep = pc.equal(frame.column(PERIOD), frame.column(f"{PERIOD}_max"))
        frame = frame.filter(keep).drop_columns([f"{PERIOD}_max"])
        frame = frame.sort_by([(c, "ascending") for c in order])  # the join reorders
    return frame


def _superseded(lake: Lake, schema: Dataset, files: list[Any], ask: Ask) -> pa.Table | None:
    """The rows of `files` a newer version visible at the cutoff supersedes (None: not
    known; the read then compares neighbours, as before). The conditions of this read are
    all on the key and visibility, as `latest_versions` requires."""
    if not files:
        return None
    rows = superseded.MULTI_VERSION_ROWS.get(
        schema, files, superseded.reader_scan(lake.reader, schema)
    )
    if rows is None:
        return None
    return superseded.superseded_at(rows, schema, ask.cutoff, ask.as_ingested)
