"""Point-in-time rules: cutoffs, statutory deadlines, Beijing-day windows, known-at per dataset.

Every `known_at` in the lake is computed by a function in this module (docs/design.md §1, §3).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import date, datetime, time, timedelta, timezone
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from pitlake.calendar import (
    BEIJING,
    BEIJING_UTC_OFFSET,
    EX_DATE_OPEN,
    LIMITS_PUBLISHED,
    SESSION_CLOSE,
    XSHG,
    at_beijing,
    to_date,
)
from pitlake.errors import CalendarRangeError, InvalidArgumentsError

if TYPE_CHECKING:  # the known-at rules build frames at ingest; a read need not load pandas
    import pandas as pd

END_OF_DAY = time(23, 59, 59, 999999)
F = TypeVar("F", bound=Callable[..., Any])


class KnownAtBasis(StrEnum):
    SESSION_CLOSE = "session_close"
    EX_DATE_OPEN = "ex_date_open"
    PRE_OPEN = "pre_open"  # published before the session opens (limit prices, 08:40)
    DAY_END = "day_end"
    ANNOUNCEMENT = "announcement"
    REVISION = "revision"
    STATUTORY_DEADLINE = "statutory_deadline"
    PUBLISHED = "published"
    FIRST_SEEN = "first_seen"
    # A state (a listing, a name, a suspension) is public no later than the instant it is in
    # force: the start of its first Beijing day, or its stated start time that day; a state's
    # end no later than the start of the day after its last day (the exchange shows it).
    IN_FORCE = "in_force"


# Bases that date a fact by a calendar day (end of that Beijing day) rather than by an instant.
# A fact fetched during its own day is already public; it is merely *dated* at the day's end,
# which is conservative for serving. Such a known_at may therefore lie later than the fetch
# on the same Beijing day. Instants (a session close, an ex-date open, a vendor publish time,
# first_seen) may never lie after the fetch: that is a pre-close bar or a future stamp.
DATE_ONLY_BASES: frozenset[str] = frozenset(
    {"day_end", "announcement", "revision", "statutory_deadline"}
)


# ---------------------------------------------------------------- cutoffs


def end_of_beijing_day(d: date) -> datetime:
    return at_beijing(d, END_OF_DAY)


def parse_cutoff(value: str | date | datetime | None, *, now: datetime | None = None) -> datetime:
    """An as-of → an aware instant (Beijing). A date is the end of that Beijing day; an ISO
    timestamp is exact; a naive timestamp is Beijing wall time; None is now. Anything else
    raises — an unparseable cutoff is never read as "live"."""
    if value is None:
        return (now or datetime.now(timezone.utc)).astimezone(BEIJING)
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=BEIJING)
        try:
            return value.astimezone(BEIJING)
        except OverflowError:  # 9999-12-31T23:59:59-12:00 is past datetime's last day in +08:00
            raise InvalidArgumentsError(
                f"invalid as_of {value.isoformat()!r}: out of range in Beijing time"
            ) from None
    if isinstance(value, date):
        return end_of_beijing_day(value)
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgumentsError(f"invalid as_of {value!r}: expected a date or ISO timestamp")
    s = value.strip()
    if len(s) in (8, 10) and ("-" in s or s.isdigit()):
        return end_of_beijing_day(to_date(s))
    try:
        parsed = datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        shown = s if len(s) <= 40 else s[:40] + "…"
        raise InvalidArgumentsError(
            f"invalid as_of {shown!r}: expected YYYY-MM-DD or an ISO-8601 timestamp"
        ) from None
    return parse_cutoff(parsed)


def latest_admissible_known_at(basis: pd.Series, ingested_at: datetime) -> pd.Series:
    """Per row, the latest known_at a batch ingested at `ingested_at` may carry: the end of
    the ingestion's Beijing day for date-only bases, the ingestion instant otherwise."""
    import pandas as pd

    at = pd.Timestamp(ingested_at if ingested_at.tzinfo else ingested_at.replace(tzinfo=BEIJING))
    day_end = pd.Timestamp(end_of_beijing_day(at.tz_convert(BEIJING).date()))
    limit = pd.Series(at.tz_convert("UTC"), index=basis.index).astype(KNOWN_AT_DTYPE)
    date_only = basis.astype(str).isin(DATE_ONLY_BASES)
    return limit.where(~date_only, day_end.tz_convert("UTC")).astype(KNOWN_AT_DTYPE)


