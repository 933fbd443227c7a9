"""`Lake.panel` (issue 29): every cell equals the single-instant read at its row's cutoff
(bars, valuation, statements, security states, index flags, returns, limit states); a
restatement, a late publication and a corrected factor never reach earlier rows;
single-quarter and TTM values against hand-computed ones; bad questions are
INVALID_ARGUMENTS."""

from __future__ import annotations

import math
from datetime import date, datetime, time
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitlake.lake.store import LakeStore
from pitlake.pit import BEIJING
from pitlake.read.lake import Lake
from tests.lake.conftest import bar, bj, canonical, factor, statement_row, write
from tests.serve.api.lakebuild import CSI300, NOW, QUOTE_SESSIONS, SESSIONS, A, B, build_lake

FIELDS = ["close", "volume", "pe", "revenue", "revenue_q", "revenue_ttm", "net_profit_yoy"]
NEW_FIELDS = ["is_st", "is_suspended", "days_listed", "in_000300", "ret_1d", "limit_state"]
E = "600000.SH"  # limit-up twice, broken, limit-down; its 06-04 factor corrected on 06-05
F = "603398.SH"  # listed on 06-04: no price limit on its first sessions
E_BARS = {  # session: (close, pre_close, high)
    "2025-05-30": (10.0, 10.0, 10.0),
    "2025-06-03": (11.0, 10.0, 11.0),  # up
    "2025-06-04": (12.1, 11.0, 12.1),  # up
    "2025-06-05": (12.5, 12.1, 13.31),  # broken: touched 13.31, closed below
    "2025-06-06": (11.25, 12.5, 12.5),  # down
}


def _plant_limits_and_factors(root: Path) -> None:
    store = LakeStore(root)
    write(
        store,
        "quotes",
        [bar(E, d, c, pre_close=p, high=h, low=min(c, p)) for d, (c, p, h) in E_BARS.items()],
    )
    write(
        store,
        "adj_factors",
        [factor(E, d, 1.5 if d == "2025-06-06" else 1.0) for d in QUOTE_SESSIONS],
    )
    corrected = canonical("adj_factors", [factor(E, "2025-06-04", 0.8)])
    corrected["known_at"] = pd.Series([bj("2025-06-05", "10:00")] * len(corrected)).astype(
        corrected["known_at"].dtype
    )
    write(store, "adj_factors", corrected)
    write(store, "quotes", [bar(F, d, 10.0 * 1.2**i) for i, d in enumerate(SESSIONS[1:])])
    new = {"symbol": F, "attribute": "listing", "start_date": SESSIONS[1], "end_date": None}
    write(store, "securities", [{**new, "board": "main", "exchange": "SH"}])
    listing = {"symbol": E, "attribute": "listing", "start_date": "2020-01-02", "end_date": None}
    write(store, "securities", [{**listing, "board": "main", "exchange": "SH"}])


@pytest.fixture(scope="module")
def panel_lake(tmp_path_factory: pytest.TempPathFactory) -> Lake:
    """The API test lake, plus A's 2024 Q1 published late (on 06-04, visible from 06-05's
    close) and its 2025 Q1 restated on 06-05 (visible from 06-06), and E (listed 05-29) at
    its limits with a factor corrected on 06-05 and an ex-date on 06-06."""
    root = build_lake(tmp_path_factory.mktemp("panel"))
    _plant_limits_and_factors(root)
    write(
        LakeStore(root),
        "financials",
        [
            statement_row(A, "2024-03-31", "2025-06-04", revenue=25.0, net_profit=2.5),
            statement_row(
                A, "2025-03-31", "2025-04-25", revision="2025-06-05", revenue=33.0, net_profit=3.3
            ),
        ],
    )
    lake = Lake(root, clock=lambda: NOW)
    yield lake
    lake.close()


def _frame(result):
    """The answer's rows; none when the single-instant read has nothing at that cutoff."""
    import pandas as pd

    return result.to_pandas() if result.ok else pd.DataFrame(columns=["trade_date"])


