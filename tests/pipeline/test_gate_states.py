"""The gate judges price limits with the stored security master's states of the bar's day: an
ST stock's ±5 % (until 2026-07-06) while it is ST, the board's limit once the ST designation is
removed, and no limit on a new listing's first trading day (pitlake/pipeline/gating.py)."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pandas as pd
import pytest
from pitlake.expectations import validate

from pitlake.calendar import BEIJING, sessions_between
from pitlake.pipeline.gating import _context, day_states
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Unit
from tests.expectations.conftest import BUILDERS
from tests.lake.conftest import write

ST_STOCK, NEW = "600234.SH", "603398.SH"
ST_DAY, AFTER = date(2025, 6, 13), date(2025, 6, 16)  # ST removed from 06-16
DEBUT = date(2025, 6, 10)
FETCHED = datetime(2025, 6, 30, 20, 0, tzinfo=BEIJING)


@pytest.fixture
def env(tmp_path: Path) -> RunEnv:
    env = RunEnv(tmp_path / "lake", source="replay:sample", run_id="gate-states")
    rows = [
        {"symbol": ST_STOCK, "attribute": "listing", "start_date": "1996-07-19", "board": "main"},
        {"symbol": NEW, "attribute": "listing", "start_date": "2025-06-10", "board": "main"},
        {
            "symbol": ST_STOCK,
            "attribute": "st",
            "start_date": "2024-05-06",
            "end_date": "2025-06-15",
            "ann_date": "2024-04-30",
            "reason": "ST",
        },
    ]
    write(env.store, "securities", rows)
    return env


def _bar(symbol: str, day: date, pct: float) -> pd.DataFrame:
    frame = BUILDERS["quotes"](day, symbols=[symbol])
    frame["pre_close"] = 10.0
    frame["close"] = round(10.0 * (1 + pct / 100), 2)
    frame["open"] = frame["low"] = 10.0
    frame["high"] = frame["close"]
    frame["pct_chg"] = pct
    return frame


class _Batch:
    def __init__(self, day: date, frame: pd.DataFrame) -> None:
        self.unit = Unit("quotes", day, trade_date=day)
        self.frame = frame
        self.fetched_at = FETCHED


def _warned(env: RunEnv, symbol: str, day: date, pct: float) -> bool:
    frame = _bar(symbol, day, pct)
    ctx = _context(env, _Batch(day, frame), expected=day, window=None)  # type: ignore[arg-type]
    return "price_limit" in validate("quotes", frame, ctx).failed_names()


def test_the_st_limit_holds_on_st_days_only(env: RunEnv) -> None:
    assert not _warned(env, ST_STOCK, ST_DAY, 5.0)
    assert _warned(env, ST_STOCK, ST_DAY, 8.0)
    assert not _warned(env, ST_STOCK, AFTER, 8.0)  # ST removed: the main board's ±10 %
    assert _warned(env, ST_STOCK, AFTER, 11.0)


def test_a_new_listing_has_no_limit_on_its_first_five_sessions(env: RunEnv) -> None:
    sessions = sessions_between(DEBUT, date(2025, 6, 30))
    for day in sessions[:5]:  # a single-date run still knows the listing's age
        assert not _warned(env, NEW, day, 44.0), day
    assert _warned(env, NEW, sessions[5], 44.0)


def test_a_window_gets_each_days_states(env: RunEnv) -> None:
    st, listed = day_states(env, [ST_DAY, AFTER, DEBUT])
    assert st == {ST_STOCK: frozenset({ST_DAY, DEBUT})}
    assert listed == {NEW: DEBUT}
    frame = pd.concat([_bar(ST_STOCK, ST_DAY, 8.0), _bar(ST_STOCK, AFTER, 8.0)], ignore_index=True)
    ctx = _context(env, _Batch(AFTER, frame), expected=None, window=(ST_DAY, AFTER))  # type: ignore[arg-type]
    failed = validate("quotes", frame, ctx)
    assert "price_limit" in failed.failed_names()  # 06-13's +8 % only


def test_without_stored_securities_the_gate_has_no_states(tmp_path: Path) -> None:
    env = RunEnv(tmp_path / "lake", source="replay:sample", run_id="none")
    assert day_states(env, [ST_DAY]) == ({}, {})


# ---------------------------------------------------------------- an approval-regime first day

IPO, UNPRICED = "603999.SH", "603997.SH"
APPROVAL_DEBUT = date(2019, 6, 10)  # main board, approval regime: +44 % / −36 % of the issue


@pytest.fixture
def ipo_env(tmp_path: Path) -> RunEnv:
    env = RunEnv(tmp_path / "lake", source="replay:sample", run_id="gate-ipo")
    rows = [
        {"symbol": s, "attribute": "listing", "start_date": "2019-06-10", "board": "main"}
        for s in (IPO, UNPRICED)
    ]
    write(env.store, "securities", rows)
    new_share = {"ipo_date": "2019-05-29", "list_date": "2019-06-10", "issue_price": 10.0}
    write(env.store, "new_shares", [{"symbol": IPO, **new_share}])
    return env


def _judged(env: RunEnv, symbol: str, close: float) -> object:
    frame = _bar(symbol, APPROVAL_DEBUT, round((close / 10.0 - 1) * 100, 4))
    frame["close"] = frame["high"] = close
    batch = _Batch(APPROVAL_DEBUT, frame)
    ctx = _context(env, batch, expected=APPROVAL_DEBUT, window=None)  # type: ignore[arg-type]
    return validate("quotes", frame, ctx)


def test_the_gate_judges_a_first_day_on_the_stored_issue_price(ipo_env: RunEnv) -> None:
    from pitlake.expectations.verdict import Outcome

    ctx = _context(
        ipo_env,
        _Batch(APPROVAL_DEBUT, _bar(IPO, APPROVAL_DEBUT, 0.0)),
        expected=APPROVAL_DEBUT,
        window=None,
    )  # type: ignore[arg-type]
    assert ctx.issue_prices == {IPO: 10.0}
    assert _judged(ipo_env, IPO, 14.40).outcome is Outcome.PASS  # exactly +44 %: limit-up
    rejected = _judged(ipo_env, IPO, 14.41)  # a tick past it: impossible data
    assert rejected.outcome is Outcome.REJECT and "price_limit" in rejected.failed_names()
    # no issue price stored: the first day's limit is unknown, so nothing is checked
    assert _judged(ipo_env, UNPRICED, 14.41).outcome is Outcome.PASS
    assert _judged(ipo_env, UNPRICED, 20.00).outcome is Outcome.PASS


def test_the_issue_prices_are_ingested_with_the_master_before_the_bars() -> None:
    from pitlake import schemas
    from pitlake.pipeline.planning import session_waves

    first, *later = session_waves(list(schemas.NIGHTLY_DATASETS))
    assert first == ["securities", "new_shares"] == list(schemas.GATE_FACT_DATASETS)
    assert all("new_shares" not in wave for wave in later)
