"""index_members, the list in force on a day (Kind.SNAPSHOT_LIST), over the bundled sample and
over planted and random snapshots:
- the sample's rebalance at the 2025-06-03 snapshot: CSI 300 before and after, and not seen by
  a cutoff before that snapshot was known (the end of its Beijing day);
- a snapshot known after the cutoff (a planted future one, a late-published one) stays out;
- hypothesis: nothing known after the cutoff, and the members at D are exactly those of the
  newest snapshot dated <= D among the rows known at the cutoff;
- statuses from the ledger: a lake that never fetched it is UNKNOWN, an index with no members
  fetched is NO_DATA, a failure after the snapshot is that failure (STALE); bad input is
  INVALID_ARGUMENTS; a nightly on a day without a snapshot is a clean NO_DATA."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitlake.calendar import BEIJING
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.pipeline.backfill import backfill_chunk
from pitlake.pipeline.nightly import run_session
from pitlake.pipeline.resources import RunEnv
from pitlake.read.lake import Lake
from tests.lake.conftest import canonical

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
CSI300, CSI500, CSI1000 = "000300.SH", "000905.SH", "000852.SH"
NOW = datetime(2026, 12, 1, tzinfo=BEIJING)
BEFORE = {"600519.SH", "601318.SH", "000001.SZ", "000002.SZ", "300750.SZ", "002594.SZ"}
AFTER = BEFORE - {"000002.SZ"} | {"688981.SH"}
SETTINGS = settings(
    max_examples=int(os.environ.get("PITLAKE_HYPOTHESIS_EXAMPLES", "20")), deadline=None
)


@pytest.fixture(scope="module")
def sample_lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The sample's index_members, backfilled over the window, then one nightly session."""
    root = tmp_path_factory.mktemp("index_members") / "lake"
    env = RunEnv(root, source=f"replay:{SAMPLE}", run_id="run-im")
    try:
        outcomes = backfill_chunk(env, "index_members", date(2025, 4, 1), date(2025, 6, 30), None)
        assert [o.status for o in outcomes] == ["OK"], [o.message for o in outcomes]
        nightly = run_session(env, date(2025, 6, 4), ["index_members"])
        assert [o.status for o in nightly] == ["NO_DATA"], [o.message for o in nightly]
    finally:
        env.close()
    yield root


def members(lake: Lake, index: str, **kw: object) -> tuple[str, str | None, set[str]]:
    r = lake.index_members(index, **kw)  # type: ignore[arg-type]
    return r.status, r.effective_trade_date, {d["symbol"] for d in r.data}


def test_the_rebalance_changes_csi300_at_its_snapshot(sample_lake: Path) -> None:
    with Lake(sample_lake, clock=lambda: NOW) as lake:
        assert members(lake, CSI300, date="2025-06-02", as_of="2025-06-30") == (
            "OK",
            "2025-05-06",
            BEFORE,
        )
        assert members(lake, CSI300, date="2025-06-03", as_of="2025-06-30") == (
            "OK",
            "2025-06-03",
            AFTER,
        )
        assert members(lake, CSI500, date="2025-06-03", as_of="2025-06-30")[2] == {"000002.SZ"}
        r = lake.index_members(CSI300, date="2025-06-03", as_of="2025-06-30")
    assert r.meta["snapshot_date"] == "2025-06-03" and "snapshot of 2025-06-03" in r.message
    assert all(d["weight"] > 0 and d["known_at_basis"] == "day_end" for d in r.data)
    assert {d["source"] for d in r.data} == {"tushare"}


def test_a_cutoff_before_the_snapshot_was_known_sees_the_old_list(sample_lake: Path) -> None:
    """The 2025-06-03 snapshot is known at the end of that Beijing day: not at 15:00."""
    with Lake(sample_lake, clock=lambda: NOW) as lake:
        day = "2025-06-03"
        assert members(lake, CSI300, date=day, as_of="2025-06-03T15:00:00+08:00") == (
            "OK",
            "2025-05-06",
            BEFORE,
        )
        assert members(lake, CSI300, date=day, as_of="2025-06-03T23:59:59.999999+08:00")[2] == (
            AFTER
        )
        # the default date is the cutoff's day
        assert members(lake, CSI300, as_of="2025-05-20")[:2] == ("OK", "2025-05-06")


