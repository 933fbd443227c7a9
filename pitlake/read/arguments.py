"""Argument checks: every read validates its inputs here before touching a file (bad input →
INVALID_ARGUMENTS, raised as `InvalidArgumentsError`), and turns them into what the readers
use (canonical symbols, quarter ends, a window of sessions, a Beijing-day window)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from pitlake.calendar import FIRST_SESSION, TradingCalendar, to_date
from pitlake.errors import InvalidArgumentsError
from pitlake.pit import beijing_day_window, is_quarter_end
from pitlake.read.cutoff import Ask
from pitlake.symbols import canonical_many, instrument_members

DEFAULT_NEWS_LOOKBACK_DAYS = 7
MAX_NEWS_LOOKBACK_DAYS = 366
MAX_CALENDAR_DAYS = 3660
MAX_SYMBOLS = 6000


@dataclass(frozen=True)
class Window:
    """Which sessions a trade-dated request is about."""

    requested_end: date
    target: date  # latest session ≤ min(requested end, cutoff date)
    lo: date
    hi: date
    sessions: list[date] = field(default_factory=list)  # sessions expected to hold data
    single: bool = True
    after_cutoff: bool = False  # a range that starts after the cutoff date


@dataclass(frozen=True)
class DayWindow:
    """The Beijing days [start, end] of an undated request, and their instants [lo, hi)."""

    start: date
    end: date
    lo: datetime
    hi: datetime


def one_session(day: Any, start: Any, end: Any) -> tuple[Any, Any]:
    """`date=D` is the single session D: (None, D); otherwise start/end as given."""
    if day is not None:
        if start is not None or end is not None:
            raise InvalidArgumentsError("give either date, or start/end — not both")
        return None, day
    return start, end


def one_day(day: Any, start: Any, end: Any) -> tuple[Any, Any]:
    """`date=D` is the one day [D, D]; otherwise start/end as given."""
    lo, hi = one_session(day, start, end)
    return (hi, hi) if day is not None else (lo, hi)


def symbols(value: Any, *, required: bool, instruments: tuple[str, ...] = ()) -> list[str]:
    """Canonical A-share symbols, or, for a dataset of a closed set of `instruments` (index
    codes, which collide with stock codes), members of that set as written there."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise InvalidArgumentsError("give at least one symbol, e.g. 600519.SH")
        return []
    if not isinstance(value, str | list | tuple):
        raise InvalidArgumentsError(
            f"symbols must be a string or a list of strings, got {type(value).__name__}"
        )
    out = instrument_members(value, instruments) if instruments else canonical_many(value)
    if required and not out:
        raise InvalidArgumentsError("give at least one symbol, e.g. 600519.SH")
    if len(out) > MAX_SYMBOLS:
        raise InvalidArgumentsError(f"too many symbols ({len(out)} > {MAX_SYMBOLS})")
    return out


def choice(name: str, value: Any, allowed: tuple[str, ...], *, default: str | None) -> str | None:
    """One of `allowed` (case and blanks forgiven where a default exists), or None/default."""
    if default is None:
        mode = value
    else:  # forgiving where a default exists: None or "" is the default, case is ignored
        mode = (value or default).strip().lower() if isinstance(value, str | None) else value
    if mode is None:
        return None
    if mode not in allowed:
        raise InvalidArgumentsError(
            f"invalid {name} {value!r}: expected one of {', '.join(allowed)}"
        )
    return mode


def flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InvalidArgumentsError(f"{name} must be true or false")
    return value


def periods(value: Any) -> list[date] | None:
    if value is None:
        return None
    items = (
        [value]
        if isinstance(value, str | date)
        else (list(value) if isinstance(value, list | tuple) else None)
    )
    if items is None:
        raise InvalidArgumentsError("periods must be a date or a list of dates")
    out: list[date] = []
    for p in items:
        d = to_date(p)
        if not is_quarter_end(d):
            raise InvalidArgumentsError(f"report period {d} is not a quarter end")
        if d not in out:
            out.append(d)
    if not out:
        raise InvalidArgumentsError("periods is empty")
    return out


def window(start: Any, end: Any, ask: Ask, calendar: TradingCalendar) -> Window:
    end_d = to_date(end) if end is not None else ask.cutoff.date()
    start_d = to_date(start) if start is not None else None
    if start_d is not None and start_d > end_d:
        raise InvalidArgumentsError(f"start {start_d} is after end {end_d}")
    last = min(end_d, ask.cutoff.date())
    if start_d is not None and start_d < FIRST_SESSION:
        raise InvalidArgumentsError(f"start {start_d} is before the first XSHG session")
    target = calendar.session_on_or_before(last)
    if start_d is None or start_d == end_d:
        return Window(end_d, target, target, target, [target], single=True)
    if start_d > last:
        return Window(end_d, target, start_d, end_d, [], single=False, after_cutoff=True)
    return Window(end_d, target, start_d, last, calendar.sessions_between(start_d, last), False)


def positive(name: str, value: Any, top: int | None = None) -> int | None:
    """None, or an int in 1..top (a bool is not a count)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgumentsError(f"{name} must be a positive integer")
    if top is not None and value > top:
        raise InvalidArgumentsError(f"invalid {name} {value!r}: expected 1..{top}")
    return value


def news_days(start: Any, end: Any, lookback_days: Any, ask: Ask) -> DayWindow:
    """[start, end] in Beijing days; default: `lookback_days` (7) up to the cutoff's day."""
    end_d = to_date(end) if end is not None else ask.cutoff.date()
    if start is not None and lookback_days is not None:
        raise InvalidArgumentsError("give either start or lookback_days — not both")
    if lookback_days is not None and (
        isinstance(lookback_days, bool)
        or not isinstance(lookback_days, int)
        or not 1 <= lookback_days <= MAX_NEWS_LOOKBACK_DAYS
    ):
        raise InvalidArgumentsError(
            f"invalid lookback_days {lookback_days!r}: expected 1..{MAX_NEWS_LOOKBACK_DAYS}"
        )
    days = lookback_days or DEFAULT_NEWS_LOOKBACK_DAYS
    start_d = to_date(start) if start is not None else end_d - timedelta(days=days - 1)
    lo, hi = beijing_day_window(start_d, end_d)
    return DayWindow(start_d, end_d, lo, hi)


def calendar_days(start: Any, end: Any, ask: Ask) -> tuple[date, date]:
    end_d = to_date(end) if end is not None else ask.cutoff.date()
    start_d = to_date(start) if start is not None else end_d
    if start_d > end_d:
        raise InvalidArgumentsError(f"start {start_d} is after end {end_d}")
    if (end_d - start_d).days > MAX_CALENDAR_DAYS:
        raise InvalidArgumentsError(f"range longer than {MAX_CALENDAR_DAYS} days")
    return start_d, end_d
