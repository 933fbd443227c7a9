"""The panel's status from the ingest ledger, never from its row count (docs/design.md §1
rule 9, decision 51): per dataset a field or the universe reads, the gaps of the sessions
asked, each judged as the single-instant read at that session's cutoff judges it
(`readers.trade_dated`, `state`, `snapshot_list`, `report_period`, with `gaps.py` and
`status.py`'s rules), combined into one status as the snapshot of several datasets is
(`status.combine`: the most pressing failure, else OK with rows, else NO_DATA).

As of the cutoff: a session's ledger entry counts only for a session whose rows were due by
its cutoff (later ones are NOT_READY, their entries unread), the master's and the index's
entries only when dated on or before the session's cutoff day."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.lake.catalog_values import LedgerEntry
from pitlake.read import gaps, scans
from pitlake.read.cutoff import Ask
from pitlake.read.engine import Params, col, first_shown, stored_by
from pitlake.read.panel import symbol_gaps
from pitlake.read.readers import snapshot_list, state
from pitlake.read.status import (
    BENIGN_ANSWER,
    MAX_GAPS_IN_META,
    Gap,
    LedgerView,
    combine,
    describe_gaps,
    gaps_meta,
    ledger_scopes,
    read_ledger,
    vendor_trace,
)
from pitlake.schemas import Dataset
from pitlake.statuses import ResultStatus

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

# More symbols than this: the statements' ledger is read whole, not by an IN list.
LEDGER_BY_SYMBOL = 500


@dataclass
class Judged:
    """One dataset's gaps over the panel's sessions, and the ledger entries behind them."""

    dataset: str
    gaps: list[Gap] = field(default_factory=list)
    entries: list[LedgerEntry | None] = field(default_factory=list)

    @property
    def status(self) -> ResultStatus:
        return combine([g.status for g in self.gaps], True)


def _runs(
    scope: str, judged: Sequence[tuple[date, ResultStatus, str, LedgerEntry | None]]
) -> list[Gap]:
    """Consecutive sessions with the same (status, reason) as one Gap each."""
    out: list[Gap] = []
    for d, status, reason, entry in judged:
        prev = out[-1] if out else None
        if prev is not None and (prev.status, prev.reason) == (status, reason):
            out[-1] = Gap(scope, prev.date_key, status, reason, entry, d, prev.sessions + 1)
        else:
            out.append(Gap(scope, d, status, reason, entry))
    return out


def trade_dated(
    lake: Lake,
    schema: Dataset,
    sessions: list[date],
    cutoffs: dict[date, datetime],
    symbols: list[str] | None,
    ask: Ask,
) -> Judged:
    """Per (scope, session) without a row public by the session's cutoff, why: not due yet
    (its known-at floor is after the cutoff), stored but public later, or the ledger's word
    (`gaps.session_gaps`, the trade-dated reader's walk). Scopes: the symbols asked, else
    the whole market ('*': a session with no row at all). More than LEDGER_BY_SYMBOL symbols
    given are judged as the whole market first (a pair walk per symbol and session was 24M
    pairs for 20 years of 5,000 never-fetched symbols: 89 s, 6.9 GiB), then each given
    symbol on the sessions that have rows (`symbol_gaps`: one anti-join, the runs judged by
    `session_gaps`), so one symbol's failed fetch is not an OK null cell."""
    given = symbols
    if symbols is not None and len(symbols) > LEDGER_BY_SYMBOL:
        symbols = None
    scopes = symbols or [WHOLE_MARKET]
    floors = gaps.known_at_floors(schema, sessions)
    later = {d: f for d, f in floors.items() if f > cutoffs[d]}
    first_known = [  # a year at a time: the aggregate holds a year's (symbol, session)s
        found
        for year in sorted({d.year for d in sessions})
        for found in _first_known(
            lake,
            schema,
            [d for d in sessions if d.year == year],
            cutoffs,
            scopes,
            symbols,
            ask.as_ingested,
        )
    ]
    first_known.sort(key=lambda x: (x[0], x[1]))  # by scope, then session
    missing = [(s, d) for s, d, _ in first_known]
    hidden = {(s, d) for s, d, k in first_known if k is not None}
    due = [d for d in sessions if d not in later]
    ledger = (
        read_ledger(lake.catalog, schema.name, due[0], due[-1], ledger_scopes(scopes))
        if due
        else LedgerView([], schema.name)
    )
    found = gaps.session_gaps(
        lake, schema, symbols, missing, ledger, ask, sessions, hidden_pairs=hidden, later=later
    )
    if given is not None and symbols is None:
        gone = {d for _, d in missing}
        with_rows = [d for d in sessions if d not in gone]
        found += symbol_gaps.given_gaps(
            lake, schema, sessions, cutoffs, given, with_rows, ledger, ask
        )
    entries = [g.entry for g in found if g.date_key not in later]
    return Judged(schema.name, found, entries)


def _first_known(
    lake: Lake,
    schema: Dataset,
    sessions: list[date],
    cutoffs: dict[date, datetime],
    scopes: list[str],
    symbols: list[str] | None,
    as_ingested: datetime | None = None,
) -> list[tuple[str, date, datetime | None]]:
    """(scope, session, its first stored known_at or None) of the pairs with no row public
    by the session's cutoff (and stored by `as_ingested`), by scope then session: one
    aggregate over the stored rows. A stored row hidden by either is "stored, but public
    later", as `scans.hidden_pairs` says for a single-instant read."""
    date_col = schema.date_column
    assert date_col is not None
    asked = pa.table(
        {
            "session": pa.array(sessions, pa.date32()),
            "cutoff": pa.array(
                [cutoffs[d].astimezone(timezone.utc) for d in sessions],
                pa.timestamp("us", tz="UTC"),
            ),
        }
    )
    scope_table = pa.table({"scope": pa.array(scopes, pa.string())})
    files = lake.store.files(schema.name, scans.years(sessions[0], sessions[-1]))
    p = Params()
    if files:
        scope = col("symbol") if symbols else p.add(WHOLE_MARKET)
        among = "AND symbol IN (SELECT scope FROM panel_scopes)" if symbols else ""
        known = f"""SELECT {scope} AS scope, {col(date_col)} AS d, min(known_at) AS first,
              {first_shown(p, as_ingested)} AS shown
            FROM {lake.reader.source(files, p)}
            WHERE {col(date_col)} BETWEEN {p.add(sessions[0])} AND {p.add(sessions[-1])}
            {among} GROUP BY ALL"""
    else:
        known = (
            "SELECT NULL::VARCHAR AS scope, NULL::DATE AS d, NULL::TIMESTAMPTZ AS first, "
            "NULL::TIMESTAMPTZ AS shown"
        )
    found = lake.reader.table(
        f"""WITH known AS ({known})
        SELECT c.scope, s.session, k.first FROM panel_scopes c CROSS JOIN panel_sessions s
        LEFT JOIN known k ON k.scope = c.scope AND k.d = s.session
        WHERE k.shown IS NULL OR k.shown > s.cutoff ORDER BY c.scope, s.session""",
        p,
        tables={"panel_sessions": asked, "panel_scopes": scope_table},
    )
    return list(
        zip(
            found.column("scope").to_pylist(),
            found.column("session").to_pylist(),
            found.column("first").to_pylist(),
            strict=True,
        )
    )


def master(
    lake: Lake, spec: Dataset, sessions: list[date], day_of: Callable[[date], date]
) -> Judged:
    """The security master's status on each session, as `Lake.universe` at its cutoff says
    it (`state.status_of` over the whole-market entries dated by the cutoff's day)."""
    entries = lake.catalog.ledger_entries(spec.name, end=day_of(sessions[-1]), symbol=WHOLE_MARKET)
    dates = [e.date_key for e in entries]
    judged = []
    for d in sessions:
        status, _, last = state.status_of(entries[: bisect_right(dates, day_of(d))])
        if status is ResultStatus.OK:
            continue
        why = f"the latest fetch ({last.date_key}) ended {last.status}" if last else "never fetched"
        judged.append((d, status, why, last))
    found = _runs(WHOLE_MARKET, judged)
    return Judged(spec.name, found, [g.entry for g in found])


def members(
    lake: Lake,
    spec: Dataset,
    index: str,
    sessions: list[date],
    cutoffs: dict[date, datetime],
    cap_day: date,
    as_ingested: datetime | None = None,
) -> Judged:
    """The index's constituents on each session, as `Lake.index_members(date=D)` at D's
    cutoff judges them: the failed fetches since the snapshot answered, UNKNOWN when none
    was ever fetched by D, NO_DATA when the fetches succeeded without a snapshot, and
    NOT_READY for a session after the as-of. Snapshots stored after `as_ingested` are not
    there (the ledger is read whole, as every read reads it)."""
    snapshots = _snapshots(lake, spec, index, as_ingested)
    entries = lake.catalog.ledger_entries(spec.name, end=min(sessions[-1], cap_day))
    dates = [e.date_key for e in entries]
    found: list[Gap] = []
    seen: set[tuple[date, str]] = set()
    judged = []
    for d in sessions:
        if d > cap_day:
            judged.append((d, ResultStatus.NOT_READY, "after the as-of: not public then", None))
            continue
        upto = entries[: bisect_right(dates, d)]
        snap = max((s for s, k in snapshots if s <= d and k <= cutoffs[d]), default=None)
        since = upto[bisect_right(dates, snap) :] if snap is not None else upto
        for g in snapshot_list.failures_since(index, since, snap):
            if (g.date_key, g.entry.symbol if g.entry else "") not in seen:  # type: ignore[arg-type]
                seen.add((g.date_key, g.entry.symbol if g.entry else ""))  # type: ignore[arg-type]
                found.append(g)
        if snap is None and not upto:
            judged.append((d, ResultStatus.UNKNOWN, "never fetched", None))
        elif snap is None:
            judged.append((d, ResultStatus.NO_DATA, "no snapshot public by the cutoff", upto[-1]))
    found += _runs(index, judged)
    return Judged(f"{spec.name} {index}", found, [g.entry for g in found])


def _snapshots(
    lake: Lake, spec: Dataset, index: str, as_ingested: datetime | None = None
) -> list[tuple[date, datetime]]:
    """(snapshot date, its first known_at) of the index's snapshots stored by `as_ingested`."""
    files = lake.store.files(spec.name)
    if not files:
        return []
    owner, date_col = spec.key[0], spec.date_column
    p = Params()
    rows = lake.reader.rows(
        f"SELECT {col(date_col)}, min(known_at) FROM {lake.reader.source(files, p)} "  # type: ignore[arg-type]
        f"WHERE {col(owner)} = {p.add(index)} AND {stored_by(p, as_ingested, 't')} GROUP BY 1",
        p,
    )
    return [(d, k if k.tzinfo else k.replace(tzinfo=timezone.utc)) for d, k in rows]


def statements(lake: Lake, spec: Dataset, without: list[str], asked: list[str]) -> Judged:
    """The symbols with a row and no statement public by that row's cutoff, each judged as
    `Lake.financials` judges a symbol without rows (`gaps.undated_gap`)."""
    if not without:
        return Judged(spec.name)
    wanted = None if len(asked) > LEDGER_BY_SYMBOL else sorted({*asked, WHOLE_MARKET})
    ledger = LedgerView(lake.catalog.ledger_entries(spec.name, symbol=wanted))
    found = [gaps.undated_gap(s, ledger.for_symbol(s), None) for s in without]
    return Judged(spec.name, found, [g.entry for g in found])


def envelope_parts(
    judged: list[Judged], has_rows: bool, until: date
) -> tuple[ResultStatus, str, dict[str, Any]]:
    """The panel's status (`combine` over every dataset's gaps), its message and meta
    (per dataset its status and gaps; the entries behind them as of `until`)."""
    every = [g for j in judged for g in j.gaps]
    status = combine([g.status for g in every], has_rows)
    notes = []
    for j in judged:
        said = describe_gaps(j.gaps)
        if said:
            notes.append(f"{j.dataset}: {said}")
    datasets: dict[str, Any] = {}
    for j in judged:
        datasets[j.dataset] = {"status": str(j.status), **gaps_meta(j.gaps)}
    flat = [
        {"dataset": j.dataset, **g.to_dict()}
        for j in judged
        for g in j.gaps
        if g.status not in BENIGN_ANSWER
    ]
    meta: dict[str, Any] = {
        "datasets": datasets,
        "gaps": flat[:MAX_GAPS_IN_META],
        "vendor_trace": vendor_trace([e for j in judged for e in j.entries], None, until),
    }
    if len(flat) > MAX_GAPS_IN_META:
        meta["gaps_total"], meta["gaps_capped"] = len(flat), True
    return status, " ".join(notes), meta
