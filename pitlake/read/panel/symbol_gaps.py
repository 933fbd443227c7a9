"""The given symbols' own gaps when more than `truth.LEDGER_BY_SYMBOL` are asked: on the
sessions that have rows (the whole market's judgement covers the others), each (symbol,
session) without a row public by the session's cutoff, judged as the single-instant read
judges it (`Lake.quotes` for those symbols: `gaps.session_gaps`' rules), found without a walk
over every pair.

A per (symbol, session) walk was 24M pairs for 20 years of 5,000 never-fetched symbols (89 s,
6.9 GiB). Here one SQL anti-join a year finds the missing pairs (sessions with rows × the
given symbols, less the rows public by each cutoff), looks each up in the ledger already read
(its own entry, else the whole market's: `LedgerView.lookup`'s fallback), keeps the ones
whose entry is not a successful fetch (a suspension on a successful whole-market fetch stays
benign, as `session_gaps` judges it), and groups them into runs of consecutive sessions with
the same ledger answer; each run is then judged by `session_gaps` itself on its ends."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING

import pyarrow as pa

from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.read import gaps, scans
from pitlake.read.cutoff import Ask
from pitlake.read.engine import Params, col, first_shown
from pitlake.read.status import Gap, LedgerView
from pitlake.schemas import Dataset
from pitlake.statuses import SUCCESSFUL_FETCH

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

HIDDEN, NEVER = "hidden", "never"  # a pair's answer besides a ledger status
# (symbol, answer, the answering entry's symbol, its message, first, last, sessions, first
# position, last position): a run of consecutive sessions with the same answer
Run = tuple[str, str, str | None, str, date, date, int, int, int]


def given_gaps(
    lake: Lake,
    schema: Dataset,
    sessions: list[date],
    cutoffs: dict[date, datetime],
    symbols: list[str],
    with_rows: list[date],
    ledger: LedgerView,
    ask: Ask,
) -> list[Gap]:
    """The failed, never-fetched or not-yet-public (symbol, session)s among `with_rows` (the
    sessions where some rows are public by their cutoff), as runs, by symbol then session."""
    if not with_rows or not symbols:
        return []
    position = {d: i for i, d in enumerate(sessions)}
    entries = ledger.keys()
    tables = {
        "panel_scopes": pa.table({"symbol": pa.array(symbols, pa.string())}),
        "panel_ledger": pa.table(
            {
                "d": pa.array([e[0] for e in entries], pa.date32()),
                "symbol": pa.array([e[1] for e in entries], pa.string()),
                "status": pa.array([e[2] for e in entries], pa.string()),
                "message": pa.array([e[3] for e in entries], pa.string()),
            }
        ),
    }
    runs: list[Run] = []
    for year in sorted({d.year for d in with_rows}):
        days = [d for d in with_rows if d.year == year]
        tables["panel_days"] = pa.table(
            {
                "session": pa.array(days, pa.date32()),
                "cutoff": pa.array(
                    [cutoffs[d].astimezone(timezone.utc) for d in days],
                    pa.timestamp("us", tz="UTC"),
                ),
                "pos": pa.array([position[d] for d in days], pa.int64()),
            }
        )
        runs += _runs(lake, schema, days, tables, ask.as_ingested)
    return [_judged(lake, schema, run, ledger, ask) for run in _joined(runs)]


def _runs(
    lake: Lake,
    schema: Dataset,
    days: list[date],
    tables: dict[str, pa.Table],
    as_ingested: datetime | None = None,
) -> list[Run]:
    """One year's runs: the anti-join, the ledger look-up and the islands, in one query
    (a row stored after `as_ingested` is not public, but stored: hidden, as in truth.py)."""
    date_col = schema.date_column
    assert date_col is not None
    files = lake.store.files(schema.name, scans.years(days[0], days[-1]))
    p = Params()
    if files:
        known = f"""SELECT symbol, {col(date_col)} AS d, min(known_at) AS first,
              {first_shown(p, as_ingested)} AS shown
            FROM {lake.reader.source(files, p)}
            WHERE {col(date_col)} BETWEEN {p.add(days[0])} AND {p.add(days[-1])}
              AND symbol IN (SELECT symbol FROM panel_scopes) GROUP BY ALL"""
    else:
        known = (
            "SELECT NULL::VARCHAR AS symbol, NULL::DATE AS d, NULL::TIMESTAMPTZ AS first, "
            "NULL::TIMESTAMPTZ AS shown"
        )
    ok = ", ".join(p.add(v) for v in sorted(s.value for s in SUCCESSFUL_FETCH))
    found = lake.reader.table(
        f"""WITH known AS ({known}),
        missing AS (
          SELECT a.symbol, s.session, s.pos, k.first IS NOT NULL AS hidden
          FROM panel_days s CROSS JOIN panel_scopes a
          LEFT JOIN known k ON k.symbol = a.symbol AND k.d = s.session
          WHERE k.shown IS NULL OR k.shown > s.cutoff),
        judged AS (
          SELECT m.symbol, m.session, m.pos,
            CASE WHEN m.hidden THEN {p.add(HIDDEN)}
                 ELSE coalesce(o.status, w.status, {p.add(NEVER)}) END AS answer,
            CASE WHEN m.hidden THEN NULL ELSE coalesce(o.symbol, w.symbol) END AS via,
            CASE WHEN m.hidden THEN '' ELSE coalesce(o.message, w.message, '') END AS message
          FROM missing m
          LEFT JOIN panel_ledger o ON o.d = m.session AND o.symbol = m.symbol
          LEFT JOIN panel_ledger w ON w.d = m.session AND w.symbol = {p.add(WHOLE_MARKET)}),
        bad AS (
          SELECT *, pos - row_number() OVER (
              PARTITION BY symbol, answer, via, message ORDER BY pos) AS island
          FROM judged WHERE answer NOT IN ({ok}))
        SELECT symbol, answer, via, message, min(session) AS first, max(session) AS last,
          count(*) AS n, min(pos) AS p0, max(pos) AS p1
        FROM bad GROUP BY symbol, answer, via, message, island""",
        p,
        tables=tables,
    )
    return list(zip(*(found.column(i).to_pylist() for i in range(9)), strict=True))  # type: ignore[arg-type]


def _joined(runs: list[Run]) -> list[Run]:
    """The years' runs, by symbol then session, a run cut at a year's end joined again."""
    out: list[Run] = []
    for run in sorted(runs, key=lambda r: (r[0], r[7])):
        prev = out[-1] if out else None
        if prev is not None and prev[:4] == run[:4] and prev[8] + 1 == run[7]:
            out[-1] = (*prev[:5], run[5], prev[6] + run[6], prev[7], run[8])
        else:
            out.append(run)
    return out


def _judged(lake: Lake, schema: Dataset, run: Run, ledger: LedgerView, ask: Ask) -> Gap:
    """The run as `gaps.session_gaps` judges it (its status and reason from the ledger entry,
    or never fetched, or stored but public later), from its first and last session."""
    symbol, answer, _, _, first, last, n = run[:7]
    ends = list(dict.fromkeys([first, last]))
    hidden = {(symbol, d) for d in ends} if answer == HIDDEN else set()
    found = gaps.session_gaps(
        lake,
        schema,
        [symbol],
        [(symbol, d) for d in ends],
        ledger,
        ask,
        ends,
        hidden_pairs=hidden,
        later={},
    )
    assert len(found) == 1, found
    return dataclasses.replace(found[0], sessions=n)