def iso_beijing(at: datetime | pd.Timestamp | None) -> str | None:
    """An instant printed ISO-8601 in +08:00."""
    if at is None or (isinstance(at, float) and at != at):
        return None
    pd = sys.modules.get("pandas")  # a pandas value exists only once pandas is loaded
    if pd is not None and at is pd.NaT:
        return None
    if pd is not None and isinstance(at, pd.Timestamp):
        at = at.to_pydatetime()
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    return at.astimezone(BEIJING).isoformat()


_UNIT_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
_OFFSET_SECONDS = int(BEIJING_UTC_OFFSET.total_seconds())
_BEIJING_SUFFIX = datetime(2000, 1, 1, tzinfo=BEIJING).isoformat()[-6:]  # "+08:00"


def iso_beijing_many(epoch: np.ndarray, unit: str, null: np.ndarray | None = None) -> list[Any]:
    """Instants (integers since the epoch, UTC, in `unit`) → the text `iso_beijing` gives each,
    vectorised: `datetime.isoformat` prints microseconds only when they are not zero and
    drops nanoseconds."""
    per = _UNIT_PER_SECOND[unit]
    local = epoch.astype("int64") + _OFFSET_SECONDS * per
    secs = np.floor_divide(local, per)
    micros = (local - secs * per) * 1_000_000 // per
    text = np.datetime_as_string(secs.astype("datetime64[s]"), unit="s").tolist()
    out = [t + _BEIJING_SUFFIX for t in text]
    for i in np.flatnonzero(micros):
        out[i] = f"{text[i]}.{int(micros[i]):06d}{_BEIJING_SUFFIX}"
    if null is not None:
        for i in np.flatnonzero(null):
            out[i] = None
    return out


# ---------------------------------------------------------------- financial periods


def is_quarter_end(d: date) -> bool:
    return (d.month, d.day) in {(3, 31), (6, 30), (9, 30), (12, 31)}


def statutory_deadline(report_period: date | str) -> date:
    """The last day a report for this period may be published (CSRC rules):
    Q1 → 04-30, H1 → 08-31, Q3 → 10-31, annual → 04-30 of the next year."""
    p = to_date(report_period)
    if not is_quarter_end(p):
        raise InvalidArgumentsError(f"report period {p} is not a quarter end")
    return {
        3: date(p.year, 4, 30),
        6: date(p.year, 8, 31),
        9: date(p.year, 10, 31),
        12: date(p.year + 1, 4, 30),
    }[p.month]


def periods_reporting_in(first: date, last: date, *, lead_days: int = 31) -> list[date]:
    """The quarter ends whose reports may be scheduled or published in [first, last]: from
    `lead_days` before the period ends (schedules are announced around then) through its
    statutory deadline."""
    out = []
    for year in range(first.year - 1, last.year + 1):
        for month, day in ((3, 31), (6, 30), (9, 30), (12, 31)):
            p = date(year, month, day)
            if p - timedelta(days=lead_days) <= last and statutory_deadline(p) >= first:
                out.append(p)
    return out


def report_known_at(
    report_period: date | str,
    ann_date: date | None = None,
    revision_date: date | None = None,
) -> tuple[datetime, KnownAtBasis]:
    """When a statement version became public: the end of the latest date that applies to
    its values (announcement, or a later revision), else the statutory deadline."""
    period = to_date(report_period)
    if ann_date is None and revision_date is None:
        return end_of_beijing_day(statutory_deadline(period)), KnownAtBasis.STATUTORY_DEADLINE
    if revision_date is not None and (ann_date is None or revision_date > ann_date):
        return end_of_beijing_day(revision_date), KnownAtBasis.REVISION
    assert ann_date is not None
    return end_of_beijing_day(ann_date), KnownAtBasis.ANNOUNCEMENT


def is_report_known(
    report_period: date | str,
    cutoff: datetime,
    ann_date: date | None = None,
    revision_date: date | None = None,
) -> bool:
    known_at, _ = report_known_at(report_period, ann_date, revision_date)
    return known_at <= cutoff


# ---------------------------------------------------------------- news windows


