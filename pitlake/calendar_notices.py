"""When each XSHG day's status became public: the calendar as it was known at a cutoff.

exchange-calendars holds the calendar as it turned out, through the last year whose holidays are
published. A question asked as of T must not see a holiday announced after T: the 2020 Spring
Festival extension (closed 2020-01-31) was announced on 2020-01-27, and a year's holidays are
published by the State Council late in the year before. So, for a day d and a cutoff T:

- d on or before T's day: as it happened (the day is past or under way, its status is a fact);
- a later day of a year whose holiday notice was public at T: as planned then — the calendar as
  it turned out, with every later ad-hoc change (`CHANGES`) undone;
- a later weekend day: closed (the exchanges' rules trade Monday to Friday only);
- any other later day: unknown (None) — never guessed.

A notice is taken as known from the end of its publication day (its hour is not recorded).
Sources: docs/design.md "The calendar as of a cutoff" and docs/vendor-reference.md §3.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from pitlake.calendar import at_beijing, beijing


@dataclass(frozen=True)
class HolidayNotice:
    """The State Council General Office's notice of year `year`'s holidays (国务院办公厅关于Y年
    部分节假日安排的通知), which the exchanges' closure notices follow."""

    year: int
    published: date
    source: str


@dataclass(frozen=True)
class CalendarChange:
    """A day whose status changed after its year's notice: `is_open` is the status after it."""

    day: date
    is_open: bool
    published: date
    source: str


def _notices(*rows: tuple[int, str, str]) -> Mapping[int, HolidayNotice]:
    return {y: HolidayNotice(y, date.fromisoformat(p), s) for y, p, s in rows}


# The year's notice: the State Council's public release (the later of its signature and release
# dates where they differ). Reposts found in the stored public-pages corpus; docs/design.md "The
# calendar as of a cutoff" lists each source URL. 2005 and earlier: not found, so those years'
# days are known only as they happen.
NOTICES: Mapping[int, HolidayNotice] = _notices(
    (2006, "2005-12-16", "国办发明电〔2005〕35号"),
    (2007, "2006-12-18", "国办发明电〔2006〕49号 (signed 2006-12-14, reported 12-18)"),
    (2008, "2007-12-18", "NDRC release of the 2008 arrangement (中新网 2007-12-18)"),
    (2009, "2008-12-10", "国办发明电〔2008〕42号 (reported 2008-12-10)"),
    (2010, "2009-12-08", "国办发明电〔2009〕27号 (signed 12-07, gov.cn 12-08)"),
    (2011, "2010-12-10", "国办发明电〔2010〕40号 (signed 12-09, gov.cn 12-10)"),
    (2012, "2011-12-07", "国办发明电〔2011〕45号 (signed 12-05, released 12-06/07)"),
    (2013, "2012-12-08", "国办发明电〔2012〕33号"),
    (2014, "2013-12-11", "国办发明电〔2013〕28号"),
    (2015, "2014-12-16", "国办发明电〔2014〕28号"),
    (2016, "2015-12-10", "国办发明电〔2015〕18号 (gov.cn 2015-12-10)"),
    (2017, "2016-12-01", "国办发明电〔2016〕17号"),
    (2018, "2017-12-01", "国办发明电〔2017〕12号 (signed 11-30, released 12-01)"),
    (2019, "2018-12-06", "国办发明电〔2018〕15号 (signed 12-04, released 12-06)"),
    (2020, "2019-11-21", "国办发明电〔2019〕16号 (Xinhua 2019-11-21)"),
    (2021, "2020-11-25", "国办发明电〔2020〕27号"),
    (2022, "2021-10-25", "国办发明电〔2021〕11号"),
    (2023, "2022-12-08", "国办发明电〔2022〕16号"),
    (2024, "2023-10-25", "国办发明电〔2023〕7号"),
    (2025, "2024-11-12", "国办发明电〔2024〕12号 (with the revised 放假办法)"),
    (2026, "2025-11-04", "State Council 2026 arrangement (Xinhua 2025-11-04)"),
)


def _changes(*rows: tuple[str, bool, str, str]) -> tuple[CalendarChange, ...]:
    return tuple(
        CalendarChange(date.fromisoformat(d), o, date.fromisoformat(p), s) for d, o, p, s in rows
    )


# Days whose status changed after their year's notice (and the one closure the exchanges added
# beyond the State Council's holidays). 2016-01-04/07 were circuit-breaker early closes, not
# closed days.
CHANGES: tuple[CalendarChange, ...] = _changes(
    *((f"2003-05-{d:02}", False, "2003-04-28", "CSRC/SSE SARS closure") for d in range(6, 10)),
    ("2015-09-03", False, "2015-05-13", "国发明电〔2015〕1号 (Victory Day)"),
    ("2015-09-04", False, "2015-05-13", "国发明电〔2015〕1号 (Victory Day 调休)"),
    ("2019-05-02", False, "2019-03-22", "国办发明电〔2019〕3号 (Labor Day to 05-01…04)"),
    ("2019-05-03", False, "2019-03-22", "国办发明电〔2019〕3号 (Labor Day to 05-01…04)"),
    ("2020-01-31", False, "2020-01-27", "国办发明电〔2020〕1号 and SSE/SZSE 2020-01-27"),
    ("2024-02-09", False, "2023-12-26", "SSE/SZSE/BSE 2024 closures (除夕, no State holiday)"),
)


def known_at(published: date) -> datetime:
    """The instant a notice published on `published` counts as public: the end of that day."""
    return at_beijing(published + timedelta(days=1), time(0))


def notice_known(year: int, cutoff: datetime) -> HolidayNotice | None:
    """The notice of `year`'s holidays if it was public at `cutoff`."""
    notice = NOTICES.get(year)
    if notice is None or known_at(notice.published) > beijing(cutoff):
        return None
    return notice


_CHANGES_BY_DAY: Mapping[date, tuple[CalendarChange, ...]] = {
    d: tuple(c for c in CHANGES if c.day == d) for d in {c.day for c in CHANGES}
}


def as_known(day: date, turned_out_open: bool, cutoff: datetime) -> bool | None:
    """`day`'s status as known at `cutoff`, given how it turned out; None when not yet known."""
    cutoff = beijing(cutoff)
    if day <= cutoff.date():
        return turned_out_open
    if notice_known(day.year, cutoff) is not None:
        status = turned_out_open
        for change in reversed(_CHANGES_BY_DAY.get(day, ())):
            if known_at(change.published) > cutoff:
                status = not change.is_open  # undo a change announced after the cutoff
        return status
    if day.weekday() >= 5:
        return False
    return None
