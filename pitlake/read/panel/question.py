"""The panel's question, checked before any file is read (InvalidArgumentsError naming the bad
part), and each row's cutoff: the session's day at `at`, Beijing, never after the cap."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import TYPE_CHECKING

from pitlake.calendar import to_date
from pitlake.errors import InvalidArgumentsError
from pitlake.pit import BEIJING
from pitlake.read.arguments import symbols as checked_symbols
from pitlake.read.cutoff import Ask
from pitlake.read.panel import fields as panel_fields
from pitlake.schemas import index_members

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

# Names for the usual cutoffs (Beijing time of each session's day).
AT_NAMES = {"open": "09:30", "close": "15:00", "eod": "23:59:59.999999"}
_AT = re.compile(r"^\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$")


@dataclass(frozen=True)
class Question:
    fields: panel_fields.Fields
    sessions: list[date]
    at: time
    universe: str | list[str]  # "all", an index code, or symbols
    cap: datetime  # the as_of (or now) every cutoff is capped by, aware
    provenance: bool
    as_ingested: datetime | None = None  # rows stored after it hidden from every scan


def parse_at(at: object) -> time:
    text = AT_NAMES.get(str(at).strip().lower(), str(at).strip())
    if not _AT.match(text):
        raise InvalidArgumentsError(
            f"at must be a Beijing time of day like 15:00 or one of {', '.join(AT_NAMES)}, "
            f"got {at!r}"
        )
    try:
        return time.fromisoformat(text)
    except ValueError as e:
        raise InvalidArgumentsError(f"bad at {at!r}: {e}") from None


def parse_universe(universe: object) -> str | list[str]:
    if isinstance(universe, str) and universe.strip().lower() == "all":
        return "all"
    if isinstance(universe, str) and universe.strip().upper() in index_members.MEMBER_INDICES:
        return universe.strip().upper()
    if isinstance(universe, str) and "," not in universe and len(universe.strip()) > 6:
        known = ", ".join(index_members.MEMBER_INDICES)
        try:
            return checked_symbols(universe, required=True)
        except InvalidArgumentsError:
            raise InvalidArgumentsError(
                f"unknown universe {universe!r}: 'all', an index code ({known}) or symbols"
            ) from None
    return checked_symbols(universe, required=True)


def question(
    lake: Lake,
    fields: object,
    start: object,
    end: object,
    universe: object,
    at: object,
    as_of: object,
    provenance: bool,
    as_ingested: object = None,
) -> Question:
    """The checked question (InvalidArgumentsError on any bad part, before any file)."""
    checked = panel_fields.parse(fields)
    try:
        lo, hi = to_date(start), to_date(end)  # type: ignore[arg-type]
    except (TypeError, ValueError) as e:
        raise InvalidArgumentsError(f"start and end must be dates (YYYY-MM-DD): {e}") from None
    if hi < lo:
        raise InvalidArgumentsError(f"end {hi} is before start {lo}")
    try:
        sessions = lake.trading_calendar.sessions_between(lo, hi)
    except ValueError as e:
        raise InvalidArgumentsError(str(e)) from None
    ask = _ask(lake, as_of, as_ingested)
    return Question(
        fields=checked,
        sessions=sessions,
        at=parse_at(at),
        universe=parse_universe(universe),
        cap=ask.cutoff,
        provenance=bool(provenance),
        as_ingested=ask.as_ingested,
    )


def _ask(lake: Lake, as_of: object, as_ingested: object) -> Ask:
    """The panel's instants as every read takes them (`Lake.ask`: the pin clamps as_of, not
    as_ingested), a bad as_ingested named as such (`parse_cutoff` says "as_of" of both)."""
    ask = lake.ask(as_of)
    if as_ingested is None:
        return ask
    try:
        return lake.ask(as_of, as_ingested)
    except InvalidArgumentsError as e:
        raise InvalidArgumentsError(f"as_ingested: {e}") from None


def cutoff_of(q: Question, day: date) -> datetime:
    """Row D's cutoff: D at `at` (Beijing), never after the cap."""
    return min(datetime.combine(day, q.at, BEIJING), q.cap)
