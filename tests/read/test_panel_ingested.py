"""`Lake.panel(as_ingested=)` (issue 29): rows stored after the instant are hidden from every
scan the panel makes, as every single-instant read hides them — a restated statement, a
corrected bar (its close and limit state), a corrected factor (ret_1d) and an ST row, each
public before the rows' cutoffs but stored after the as_ingested instant, stay out with it
and are in without it; every cell equals the single-instant read at its row's cutoff with
the same as_ingested (hypothesis); the status follows the single-instant reads' rule for
such rows ("stored, but public only after the as-of"); a bad instant is INVALID_ARGUMENTS."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pitlake.cli import app
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from tests.lake.conftest import INGEST, bar, bj, canonical, factor, statement_row, write
from tests.read.test_panel import AT, _cell, _plant_limits_and_factors, check_every_cell
from tests.serve.api.lakebuild import CSI300, NOW, SESSIONS, A, B, build_lake

LATE = INGEST + timedelta(days=1)  # the planted rows' ingestion; as_ingested=INGEST hides them
E = "600000.SH"  # _plant_limits_and_factors' limit-up code
K = "600036.SH"  # a code whose only bar is stored late
FIELDS = ["close", "revenue", "ret_1d", "limit_state", "is_st"]


def _at(rows: pd.DataFrame, known_at: datetime) -> pd.DataFrame:
    rows["known_at"] = pd.Series([known_at] * len(rows)).astype(rows["known_at"].dtype)
    return rows


def _plant_late(root: Path) -> None:
    """Rows public before some sessions' cutoffs, stored only at LATE."""
    store = LakeStore(root)
    restated = canonical(
        "financials",
        [statement_row(A, "2025-03-31", "2025-04-25", revision="2025-06-04", revenue=40.0)],
    )
    write(store, "financials", _at(restated, bj(SESSIONS[1], "20:00")), ingested_at=LATE)
    # E's 06-05 bar corrected that evening (a correction dated at or before the stored
    # version would be re-dated to its first sight, versions.py): closed at its limit
    # (13.31 on 12.1), not broken
    corrected = canonical(
        "quotes", [bar(E, SESSIONS[2], 13.31, pre_close=12.1, high=13.31, low=12.1)]
    )
    write(store, "quotes", _at(corrected, bj(SESSIONS[2], "16:00")), ingested_at=LATE)
    write(store, "quotes", [bar(K, SESSIONS[2], 9.0)], ingested_at=LATE)
    # E's 06-03 factor corrected before 06-04's open
    fixed = canonical("adj_factors", [factor(E, SESSIONS[0], 0.9)])
    write(store, "adj_factors", _at(fixed, bj(SESSIONS[1], "09:00")), ingested_at=LATE)
    st_row = canonical(
        "securities", [{"symbol": A, "attribute": "st", "start_date": SESSIONS[1], "reason": "ST"}]
    )
    write(store, "securities", _at(st_row, bj(SESSIONS[0], "20:00")), ingested_at=LATE)


@pytest.fixture(scope="module")
def late_lake(tmp_path_factory: pytest.TempPathFactory) -> Lake:
    root = build_lake(tmp_path_factory.mktemp("ingested"))
    _plant_limits_and_factors(root)
    _plant_late(root)
    lake = Lake(root, clock=lambda: NOW)
    yield lake
    lake.close()


def test_rows_stored_after_as_ingested_stay_out(late_lake: Lake) -> None:
    ask = (FIELDS, "2025-05-30", SESSIONS[-1])
    now = late_lake.panel(*ask, universe=[A, B, E], at="eod").to_pandas()
    then = late_lake.panel(*ask, universe=[A, B, E], at="eod", as_ingested=INGEST)
    assert then.meta["as_ingested"] == "2025-06-20T18:00:00+08:00"
    then = then.to_pandas()
    # the restatement (public 06-04 20:00): in from 06-05 without as_ingested only
    assert _cell(now, SESSIONS[2], A, "revenue") == 40.0
    assert _cell(then, SESSIONS[2], A, "revenue") == 30.0
    # the corrected bar (16:00): its close and its limit state
    assert (_cell(now, SESSIONS[2], E, "close"), _cell(now, SESSIONS[2], E, "limit_state")) == (
        13.31,
        "up",
    )
    assert (_cell(then, SESSIONS[2], E, "close"), _cell(then, SESSIONS[2], E, "limit_state")) == (
        12.5,
        "broken",
    )
    # the corrected factor of 06-03 (known 06-04 09:00): 06-04's return over it
    assert _cell(now, SESSIONS[1], E, "ret_1d") == pytest.approx(12.1 / (11.0 * 0.9) - 1)
    assert _cell(then, SESSIONS[1], E, "ret_1d") == pytest.approx(12.1 / 11.0 - 1)
    # A's ST row (public 06-03 20:00, from 06-04)
    assert _cell(now, SESSIONS[1], A, "is_st") == True  # noqa: E712 (numpy bool)
    assert _cell(then, SESSIONS[1], A, "is_st") == False  # noqa: E712
    # an instant before every ingestion: nothing at all, as the single-instant reads
    empty = late_lake.panel(["close"], *ask[1:], universe=[A], as_ingested="2025-01-01")
    assert empty.table.column("close").null_count == empty.table.num_rows > 0


