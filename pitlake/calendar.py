"""XSHG trading sessions and Beijing-time helpers.

Sessions come from exchange-calendars (offline, correct through the last year whose holidays the
exchanges have published; read from its snapshot `pitlake.calendar_sessions` while that is of the
installed version, decision 54). Past its end, sessions come only from a stored `calendar` dataset
registered with `register_extension`; otherwise a date raises — a session is never guessed.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterable
from datetime import date, datetime, time, timedelta, timezone

from pitlake.errors import CalendarRangeError, InvalidArgumentsError

BEIJING_UTC_OFFSET = timedelta(hours=8)  # China has kept one offset, no DST, since 1991
BEIJING = timezone(BEIJING_UTC_OFFSET, name="Asia/Shanghai")
SESSION_OPEN = time(9, 30)
SESSION_CLOSE = time(15, 0)
EX_DATE_OPEN = time(9, 15)  # call auction opens; ex-date factors are live from here
# The session's limit prices are published before the open (Tushare stk_limit: about 08:40).
LIMITS_PUBLISHED = time(8, 40)
FIRST_SESSION = date(1990, 12, 19)


def to_date(value: date | datetime | str) -> date:
    """A date, a datetime (read in Beijing), or an ISO/YYYYMMDD string → date."""
    if isinstance(value, datetime):
        return beijing(value).date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        s = value.strip()
        try:
            if len(s) == 8 and s.isdigit():
                return date(int(s[:4]), int(s[4:6]), int(s[6:]))
            return date.fromisoformat(s[:10]) if len(s) == 10 else _bad_date(value)
        except ValueError:
            return _bad_date(value)
    return _bad_date(value)


def _bad_date(value: object) -> date:
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "…"
    raise InvalidArgumentsError(f"invalid date {shown}: expected YYYY-MM-DD or YYYYMMDD")


def beijing(at: datetime) -> datetime:
    """An instant in Beijing time. A naive datetime is taken to *be* Beijing wall time."""
    if at.tzinfo is None:
        return at.replace(tzinfo=BEIJING)
    return at.astimezone(BEIJING)


def now_beijing() -> datetime:
    return datetime.now(BEIJING)


def beijing_today() -> date:
    return now_beijing().date()


def at_beijing(d: date, t: time) -> datetime:
    return datetime.combine(d, t, tzinfo=BEIJING)


def session_close(d: date) -> datetime:
    return at_beijing(d, SESSION_CLOSE)


def offline_sessions() -> list[date]:
    """exchange-calendars' XSHG sessions: from its snapshot (`pitlake.calendar_sessions`) while
    the installed library is the snapshot's version, else from the library (which loads pandas:
    ~0.3 s of a one-symbol read)."""
    from importlib.metadata import PackageNotFoundError, version

    from pitlake import calendar_sessions as snapshot

    try:
        installed = version("exchange_calendars")
    except PackageNotFoundError:
        installed = None
    if installed == snapshot.EXCHANGE_CALENDARS:
        return snapshot_sessions()
    import exchange_calendars as xc

    cal = xc.get_calendar("XSHG", start=FIRST_SESSION.isoformat())
    return [ts.date() for ts in cal.sessions]


def snapshot_sessions() -> list[date]:
    """The sessions `pitlake.calendar_sessions` lists: its weekdays less the closed ones, plus
    its weekend sessions."""
    from pitlake import calendar_sessions as snapshot

    # By day number (`toordinal`): the walk over 36 years of days took a CLI read ~12 ms as
    # date arithmetic, ~3 ms so (decision 54). Day 1, 0001-01-01, was a Monday.
    closed = {date.fromisoformat(d).toordinal() for d in snapshot.CLOSED_WEEKDAYS.split()}
    extra = {date.fromisoformat(d).toordinal() for d in snapshot.WEEKEND_SESSIONS.split()}
    first = date.fromisoformat(snapshot.FIRST).toordinal()
    last = date.fromisoformat(snapshot.LAST).toordinal()
    return [
        date.fromordinal(n)
        for n in range(first, last + 1)
        if ((n - 1) % 7 < 5 and n not in closed) or n in extra
    ]


class TradingCalendar:
    """Sorted XSHG sessions with O(log n) look-ups."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: list[date] | None = None
        self._offline_last: date | None = None
        self._last: date | None = None

    def __reduce__(self) -> str | tuple[object, ...]:
        """Picklable, so a Prefect flow that calls `is_session` travels to a Dask worker (the
        flow's function goes by value, with the bound methods it names): the process's calendar
        goes by name (the worker's own, extended from the lake it opens), another one by value
        with a fresh lock."""
        if self is XSHG:
            return "XSHG"
        state = {k: v for k, v in vars(self).items() if k != "_lock"}
        return (_calendar_from_state, (state,))

    def _load(self) -> list[date]:
        if self._sessions is None:
            with self._lock:
                if self._sessions is None:
                    sessions = offline_sessions()
                    self._offline_last = sessions[-1]
                    self._last = self._offline_last
                    self._sessions = sessions
        return self._sessions

    @property
    def first(self) -> date:
        return self._load()[0]

    @property
    def last(self) -> date:
        """The last date whose session status is known."""
        self._load()
        assert self._last is not None
        return self._last

    @property
    def offline_last(self) -> date:
        self._load()
        assert self._offline_last is not None
        return self._offline_last

    def register_extension(self, sessions: Iterable[date], through: date) -> None:
        """Extend past the offline end with vendor-fetched sessions known through `through`."""
        base = self._load()
        with self._lock:
            extra = sorted({d for d in sessions if self.offline_last < d <= through})
            keep = [d for d in base if d <= self.offline_last]
            self._sessions = keep + extra
            self._last = max(through, self.offline_last)

    def extended(self, sessions: Iterable[date], through: date) -> TradingCalendar:
        """A new calendar: this one's offline sessions plus vendor-fetched ones known through
        `through` (this calendar is left as it is: a lake extends its own, not the process's)."""
        base = self._load()
        other = TradingCalendar()
        other._offline_last = self.offline_last
        extra = sorted({d for d in sessions if self.offline_last < d <= through})
        other._sessions = [d for d in base if d <= self.offline_last] + extra
        other._last = max(through, self.offline_last)
        return other

    def reset_extension(self) -> None:
        with self._lock:
            self._sessions = None
        self._load()

    def _check(self, d: date) -> None:
        if d < FIRST_SESSION:
            raise CalendarRangeError(
                f"{d} is before the first XSHG session ({FIRST_SESSION}); no sessions exist then"
            )
        if d > self.last:
            raise CalendarRangeError(
                f"{d} is past the trading calendar's known range (ends {self.last}); "
                "the exchanges have not published holidays that far. Ingest the `calendar` "
                "dataset from a vendor to extend it."
            )

    def is_session(self, d: date | str) -> bool:
        d = to_date(d)
        self._check(d)
        s = self._load()
        i = bisect.bisect_left(s, d)
        return i < len(s) and s[i] == d

    def previous_session(self, d: date | str) -> date:
        """The last session strictly before d."""
        d = to_date(d)
        self._check(d)
        s = self._load()
        i = bisect.bisect_left(s, d)
        if i == 0:
            raise CalendarRangeError(f"no XSHG session before {d}")
        return s[i - 1]

    def next_session(self, d: date | str) -> date:
        """The first session strictly after d."""
        d = to_date(d)
        self._check(d)
        s = self._load()
        i = bisect.bisect_right(s, d)
        if i >= len(s):
            raise CalendarRangeError(f"no known XSHG session after {d} (calendar ends {self.last})")
        return s[i]

    def session_on_or_before(self, d: date | str) -> date:
        d = to_date(d)
        return d if self.is_session(d) else self.previous_session(d)

    def sessions_between(self, start: date | str, end: date | str) -> list[date]:
        """Sessions in [start, end], inclusive."""
        start, end = to_date(start), to_date(end)
        if start > end:
            raise InvalidArgumentsError(f"start {start} is after end {end}")
        self._check(start)
        self._check(end)
        s = self._load()
        return s[bisect.bisect_left(s, start) : bisect.bisect_right(s, end)]

    def sessions_count_between(self, start: date, end: date) -> int:
        """Number of sessions in (start, end]: the lag in sessions from start to end."""
        if end <= start:
            return 0
        return len(self.sessions_between(start + timedelta(days=1), end))

    def latest_closed_session(self, at: datetime | None = None) -> date:
        """The latest session whose 15:00 Beijing close is at or before `at`."""
        at = beijing(at) if at is not None else now_beijing()
        d = at.date()
        if self.is_session(d) and at >= session_close(d):
            return d
        return self.previous_session(d)


def _calendar_from_state(state: dict[str, object]) -> TradingCalendar:
    cal = TradingCalendar()
    vars(cal).update(state)
    return cal


XSHG = TradingCalendar()

is_session = XSHG.is_session
previous_session = XSHG.previous_session
next_session = XSHG.next_session
sessions_between = XSHG.sessions_between
session_on_or_before = XSHG.session_on_or_before
latest_closed_session = XSHG.latest_closed_session
register_extension = XSHG.register_extension
