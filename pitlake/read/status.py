"""How the ledger becomes an answer's status (docs/design.md §1 rule 9, §8).

Status comes from what the lake knows about its fetches, never from a row count: a requested
scope (a symbol, or the whole market '*', on one session) without rows is NO_DATA only when the
ledger holds a successful fetch for it; otherwise it carries the fetch's failure, and UNKNOWN
when nothing was ever fetched.

The rules every read follows, defined here once:
- a session is *fetched* for an answer when some requested scope has rows there or a successful
  (OK / NO_DATA) fetch with nothing public missing; a range's effective session is the latest
  fetched session at or before its end (looking before its start when none inside is), so the
  answer does not depend on where the range starts;
- a whole-market question (scope '*') on a session with no whole-market fetch but symbol-scoped
  ones (`ingest --symbols A,B`) answers with those fetches' status, the most pressing first, and
  says which symbols it covers; a failed fetch is never read as "never fetched";
- the message summarises gaps by status (count, first…last); the itemised list goes to meta,
  capped, saying so.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timezone
from typing import Any

from pitlake.lake.catalog import WHOLE_MARKET, Catalog
from pitlake.lake.catalog_values import LedgerEntry
from pitlake.read.ledger_asof import trace_fields
from pitlake.statuses import (
    ANSWER_GAP_ORDER,
    BENIGN_ANSWER,
    RESULT_FOR_LEDGER,
    LedgerStatus,
    ResultStatus,
)

MAX_LISTED = 20
MAX_GAPS_IN_META = 50
MAX_SYMBOLS_IN_META = 100
MAX_REASON_CHARS = 200


@dataclass(frozen=True)
class Gap:
    """A requested scope that has no rows in the answer, and why: one session, or a run of
    consecutive sessions missing for the same reason (date_key…last, `sessions` of them)."""

    symbol: str  # canonical code, or '*' for the whole market
    date_key: date | None  # the (first) session, or None for an undated answer
    status: ResultStatus
    reason: str
    entry: LedgerEntry | None = None  # the ledger entry of its last session
    last: date | None = None  # the run's last session (None: date_key alone)
    sessions: int = 1

    @property
    def until(self) -> date | None:
        return self.last or self.date_key

    def to_dict(self) -> dict[str, Any]:
        out = {
            "symbol": self.symbol,
            "date": self.date_key.isoformat() if self.date_key else None,
            "status": str(self.status),
            "reason": self.reason,
        }
        if self.sessions > 1 and self.last is not None:
            out["until"] = self.last.isoformat()
            out["sessions"] = self.sessions
        return out


def status_of_entry(entry: LedgerEntry) -> ResultStatus:
    """A scope with no rows: NO_DATA after a successful fetch, else the fetch's failure."""
    if entry.successful:
        return ResultStatus.NO_DATA
    return RESULT_FOR_LEDGER[entry.status]


def ledger_scopes(scopes: Sequence[str]) -> list[str] | None:
    """The ledger symbols that answer for `scopes`: each scope and the whole-market entry, or
    every symbol (None) for a whole-market question, which symbol-scoped fetches may answer."""
    if WHOLE_MARKET in scopes:
        return None
    return sorted({*scopes, WHOLE_MARKET})


def _rank(status: ResultStatus) -> int:
    """Position in ANSWER_GAP_ORDER; benign statuses after every failure."""
    try:
        return ANSWER_GAP_ORDER.index(status)
    except ValueError:
        return len(ANSWER_GAP_ORDER)


def most_pressing(entries: Iterable[LedgerEntry]) -> LedgerEntry:
    """The entry whose status an answer reports first (failures first, as for several symbols)."""
    return min(entries, key=lambda e: _rank(status_of_entry(e)))


# A ledger row as read_ledger fetches it: (date_key, symbol, status, row_count, vendor, message,
# run_id, recorded_at, trace JSON text); turned into a LedgerEntry only when an answer uses it.
LedgerRow = tuple[Any, ...]


