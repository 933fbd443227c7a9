"""The disclosure schedule as known at a cutoff: the sample's reschedule (Tushare dates it by
its announcement, East Money's copy is never back-dated), a plan moved out of a window by a
later version, planted future versions, and the point-in-time property."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitlake.calendar import BEIJING
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.pipeline.backfill import backfill_chunk
from pitlake.pipeline.resources import RunEnv
from pitlake.pit import parse_cutoff
from pitlake.read.lake import Lake
from pitlake.statuses import LedgerStatus
from tests.lake.conftest import INGEST, write

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
sys.path.insert(0, str(SAMPLE))
from disclosure_schedule_tables import RESCHEDULE  # noqa: E402

BYD = RESCHEDULE[0]
START, END = date(2025, 4, 1), date(2025, 6, 30)


def _backfill(root: Path, run_id: str, chain: list[str]) -> None:
    env = RunEnv(
        root, source=f"replay:{SAMPLE}", run_id=run_id, chains={"disclosure_schedule": chain}
    )
    try:
        outcomes = backfill_chunk(env, "disclosure_schedule", START, START, None)
    finally:
        env.close()
    assert [o.status for o in outcomes] == [LedgerStatus.OK], outcomes


@pytest.fixture(scope="module")
def tushare_lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lake]:
    root = tmp_path_factory.mktemp("schedule-ts") / "lake"
    _backfill(root, "sched-tushare", ["tushare"])
    yield Lake(root)


@pytest.fixture(scope="module")
def akshare_lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lake]:
    root = tmp_path_factory.mktemp("schedule-ak") / "lake"
    _backfill(root, "sched-akshare", ["akshare"])
    yield Lake(root)


def byd(result) -> list[dict]:
    return [r for r in result.data if r["symbol"] == BYD and r["report_period"] == "2024-12-31"]


def test_the_reschedule_shows_from_its_announcement_and_not_before(tushare_lake: Lake) -> None:
    before = tushare_lake.disclosure_schedule(
        start="2025-03-20", end="2025-03-31", as_of="2025-03-14"
    )
    assert byd(before) == []
    after = tushare_lake.disclosure_schedule(
        start="2025-03-20", end="2025-03-31", as_of="2025-03-15"
    )
    (row,) = byd(after)
    assert row["planned_date"] == "2025-03-24" and row["ann_date"] == "2025-03-15"
    assert row["known_at"] == "2025-03-15T23:59:59.999999+08:00"
    assert row["known_at_basis"] == "announcement"
    assert row["actual_date"] is None  # the plan as announced: not published yet
    (out,) = byd(
        tushare_lake.disclosure_schedule(start="2025-03-20", end="2025-03-31", as_of="2025-03-24")
    )
    assert out["actual_date"] == "2025-03-24"
    assert out["known_at"] == "2025-03-24T23:59:59.999999+08:00"


def test_east_moneys_plans_are_known_when_first_seen_never_back_dated(akshare_lake: Lake) -> None:
    then = akshare_lake.disclosure_schedule(
        start="2025-03-20", end="2025-03-31", as_of="2025-03-15"
    )
    assert then.data == []
    now = akshare_lake.disclosure_schedule(start="2025-03-20", end="2025-03-31")
    (row,) = byd(now)
    assert row["first_planned_date"] == "2025-03-28" and row["planned_date"] == "2025-03-24"
    assert row["known_at_basis"] == "first_seen" and row["ann_date"] is None
    assert "一次变更日期" in row["extra"]


def test_a_window_lists_the_companies_planned_in_it(tushare_lake: Lake) -> None:
    got = tushare_lake.disclosure_schedule(
        start="2025-04-28", end="2025-04-30", as_of="2025-04-27", report_period="2025-03-31"
    )
    assert got.status == "OK"
    assert {r["symbol"] for r in got.data} >= {"600519.SH", "000002.SZ", "600234.SH"}
    assert all("2025-04-28" <= r["planned_date"] <= "2025-04-30" for r in got.data)
    assert all(r["report_period"] == "2025-03-31" for r in got.data)
    one = tushare_lake.disclosure_schedule("600519", start="2025-04-01", end="2025-04-30")
    assert {r["symbol"] for r in one.data} == {"600519.SH"}


def test_bad_arguments_are_invalid_arguments(tushare_lake: Lake) -> None:
    assert tushare_lake.disclosure_schedule(start="2025-05-01", end="2025-04-01").status == (
        "INVALID_ARGUMENTS"
    )
    assert tushare_lake.disclosure_schedule(report_period="someday").status == "INVALID_ARGUMENTS"
    assert tushare_lake.disclosure_schedule("nope").status == "INVALID_ARGUMENTS"


def test_the_sql_view_holds_the_latest_plan_known_at_the_cutoff(tushare_lake: Lake) -> None:
    q = "SELECT symbol, planned_date FROM disclosure_schedule WHERE report_period = DATE '2024-12-31'"
    then = {r["symbol"] for r in tushare_lake.sql(q, as_of="2025-03-14").rows}
    later = {r["symbol"] for r in tushare_lake.sql(q, as_of="2025-03-15").rows}
    assert BYD not in then and BYD in later


# ---------------------------------------------------------------- versions (planted)

A = "600519.SH"


def plan(planned: str, ann: str, actual: str | None = None) -> dict:
    return {
        "symbol": A,
        "report_period": "2025-06-30",
        "planned_date": planned,
        "actual_date": actual,
        "ann_date": ann,
    }


@pytest.fixture(scope="module")
def moved(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lake]:
    """A's H1 plan: 08-20 (announced 07-01), moved to 08-28 (announced 08-10), published 08-28."""
    root = tmp_path_factory.mktemp("moved")
    store = LakeStore(root)
    write(
        store,
        "disclosure_schedule",
        [plan("2025-08-20", "2025-07-01")],
        ingested_at=INGEST.replace(month=7, day=2),
    )
    write(
        store,
        "disclosure_schedule",
        [plan("2025-08-28", "2025-08-10")],
        ingested_at=INGEST.replace(month=8, day=11),
    )
    write(
        store,
        "disclosure_schedule",
        [plan("2025-08-28", "2025-08-10", "2025-08-28")],
        ingested_at=INGEST.replace(month=8, day=29),
    )
    catalog = Catalog(f"sqlite:///{root / 'catalog.db'}")
    with Lake(root, catalog=catalog) as lake:
        yield lake
    catalog.close()


