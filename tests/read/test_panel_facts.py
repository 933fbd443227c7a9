"""The panel's security states and limit states in one pass over the sessions give exactly the
cells of the single-instant derivations run once per session (the oracle: `state.rows_by` +
the master's state view, as `Lake.universe`; `market.session_pools`, as `Lake.limits`), over
random sessions, `at` and as-of, on the sample ingested by the real pipeline and on planted
cases: an ST designation announced after a session's cutoff stays out of that session, a
suspension, a new listing's no-limit days, limit up / down / broken, a delisting-arrangement
period's first session and a delisted code whose period the names cannot place."""

from __future__ import annotations

import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pitlake.schemas import securities

from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.read.panel import limit_facts, run, session_facts
from pitlake.read.readers import state
from tests.lake.conftest import bar, bj, canonical, write
from tests.read.test_panel import _plant_limits_and_factors
from tests.serve.api.lakebuild import NOW, SESSIONS, build_lake

ROOT = Path(__file__).resolve().parents[2]
G = "600100.SH"  # ST from 06-04, announced that evening (20:00): out of 06-04's 15:00 row
H = "600200.SH"  # named "H退" from 06-04: a delisting-arrangement period
C = "600087.SH"  # delisted from 06-05, no dated name: its last 70 days' limits unknown
AT = st.sampled_from(["09:00", "15:00", "20:00", "eod"])


def _plant(root: Path) -> None:
    store = LakeStore(root)
    _plant_limits_and_factors(root)
    for sym in (G, H):
        listing = {"symbol": sym, "attribute": "listing", "start_date": "2010-01-04"}
        write(store, "securities", [{**listing, "board": "main", "exchange": "SH"}])
    late = canonical(
        "securities",
        [
            {"symbol": G, "attribute": "st", "start_date": SESSIONS[1], "reason": "ST"},
            {"symbol": G, "attribute": "name", "start_date": SESSIONS[1], "name": "ST甲"},
        ],
    )
    late["known_at"] = pd.Series([bj(SESSIONS[1], "20:00")] * len(late)).astype(
        late["known_at"].dtype
    )
    write(store, "securities", late)
    named = {"symbol": H, "attribute": "name", "start_date": SESSIONS[1], "name": "乙退"}
    write(store, "securities", [named])
    rows = []
    for sym in (G, H, C):
        close = 10.0
        for d in SESSIONS:
            up = round(close * 1.05, 2)  # +5 %: the ST limit, within ±10 %
            rows.append(bar(sym, d, up, pre_close=close, high=up, low=close))
            close = up
    write(store, "quotes", rows)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Lake:
    root = build_lake(tmp_path_factory.mktemp("facts"))
    _plant(root)
    lake = Lake(root, clock=lambda: NOW)
    yield lake
    lake.close()


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Lake:
    """The bundled sample through the real pipeline: its master, bars and limit prices."""
    root = tmp_path_factory.mktemp("facts-sample") / "lake"
    subprocess.run(
        [
            *(sys.executable, "-m", "pitlake.cli", "ingest", "--source", "replay:sample"),
            *("--start", "2025-04-01", "--end", "2025-06-30", "--lake", str(root)),
            *("--datasets", "securities,quotes,limit_prices,new_shares"),
        ],
        check=True,
        cwd=ROOT,
        capture_output=True,
        timeout=600,
    )
    lake = Lake(root, clock=lambda: NOW)
    yield lake
    lake.close()


def _question(lake: Lake, days: list[date], at: str, as_of: str | None) -> run.Question:
    return run.question(lake, ["is_st"], days[0], days[-1], "all", at, as_of, False)


def _oracle_states(lake: Lake, q: run.Question) -> pd.DataFrame:
    """`Lake.universe`'s derivation at each session's cutoff (the panel's former path)."""
    spec = securities.SCHEMA
    assert spec.state is not None
    frames = []
    for d in q.sessions:
        cutoff = run.cutoff_of(q, d)
        rows = state.rows_by(lake.store, lake.reader, spec, cutoff.date(), cutoff)
        view = spec.state.view(rows, cutoff.date(), None)
        if not view.empty:
            frames.append(view.assign(session=d))
    if not frames:
        return pd.DataFrame(columns=["session", "symbol", "is_st", "is_suspended", "list_date"])
    out = pd.concat(frames, ignore_index=True)
    return out[["session", "symbol", "is_st", "is_suspended", "list_date"]]


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.assign(session=pd.to_datetime(frame["session"]).dt.date)
    return frame.sort_values(["session", "symbol"]).reset_index(drop=True)


def _check_states(lake: Lake, q: run.Question) -> pd.DataFrame:
    got = session_facts.states(lake, q.sessions, lambda d: run.cutoff_of(q, d)).to_pandas()
    want = _oracle_states(lake, q)
    pd.testing.assert_frame_equal(
        _sorted(got[["session", "symbol", "is_st", "is_suspended"]]),
        _sorted(want[["session", "symbol", "is_st", "is_suspended"]]),
        check_dtype=False,
    )
    return got


