"""The reader of trade-dated datasets (one row per symbol and session: bars, valuation, the
dragon-tiger list): one session or a range, as known at the cutoff.

- the *target* session is the latest session at or before min(requested end, cutoff date);
- a single-date request (no start, or start == end) reads the target session only; a range
  reads [start, min(end, cutoff date)];
- a target session with no rows is never silently replaced by an older one: the answer carries
  the ledger's status for it (NOT_READY when it is not public yet at the cutoff) and no rows for
  that scope, with `effective_trade_date` naming the latest older session that has data
  (`date_status` STALE);
- adjusted prices (a query with `adjust`) whose factors do not cover every requested row are
  NOT_READY with no rows for that symbol (never unadjusted prices under an adjusted label).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from pitlake.envelope import Result
from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.read import arguments, gaps, scans
from pitlake.read.adjust import ADJUST_MODES, adjusted
from pitlake.read.answer import meta, sources
from pitlake.read.arguments import Window
from pitlake.read.cutoff import Ask
from pitlake.read.status import (
    BENIGN_ANSWER,
    combine,
    coverage,
    describe_coverage,
    describe_gaps,
    fetched_sessions,
    ledger_scopes,
    read_ledger,
)
from pitlake.schemas import BITEMPORAL_COLUMNS, Dataset
from pitlake.schemas.query import Query, is_required
from pitlake.statuses import ResultStatus

if TYPE_CHECKING:
    from pitlake.read.lake import Lake


def prepare(lake: Lake, spec: Dataset, q: Query, ask: Ask) -> Callable[[], Result]:
    """Check the query (InvalidArgumentsError on a bad value): the read to run."""
    syms = arguments.symbols(
        q.symbols,  # type: ignore[attr-defined]
        required=is_required(type(q), "symbols"),
        instruments=spec.instruments,
    )
    mode = "none"
    if "adjust" in type(q).model_fields:
        mode = arguments.choice("adjust", q.adjust, ADJUST_MODES, default="none")  # type: ignore[attr-defined,assignment]
    start, end = arguments.one_session(q.date, q.start, q.end)  # type: ignore[attr-defined]
    win = arguments.window(start, end, ask, lake.trading_calendar)
    return partial(answer, lake, spec, syms or None, win, ask, adjust=mode)


def answer(
    lake: Lake,
    schema: Dataset,
    symbols: list[str] | None,
    win: Window,
    ask: Ask,
    *,
    adjust: str = "none",
) -> Result:
    date_col = schema.date_column
    assert date_col is not None
    scopes = symbols or [WHOLE_MARKET]
    table, hidden_pairs = (
        scans.read_latest(lake, schema, symbols, win.lo, win.hi, ask)
        if win.sessions
        else (scans.empty_table(schema), None)
    )
    dates = table.column(date_col).to_pylist()
    if symbols:
        present = set(zip(table.column("symbol").to_pylist(), dates, strict=True))
    else:
        present = {(WHOLE_MARKET, d) for d in dates}
    missing = [(s, d) for s in scopes for d in win.sessions if (s, d) not in present]
    first = min([d for _, d in missing] + [win.target])
    ledger = read_ledger(lake.catalog, schema.name, first, win.target, ledger_scopes(scopes))
    found = gaps.session_gaps(
        lake, schema, symbols, missing, ledger, ask, win.sessions, hidden_pairs
    )
    # The effective session: the latest one fetched (rows, or a successful empty fetch),
    # at or before the range's end — wherever the range starts (status.py).
    fetched = fetched_sessions(win.sessions, len(scopes), found)
    if fetched:
        effective: date | None = fetched[-1]
    else:
        before = win.target if win.after_cutoff else win.lo - timedelta(days=1)
        effective = gaps.fetched_before(lake, schema, symbols, scopes, before, ask)
    target_gaps = [g for g in found if g.date_key and g.date_key <= win.target <= g.until]  # type: ignore[operator]
    extra: dict[str, Any] = {}
    if adjust != "none" and symbols:
        frame, adjust_gaps, extra["adjust"] = adjusted(
            lake, table.to_pandas(), symbols, ask, adjust
        )
        table = pa.Table.from_pandas(frame, preserve_index=False)
        found += adjust_gaps
    status = combine([g.status for g in found], table.num_rows > 0)
    notes = list(ask.notes)
    if win.after_cutoff:
        status = ResultStatus.NOT_READY
        notes.append(
            f"The requested dates start after the as-of ({ask.as_of}); nothing about "
            "them was public then."
        )
    date_status = gaps.date_status(effective, win)
    target_status = combine([g.status for g in target_gaps], False)
    notes += gaps.date_notes(schema.name, win, effective, date_status, target_status, ask)
    cover = coverage(fetched, ledger, scopes)
    whole_from_symbols = WHOLE_MARKET in scopes and isinstance(cover.get("symbols"), list)
    if found and status not in BENIGN_ANSWER:
        notes.append(describe_gaps(found))
    elif status is ResultStatus.NO_DATA:
        notes.append(f"The fetch for {win.target} succeeded with no rows for this request.")
    elif found:
        notes.append(gaps.benign_gaps_note(found))
    if whole_from_symbols or (found and status not in BENIGN_ANSWER and not win.after_cutoff):
        notes.append(describe_coverage(schema.name, cover, scopes))
        extra["coverage"] = cover
    sort = [date_col, "symbol", *schema.key] if not symbols else ["symbol", date_col]
    if table.num_rows > 1:  # Arrow's sort is stable, as pandas' "stable" was
        table = table.sort_by([(c, "ascending") for c in dict.fromkeys(sort)])
    columns = [*schema.columns, *BITEMPORAL_COLUMNS]
    if adjust != "none":
        columns.append("adj_factor")
    target_entries = [ledger.lookup(win.target, s) for s in scopes]
    extra.update(
        meta(
            table,
            ask,
            [*target_entries, *(g.entry for g in found)],
            gaps=found,
            rows=len(table),
            view=ledger,
        )
    )
    return Result(
        status=status,
        requested_date=win.requested_end.isoformat(),
        effective_trade_date=effective.isoformat() if effective else None,
        date_status=date_status,
        as_of=ask.as_of,
        source=sources(table),
        message=" ".join(n for n in notes if n),
        table=table,
        columns=columns,
        meta=extra,
    )
