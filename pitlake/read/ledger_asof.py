"""The ledger as a question as of a day may see it (docs/design.md §1 rule 9, decision 36).

A windowed fetch (news, announcements, the disclosure schedule, statements) is one ledger
entry dated at its window's last day, with its first day in `window_start`. A question as of
day D:
- may rest its status on an entry dated on or before D, or on a window that started on or
  before D (the fetch asked about D; its rows past the cutoff are hidden as every row is);
  a window that started after D asked only about later days and says nothing about D;
- never sees what such a window found after D: an entry dated after D is shown clipped
  (dated D, its row counts and messages withheld), so meta does not announce how many items
  were published later;
- days of its window that no successful window covered were never fetched (UNKNOWN), once
  the ledger knows its windows (entries recorded before `window_start` existed cover all)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

from pitlake.lake.catalog_values import LedgerEntry

WITHHELD = "a fetch whose window ends after the as-of: its counts are withheld"


def covering(entries: Iterable[LedgerEntry], day: date) -> list[LedgerEntry]:
    """The entries that can speak for a question as of `day` (see the module doc)."""
    return [
        e for e in entries if e.date_key <= day or e.window_start is None or e.window_start <= day
    ]


def clipped(entry: LedgerEntry, day: date) -> LedgerEntry:
    """The entry as a question as of `day` shows it: unchanged when dated on or before it,
    else dated `day` with no rows and no message (its trace keeps who answered, how)."""
    if entry.date_key <= day:
        return entry
    trace = [
        {k: v for k, v in t.items() if k in ("vendor", "outcome", "error_type", "attempts")}
        for t in entry.trace
    ]
    return replace(entry, date_key=day, rows=0, message=WITHHELD, trace=trace)


def trace_fields(entry: LedgerEntry, day: date | None) -> dict[str, Any]:
    """meta.vendor_trace's fields of one entry as of `day` (None: as it stands)."""
    shown = entry if day is None else clipped(entry, day)
    out: dict[str, Any] = {
        "dataset": shown.dataset,
        "date": shown.date_key.isoformat(),
        "symbol": shown.symbol,
        "status": str(shown.status),
        "vendor": shown.vendor,
        "rows": None if shown is not entry else shown.rows,
        "message": shown.message,
        "trace": shown.trace,
    }
    if shown.window_start is not None:
        out["window_start"] = shown.window_start.isoformat()
    return out


def uncovered(entries: Iterable[LedgerEntry], lo: date, hi: date) -> tuple[date, date] | None:
    """The first span of [lo, hi] that some successful window left out, or None: None too
    when no fetch succeeded (the entries' own status answers then) or a window is not
    recorded (an older ledger: as before windows were)."""
    spans = []
    for e in entries:
        if not e.successful:
            continue
        if e.window_start is None:
            return None
        spans.append((e.window_start, e.date_key))
    if not spans:
        return None
    day = lo
    for start, end in sorted(spans):
        if start > day:
            break
        day = max(day, end + timedelta(days=1))
        if day > hi:
            return None
    if day > hi:
        return None
    nxt = min((s for s, _ in spans if s > day), default=hi + timedelta(days=1))
    return day, min(hi, nxt - timedelta(days=1))