def _cell(frame, day: str, symbol: str, field: str):
    row = frame[(frame.trade_date.astype(str) == day) & (frame.symbol == symbol)]
    assert len(row) == 1, (day, symbol)
    v = row.iloc[0][field]
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def test_restatement_and_late_publication_stay_out_of_earlier_rows(panel_lake: Lake) -> None:
    r = panel_lake.panel(FIELDS, SESSIONS[0], SESSIONS[-1], universe=[A], provenance=True)
    # valuation's 06-06 fetch was NOT_READY: the envelope says so (decision 51)
    assert r.status == "NOT_READY", r.message
    assert "valuation" in r.message and "2025-06-06" in r.message
    f = r.to_pandas()
    # 06-03, 06-04 (15:00): 2025 Q1 as first published; 2024 Q1 not yet known → no TTM/yoy
    for day in SESSIONS[:2]:
        assert _cell(f, day, A, "revenue") == 30.0
        assert _cell(f, day, A, "revenue_q") == 30.0  # Q1: the cumulative value
        assert _cell(f, day, A, "revenue_ttm") is None  # a component missing: null
        assert _cell(f, day, A, "net_profit_yoy") is None
    # 06-05: 2024 Q1 known (late) → TTM = 30 + 100 − 25, yoy = 3 / 2.5 − 1
    assert _cell(f, SESSIONS[2], A, "revenue_ttm") == pytest.approx(105.0)
    assert _cell(f, SESSIONS[2], A, "net_profit_yoy") == pytest.approx(0.2)
    # 06-06: the restated Q1 → 33 + 100 − 25; the version's known_at is the revision's
    assert _cell(f, SESSIONS[3], A, "revenue") == 33.0
    assert _cell(f, SESSIONS[3], A, "revenue_ttm") == pytest.approx(108.0)
    assert _cell(f, SESSIONS[3], A, "net_profit_yoy") == pytest.approx(0.32)
    assert str(_cell(f, SESSIONS[3], A, "income_report_period")) == "2025-03-31"
    assert _cell(f, SESSIONS[3], A, "income_known_at").date() == date(2025, 6, 5)
    assert _cell(f, SESSIONS[2], A, "income_known_at").date() == date(2025, 4, 25)


def test_as_of_caps_every_row(panel_lake: Lake) -> None:
    """as_of before the restatement: even 06-06's row holds the first-published Q1."""
    r = panel_lake.panel(["revenue"], SESSIONS[0], SESSIONS[-1], universe=[A], as_of="2025-06-04")
    assert r.status == "OK"
    f = r.to_pandas()
    assert _cell(f, SESSIONS[3], A, "revenue") == 30.0


def test_single_quarter_is_difference_of_cumulative_periods(tmp_path: Path) -> None:
    root = build_lake(tmp_path)
    write(
        LakeStore(root),
        "financials",
        [
            statement_row(A, "2025-06-30", "2025-06-04", revenue=70.0),
            statement_row(A, "2024-06-30", "2024-08-20", revenue=50.0),
            statement_row(A, "2024-03-31", "2024-04-20", revenue=20.0),
        ],
    )
    with Lake(root, clock=lambda: NOW) as lake:
        f = lake.panel(
            ["revenue", "revenue_q", "revenue_ttm", "revenue_yoy"],
            SESSIONS[2],
            SESSIONS[2],
            universe=[A],
        ).to_pandas()
    assert _cell(f, SESSIONS[2], A, "revenue_q") == pytest.approx(40.0)  # 70 − 30
    assert _cell(f, SESSIONS[2], A, "revenue_ttm") == pytest.approx(120.0)  # 70 + 100 − 50
    assert _cell(f, SESSIONS[2], A, "revenue_yoy") == pytest.approx(0.4)  # 70 / 50 − 1


AT = st.sampled_from(["09:00", "15:00", "23:59", "eod"])


def _cutoff(day: str, at: str) -> datetime:
    clock = time(23, 59, 59, 999999) if at == "eod" else time.fromisoformat(at)
    return datetime.combine(date.fromisoformat(day), clock, BEIJING)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(day=st.sampled_from(SESSIONS), at=AT)
def test_every_cell_equals_the_single_instant_read(panel_lake: Lake, day: str, at: str) -> None:
    check_every_cell(panel_lake, day, at)


def _pools(lake: Lake, day: str, cutoff: datetime, as_ingested: datetime | None) -> dict:
    """Each pool's codes as `Lake.limits` derives them at the cutoff (it takes no
    as_ingested: then its derivation, `market.session_pools`, at the same instants)."""
    if as_ingested is None:
        return {
            kind: set(_frame(lake.limits(day, kind=kind, as_of=cutoff)).get("symbol", []))
            for kind in ("up", "down", "broken")
        }
    from pitlake.read import market

    found = market.session_pools(lake, date.fromisoformat(day), lake.ask(cutoff, as_ingested))
    found = found[pd.to_datetime(found["trade_date"]) == pd.Timestamp(day)]
    return {
        kind: set(found.loc[found["pool"] == kind, "symbol"].astype(str))
        for kind in ("up", "down", "broken")
    }