@pytest.mark.parametrize("by_symbol", [500, 0], ids=["walk", "symbol_gaps"])
def test_a_session_stored_after_as_ingested_is_not_ready_as_the_read_says(
    late_lake: Lake, by_symbol: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """K's only bar (06-05) stored late: the panel's status is the single-instant read's
    (the stored-but-hidden rule of `scans.hidden_pairs`), not an OK null cell — judged by
    the pair walk, and past `LEDGER_BY_SYMBOL` symbols by `symbol_gaps`."""
    from pitlake.read.panel import truth

    monkeypatch.setattr(truth, "LEDGER_BY_SYMBOL", by_symbol)
    day = SESSIONS[2]
    got = late_lake.panel(["close"], day, day, universe=[K], as_ingested=INGEST)
    read = late_lake.quotes(K, date=day, as_of=f"{day}T15:00+08:00", as_ingested=INGEST)
    assert got.status == read.status == "NOT_READY", (got.message, read.message)
    assert "stored, but public only after the as-of" in got.message
    assert late_lake.panel(["close"], day, day, universe=[K]).status == "OK"


def test_before_every_ingestion_each_dataset_says_what_its_read_says(late_lake: Lake) -> None:
    """as_ingested before the lake stored anything: per dataset the panel's gap is the
    single-instant read's status at the row's cutoff (stored rows hidden: NOT_READY; no index
    snapshot stored by then, its fetches OK: NO_DATA), never an OK null cell."""
    day, before = SESSIONS[-1], "2025-01-01"
    got = late_lake.panel(["close", "in_000300"], day, day, universe=[A], as_ingested=before)
    cutoff = f"{day}T15:00+08:00"
    reads = {
        "quotes": late_lake.quotes(A, date=day, as_of=cutoff, as_ingested=before),
        f"index_members {CSI300}": late_lake.index_members(
            CSI300, date=day, as_of=cutoff, as_ingested=before
        ),
    }
    for dataset, read in reads.items():
        gaps = got.meta["datasets"][dataset].get("gaps", [])
        assert {g["status"] for g in gaps} == {str(read.status)}, (dataset, gaps)
    assert str(got.status) == "NOT_READY"


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    day=st.sampled_from(SESSIONS),
    at=AT,
    as_ingested=st.sampled_from([None, INGEST, LATE, INGEST - timedelta(days=400)]),
)
def test_every_cell_equals_the_single_instant_read_with_as_ingested(
    late_lake: Lake, day: str, at: str, as_ingested: datetime | None
) -> None:
    check_every_cell(late_lake, day, at, as_ingested)


@pytest.mark.parametrize("bad", ["soon", "2025-13-01", "", 12])
def test_a_bad_as_ingested_is_invalid_arguments(late_lake: Lake, bad: object) -> None:
    r = late_lake.panel(["close"], SESSIONS[0], SESSIONS[-1], as_ingested=bad)
    assert r.status == "INVALID_ARGUMENTS"
    assert r.message.startswith("as_ingested: ") and "\n" not in r.message


def test_the_cli_takes_as_ingested(late_lake: Lake, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    out = tmp_path / "p.parquet"
    args = ["panel", "close", "--start", SESSIONS[0], "--end", SESSIONS[-1], "--universe", E]
    common = ["--as-of", NOW.isoformat(), "--lake", str(late_lake.root), "-o", str(out)]
    done = CliRunner().invoke(app, [*args, *common, "--as-ingested", INGEST.isoformat()])
    assert done.exit_code in (0, 3), done.output
    want = late_lake.panel(["close"], SESSIONS[0], SESSIONS[-1], universe=[E], as_ingested=INGEST)
    assert pq.read_table(out).to_pylist() == want.to_arrow().to_pylist()
    assert _cell(pq.read_table(out).to_pandas(), SESSIONS[2], E, "close") == 12.5
    bad = CliRunner().invoke(app, [*args, *common, "--as-ingested", "soon"])
    assert bad.exit_code == 2 and "as_ingested" in bad.output