def _check_limits(lake: Lake, q: run.Question) -> pd.DataFrame:
    cutoff_of = lambda d: run.cutoff_of(q, d)  # noqa: E731
    left = [d for _, more in limit_facts.classified(lake, q.sessions, cutoff_of) for d in more]
    assert left == []  # every bar has its previous close, and a master: the one pass
    got = session_facts.limits(lake, q.sessions, cutoff_of).to_pandas()
    oracle = session_facts.session_limits(lake, q.sessions, cutoff_of)
    cells = [session_facts._limit_cells(f) for f in oracle]
    if not cells:
        assert got.empty
        return got
    want = pa.concat_tables(cells).to_pandas()
    pd.testing.assert_frame_equal(_sorted(got), _sorted(want), check_dtype=False)
    return got


def _cell(frame: pd.DataFrame, day: str, symbol: str, field: str):
    rows = frame[(pd.to_datetime(frame["session"]).dt.date == date.fromisoformat(day))]
    rows = rows[rows["symbol"] == symbol]
    return rows.iloc[0][field] if len(rows) else "absent"


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    first=st.integers(0, 3),
    width=st.integers(0, 3),
    at=AT,
    as_of=st.sampled_from([None, "2025-06-04T16:00:00+08:00", "2025-06-05"]),
)
def test_planted_cells_equal_the_per_session_derivation(
    planted: Lake, first: int, width: int, at: str, as_of: str | None
) -> None:
    days = [date.fromisoformat(d) for d in SESSIONS[first : first + width + 1]]
    q = _question(planted, days, at, as_of)
    _check_states(planted, q)
    _check_limits(planted, q)


def test_planted_cases_by_hand(planted: Lake) -> None:
    days = [date.fromisoformat(d) for d in SESSIONS]
    close = _question(planted, days, "15:00", None)
    eod = _question(planted, days, "eod", None)
    states_close, states_eod = _check_states(planted, close), _check_states(planted, eod)
    limits_close, limits_eod = _check_limits(planted, close), _check_limits(planted, eod)
    # G's ST was announced at 20:00 on 06-04: not ST in that session's 15:00 row, ST at eod
    assert not _cell(states_close, SESSIONS[1], G, "is_st")
    assert _cell(states_eod, SESSIONS[1], G, "is_st")
    assert _cell(limits_close, SESSIONS[1], G, "limit_state") == "within"  # +5 % of ±10 %
    assert _cell(limits_eod, SESSIONS[1], G, "limit_state") == "up"  # +5 % is ST's limit
    assert _cell(limits_close, SESSIONS[2], G, "limit_state") == "up"
    # A suspended on 06-04; F listed on 06-04 (no limit); E up, up, broken, down
    assert _cell(states_close, SESSIONS[1], "600519.SH", "is_suspended")
    assert _cell(states_close, SESSIONS[1], "603398.SH", "days_listed") == 1
    assert _cell(limits_close, SESSIONS[1], "603398.SH", "limit_state") == "no_limit"
    e = [_cell(limits_close, d, "600000.SH", "limit_state") for d in SESSIONS]
    assert e == ["up", "up", "broken", "down"]
    # H's delisting period from 06-04: no limit on its first session, ±10 % after
    assert _cell(limits_close, SESSIONS[1], H, "limit_state") == "no_limit"
    assert _cell(limits_close, SESSIONS[2], H, "limit_state") == "within"
    # C delisted from 06-05 with no dated name: a period may be there, the limit unknown
    assert pd.isna(_cell(limits_close, SESSIONS[0], C, "limit_state"))


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    start=st.dates(date(2025, 4, 1), date(2025, 6, 30)),
    width=st.integers(0, 25),
    at=AT,
    capped=st.booleans(),
)
def test_sample_cells_equal_the_per_session_derivation(
    sample: Lake, start: date, width: int, at: str, capped: bool
) -> None:
    end = min(date(2025, 6, 30), start + timedelta(days=width))
    days = sample.trading_calendar.sessions_between(start, end)
    if not days:
        return
    as_of = str(days[len(days) // 2]) + "T12:00:00+08:00" if capped else None
    q = _question(sample, days, at, as_of)
    _check_states(sample, q)
    _check_limits(sample, q)


def test_a_session_with_a_bar_lacking_its_previous_close_keeps_the_per_session_path(
    tmp_path: Path,
) -> None:
    """A bar without the vendor's previous close (AkShare's) takes its reference from the
    code's previous bar as known at the cutoff: that session is left to the per-session
    derivation, the others are one pass, and together their cells are the oracle's."""
    root = build_lake(tmp_path)
    _plant(root)
    write(LakeStore(root), "quotes", [bar("600300.SH", SESSIONS[2], 11.0, pre_close=None)])
    with Lake(root, clock=lambda: NOW) as lake:
        days = [date.fromisoformat(d) for d in SESSIONS]
        q = _question(lake, days, "15:00", None)
        passes = list(limit_facts.classified(lake, days, lambda d: run.cutoff_of(q, d)))
        assert [d for _, more in passes for d in more] == [days[2]]
        got = session_facts.limits(lake, days, lambda d: run.cutoff_of(q, d)).to_pandas()
        cells = [
            session_facts._limit_cells(f)
            for f in session_facts.session_limits(lake, days, lambda d: run.cutoff_of(q, d))
        ]
    want = pa.concat_tables(cells).to_pandas()
    pd.testing.assert_frame_equal(_sorted(got), _sorted(want), check_dtype=False)