def check_every_cell(
    panel_lake: Lake, day: str, at: str, as_ingested: datetime | None = None
) -> None:
    """Every cell of `day`'s rows equals the single-instant read at the row's cutoff, both
    with the same `as_ingested`. The whole range in one panel: its connection holds the last
    session's versions, so a row that read past its own cutoff would show here."""
    stored = {"as_ingested": as_ingested}
    r = panel_lake.panel(
        FIELDS + NEW_FIELDS, SESSIONS[0], SESSIONS[-1], at=at, provenance=True, **stored
    )
    f = r.to_pandas() if r.table.num_rows else pd.DataFrame(columns=["trade_date", "symbol"])
    f = f[f.trade_date.astype(str) == day]
    cutoff = _cutoff(day, at)
    universe = _frame(panel_lake.universe(cutoff, **stored))
    assert sorted(f.symbol) == sorted(universe.get("symbol", []))
    _states_equal(panel_lake, f, universe, day)
    _flags_equal(panel_lake, f, day, cutoff, as_ingested)
    pools = _pools(panel_lake, day, cutoff, as_ingested)
    for symbol in f.symbol:
        bars = _frame(panel_lake.quotes(symbol, date=day, as_of=cutoff, **stored))
        bars = bars[bars.trade_date.astype(str) == day]
        expect = bars.iloc[0]["close"] if len(bars) else None
        assert _cell(f, day, symbol, "close") == expect
        in_pool = [k for k, members in pools.items() if symbol in members]
        state = _cell(f, day, symbol, "limit_state")
        if in_pool:
            assert state == in_pool[0], symbol
        else:  # inside its limits, or a session without one (the hand test tells which)
            assert state in (("within", "no_limit") if len(bars) else (None,)), (symbol, state)
        _return_equal(panel_lake, f, day, symbol, cutoff, as_ingested)
        val = _frame(panel_lake.valuation(symbol, date=day, as_of=cutoff, **stored))
        val = val[val.trade_date.astype(str) == day]
        assert _cell(f, day, symbol, "pe") == (val.iloc[0]["pe"] if len(val) else None)
        stmt = panel_lake.financials(
            symbol, as_of=cutoff, statement="income", latest_only=True, **stored
        )
        s = _frame(stmt)
        s = s[s.report_type == "1"] if len(s) else s
        if len(s):
            assert _cell(f, day, symbol, "revenue") == s.iloc[0]["revenue"]
            assert str(_cell(f, day, symbol, "income_report_period")) == str(
                s.iloc[0]["report_period"]
            )
        else:
            assert _cell(f, day, symbol, "revenue") is None


def _states_equal(lake: Lake, f, universe, day: str) -> None:
    for row in universe.itertuples():
        assert _cell(f, day, row.symbol, "is_st") == row.is_st
        assert _cell(f, day, row.symbol, "is_suspended") == row.is_suspended
        listed = lake.trading_calendar.sessions_between(row.list_date, date.fromisoformat(day))
        assert _cell(f, day, row.symbol, "days_listed") == len(listed)


def _flags_equal(lake: Lake, f, day: str, cutoff: datetime, as_ingested=None) -> None:
    members = lake.index_members(CSI300, date=day, as_of=cutoff, as_ingested=as_ingested)
    known = set(members.to_pandas().symbol) if members.ok and members.meta["rows"] else None
    for symbol in f.symbol:
        flag = _cell(f, day, symbol, "in_000300")
        assert flag == (None if known is None else symbol in known), (symbol, known)


def _return_equal(lake: Lake, f, day: str, symbol: str, cutoff: datetime, as_ingested=None) -> None:
    """ret_1d against the qfq closes of the session and the one before, read at the cutoff."""
    prev = lake.trading_calendar.previous_session(day)
    q = _frame(
        lake.quotes(
            symbol, start=prev, end=day, adjust="qfq", as_of=cutoff, as_ingested=as_ingested
        )
    )
    closes = dict(zip(q.trade_date.astype(str), q.close, strict=True)) if len(q) else {}
    got = _cell(f, day, symbol, "ret_1d")
    if day in closes and str(prev) in closes:
        assert got == pytest.approx(closes[day] / closes[str(prev)] - 1, abs=1e-5)
    else:
        assert got is None, (symbol, closes)