def beijing_day_window(start: date | str, end: date | str) -> tuple[datetime, datetime]:
    """[start 00:00 Beijing, the day after end 00:00 Beijing) — Beijing calendar days,
    never UTC days. Returned as aware UTC instants for comparison with stored timestamps."""
    s, e = to_date(start), to_date(end)
    if s > e:
        raise InvalidArgumentsError(f"start {s} is after end {e}")
    lo = at_beijing(s, time(0)).astimezone(timezone.utc)
    hi = at_beijing(e + timedelta(days=1), time(0)).astimezone(timezone.utc)
    return lo, hi


def parse_vendor_time(value: object) -> datetime | None:
    """A vendor timestamp → aware instant; naive values are Beijing. None/blank/garbage → None
    (the caller then falls back to first_seen; it is never treated as 'now')."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    pd = sys.modules.get("pandas")  # a pandas value exists only once pandas is loaded
    if pd is not None and value is pd.NaT:
        return None
    if pd is not None and isinstance(value, pd.Timestamp):
        value = value.to_pydatetime()
    if isinstance(value, datetime):
        return value.replace(tzinfo=BEIJING) if value.tzinfo is None else value
    if isinstance(value, date):
        return end_of_beijing_day(value)
    s = str(value).strip()
    if not s:
        return None
    try:
        if len(s) == 8 and s.isdigit():
            return end_of_beijing_day(to_date(s))
        if len(s) == 10:
            return end_of_beijing_day(date.fromisoformat(s))
        dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
    except (ValueError, InvalidArgumentsError):
        return None
    return dt.replace(tzinfo=BEIJING) if dt.tzinfo is None else dt


# ---------------------------------------------------------------- vectorised known-at rules
#
# Each rule takes a canonical frame and the fetch instant and returns (known_at, basis) Series.
# known_at is tz-aware UTC with microsecond resolution, the lake's storage type.

KNOWN_AT_DTYPE = "datetime64[us, UTC]"


def _dates_at(dates: pd.Series, t: time) -> pd.Series:
    """date column + Beijing wall time → UTC instants."""
    import pandas as pd

    offset = pd.Timedelta(
        hours=t.hour, minutes=t.minute, seconds=t.second, microseconds=t.microsecond
    )
    naive = pd.to_datetime(dates).astype("datetime64[us]") + offset - pd.Timedelta(hours=8)
    return naive.dt.tz_localize("UTC")


def _const(frame: pd.DataFrame, value: str) -> pd.Series:
    import pandas as pd

    return pd.Series([value] * len(frame), index=frame.index, dtype="string")


RULE_BASES = "known_at_bases"  # the attribute `bases` sets on a rule


def bases(*declared: KnownAtBasis) -> Callable[[F], F]:
    """Declare the `known_at_basis` values a known-at rule can give (the catalogue lists
    them; tests/read/test_catalogue.py holds every stored row's basis to its rule's)."""

    def mark(rule: F) -> F:
        setattr(rule, RULE_BASES, tuple(b.value for b in declared))
        return rule

    return mark


def rule_bases(rule: Callable[..., Any]) -> tuple[str, ...]:
    """The basis values a rule declared (`bases`); () for an undeclared one."""
    return tuple(getattr(rule, RULE_BASES, ()))


def _fetched(frame: pd.DataFrame, fetched_at: datetime) -> pd.Series:
    import pandas as pd

    ts = (
        pd.Timestamp(fetched_at).tz_convert("UTC")
        if fetched_at.tzinfo
        else pd.Timestamp(fetched_at.replace(tzinfo=BEIJING)).tz_convert("UTC")
    )
    return pd.Series([ts] * len(frame), index=frame.index).astype(KNOWN_AT_DTYPE)


@bases(KnownAtBasis.SESSION_CLOSE)
def rule_session_close(frame: pd.DataFrame, fetched_at: datetime):
    """A session's bar is known at its close (15:00 +08:00 of trade_date)."""
    return _dates_at(frame["trade_date"], SESSION_CLOSE), _const(frame, KnownAtBasis.SESSION_CLOSE)


@bases(KnownAtBasis.EX_DATE_OPEN)
def rule_ex_date_open(frame: pd.DataFrame, fetched_at: datetime):
    """An adjustment factor is known at its ex-date's open (09:15 +08:00 of trade_date)."""
    return _dates_at(frame["trade_date"], EX_DATE_OPEN), _const(frame, KnownAtBasis.EX_DATE_OPEN)


