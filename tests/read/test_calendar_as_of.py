"""The calendar as of a cutoff (issue 27 item 6): past days as they happened, later days only as
announced by then, the rest unknown — on `Lake.calendar`, the SQL `calendar` view and
/v1/calendar alike."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pitlake.calendar import BEIJING, XSHG
from pitlake.calendar_notices import CHANGES, NOTICES, as_known, known_at
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.serve.api.app import create_app
from pitlake.statuses import ResultStatus
from tests.lake.conftest import canonical

BEFORE_EXTENSION = "2020-01-20"  # the Spring Festival extension was announced 2020-01-27
AFTER_EXTENSION = "2020-01-28"


def _open(result) -> dict[str, bool]:
    return {str(r["date"]): r["is_open"] for r in result.rows}


def test_a_holiday_announced_later_is_not_seen_before_its_announcement(lake: Lake) -> None:
    before = lake.calendar(start="2020-01-29", end="2020-02-04", as_of=BEFORE_EXTENSION)
    after = lake.calendar(start="2020-01-29", end="2020-02-04", as_of=AFTER_EXTENSION)
    assert before.status is ResultStatus.OK
    # as planned on 2020-01-20 (2020's notice of 2019-11-21): trading resumes on the 31st
    assert _open(before)["2020-01-31"] is True
    assert _open(after)["2020-01-31"] is False
    assert _open(before)["2020-02-03"] is _open(after)["2020-02-03"] is True
    # as of now the day is what happened
    assert _open(lake.calendar(date="2020-01-31"))["2020-01-31"] is False


def test_days_of_a_year_not_yet_announced_are_unknown_not_guessed(lake: Lake) -> None:
    # 2021's holidays were announced in late 2020: as of 2020-06-01 a weekday of 2021 is unknown
    ans = lake.calendar(start="2020-12-28", end="2021-01-08", as_of="2020-06-01")
    assert ans.status is ResultStatus.UNKNOWN
    shown = _open(ans)
    assert shown["2020-12-31"] is True  # 2020 was announced: known
    assert "2021-01-04" not in shown and "2021-01-01" not in shown  # weekdays: unknown
    assert shown["2021-01-02"] is False  # a Saturday is closed by rule
    assert "not been announced" in ans.message
    assert lake.calendar(start="2020-12-28", end="2021-01-08").status is ResultStatus.OK


def test_the_sql_calendar_view_holds_only_what_was_known(lake: Lake) -> None:
    q = "SELECT date, is_open FROM calendar WHERE date BETWEEN '2020-01-30' AND '2021-01-05'"
    before = {str(r["date"]): r["is_open"] for r in lake.sql(q, as_of=BEFORE_EXTENSION).rows}
    now = {str(r["date"]): r["is_open"] for r in lake.sql(q).rows}
    assert before["2020-01-31"] is True and now["2020-01-31"] is False
    assert "2021-01-04" not in before and now["2021-01-04"] is True
    assert before["2021-01-02"] is False


def test_a_stored_vendor_row_known_at_the_cutoff_fills_an_unannounced_day(
    store: LakeStore, lake: Lake
) -> None:
    seen = datetime(2020, 5, 1, 20, 0, tzinfo=BEIJING)
    rows = [{"exchange": "XSHG", "date": "2021-01-04", "is_open": True}]
    store.write(
        "calendar", canonical("calendar", rows, fetched_at=seen), run_id="r1", ingested_at=seen
    )
    shown = _open(lake.calendar(start="2021-01-04", end="2021-01-04", as_of="2020-06-01"))
    assert shown == {"2021-01-04": True}
    # known after the cutoff: still unknown
    early = lake.calendar(start="2021-01-04", end="2021-01-04", as_of="2020-04-01")
    assert early.status is ResultStatus.UNKNOWN and early.rows == []


def test_http_calendar_as_of_hides_the_later_holiday(lake: Lake, lake_root: Path) -> None:
    client = TestClient(create_app(lake_root, token=""))
    params = {"start": "2020-01-31", "end": "2020-01-31"}
    early = client.get("/v1/calendar", params={**params, "as_of": BEFORE_EXTENSION}).json()
    late = client.get("/v1/calendar", params={**params, "as_of": AFTER_EXTENSION}).json()
    assert [r["is_open"] for r in early["data"]] == [True]
    assert [r["is_open"] for r in late["data"]] == [False]


@pytest.mark.parametrize("year", sorted(NOTICES))
def test_every_notice_precedes_its_year_and_the_day_after_it_counts(year: int) -> None:
    notice = NOTICES[year]
    assert notice.published < date(year, 1, 1) and notice.source
    mid_year_weekday = next(d for d in (date(year, 6, n) for n in range(1, 8)) if d.weekday() < 5)
    on_the_day = datetime.combine(notice.published, datetime.min.time(), BEIJING)
    assert as_known(mid_year_weekday, True, on_the_day.replace(hour=23)) is None
    assert as_known(mid_year_weekday, True, known_at(notice.published)) is True


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: str(c.day))
def test_every_change_is_how_the_day_turned_out(change) -> None:
    assert XSHG.is_session(change.day) is change.is_open
    assert change.published < change.day and change.source
    day_before = known_at(change.published) - timedelta(seconds=1)
    if NOTICES.get(change.day.year) is not None:
        assert as_known(change.day, change.is_open, day_before) is (not change.is_open)
        assert as_known(change.day, change.is_open, known_at(change.published)) is change.is_open