class LedgerView:
    """One dataset's ledger entries, looked up by (date, symbol) falling back to '*'.

    A whole-market scope on a date without a whole-market entry is answered by that date's
    symbol-scoped entries (the most pressing first); `scoped_symbols` names them. Built from
    `LedgerEntry`s, or from `read_ledger`'s rows, which become entries only when looked up
    (`status_key` reads a row's status without building one)."""

    def __init__(
        self,
        entries: Iterable[LedgerEntry | LedgerRow],
        dataset: str = "",
        traces: dict[tuple[date, str], str] | None = None,
    ) -> None:
        self._dataset = dataset
        self._by_key: dict[tuple[date, str], LedgerEntry | LedgerRow] = {}
        self._scoped: dict[date, list[str]] = {}
        for e in entries:
            key = (e.date_key, e.symbol) if isinstance(e, LedgerEntry) else (e[0], e[1])
            self._by_key[key] = e
            if key[1] != WHOLE_MARKET:
                self._scoped.setdefault(key[0], []).append(key[1])
        self._dates = {k[0] for k in self._by_key}
        self._entries: list[LedgerEntry] | None = None
        self._traces = traces or {}  # vendor traces as JSON text (read_ledger's rows)

    def _entry(self, value: LedgerEntry | LedgerRow | None) -> LedgerEntry | None:
        if value is None or isinstance(value, LedgerEntry):
            return value
        d, sym, status, n, vendor, message, run_id, at, _ = value
        entry = LedgerEntry(
            dataset=self._dataset,
            date_key=d,
            symbol=sym,
            status=LedgerStatus(status),
            rows=int(n),
            vendor=vendor,
            trace=[],
            message=message or "",
            run_id=run_id,
            recorded_at=at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at,
        )
        self._by_key[(d, sym)] = entry
        return entry

    @property
    def entries(self) -> list[LedgerEntry]:
        """Every entry, by date then symbol."""
        if self._entries is None:
            self._entries = [self._entry(v) for v in list(self._by_key.values())]  # type: ignore[misc]
        return self._entries

    def _scoped_entries(self, d: date) -> list[LedgerEntry]:
        return [self._entry(self._by_key[(d, s)]) for s in self._scoped[d]]  # type: ignore[misc]

    def _raw(self, d: date, symbol: str) -> LedgerEntry | LedgerRow | None:
        if symbol == WHOLE_MARKET:
            found = self._by_key.get((d, WHOLE_MARKET))
            if found is None and d in self._scoped:
                return most_pressing(self._scoped_entries(d))
            return found
        return self._by_key.get((d, symbol)) or self._by_key.get((d, WHOLE_MARKET))

    def lookup(self, d: date, symbol: str) -> LedgerEntry | None:
        return self._entry(self._raw(d, symbol))

    def status_key(self, d: date, symbol: str) -> tuple[str, str, str] | None:
        """(status, the entry's symbol, its message) of the entry answering for `symbol` on
        d, without building the entry: what a run of gaps is grouped by."""
        if d not in self._dates:  # the usual never-fetched stretch: one set look-up
            return None
        v = self._raw(d, symbol)
        return None if v is None else self._said(v)

    @staticmethod
    def _said(v: LedgerEntry | LedgerRow) -> tuple[str, str, str]:
        """(status, the entry's symbol, its message) of an entry or a row not yet built."""
        if isinstance(v, LedgerEntry):
            return (v.status.value, v.symbol, v.message)
        return (v[2], v[1], v[5] or "")

    def keys(self) -> list[tuple[date, str, str, str]]:
        """(date, symbol, status, message) of every entry, without building them: for a
        vectorised look-up of many (symbol, session) pairs (the panel's given symbols)."""
        out = []
        for (d, _), v in self._by_key.items():
            status, symbol, message = self._said(v)
            out.append((d, symbol, status, message))
        return out

    def traced(self, entry: LedgerEntry) -> LedgerEntry:
        """The entry with its vendor trace (decoded only for the entries an answer shows)."""
        text = self._traces.get((entry.date_key, entry.symbol))
        if entry.trace or not text:
            return entry
        return dataclasses.replace(entry, trace=list(json.loads(text) or []))

    def for_symbol(self, symbol: str) -> list[LedgerEntry]:
        return [e for e in self.entries if e.symbol in (symbol, WHOLE_MARKET)]

    def scoped_symbols(self, dates: Iterable[date] | None = None) -> list[str]:
        """The symbols whose own fetches answer a whole-market question on `dates` (default:
        every date in view) that have no whole-market fetch; empty when none do."""
        days = self._scoped.keys() if dates is None else dates
        return sorted(
            {
                s
                for d in days
                if (d, WHOLE_MARKET) not in self._by_key
                for s in self._scoped.get(d, ())
            }
        )