def test_limit_states_and_corrected_factor_by_hand(panel_lake: Lake) -> None:
    f = panel_lake.panel(["limit_state", "ret_1d"], "2025-05-30", SESSIONS[-1], universe=[E])
    f = f.to_pandas()
    states = [_cell(f, d, E, "limit_state") for d in E_BARS]
    assert states == ["within", "up", "up", "broken", "down"]
    new = panel_lake.panel(["limit_state"], SESSIONS[1], SESSIONS[-1], universe=[F]).to_pandas()
    assert list(new.limit_state) == ["no_limit"] * 3  # +20 % a day, and no limit
    # 06-04 as known at its close: the factor 1.0; from 06-05 the corrected 0.8 is known
    assert _cell(f, "2025-06-04", E, "ret_1d") == pytest.approx(12.1 / 11.0 - 1)
    assert _cell(f, "2025-06-05", E, "ret_1d") == pytest.approx(12.5 / (12.1 * 0.8) - 1)
    # the ex-date of 06-06 (factor 1.5) reaches no earlier row, and counts on its own day
    assert _cell(f, "2025-06-06", E, "ret_1d") == pytest.approx(11.25 * 1.5 / 12.5 - 1)


def test_index_universe_is_the_members_known_on_each_session(panel_lake: Lake) -> None:
    f = panel_lake.panel(["close"], SESSIONS[0], SESSIONS[-1], universe=CSI300).to_pandas()
    for day in SESSIONS:
        members = panel_lake.index_members(CSI300, date=day, as_of=f"{day}T15:00+08:00")
        assert sorted(f[f.trade_date.astype(str) == day].symbol) == sorted(
            members.to_pandas().symbol
        )


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"fields": ["clse"]}, "did you mean close"),
        ({"fields": ["revenue_tm"]}, "did you mean revenue_ttm"),
        ({"fields": ["total_assets_q"]}, "unknown panel field"),  # a stock has no quarter
        ({"start": "2025-06-06", "end": "2025-06-03"}, "before start"),
        ({"start": "yesterday"}, "must be dates"),
        ({"universe": "999999.XX"}, "universe"),
        ({"at": "25:00"}, "at"),
        ({"at": "noonish"}, "at must be"),
    ],
)
def test_bad_question_is_invalid_arguments(panel_lake: Lake, kwargs: dict, says: str) -> None:
    args = {"fields": ["close"], "start": SESSIONS[0], "end": SESSIONS[-1], **kwargs}
    r = panel_lake.panel(args.pop("fields"), args.pop("start"), args.pop("end"), **args)
    assert r.status == "INVALID_ARGUMENTS"
    assert says in r.message
    assert B  # the lake's other company stays untouched by a refused question


def test_cutting_the_sessions_into_more_queries_changes_no_cell(
    panel_lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One query per session (as the 20-year panel runs one per few years) answers what one
    query answers: a return's previous session in the query before, statements built once."""
    from pitlake.read.panel import run

    fields = FIELDS + NEW_FIELDS
    whole = panel_lake.panel(fields, "2025-05-30", SESSIONS[-1]).to_pandas()
    monkeypatch.setattr(run, "session_runs", lambda q: [[d] for d in q.sessions])
    cut = panel_lake.panel(fields, "2025-05-30", SESSIONS[-1]).to_pandas()
    pd.testing.assert_frame_equal(whole, cut)


@settings(max_examples=60, deadline=None)
@given(
    days=st.lists(st.dates(date(1991, 1, 1), date(2030, 12, 31)), min_size=1, max_size=20),
    at=st.times(),
    cap=st.datetimes(datetime(1991, 1, 1), datetime(2031, 1, 1)),
)
def test_the_sessions_cutoff_column_is_cutoff_of_each_day(
    days: list[date], at: time, cap: datetime
) -> None:
    """The cutoffs the panel's SQL joins on, computed for the array at once, are exactly
    `cutoff_of` per day: D at `at` in Beijing, never after the cap."""
    from pitlake.read.panel import run

    q = run.Question(
        run.panel_fields.parse("close"), days, at, "all", cap.replace(tzinfo=BEIJING), False
    )
    got = run._sessions_table(q, days, {}).column("cutoff").to_pylist()
    assert got == [run.cutoff_of(q, d) for d in days]


def test_the_reads_databases_have_no_temp_directory(panel_lake: Lake) -> None:
    """A read never writes: the panel's and the readers' DuckDB databases cannot spill to
    `.tmp` under the cwd (DuckDB's default) when a query outgrows memory."""
    for point in (False, True):
        cur = panel_lake.reader._cursor(point)
        try:
            assert cur.execute("SELECT current_setting('temp_directory')").fetchall() == [("",)]
        finally:
            cur.close()
