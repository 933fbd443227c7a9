"""Announcements from the bundled sample (sample/announcements_tables.py), ingested through the
pipeline as a backfill would: the midnight traps, the same announcement in both feeds, a day
with no notices, and the point-in-time property over arbitrary cutoffs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitlake.calendar import BEIJING
from pitlake.pipeline.backfill import backfill_chunk
from pitlake.pipeline.resources import RunEnv
from pitlake.pit import parse_cutoff
from pitlake.read.lake import Lake
from pitlake.statuses import LedgerStatus
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.registry import build_router

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
sys.path.insert(0, str(SAMPLE))
from announcements_tables import EARLY_NOTICE, LATE_NOTICE, NO_NOTICE_DAY  # noqa: E402

START, END = date(2025, 6, 1), date(2025, 6, 15)
LATE_TITLE, EARLY_TITLE = LATE_NOTICE[3], EARLY_NOTICE[3]
FETCHED = datetime(2025, 7, 1, 20, 0, tzinfo=BEIJING)


def _backfill(root: Path, run_id: str, chain: list[str] | None, *, force: bool = False) -> None:
    env = RunEnv(
        root,
        source=f"replay:{SAMPLE}",
        run_id=run_id,
        chains={"announcements": chain} if chain else None,
    )
    try:
        outcomes = backfill_chunk(env, "announcements", START, END, None, force=force)
    finally:
        env.close()
    assert [o.status for o in outcomes] == [LedgerStatus.OK], outcomes


@pytest.fixture(scope="module")
def sample_lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lake]:
    """The window ingested from Tushare (the default chain), then again from AkShare."""
    root = tmp_path_factory.mktemp("announcements") / "lake"
    _backfill(root, "ann-tushare", None)
    lake = Lake(root)
    first = lake.announcements(start=START, end=END, as_of="2025-12-31")
    _backfill(root, "ann-akshare", ["akshare"], force=True)
    lake.first_ids = sorted(r["ann_id"] for r in first.data)  # type: ignore[attr-defined]
    yield lake


def titles(result) -> list[str]:
    return [r["title"] for r in result.data]


def test_a_cutoff_at_23_59_30_sees_the_23_59_notice_and_not_the_00_01_one(
    sample_lake: Lake,
) -> None:
    got = sample_lake.announcements(
        start="2025-06-12", end="2025-06-13", as_of="2025-06-12T23:59:30+08:00"
    )
    assert got.status == "OK"
    assert LATE_TITLE in titles(got)
    assert EARLY_TITLE not in titles(got)
    late = next(r for r in got.data if r["title"] == LATE_TITLE)
    assert late["known_at"] == "2025-06-12T23:59:00+08:00"
    assert late["known_at_basis"] == "published"
    later = sample_lake.announcements(
        start="2025-06-12", end="2025-06-13", as_of="2025-06-13T00:01:00+08:00"
    )
    assert EARLY_TITLE in titles(later)


def test_00_01_beijing_is_the_next_days_notice_though_utc_still_says_the_day_before(
    sample_lake: Lake,
) -> None:
    """00:01 Beijing on 06-13 is 16:01 UTC on 06-12: the row belongs to 06-13 all the same."""
    on_13th = sample_lake.announcements(date="2025-06-13", as_of="2025-06-13")
    assert titles(on_13th) == [EARLY_TITLE]
    (row,) = on_13th.data
    assert row["ann_date"] == "2025-06-13" and row["known_at"] == "2025-06-13T00:01:00+08:00"
    assert parse_cutoff(row["known_at"]).astimezone(UTC) == datetime(2025, 6, 12, 16, 1, tzinfo=UTC)
    on_12th = sample_lake.announcements(date="2025-06-12", as_of="2025-06-13")
    assert EARLY_TITLE not in titles(on_12th) and LATE_TITLE in titles(on_12th)


def test_the_same_announcement_from_the_other_feed_is_the_same_row(sample_lake: Lake) -> None:
    """AkShare's date-only copies (titles with East Money's '名称:' prefix) have the ids of
    Tushare's rows: ingesting them added nothing, and the rows keep Tushare's instants."""
    router = build_router(f"replay:{SAMPLE}")
    req = FetchRequest("announcements", start=START, end=END)
    ts = router.route(req, FETCHED, chain=["tushare"])
    ak = router.route(req, FETCHED, chain=["akshare"])
    assert ts.ok and ak.ok
    assert set(ts.frame["ann_id"]) == set(ak.frame["ann_id"])
    assert set(ak.frame["known_at_basis"]) == {"announcement"}
    assert any(t.startswith(f"{LATE_NOTICE[1]}:") for t in ak.frame["title"])
    now = sample_lake.announcements(start=START, end=END, as_of="2025-12-31")
    assert sorted(r["ann_id"] for r in now.data) == sample_lake.first_ids  # type: ignore[attr-defined]
    assert {r["source"] for r in now.data} == {"tushare"}
    versions = sample_lake.sql(
        "SELECT ann_id, count(*) AS n FROM announcements_versions GROUP BY ann_id HAVING n > 1",
        as_of="2025-12-31",
    )
    assert versions.rows == []


def test_a_day_without_notices_is_no_data(sample_lake: Lake) -> None:
    got = sample_lake.announcements(date=NO_NOTICE_DAY, as_of="2025-06-30")
    assert got.status == "NO_DATA" and got.data == []


def test_the_sql_view_holds_what_the_read_answers(sample_lake: Lake) -> None:
    cutoff = "2025-06-12T23:59:30+08:00"
    read = sample_lake.announcements(start=START, end=END, as_of=cutoff)
    sql = sample_lake.sql("SELECT ann_id, title FROM announcements ORDER BY ann_id", as_of=cutoff)
    assert sorted(r["ann_id"] for r in read.data) == [r["ann_id"] for r in sql.rows]
    assert LATE_TITLE in [r["title"] for r in sql.rows]
    assert EARLY_TITLE not in [r["title"] for r in sql.rows]


def test_symbols_filter_keeps_that_companys_notices(sample_lake: Lake) -> None:
    got = sample_lake.announcements("000001", start=START, end=END, as_of="2025-06-30")
    assert got.data and all(r["symbols"] == ["000001.SZ"] for r in got.data)
    bad = sample_lake.announcements("not-a-code", start=START, end=END)
    assert bad.status == "INVALID_ARGUMENTS"


WINDOW_LO = datetime(2025, 6, 1, tzinfo=BEIJING)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    a=st.integers(min_value=0, max_value=15 * 24 * 60),
    b=st.integers(min_value=0, max_value=15 * 24 * 60),
)
def test_nothing_after_the_cutoff_and_what_was_visible_stays_visible(
    sample_lake: Lake, a: int, b: int
) -> None:
    early, late = sorted((WINDOW_LO + timedelta(minutes=a), WINDOW_LO + timedelta(minutes=b)))
    seen_early = sample_lake.announcements(start=START, end=END, as_of=early)
    seen_late = sample_lake.announcements(start=START, end=END, as_of=late)
    for row in seen_early.data:
        assert parse_cutoff(row["known_at"]) <= early
    assert {r["ann_id"] for r in seen_early.data} <= {r["ann_id"] for r in seen_late.data}