def read_ledger(
    catalog: Catalog, dataset: str, start: date, end: date, symbols: list[str] | None
) -> LedgerView:
    """A dataset's ledger over [start, end] for a gap analysis: one query fetched at once,
    each row a LedgerEntry only when looked up, its vendor trace JSON text until an answer
    shows it. A five-year range holds ~1,200 entries per scope; building and decoding each
    was most of the read of a symbol with no rows (issue 13 item 11). `symbols` None: every
    symbol (a whole-market question)."""
    rows = catalog.ledger_rows(dataset, start, end, symbols)
    traces = {(r[0], r[1]): r[8] for r in rows if r[8] and r[8] != "[]"}
    return LedgerView(rows, dataset, traces)


def whole_market_scopes(ledger: LedgerView) -> list[str]:
    """For an undated whole-market question (news): '*' when the whole market was fetched in
    view, else the symbols fetched on their own (each answered as one of several symbols)."""
    if any(e.symbol == WHOLE_MARKET for e in ledger.entries):
        return [WHOLE_MARKET]
    return ledger.scoped_symbols() or [WHOLE_MARKET]


def fetched_sessions(sessions: Sequence[date], n_scopes: int, gaps: Iterable[Gap]) -> list[date]:
    """The sessions an answer stands on, in order: some scope has rows there, or a successful
    fetch (a gap that is NO_DATA). `gaps` are the session gaps (runs) of every scope, over
    these sessions; failures are counted per session by a difference array over the runs."""
    index = {d: i for i, d in enumerate(sessions)}
    failed = [0] * (len(sessions) + 1)
    for g in gaps:
        if g.status in BENIGN_ANSWER or g.date_key is None:
            continue
        i, j = index.get(g.date_key), index.get(g.until)  # type: ignore[arg-type]
        if i is None or j is None:
            continue
        failed[i] += 1
        failed[j + 1] -= 1
    out, running = [], 0
    for i, d in enumerate(sessions):
        running += failed[i]
        if running < n_scopes:
            out.append(d)
    return out


def coverage(fetched: Sequence[date], ledger: LedgerView, scopes: Sequence[str]) -> dict[str, Any]:
    """What the lake holds for this request: its fetched sessions (first, last, count) and
    which symbols a whole-market answer stands on ('*' when the market was fetched whole)."""
    out: dict[str, Any] = {
        "first": fetched[0].isoformat() if fetched else None,
        "last": fetched[-1].isoformat() if fetched else None,
        "sessions": len(fetched),
    }
    if WHOLE_MARKET in scopes:
        symbols = ledger.scoped_symbols()
        out["symbols"] = symbols[:MAX_SYMBOLS_IN_META] if symbols else WHOLE_MARKET
        if len(symbols) > MAX_SYMBOLS_IN_META:
            out["symbols_total"] = len(symbols)
    return out


def describe_coverage(dataset: str, cover: dict[str, Any], scopes: Sequence[str]) -> str:
    """One sentence: which sessions of the request the lake holds, and (whole-market) which
    symbols the answer covers when they were fetched one by one."""
    notes = []
    symbols = cover.get("symbols")
    if isinstance(symbols, list) and symbols:
        total = cover.get("symbols_total", len(symbols))
        shown = ", ".join(symbols[:MAX_LISTED]) + (" …" if total > MAX_LISTED else "")
        notes.append(
            f"The lake holds {dataset} for {total} symbol(s) fetched one by one, not the whole "
            f"market: this answer covers only {shown}."
        )
    if cover["sessions"]:
        notes.append(
            f"In the requested range the lake holds {dataset} fetched for {cover['sessions']} "
            f"session(s), {cover['first']}…{cover['last']}."
        )
    else:
        who = "the whole market" if WHOLE_MARKET in scopes else ", ".join(scopes[:MAX_LISTED])
        notes.append(f"In the requested range the lake holds no {dataset} fetched for {who}.")
    return " ".join(notes)


def combine(gap_statuses: Iterable[ResultStatus], has_rows: bool) -> ResultStatus:
    """One status for the answer: the most pressing failure among the gaps, else OK with
    rows, else NO_DATA (every gap was a successful fetch with nothing in it)."""
    failures = {s for s in gap_statuses if s not in BENIGN_ANSWER}
    for s in ANSWER_GAP_ORDER:
        if s in failures:
            return s
    return ResultStatus.OK if has_rows else ResultStatus.NO_DATA


