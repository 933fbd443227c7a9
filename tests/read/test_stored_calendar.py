"""Past the offline calendar's end, sessions come from the stored vendor calendar only."""

from datetime import date, datetime

import pytest

from pitlake import calendar as cal
from pitlake.calendar import BEIJING
from pitlake.errors import CalendarRangeError
from pitlake.lake.store import LakeStore
from pitlake.read.stored_calendar import extend_calendar_from_lake
from tests.lake.conftest import canonical


def _rows(days: dict[str, bool]) -> list[dict]:
    return [{"exchange": "XSHG", "date": d, "is_open": o} for d, o in days.items()]


def test_stored_calendar_extends_past_the_offline_end(store: LakeStore) -> None:
    seen = datetime(2026, 12, 20, 20, 0, tzinfo=BEIJING)
    frame = canonical(
        "calendar",
        _rows({"2026-12-31": True, "2027-01-01": False, "2027-01-04": True, "2027-01-05": True}),
        fetched_at=seen,
    )
    store.write("calendar", frame, run_id="r1", ingested_at=seen)
    try:
        assert extend_calendar_from_lake(store) == date(2027, 1, 5)
        assert cal.is_session("2027-01-04")
        assert not cal.is_session("2027-01-01")
        assert cal.next_session("2026-12-31") == date(2027, 1, 4)
        with pytest.raises(CalendarRangeError):
            cal.is_session("2027-01-06")  # past what the lake knows: never guessed
    finally:
        cal.XSHG.reset_extension()


def test_nothing_past_the_offline_end_changes_nothing(store: LakeStore) -> None:
    seen = datetime(2025, 7, 1, tzinfo=BEIJING)
    store.write(
        "calendar",
        canonical("calendar", _rows({"2025-06-30": True}), fetched_at=seen),
        run_id="r1",
        ingested_at=seen,
    )
    assert extend_calendar_from_lake(store) is None
    assert extend_calendar_from_lake(LakeStore(store.root / "empty")) is None
    with pytest.raises(CalendarRangeError):
        cal.is_session("2027-01-04")


def test_a_lake_opened_for_reading_knows_the_stored_sessions(store: LakeStore) -> None:
    from pitlake.read.lake import Lake

    seen = datetime(2026, 12, 20, 20, 0, tzinfo=BEIJING)
    store.write(
        "calendar",
        canonical("calendar", _rows({"2027-01-04": True, "2027-01-05": False}), fetched_at=seen),
        run_id="r1",
        ingested_at=seen,
    )
    lake = Lake(store.root)
    assert lake.trading_calendar.is_session("2027-01-04")
    assert not lake.trading_calendar.is_session("2027-01-05")
    with pytest.raises(CalendarRangeError):  # the lake's own calendar: the process's is as it was
        cal.is_session("2027-01-04")


def test_a_corrupt_stored_calendar_leaves_the_offline_calendar(store: LakeStore) -> None:
    seen = datetime(2026, 12, 20, 20, 0, tzinfo=BEIJING)
    store.write(
        "calendar",
        canonical("calendar", _rows({"2027-01-04": True}), fetched_at=seen),
        run_id="r1",
        ingested_at=seen,
    )
    for part in (store.root / "curated" / "calendar").rglob("*.parquet"):
        part.write_bytes(b"not parquet")
    assert extend_calendar_from_lake(store) is None
    with pytest.raises(CalendarRangeError):
        cal.is_session("2027-01-04")


def test_a_lake_skips_files_within_the_offline_calendar_and_survives_a_corrupt_one(
    store: LakeStore,
) -> None:
    """A `Lake` asks its DuckDB reader for each calendar file's greatest date (no
    `pyarrow.parquet`, decision 54): a file within the offline calendar is skipped, one past
    it extends the lake's calendar, and an unreadable one leaves the offline calendar."""
    from pitlake.read.lake import Lake

    seen = datetime(2026, 12, 20, 20, 0, tzinfo=BEIJING)
    store.write(
        "calendar",
        canonical("calendar", _rows({"2025-06-30": True, "2026-12-31": True}), fetched_at=seen),
        run_id="r1",
        ingested_at=seen,
    )
    assert Lake(store.root).trading_calendar is cal.XSHG  # nothing past the offline end
    store.write(
        "calendar",
        canonical("calendar", _rows({"2027-01-04": True}), fetched_at=seen),
        run_id="r2",
        ingested_at=seen,
    )
    assert Lake(store.root).trading_calendar.is_session("2027-01-04")
    for part in (store.root / "curated" / "calendar").rglob("*.parquet"):
        part.write_bytes(b"not parquet")
    with pytest.raises(CalendarRangeError):
        Lake(store.root).trading_calendar.is_session("2027-01-04")
