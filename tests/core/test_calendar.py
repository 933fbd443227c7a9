"""XSHG sessions: holidays, make-up workdays, the close cut-over, Beijing vs UTC midnight."""

from datetime import date, datetime, timedelta, timezone

import pytest

from pitlake import calendar as cal
from pitlake.errors import CalendarRangeError, InvalidArgumentsError

BJ = cal.BEIJING


@pytest.mark.parametrize(
    "day",
    # Spring Festival 2025 (01-28…02-04), Labour Day (05-01…05-05), Dragon Boat (05-31…06-02),
    # National Day + Mid-Autumn 2025 (10-01…10-08).
    [
        "2025-01-28",
        "2025-01-31",
        "2025-02-04",
        "2025-05-01",
        "2025-05-05",
        "2025-05-31",
        "2025-06-02",
        "2025-10-01",
        "2025-10-08",
    ],
)
def test_holidays_are_not_sessions(day: str) -> None:
    assert not cal.is_session(day)


@pytest.mark.parametrize(
    "day",
    # Make-up weekend workdays: offices open, exchanges closed.
    ["2025-01-26", "2025-02-08", "2025-04-27", "2025-09-28", "2025-10-11"],
)
def test_makeup_workdays_are_not_sessions(day: str) -> None:
    assert date.fromisoformat(day).weekday() >= 5
    assert not cal.is_session(day)


def test_ordinary_sessions() -> None:
    assert cal.is_session("2025-01-27")
    assert cal.is_session("2025-02-05")
    assert cal.is_session("20250603")
    assert cal.is_session(date(2025, 10, 9))


def test_previous_and_next_across_holidays() -> None:
    assert cal.previous_session("2025-06-03") == date(2025, 5, 30)
    assert cal.next_session("2025-05-30") == date(2025, 6, 3)
    assert cal.next_session("2025-09-30") == date(2025, 10, 9)
    assert cal.previous_session("2025-02-05") == date(2025, 1, 27)
    # strictly before / after, even when given a session
    assert cal.previous_session("2025-06-04") == date(2025, 6, 3)


def test_sessions_between_inclusive() -> None:
    s = cal.sessions_between("2025-05-29", "2025-06-04")
    assert s == [date(2025, 5, 29), date(2025, 5, 30), date(2025, 6, 3), date(2025, 6, 4)]
    assert cal.sessions_between("2025-10-01", "2025-10-08") == []
    with pytest.raises(InvalidArgumentsError):
        cal.sessions_between("2025-06-04", "2025-06-03")


def test_count_2025_sessions() -> None:
    assert len(cal.sessions_between("2025-01-01", "2025-12-31")) == 243


def test_whole_history_from_first_session() -> None:
    assert cal.is_session("1990-12-19")
    assert cal.XSHG.first == date(1990, 12, 19)
    with pytest.raises(CalendarRangeError, match="before the first"):
        cal.is_session("1990-12-18")


def test_latest_closed_session_cutover_at_close() -> None:
    before = datetime(2025, 6, 3, 14, 59, 59, tzinfo=BJ)
    at_close = datetime(2025, 6, 3, 15, 0, tzinfo=BJ)
    assert cal.latest_closed_session(before) == date(2025, 5, 30)
    assert cal.latest_closed_session(at_close) == date(2025, 6, 3)


def test_latest_closed_session_on_weekend_and_holiday() -> None:
    assert cal.latest_closed_session(datetime(2025, 6, 1, 20, 0, tzinfo=BJ)) == date(2025, 5, 30)
    assert cal.latest_closed_session(datetime(2025, 9, 28, 18, 0, tzinfo=BJ)) == date(2025, 9, 26)


def test_midnight_beijing_is_not_utc_midnight() -> None:
    # 2025-06-03 16:30 UTC is 2025-06-04 00:30 in Beijing: the 06-03 close has passed.
    utc = datetime(2025, 6, 3, 16, 30, tzinfo=timezone.utc)
    assert cal.latest_closed_session(utc) == date(2025, 6, 3)
    # 2025-06-04 06:59 UTC is 14:59 Beijing on 06-04: 06-04 has not closed yet.
    assert cal.latest_closed_session(datetime(2025, 6, 4, 6, 59, tzinfo=timezone.utc)) == date(
        2025, 6, 3
    )
    assert cal.latest_closed_session(datetime(2025, 6, 4, 7, 0, tzinfo=timezone.utc)) == date(
        2025, 6, 4
    )


def test_naive_datetime_is_beijing_wall_time() -> None:
    assert cal.latest_closed_session(datetime(2025, 6, 4, 15, 0)) == date(2025, 6, 4)
    assert cal.to_date(datetime(2025, 6, 3, 16, 30, tzinfo=timezone.utc)) == date(2025, 6, 4)


def test_past_offline_end_raises_clearly() -> None:
    last = cal.XSHG.offline_last
    assert last == date(2026, 12, 31)
    with pytest.raises(CalendarRangeError, match="known range"):
        cal.is_session(last + timedelta(days=1))
    with pytest.raises(CalendarRangeError):
        cal.next_session(last)


def test_extension_from_stored_vendor_calendar() -> None:
    try:
        extra = [date(2027, 1, 4), date(2027, 1, 5)]
        cal.register_extension(extra, through=date(2027, 1, 8))
        assert cal.is_session("2027-01-04")
        assert not cal.is_session("2027-01-06")  # inside the range, not listed: closed
        assert cal.next_session("2026-12-31") == date(2027, 1, 4)
        with pytest.raises(CalendarRangeError):
            cal.is_session("2027-01-09")
    finally:
        cal.XSHG.reset_extension()
    with pytest.raises(CalendarRangeError):
        cal.is_session("2027-01-04")


@pytest.mark.parametrize("bad", ["2025-13-01", "yesterday", "2025/06/03", "", "20250632", None, 5])
def test_bad_dates_raise_invalid_arguments(bad: object) -> None:
    with pytest.raises(InvalidArgumentsError, match="invalid date"):
        cal.to_date(bad)  # type: ignore[arg-type]


def test_the_calendar_pickles_for_a_dask_worker() -> None:
    """A Prefect flow's function travels to a Dask worker by value, with the calendar methods
    it names (`is_session`): they pickle, the process's calendar by name, another by value."""
    import pickle

    import cloudpickle

    assert pickle.loads(pickle.dumps(cal.XSHG)) is cal.XSHG
    assert cloudpickle.loads(cloudpickle.dumps(cal.is_session))(date(2025, 6, 3))
    other = cal.XSHG.extended([date(2027, 1, 4)], date(2027, 1, 8))
    copy = pickle.loads(pickle.dumps(other))
    assert copy is not other and copy.last == date(2027, 1, 8) and copy.is_session("2027-01-04")