def vendor_trace(
    entries: Iterable[LedgerEntry | None],
    view: LedgerView | None = None,
    until: date | None = None,
) -> list[dict[str, Any]]:
    """The ledger records behind an answer, for meta.vendor_trace (deduplicated, bounded;
    traces decoded from `view` for the entries shown). `until`: the cutoff's day, past which
    nothing an entry found is shown (`ledger_asof.clipped`)."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for e in entries:
        if e is None:
            continue
        shown_day = e.date_key if until is None else min(e.date_key, until)
        k = (e.dataset, shown_day, e.symbol)  # windows ending after `until` show as one
        if k in seen:
            continue
        seen.add(k)
        if view is not None:
            e = view.traced(e)
        out.append(trace_fields(e, until))
        if len(out) >= 2 * MAX_LISTED:
            break
    return out


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MAX_REASON_CHARS else line[: MAX_REASON_CHARS - 1] + "…"


def summarise_gaps(gaps: Iterable[Gap]) -> list[dict[str, Any]]:
    """Per status, most pressing first: how many gaps, over which dates and symbols, and the
    reason of the latest one (meta.gap_summary; the message says the same in words)."""
    groups: dict[ResultStatus, list[Gap]] = {}
    for g in gaps:
        groups.setdefault(g.status, []).append(g)
    out = []
    for status in sorted(groups, key=_rank):
        members = groups[status]
        dated = [g for g in members if g.date_key is not None]
        latest = max(dated, key=lambda g: g.until) if dated else members[-1]  # type: ignore[arg-type, return-value]
        symbols = sorted({g.symbol for g in members})
        out.append(
            {
                "status": str(status),
                "count": sum(g.sessions for g in members),  # symbol-sessions
                "first": min(g.date_key for g in dated).isoformat() if dated else None,  # type: ignore[type-var]
                "last": latest.until.isoformat() if latest.until else None,
                "symbols": symbols[:MAX_LISTED],
                "symbol_count": len(symbols),
                "reason": _short(latest.reason),
            }
        )
    return out


def gaps_meta(gaps: list[Gap]) -> dict[str, Any]:
    """meta entries for the gaps: a summary by status, and the itemised list (the most
    pressing first) capped at MAX_GAPS_IN_META, saying when it is capped."""
    if not gaps:
        return {}
    bad = [g for g in gaps if g.status not in BENIGN_ANSWER]
    ordered = [
        *sorted(bad, key=lambda g: _rank(g.status)),
        *(g for g in gaps if g.status in BENIGN_ANSWER),
    ]
    meta: dict[str, Any] = {
        "gaps": [g.to_dict() for g in ordered[:MAX_GAPS_IN_META]],
        "gap_summary": summarise_gaps(gaps),
    }
    if len(gaps) > MAX_GAPS_IN_META:
        meta["gaps_total"] = len(gaps)
        meta["gaps_capped"] = True
    return meta


def describe_gaps(gaps: list[Gap]) -> str:
    """A short sentence summarising the failing scopes by status: for each, where (symbol or
    how many symbols), on how many sessions, first…last, and the latest reason. Bounded
    whatever the range (the itemised list is in meta)."""
    bad = [g for g in gaps if g.status not in BENIGN_ANSWER]
    if not bad:
        return ""
    parts = []
    for s in summarise_gaps(bad):
        if s["count"] == 1:
            where = " ".join(x for x in (s["symbols"][0], s["last"]) if x)
            parts.append(f"{where}: {s['status']} ({s['reason']})")
            continue
        one = s["symbol_count"] == 1
        who = f" for {s['symbols'][0]}" if one else f" for {s['symbol_count']:,} symbols"
        on = ""
        if s["first"]:
            span = s["last"] if s["first"] == s["last"] else f"{s['first']}…{s['last']}"
            on = f" on {s['count']:,} session(s), {span}" if one else f", {span}"
        count = "" if one else f", {s['count']:,} symbol-sessions"
        parts.append(f"{s['status']}{who}{on}{count} (latest: {s['reason']})")
    return "Missing: " + "; ".join(parts) + "."