def test_statuses_come_from_the_ledger(sample_lake: Path, tmp_path: Path) -> None:
    with Lake(sample_lake, clock=lambda: NOW) as lake:
        empty = lake.index_members(CSI1000, date="2025-06-30", as_of="2025-06-30")
        assert (empty.status, empty.data) == ("NO_DATA", [])
        before = lake.index_members(CSI300, date="2025-03-01", as_of="2025-06-30")
        assert before.status == "UNKNOWN" and "never fetched" in before.message
        future = lake.index_members(CSI300, date="2025-07-01", as_of="2025-06-30")
        assert (future.status, future.data) == ("NOT_READY", [])
    Catalog(f"sqlite:///{tmp_path / 'catalog.db'}").close()  # a lake with nothing ingested
    with Lake(tmp_path, clock=lambda: NOW) as lake:
        never = lake.index_members(CSI300, as_of="2025-06-30")
    assert (never.status, never.data) == ("UNKNOWN", [])


@pytest.mark.parametrize("bad", ["000001.SZ", "600519.SH", "000300", "sh000300", "", None, 300])
def test_a_bad_index_is_invalid_arguments(sample_lake: Path, bad: object) -> None:
    with Lake(sample_lake, clock=lambda: NOW) as lake:
        r = lake.index_members(bad)  # type: ignore[arg-type]
        assert r.status == "INVALID_ARGUMENTS", r.message
        assert lake.index_members(CSI300, date="2025-13-01").status == "INVALID_ARGUMENTS"
        assert lake.index_members(CSI300.lower(), as_of="2025-06-30").status == "OK"


def _snapshot(index: str, day: str, symbols: list[str], *, known: datetime | None = None):
    rows = [{"index_code": index, "trade_date": day, "symbol": s, "weight": 1.0} for s in symbols]
    frame = canonical("index_members", rows)
    if known is not None:
        frame["known_at"] = pd.Timestamp(known).tz_convert("UTC")
        frame["known_at"] = frame["known_at"].astype("datetime64[us, UTC]")
    return frame


def _lake_with(root: Path, frames: list[pd.DataFrame], ledger: list[tuple[str, str]]) -> Lake:
    store = LakeStore(root)
    for i, frame in enumerate(frames):
        store.write("index_members", frame, run_id=f"r{i}", ingested_at=NOW - timedelta(days=1))
    catalog = Catalog(f"sqlite:///{root / 'catalog.db'}")
    for day, status in ledger:
        catalog.record_ledger("index_members", date.fromisoformat(day), status, rows=1)
    return Lake(root, catalog=catalog, clock=lambda: NOW)


def test_a_planted_future_snapshot_stays_out(tmp_path: Path) -> None:
    late = datetime(2025, 6, 25, 9, 0, tzinfo=BEIJING)  # 06-10's list, published on 06-25
    frames = [
        _snapshot(CSI300, "2025-06-03", ["600519.SH", "000001.SZ"]),
        _snapshot(CSI300, "2025-06-10", ["600519.SH", "300750.SZ"], known=late),
        _snapshot(CSI300, "2025-06-20", ["601318.SH"]),
    ]
    with _lake_with(tmp_path, frames, [("2025-06-30", "OK")]) as lake:
        r = lake.index_members(CSI300, as_of="2025-06-19")  # the date: the cutoff's day
        assert (r.status, r.effective_trade_date) == ("OK", "2025-06-03")
        assert {d["symbol"] for d in r.data} == {"600519.SH", "000001.SZ"}
        cutoff = pd.Timestamp("2025-06-19T23:59:59.999999+08:00")
        assert all(pd.Timestamp(d["known_at"]) <= cutoff for d in r.data)
        assert members(lake, CSI300, as_of="2025-06-20")[1] == "2025-06-20"
        # 06-10's list exists, but before 06-25 09:00 nobody could have seen it
        early = members(lake, CSI300, date="2025-06-15", as_of="2025-06-25T08:59:00+08:00")
        assert early[1] == "2025-06-03"
        seen = members(lake, CSI300, date="2025-06-15", as_of="2025-06-25T09:00:00+08:00")
        assert seen[1:] == ("2025-06-10", {"600519.SH", "300750.SZ"})