@bases(KnownAtBasis.PRE_OPEN)
def rule_pre_open(frame: pd.DataFrame, fetched_at: datetime):
    """A fact about a session published before its open (limit prices, 08:40 +08:00)."""
    return _dates_at(frame["trade_date"], LIMITS_PUBLISHED), _const(frame, KnownAtBasis.PRE_OPEN)


@bases(KnownAtBasis.DAY_END)
def rule_day_end(frame: pd.DataFrame, fetched_at: datetime):
    """A fact about a day is known at the end of its Beijing day (trade_date 23:59:59)."""
    return _dates_at(frame["trade_date"], END_OF_DAY), _const(frame, KnownAtBasis.DAY_END)


@bases(KnownAtBasis.DAY_END, KnownAtBasis.FIRST_SEEN)
def rule_snapshot(frame: pd.DataFrame, fetched_at: datetime):
    """A dated snapshot (a list as of its trade_date) is known at the end of that Beijing day;
    a vendor's *current* list (column `current_list`), which says nothing of when it took
    effect, is known from when we first saw it, never back-dated to a date it states."""
    known, basis = rule_day_end(frame, fetched_at)
    current = frame["current_list"].astype("boolean").fillna(False).astype(bool)
    if current.any():
        known = known.where(~current, _fetched(frame, fetched_at))
        basis = basis.where(~current, KnownAtBasis.FIRST_SEEN.value)
    return known.astype(KNOWN_AT_DTYPE), basis


@bases(KnownAtBasis.FIRST_SEEN)
def rule_first_seen(frame: pd.DataFrame, fetched_at: datetime):
    """Known from the moment we first saw it (the fetch): nothing dates it earlier."""
    return _fetched(frame, fetched_at), _const(frame, KnownAtBasis.FIRST_SEEN)


@bases(KnownAtBasis.PUBLISHED, KnownAtBasis.FIRST_SEEN)
def rule_news(frame: pd.DataFrame, fetched_at: datetime):
    """Publish time when we have one; otherwise the first time we saw the item."""
    import pandas as pd

    published = pd.to_datetime(frame["published_at"], utc=True).astype(KNOWN_AT_DTYPE)
    seen = _fetched(frame, fetched_at)
    has = published.notna()
    known = published.where(has, seen)
    basis = _const(frame, KnownAtBasis.PUBLISHED).where(has, KnownAtBasis.FIRST_SEEN)
    return known.astype(KNOWN_AT_DTYPE), basis


@bases(KnownAtBasis.PUBLISHED, KnownAtBasis.ANNOUNCEMENT)
def rule_published_else_day_end(frame: pd.DataFrame, fetched_at: datetime):
    """An item with a vendor publish time (`published_at`) is known then (`published`); one
    the vendor dates only by its Beijing day (`ann_date`) at the end of that day
    (`announcement`). Never first_seen: every such item carries its day."""
    import pandas as pd

    published = pd.to_datetime(frame["published_at"], utc=True).astype(KNOWN_AT_DTYPE)
    day_end = _dates_at(frame["ann_date"], END_OF_DAY) if len(frame) else published
    has = published.notna()
    known = published.where(has, day_end)
    basis = _const(frame, KnownAtBasis.PUBLISHED).where(has, KnownAtBasis.ANNOUNCEMENT)
    return known.astype(KNOWN_AT_DTYPE), basis


@bases(KnownAtBasis.ANNOUNCEMENT, KnownAtBasis.FIRST_SEEN)
def rule_announced_else_first_seen(frame: pd.DataFrame, fetched_at: datetime):
    """A plan the vendor dates by its announcement (`ann_date`) is known at the end of the
    latest day that applies to its values: the announcement, or a later `actual_date` the row
    already reports (basis `announcement`). One without an announcement date is known when we
    first saw it (`first_seen`): a vendor's current plan is never back-dated."""
    import pandas as pd

    ann = pd.to_datetime(frame["ann_date"])
    actual = pd.to_datetime(frame["actual_date"])
    latest = ann.where(actual.isna() | (ann >= actual), actual).where(ann.notna())
    seen = _fetched(frame, fetched_at)
    dated = latest.notna()
    known = _dates_at(latest, END_OF_DAY).where(dated, seen) if len(frame) else seen
    basis = _const(frame, KnownAtBasis.ANNOUNCEMENT).where(dated, KnownAtBasis.FIRST_SEEN)
    return known.astype(KNOWN_AT_DTYPE), basis