def test_a_plan_moved_out_of_the_window_is_not_answered_with_its_old_date(moved: Lake) -> None:
    window = {"start": "2025-08-18", "end": "2025-08-22"}
    assert [
        r["planned_date"] for r in moved.disclosure_schedule(**window, as_of="2025-08-09").data
    ] == ["2025-08-20"]
    assert moved.disclosure_schedule(**window, as_of="2025-08-10").data == []
    late = moved.disclosure_schedule(start="2025-08-25", end="2025-08-31", as_of="2025-08-10")
    assert [r["planned_date"] for r in late.data] == ["2025-08-28"]
    assert late.data[0]["actual_date"] is None  # not published yet at that cutoff
    out = moved.disclosure_schedule(start="2025-08-25", end="2025-08-31", as_of="2025-08-28")
    assert out.data[0]["actual_date"] == "2025-08-28"


LO = datetime(2025, 6, 25, tzinfo=BEIJING)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(minutes=st.integers(min_value=0, max_value=80 * 24 * 60))
def test_nothing_known_after_the_cutoff_is_answered(moved: Lake, minutes: int) -> None:
    cutoff = LO + timedelta(minutes=minutes)
    got = moved.disclosure_schedule(start="2025-08-01", end="2025-08-31", as_of=cutoff)
    for row in got.data:
        assert parse_cutoff(row["known_at"]) <= cutoff
    # the plan answered is the newest one public by the cutoff
    expected = "2025-08-20" if cutoff < parse_cutoff("2025-08-10") else "2025-08-28"
    if cutoff >= parse_cutoff("2025-07-01"):
        assert [r["planned_date"] for r in got.data] == [expected]
    else:
        assert got.data == []