def test_a_failed_fetch_after_the_snapshot_is_its_status(tmp_path: Path) -> None:
    frames = [_snapshot(CSI300, "2025-06-03", ["600519.SH"])]
    ledger = [("2025-06-03", "OK"), ("2025-06-05", "UPSTREAM_ERROR")]
    with _lake_with(tmp_path, frames, ledger) as lake:
        r = lake.index_members(CSI300, date="2025-06-06", as_of="2025-06-06")
        assert (r.status, r.date_status, r.effective_trade_date) == (
            "UPSTREAM_ERROR",
            "STALE",
            "2025-06-03",
        )
        assert [d["symbol"] for d in r.data] == ["600519.SH"]
        ok = lake.index_members(CSI300, date="2025-06-04", as_of="2025-06-06")
        assert (ok.status, ok.date_status) == ("OK", "CURRENT")


# ---------------------------------------------------------------- hypothesis

DAYS = [date(2025, 6, 2) + timedelta(days=i) for i in range(20)]
POOL = ["600519.SH", "601318.SH", "000001.SZ", "300750.SZ", "688981.SH"]
snapshots = st.lists(
    st.tuples(
        st.sampled_from(DAYS),  # the snapshot's date
        st.sets(st.sampled_from(POOL), min_size=1, max_size=4),  # its members
        st.integers(0, 400),  # hours after the start of its day it was published
    ),
    min_size=1,
    max_size=5,
    unique_by=lambda s: s[0],
)


@SETTINGS
@given(
    planted=snapshots,
    day=st.sampled_from(DAYS),
    cutoff_hours=st.integers(0, 24 * 30),
)
def test_members_at_d_are_the_newest_snapshot_known_at_the_cutoff(
    planted: list[tuple[date, set[str], int]], day: date, cutoff_hours: int
) -> None:
    start = datetime.combine(DAYS[0], datetime.min.time(), tzinfo=BEIJING)
    cutoff = start + timedelta(hours=cutoff_hours)
    frames = [
        _snapshot(
            CSI300,
            d.isoformat(),
            sorted(syms),
            known=datetime.combine(d, datetime.min.time(), tzinfo=BEIJING) + timedelta(hours=h),
        )
        for d, syms, h in planted
    ]
    known = {
        d: syms
        for d, syms, h in planted
        if datetime.combine(d, datetime.min.time(), tzinfo=BEIJING) + timedelta(hours=h) <= cutoff
        and d <= day
    }
    with tempfile.TemporaryDirectory() as tmp:
        lake = _lake_with(Path(tmp), frames, [(DAYS[-1].isoformat(), "OK")])
        with lake:
            r = lake.index_members(CSI300, date=day, as_of=cutoff)
    if day > cutoff.date():
        assert (r.status, r.data) == ("NOT_READY", [])
        return
    assert all(pd.Timestamp(d["known_at"]) <= pd.Timestamp(cutoff) for d in r.data)
    if not known:
        assert r.data == [] and r.status in ("NO_DATA", "UNKNOWN")
        return
    newest = max(known)
    assert r.status == "OK" and r.effective_trade_date == newest.isoformat()
    assert {d["symbol"] for d in r.data} == known[newest]
    assert {d["trade_date"] for d in r.data} == {newest.isoformat()}