@bases(
    KnownAtBasis.ANNOUNCEMENT,
    KnownAtBasis.REVISION,
    KnownAtBasis.STATUTORY_DEADLINE,
    KnownAtBasis.FIRST_SEEN,
)
def rule_financials(frame: pd.DataFrame, fetched_at: datetime):
    """ann_date / revision_date (f_ann_date, UPDATE_DATE) / statutory deadline / first_seen.

    Expects columns report_period, ann_date, revision_date and undated_revision (a restated
    version with no distinct revision date: only datable by when we first saw it)."""
    import pandas as pd

    periods = pd.to_datetime(frame["report_period"])
    bad = ~(periods.dt.is_quarter_end.fillna(False))
    if bad.any():
        first = frame.loc[bad, "report_period"].iloc[0]
        raise InvalidArgumentsError(f"report period {first} is not a quarter end")
    ann = pd.to_datetime(frame["ann_date"])
    rev = pd.to_datetime(frame["revision_date"])
    deadline = (
        pd.to_datetime([statutory_deadline(p.date()) for p in periods], errors="coerce").to_series(
            index=frame.index
        )
        if len(frame)
        else pd.Series([], dtype="datetime64[ns]")
    )
    use_rev = rev.notna() & (ann.isna() | (rev > ann))
    latest = ann.where(~use_rev, rev)
    basis = pd.Series(KnownAtBasis.ANNOUNCEMENT.value, index=frame.index, dtype="string")
    basis = basis.where(~use_rev, KnownAtBasis.REVISION.value)
    no_date = latest.isna()
    latest = latest.where(~no_date, deadline)
    basis = basis.where(~no_date, KnownAtBasis.STATUTORY_DEADLINE.value)
    known = _dates_at(latest.dt.date if len(frame) else latest, END_OF_DAY)
    undated = frame.get("undated_revision", pd.Series(False, index=frame.index))
    undated = undated.fillna(False).astype(bool)
    # A report with no announcement date, seen before its deadline, was public when we saw
    # it: the deadline would date it in the future, so it is dated first_seen instead.
    seen = _fetched(frame, fetched_at)
    undated = undated | (no_date & (known > seen))
    if undated.any():
        known = known.where(~undated, seen)
        basis = basis.where(~undated, KnownAtBasis.FIRST_SEEN.value)
    return known.astype(KNOWN_AT_DTYPE), basis


def _clock_of(times: pd.Series) -> pd.Series:
    """'HH:MM' (or 'HH:MM:SS') texts → offsets from midnight; missing → 0."""
    import pandas as pd

    text = times.astype("object").where(times.notna(), "00:00").astype(str)
    return pd.to_timedelta(text.map(lambda t: t if t.count(":") == 2 else t + ":00"))


@bases(KnownAtBasis.ANNOUNCEMENT, KnownAtBasis.IN_FORCE, KnownAtBasis.FIRST_SEEN)
def rule_state_intervals(frame: pd.DataFrame, fetched_at: datetime):
    """An interval of one state of one symbol (start_date … end_date, inclusive; end null =
    open-ended), known at the later of when its start and its end became public, never after
    the fetch (a later bound is the fetch itself, `first_seen`).

    - start: the end of `ann_date`'s Beijing day when the vendor gives an announcement date
      (`announcement`), or the instant the state is in force (`in_force`: the start of
      start_date's Beijing day, or its `start_time` that day), whichever is earlier — both are
      true bounds, and the earlier one is the tighter;
    - end: the start of the day after end_date (`in_force`: the next state is on the
      exchange's screens then); a closed interval is a later version of the open one (a
      one-day state, a suspended session, is one fact: known by its start);
    - `undated` rows (a vendor list of today's states that carries no date) are `first_seen`.
    Expects start_date, end_date, ann_date, start_time and undated columns."""
    import pandas as pd

    idx = frame.index
    seen = _fetched(frame, fetched_at)
    if not len(frame):
        return seen, _const(frame, KnownAtBasis.FIRST_SEEN)
    day0 = _dates_at(frame["start_date"], time(0))
    in_force = (day0 + _clock_of(frame["start_time"]).values).astype(KNOWN_AT_DTYPE)
    ann = pd.to_datetime(frame["ann_date"])
    announced = _dates_at(ann, END_OF_DAY).astype(KNOWN_AT_DTYPE)
    use_ann = ann.notna() & (announced < in_force)
    start = in_force.where(~use_ann, announced)
    basis = pd.Series(KnownAtBasis.IN_FORCE.value, index=idx, dtype="string")
    basis = basis.where(~use_ann, KnownAtBasis.ANNOUNCEMENT.value)
    end = pd.to_datetime(frame["end_date"])
    ended = _dates_at(end + pd.Timedelta(days=1), time(0)).astype(KNOWN_AT_DTYPE)
    # A one-day state (a suspended session) is one fact, known by its start.
    one_day = end <= pd.to_datetime(frame["start_date"])
    later_end = end.notna() & ~one_day.fillna(False) & (ended > start)
    known = start.where(~later_end, ended)
    basis = basis.where(~later_end, KnownAtBasis.IN_FORCE.value)
    # An instant after the fetch is the fetch (first_seen); a date-only announcement may lie
    # later on the fetch's own Beijing day (decision 1).
    limit = latest_admissible_known_at(basis, fetched_at)
    undated = frame["undated"].fillna(False).astype(bool)
    late = undated | (known > limit) | (basis.eq(KnownAtBasis.IN_FORCE.value) & (known > seen))
    known = known.where(~late, seen)
    basis = basis.where(~late, KnownAtBasis.FIRST_SEEN.value)
    return known.astype(KNOWN_AT_DTYPE), basis


