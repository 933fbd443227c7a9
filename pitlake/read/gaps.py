"""Why a requested scope has no rows (the gap analysis), and which session an answer stands on.

The rules are `pitlake.read.status`'s; this module applies them to one request: each missing
(scope, session) is "not public yet" (its known-at rule's floor is after the cutoff, or its
stored rows are hidden by it), "never fetched", or the ledger's word for it; runs of
consecutive sessions missing for the same reason make one Gap."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from pitlake.calendar import FIRST_SESSION
from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.lake.catalog_values import LedgerEntry
from pitlake.pit import Rule, iso_beijing
from pitlake.read import scans
from pitlake.read.arguments import Window
from pitlake.read.cutoff import Ask
from pitlake.read.status import (
    BENIGN_ANSWER,
    Gap,
    LedgerView,
    fetched_sessions,
    ledger_scopes,
    read_ledger,
    status_of_entry,
)
from pitlake.schemas import Dataset
from pitlake.statuses import DateStatus, ResultStatus

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

# Before a range whose sessions all failed, how many successful ledger dates are checked (newest
# first) for the effective session before settling on the latest date with rows.
LOOKBACK_CHECKS = 8

# Per known-at rule: whether it depends on the date alone, and its floors by date.
_DATE_ONLY: dict[Rule, bool] = {}
_FLOORS: dict[Rule, dict[date, datetime]] = {}


def _date_only_rule(schema: Dataset) -> bool:
    """Whether the rule dates a row from its date alone: the same floor for two fetch
    instants a year apart (checked once per rule)."""
    import pandas as pd

    rule = schema.known_at
    if rule not in _DATE_ONLY:
        assert schema.date_column is not None
        frame = pd.DataFrame({schema.date_column: [date(2020, 6, 1)]})
        a, _ = rule(frame, datetime(2020, 6, 2, tzinfo=timezone.utc))
        b, _ = rule(frame, datetime(2021, 6, 2, tzinfo=timezone.utc))
        _DATE_ONLY[rule] = bool((a == b).all())
        _FLOORS.setdefault(rule, {})
    return _DATE_ONLY[rule]


def known_at_floors(schema: Dataset, dates: Iterable[date]) -> dict[date, datetime]:
    """The earliest instant a row of this dataset about each date can be public (its rule),
    from one call of the rule over the dates not seen before (a call per date cost ~1 ms: a
    five-year gap analysis spent a second here). A rule that depends on the date alone (not
    on when the row was fetched) is remembered per date."""
    import pandas as pd

    assert schema.date_column is not None
    days = sorted(set(dates))
    if not days:
        return {}
    cache = _FLOORS.get(schema.known_at) if _date_only_rule(schema) else None
    todo = days if cache is None else [d for d in days if d not in cache]
    computed: dict[date, datetime] = {}
    if todo:
        frame = pd.DataFrame({schema.date_column: todo})
        known, _ = schema.known_at(frame, datetime.now(timezone.utc))
        computed = dict(zip(todo, known.dt.to_pydatetime(), strict=True))
        if cache is not None:
            cache.update(computed)
    if cache is None:
        return computed
    return {d: cache[d] for d in days}


def not_public(schema: Dataset, dates: list[date], ask: Ask) -> dict[date, datetime]:
    """The dates whose rows become public only after the cutoff (their rule's floor), with
    that instant. A trade-dated rule dates a row within its session's day, and later
    sessions later, so only the last week before the cutoff is computed, plus the latest
    older date as a check that the older ones are public."""
    recent_from = ask.cutoff.date() - timedelta(days=7)
    recent = sorted({d for d in dates if d >= recent_from})
    older = [d for d in dates if d < recent_from]
    probe = [max(older)] if older else []
    floors = known_at_floors(schema, [*probe, *recent])
    if probe and floors[probe[0]] > ask.cutoff:  # a rule dating rows later: check all
        floors = known_at_floors(schema, dates)
    return {d: f for d, f in floors.items() if ask.cutoff < f}


def ledger_gap(scope: str, d: date | None, entry: LedgerEntry | None) -> Gap:
    if entry is None:
        return Gap(scope, d, ResultStatus.UNKNOWN, "never fetched")
    status = status_of_entry(entry)
    if status is ResultStatus.NO_DATA:
        reason = (
            "not in the successful whole-market fetch"
            if entry.symbol == WHOLE_MARKET and scope != WHOLE_MARKET
            else "the fetch succeeded with no rows"
        )
    else:
        reason = f"last fetch {entry.status}" + (f": {entry.message}" if entry.message else "")
    return Gap(scope, d, status, reason, entry)


def undated_gap(scope: str, entries: list[LedgerEntry], periods: list[date] | None) -> Gap:
    """A scope without rows in a dataset whose answer is not about one session."""
    if periods is not None:
        matching = [e for e in entries if e.date_key in periods]
        entries = matching or entries
    if any(e.successful for e in entries):
        ok = max((e for e in entries if e.successful), key=lambda e: e.recorded_at)
        return Gap(scope, None, ResultStatus.NO_DATA, "nothing public by the as-of", ok)
    if not entries:
        return Gap(scope, None, ResultStatus.UNKNOWN, "never fetched")
    last = max(entries, key=lambda e: e.recorded_at)
    return ledger_gap(scope, None, last)


def session_gaps(
    lake: Lake,
    schema: Dataset,
    symbols: list[str] | None,
    missing: list[tuple[str, date]],
    ledger: LedgerView,
    ask: Ask,
    sessions: Sequence[date] | None = None,
    hidden_pairs: set[tuple[str, date]] | None = None,
    later: dict[date, datetime] | None = None,
) -> list[Gap]:
    """Why each missing (scope, session) has no rows, as runs: consecutive sessions of one
    scope missing for the same reason make one Gap (first…last, how many). `missing` is
    ordered by scope, then session; `sessions` (the window's, in order) says which missing
    sessions are consecutive. The walk does a few dictionary look-ups per session, so a
    symbol with no rows over decades costs milliseconds (issue 13 item 11). `hidden_pairs`
    and `later` (the sessions not public by their cutoff, with the instant they become
    public) default to those of the one cutoff `ask`; a panel, whose sessions each have
    their own cutoff, gives its own."""
    if not missing:
        return []
    dates = [d for _, d in missing]
    if hidden_pairs is None:
        hidden_pairs = scans.hidden_pairs(lake, schema, symbols, min(dates), max(dates), ask)
    if later is None:
        later = not_public(schema, dates, ask)
    position = {d: i for i, d in enumerate(sessions if sessions is not None else dates)}
    reasons: dict[tuple[Any, ...], tuple[ResultStatus, str]] = {}
    runs: list[Gap] = []
    run: list[Any] = []  # scope, first, last, last position, key, count

    def close() -> None:
        scope, first, last, _, key, count = run
        status, reason = reasons[key]
        entry = ledger.lookup(last, scope)
        if key[0] == "floor":
            when = f"{first}" if first == last else f"{first}…{last}"
            reason = (
                f"{schema.name} for {when} become public at {iso_beijing(later[last])}"
                ", after the as-of"
            )
        runs.append(Gap(scope, first, status, reason, entry, last, count))

    for scope, d in missing:
        if d in later:
            key: tuple[Any, ...] = ("floor",)
            reasons[key] = (ResultStatus.NOT_READY, "")
        elif (scope, d) in hidden_pairs:
            key = ("hidden",)
            reasons[key] = (ResultStatus.NOT_READY, "stored, but public only after the as-of")
        else:
            found = ledger.status_key(d, scope)
            if found is None:
                key = ("never",)
                reasons[key] = (ResultStatus.UNKNOWN, "never fetched")
            else:
                key = (*found, scope == WHOLE_MARKET)
                if key not in reasons:
                    gap = ledger_gap(scope, d, ledger.lookup(d, scope))
                    reasons[key] = (gap.status, gap.reason)
        pos = position[d]
        if run and run[0] == scope and run[4] == key and run[3] == pos - 1:
            run[2], run[3], run[5] = d, pos, run[5] + 1
            continue
        if run:
            close()
        run = [scope, d, d, pos, key, 1]
    close()
    return runs


def benign_gaps_note(gaps: list[Gap]) -> str:
    """Gaps that are all successful fetches without these rows (a suspension, a symbol
    not on the list), said once however many there are."""
    absent = sorted({g.symbol for g in gaps})
    dated = [g for g in gaps if g.date_key is not None]
    who = (
        "the whole market"
        if absent == [WHOLE_MARKET]
        else ", ".join(absent[:20]) + (" …" if len(absent) > 20 else "")
    )
    when = ""
    if dated:
        first = min(g.date_key for g in dated)  # type: ignore[type-var]
        last = max(g.until for g in dated)  # type: ignore[type-var]
        n = sum(g.sessions for g in dated)
        span = f"{first}" if first == last else f"{first}…{last}"
        when = f" on {n} session(s), {span}" if len(absent) == 1 else f", {span}"
    if absent == [WHOLE_MARKET]:
        return f"No rows{when}: those fetches succeeded with nothing in them."
    return f"No rows for {who}{when} (the fetch succeeded without them, e.g. a suspension)."


def fetched_before(
    lake: Lake,
    schema: Dataset,
    symbols: list[str] | None,
    scopes: list[str],
    on_or_before: date,
    ask: Ask,
) -> date | None:
    """The latest session ≤ on_or_before that an answer could stand on (rows visible at
    the cutoff, or a successful empty fetch): the effective session of a range none of
    whose own sessions was fetched, the same as a longer range with the same end would
    find."""
    if on_or_before < FIRST_SESSION:
        return None
    with_rows = scans.latest_date(lake, schema, symbols, on_or_before, ask)
    after = with_rows + timedelta(days=1) if with_rows else None
    if after is not None and after > on_or_before:
        return with_rows
    view = read_ledger(
        lake.catalog, schema.name, after or FIRST_SESSION, on_or_before, ledger_scopes(scopes)
    )
    is_session = lake.trading_calendar.is_session
    candidates = sorted(
        {e.date_key for e in view.entries if e.successful and is_session(e.date_key)},
        reverse=True,
    )
    for d in candidates[:LOOKBACK_CHECKS]:
        gaps = session_gaps(lake, schema, symbols, [(s, d) for s in scopes], view, ask)
        if fetched_sessions([d], len(scopes), gaps):
            return d
    return with_rows


def date_status(effective: date | None, win: Window) -> DateStatus:
    if effective is None:
        return DateStatus.UNKNOWN
    if effective < win.target:
        return DateStatus.STALE
    return fresh_status(win.requested_end, win.target)


def fresh_status(requested: date, session: date) -> DateStatus:
    """The date_status of an answer that is not stale, on every reader: CURRENT when the
    requested day is the session answered, LATEST_TRADING_DAY when it is not a session (a
    weekend, a holiday, a day after the cutoff) and the answer is of the latest one before."""
    return DateStatus.CURRENT if requested == session else DateStatus.LATEST_TRADING_DAY


def date_notes(
    dataset: str,
    win: Window,
    effective: date | None,
    status_of_date: DateStatus,
    status: ResultStatus,
    ask: Ask,
) -> list[str]:
    notes = []
    if status_of_date is DateStatus.LATEST_TRADING_DAY:
        why = (
            "is after the as-of date"
            if win.requested_end > ask.cutoff.date()
            else "is not an XSHG session"
        )
        notes.append(f"{win.requested_end} {why}; answered for the session {win.target}.")
    if status_of_date is DateStatus.STALE and effective is not None:
        notes.append(
            f"{dataset} for {win.target} are not available ({status}); the latest session "
            f"with {dataset} known as of {ask.as_of} is {effective}"
            + (" (ask for it explicitly)." if win.single else ".")
        )
    if status_of_date is DateStatus.UNKNOWN and status not in BENIGN_ANSWER:
        notes.append(f"No {dataset} known as of {ask.as_of} for this request.")
    return notes
