"""The reader of published items (news): the items public in the Beijing days [start, end]
(default: the `lookback_days`, 7, up to the cutoff's day), newest first. An item without a
publish time is known from when we first saw it, so it never shows in an answer about an
earlier time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import partial
from typing import TYPE_CHECKING, Any

from pitlake.envelope import Result
from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.read import arguments, gaps, ledger_asof, scans
from pitlake.read.answer import undated
from pitlake.read.arguments import DayWindow
from pitlake.read.cutoff import Ask
from pitlake.read.engine import Params, col, visible
from pitlake.read.status import (
    BENIGN_ANSWER,
    Gap,
    LedgerView,
    combine,
    describe_gaps,
    ledger_scopes,
    whole_market_scopes,
)
from pitlake.schemas import Dataset
from pitlake.schemas.query import Query
from pitlake.statuses import ResultStatus

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

SYMBOLS = "symbols"  # the list column naming the symbols an item is about


def prepare(lake: Lake, spec: Dataset, q: Query, ask: Ask) -> Callable[[], Result]:
    """Check the query (InvalidArgumentsError on a bad value): the read to run."""
    syms = arguments.symbols(q.symbols, required=False)  # type: ignore[attr-defined]
    start, end = arguments.one_day(q.date, q.start, q.end)  # type: ignore[attr-defined]
    days = arguments.news_days(start, end, q.lookback_days, ask)  # type: ignore[attr-defined]
    limit = arguments.positive("limit", q.limit)  # type: ignore[attr-defined]
    return partial(answer, lake, spec, syms, days, ask, limit)


def answer(
    lake: Lake, schema: Dataset, symbols: list[str], days: DayWindow, ask: Ask, limit: int | None
) -> Result:
    start, end = days.start, days.end
    notes = list(ask.notes)
    requested = end.isoformat()
    if days.lo > ask.cutoff:
        notes.append(f"The window starts after the as-of ({ask.as_of}); nothing was public.")
        gap = Gap(WHOLE_MARKET, start, ResultStatus.NOT_READY, "window after the as-of")
        return undated(
            scans.empty_table(schema),
            schema,
            ask,
            ResultStatus.NOT_READY,
            notes,
            [gap],
            [],
            requested_date=requested,
        )
    p = Params()
    where = [
        f"{col('known_at')} >= {p.add(days.lo)}",
        f"{col('known_at')} < {p.add(days.hi)}",
        *visible(p, ask.cutoff, ask.as_ingested),
    ]
    if symbols:
        where.append(f"list_has_any({col(SYMBOLS)}, {p.add(symbols)})")
    bj_hi = min(end, ask.cutoff.date())
    files = lake.store.files(schema.name, scans.months(start, max(start, bj_hi)))
    table = lake.reader.latest_versions(schema, files, where, p)
    frame = table if table is not None and table.num_rows else scans.empty_table(schema)
    if frame.num_rows > 1:
        frame = frame.sort_by([("known_at", "descending"), *((k, "ascending") for k in schema.key)])
    extra: dict[str, Any] = {"window": {"start": start.isoformat(), "end": end.isoformat()}}
    if limit is not None and len(frame) > limit:
        extra["truncated"] = True
        extra["total_rows"] = len(frame)
        frame = frame.slice(0, limit)
    entries = ledger_asof.covering(
        lake.catalog.ledger_entries(
            schema.name, start=start, symbol=ledger_scopes(symbols or [WHOLE_MARKET])
        ),
        ask.cutoff.date(),
    )
    ledger = LedgerView(entries)
    # whole market: '*', or the symbols fetched one by one when the market never was
    scopes = symbols or whole_market_scopes(ledger)
    if scopes != [WHOLE_MARKET] and not symbols:
        extra["coverage"] = {"symbols": scopes}
        notes.append(
            f"The lake holds {schema.name} fetched for "
            f"{len(scopes)} symbol(s) one by one, not the whole market: this answer covers "
            f"only {', '.join(scopes[:20])}{' …' if len(scopes) > 20 else ''}."
        )
    never = _never_fetched(ledger, scopes, start, min(end, ask.cutoff.date()))
    found = list(never.values())
    if frame.num_rows == 0:
        found += [gaps.undated_gap(s, ledger.for_symbol(s), None) for s in scopes if s not in never]
    status = combine([g.status for g in found], frame.num_rows > 0)
    if found and status not in BENIGN_ANSWER:
        notes.append(describe_gaps(found))
    elif status is ResultStatus.NO_DATA:
        notes.append(f"No {schema.name} public between {start} and {end} (Beijing) by the as-of.")
    return undated(
        frame,
        schema,
        ask,
        status,
        notes,
        found,
        entries[-20:],
        requested_date=requested,
        extra_meta=extra,
    )


def _never_fetched(ledger: LedgerView, scopes: list[str], lo: date, hi: date) -> dict[str, Gap]:
    """Per scope, the first span of the requested days [lo, hi] no successful window covered:
    never fetched, so not "nothing was published" (UNKNOWN, even beside rows of other days)."""
    out = {}
    for scope in scopes:
        span = ledger_asof.uncovered(ledger.for_symbol(scope), lo, hi)
        if span is not None:
            days = span[0].isoformat() if span[0] == span[1] else f"{span[0]}…{span[1]}"
            out[scope] = Gap(scope, span[0], ResultStatus.UNKNOWN, f"never fetched for {days}")
    return out