def _session_after(day: date) -> date | None:
    """The XSHG session after `day`, None outside the known calendar (never guessed)."""
    try:
        return XSHG.next_session(day)
    except (CalendarRangeError, InvalidArgumentsError):
        return None


@bases(KnownAtBasis.ANNOUNCEMENT, KnownAtBasis.IN_FORCE, KnownAtBasis.FIRST_SEEN)
def rule_issue_terms(frame: pd.DataFrame, fetched_at: datetime):
    """An IPO's terms (issue price, amounts, 中签率), known at the end of the session after
    the subscription day `ipo_date` (T+1, basis `announcement`), never later than its
    listing day's call auction (`list_date` 09:15, basis `in_force`: the price is the first
    day's limit base on the exchange's screens then).

    Why T+1: the issue price is in the 发行公告, published the session before subscription
    (T-1), but a row also carries the 中签率 and online amounts of the 网上中签率公告 (T+1),
    so dating the row by T+1 is late for the price and never early for any value. A row
    without an issue price (not priced yet), one whose ipo_date lies outside the calendar
    without a listing day, or one whose date would lie after the fetch (decision 1's
    same-day rule for the date-only basis) is known when first seen (`first_seen`).
    Expects ipo_date, list_date and issue_price."""
    import pandas as pd

    seen = _fetched(frame, fetched_at)
    if not len(frame):
        return seen, _const(frame, KnownAtBasis.FIRST_SEEN)
    ipo = pd.to_datetime(frame["ipo_date"])
    after = ipo.map(lambda d: pd.NaT if pd.isna(d) else _session_after(d.date()))
    announced = _dates_at(pd.to_datetime(after), END_OF_DAY).astype(KNOWN_AT_DTYPE)
    listing = _dates_at(pd.to_datetime(frame["list_date"]), EX_DATE_OPEN).astype(KNOWN_AT_DTYPE)
    use_listing = listing.notna() & (announced.isna() | (listing < announced))
    known = announced.where(~use_listing, listing)
    basis = pd.Series(KnownAtBasis.ANNOUNCEMENT.value, index=frame.index, dtype="string")
    basis = basis.where(~use_listing, KnownAtBasis.IN_FORCE.value)
    priced = pd.to_numeric(frame["issue_price"], errors="coerce").gt(0)
    limit = latest_admissible_known_at(basis, fetched_at)
    late = ~priced | known.isna() | (known > limit)
    known = known.where(~late, seen)
    basis = basis.where(~late, KnownAtBasis.FIRST_SEEN.value)
    return known.astype(KNOWN_AT_DTYPE), basis


Rule = Callable[["pd.DataFrame", datetime], tuple["pd.Series", "pd.Series"]]


def apply_known_at(rule: Rule, frame: pd.DataFrame, fetched_at: datetime) -> pd.DataFrame:
    """Return a copy of `frame` with known_at and known_at_basis set by a dataset's rule (its
    spec's `known_at`)."""
    known, basis = rule(frame, fetched_at)
    out = frame.copy()
    out["known_at"] = known
    out["known_at_basis"] = basis.astype("string")
    return out
