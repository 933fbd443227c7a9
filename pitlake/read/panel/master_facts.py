"""The security master's facts for every session of a panel at once, each as the single-instant
derivation finds them at that session's cutoff (`state.rows_by`: the newest version per key
known by the cutoff whose interval starts by the day, its end judged after the version is
chosen), in SQL over the master's versions.

A key's version v is the newest known at cutoff C exactly when v.known_at ≤ C < the next
version's known_at (versions ordered by known_at then ingestion, as `last_per_key` orders
them), so one range join of the sessions (day, cutoff) with the versions (start, end, known
interval) gives each session's rows in force: the universe's states (`states`) and the facts
the price-limit regime needs (`limit_facts`), instead of one derivation per session (~0.04 s
and ~0.15 s a session)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import TYPE_CHECKING

import pyarrow as pa

from pitlake.limit_rules import SZSE_DELISTING_SINCE
from pitlake.read.engine import Params, stored_by
from pitlake.schemas import securities

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

SPEC = securities.SCHEMA
LISTING, NAME, ST, SUSPENSION = (
    securities.LISTING,
    securities.NAME,
    securities.ST,
    securities.SUSPENSION,
)


def days_table(
    days: list[date], on: list[date], cutoffs: list[datetime], lookback: list[date] | None = None
) -> pa.Table:
    """The sessions (session, the day the master is judged on, cutoff[, lookback])."""
    cols = {
        "session": pa.array(days, pa.date32()),
        "day": pa.array(on, pa.date32()),
        "cutoff": pa.array(
            [c.astimezone(timezone.utc) for c in cutoffs], pa.timestamp("us", tz="UTC")
        ),
    }
    if lookback is not None:
        cols["lookback"] = pa.array(lookback, pa.date32())
    return pa.table(cols)


def _versions(
    lake: Lake,
    p: Params,
    attributes: tuple[str, ...],
    cap: datetime,
    hi: date,
    as_ingested: datetime | None = None,
) -> str:
    """The master's versions (known_at not NULL, known by `cap`, stored by `as_ingested`,
    starting by `hi`) of the attributes, each with the instant the next version of its key
    became known (NULL: none by `cap`), or None without a master."""
    files = lake.store.files(SPEC.name, list(attributes))
    if not files:
        return ""
    listed = ", ".join(p.add(a) for a in attributes)
    return f"""SELECT symbol, attribute, start_date, end_date, name,
          coalesce(undated, false) AS undated, known_at,
          lead(known_at) OVER (PARTITION BY symbol, attribute, start_date
                               ORDER BY known_at, ingested_at) AS next_known
        FROM {lake.reader.source(files, p)}
        WHERE known_at IS NOT NULL AND known_at <= {p.add(cap)}
          AND {stored_by(p, as_ingested)} AND start_date <= {p.add(hi)}
          AND attribute IN ({listed})"""


# The version of a key chosen at the session's cutoff, starting by the session's day.
_CHOSEN = """v.start_date <= s.day AND v.known_at <= s.cutoff
    AND (v.next_known IS NULL OR v.next_known > s.cutoff)"""


def states(lake: Lake, days: pa.Table, as_ingested: datetime | None = None) -> pa.Table:
    """(session, symbol, is_st, is_suspended, list_date) of every code listed on each
    session's `day` (`universe_at`: a listing in force, the latest starting one's first
    trading day; ST and suspended when a row of that attribute is in force), from the
    versions known at its cutoff."""
    p = Params()
    cap = max(days.column("cutoff").to_pylist())
    versions = _versions(
        lake, p, (LISTING, ST, SUSPENSION), cap, max(days.column("day").to_pylist()), as_ingested
    )
    empty = pa.schema(
        [
            ("session", pa.date32()),
            ("symbol", pa.string()),
            ("is_st", pa.bool_()),
            ("is_suspended", pa.bool_()),
            ("list_date", pa.date32()),
        ]
    )
    if not versions:
        return empty.empty_table()
    return lake.reader.table(
        f"""WITH v AS ({versions})
        SELECT s.session, v.symbol,
          bool_or(v.attribute = {p.add(ST)}) AS is_st,
          bool_or(v.attribute = {p.add(SUSPENSION)}) AS is_suspended,
          max(v.start_date) FILTER (WHERE v.attribute = {p.add(LISTING)}) AS list_date
        FROM panel_days s JOIN v ON {_CHOSEN}
          AND (v.end_date IS NULL OR v.end_date >= s.day)
        GROUP BY s.session, v.symbol
        HAVING bool_or(v.attribute = {p.add(LISTING)})""",
        p,
        tables={"panel_days": days},
    ).cast(empty)


def limit_facts(
    lake: Lake, days: pa.Table, sessions: pa.Table, as_ingested: datetime | None = None
) -> pa.Table | None:
    """Per (session, symbol) with a code listed or named around it, what the regime needs as
    `market.universe_facts` finds it at the session's cutoff (`gate_states`,
    `delisting_periods` over the session's window, whose first day is `lookback`): ST that
    session (an ST row and a listing in force), the first trading day when it is a session in
    the window (`sessions`: the XSHG sessions, a table of `day`), the first day of the
    delisting-arrangement period (a name marked 退 in force) and `unsure` (a delisted code
    whose names the lake never saw dated: the UNSURE_SPAN before its delisting, unless a
    marked name touches the window). `days`: session (its own day), cutoff, lookback. None
    without a master."""
    p = Params()
    cap = max(days.column("cutoff").to_pylist())
    hi = max(days.column("day").to_pylist())
    versions = _versions(lake, p, (LISTING, ST, NAME), cap, hi, as_ingested)
    if not versions:
        return None
    listing, st, name = p.add(LISTING), p.add(ST), p.add(NAME)
    marked = f"regexp_matches(v.name, {p.add(securities.DELISTING_NAME)})"
    span = securities.UNSURE_SPAN.days
    return lake.reader.table(
        f"""WITH v AS ({versions}),
        cur AS (
          SELECT s.session, s.cutoff, s.lookback, v.symbol, v.attribute, v.start_date,
            v.end_date, v.end_date IS NULL OR v.end_date >= s.session AS in_force
          FROM panel_days s JOIN v ON {_CHOSEN}
            AND (v.end_date IS NULL OR v.end_date >= s.lookback)
            AND (v.attribute <> {name} OR coalesce({marked}, false))),
        facts AS (
          SELECT session, cutoff, symbol,
            bool_or(attribute = {listing} AND in_force)
              AND bool_or(attribute = {st} AND in_force) AS is_st,
            max(start_date) FILTER (WHERE attribute = {listing}
              AND start_date >= lookback
              AND (end_date IS NULL OR end_date >= start_date)
              AND start_date IN (SELECT day FROM panel_calendar)) AS first_day,
            max(start_date) FILTER (WHERE attribute = {name} AND in_force) AS delisting,
            bool_or(attribute = {name}) AS marked_near,
            arg_min(end_date, start_date) FILTER (WHERE attribute = {listing}
              AND end_date IS NOT NULL AND end_date >= {p.add(SZSE_DELISTING_SINCE)}
              AND end_date - {span} <= session) AS delisted
          FROM cur GROUP BY session, cutoff, symbol)
        SELECT session, symbol, is_st, first_day, delisting,
          coalesce(delisted IS NOT NULL AND session <= delisted
            AND session >= delisted - {span} AND NOT marked_near
            AND NOT EXISTS (SELECT 1 FROM v n WHERE n.symbol = f.symbol
              AND n.attribute = {name} AND NOT n.undated AND n.start_date <= f.session
              AND n.known_at <= f.cutoff), false) AS unsure
        FROM facts f""",
        p,
        tables={"panel_days": days, "panel_calendar": sessions},
    )


def has_master(lake: Lake, days: pa.Table, as_ingested: datetime | None = None) -> list[bool]:
    """Per session, whether `universe_facts` finds a master at its cutoff (a version of a
    gate partition starting by the session, known by the cutoff): without, the market falls
    back to the names the lake holds (`st_symbols`)."""
    spec = SPEC
    assert spec.state is not None
    files = lake.store.files(spec.name, spec.state.gate_partitions)
    if not files:
        return [False] * days.num_rows
    p = Params()
    found = lake.reader.table(
        f"""SELECT s.session, EXISTS (SELECT 1 FROM {lake.reader.source(files, p)}
              WHERE t.start_date <= s.day AND t.known_at <= s.cutoff
                AND {stored_by(p, as_ingested, "t")}) AS found
            FROM panel_days s""",
        p,
        tables={"panel_days": days},
    )
    seen = dict(
        zip(found.column("session").to_pylist(), found.column("found").to_pylist(), strict=True)
    )
    return [bool(seen.get(d)) for d in days.column("session").to_pylist()]
