"""The gate and the derived pools know a delisting-arrangement period (退市整理期) from the
stored master's names: a name marked 退 ("XX退", "退市XX") from the period's first day puts
its sessions under the period's rule (no limit on the first session since 2020-12-31, the
board's ratio after it even for a code still flagged ST); a name not yet public at a read's
cutoff stays out of it (pitlake/pipeline/gating.py, pitlake/read/market.py)."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pandas as pd
import pytest
from pitlake.expectations import validate
from pitlake.schemas.securities import delisting_periods

from pitlake.calendar import BEIJING, sessions_between
from pitlake.pipeline.gating import _context, day_facts
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Unit
from tests.expectations.conftest import BUILDERS
from tests.lake.conftest import write

CODE = "600289.SH"
START = date(2025, 6, 10)  # the period's first session
SESSIONS = sessions_between(START, date(2025, 6, 30))
FETCHED = datetime(2025, 6, 30, 20, 0, tzinfo=BEIJING)


def _rows(name_start: str) -> list[dict]:
    return [
        {"symbol": CODE, "attribute": "listing", "start_date": "1998-06-24", "board": "main"},
        {
            "symbol": CODE,
            "attribute": "name",
            "start_date": "2024-05-06",
            "end_date": "2025-06-09",
            "name": "*ST信通",
            "ann_date": "2024-04-30",
        },
        {
            "symbol": CODE,
            "attribute": "st",
            "start_date": "2024-05-06",
            "ann_date": "2024-04-30",
            "reason": "*ST",
        },
        {
            "symbol": CODE,
            "attribute": "name",
            "start_date": name_start,
            "name": "信通退",
            "ann_date": "2025-06-03",
        },
    ]


@pytest.fixture
def env(tmp_path: Path) -> RunEnv:
    env = RunEnv(tmp_path / "lake", source="replay:sample", run_id="gate-delisting")
    write(env.store, "securities", _rows(START.isoformat()))
    return env


def _bar(day: date, pct: float) -> pd.DataFrame:
    frame = BUILDERS["quotes"](day, symbols=[CODE])
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


def _warned(env: RunEnv, day: date, pct: float) -> bool:
    frame = _bar(day, pct)
    ctx = _context(env, _Batch(day, frame), expected=day, window=None)  # type: ignore[arg-type]
    return "price_limit" in validate("quotes", frame, ctx).failed_names()


def test_the_masters_name_marks_the_period(env: RunEnv) -> None:
    assert day_facts(env, SESSIONS[:3])[2] == {CODE: [(START, None, True)]}
    assert not _warned(env, SESSIONS[0], 60.0)  # its first session: no limit
    assert not _warned(env, SESSIONS[1], 9.0)  # then ±10 %, though the master says *ST
    assert _warned(env, SESSIONS[1], 11.0)
    before = sessions_between(date(2025, 6, 3), START)[-2]
    assert _warned(env, before, 9.0)  # the day before: *ST, ±5 %


def test_names_that_mark_a_period_and_names_that_do_not() -> None:
    rows = pd.DataFrame(_rows(START.isoformat()))
    more = pd.DataFrame(
        [
            {
                "symbol": "600087.SH",
                "attribute": "name",
                "start_date": "2014-04-11",
                "name": "退市长油",
            },
            {
                "symbol": "000001.SZ",
                "attribute": "name",
                "start_date": "1991-04-03",
                "name": "平安银行",
            },
        ]
    )
    rows = pd.concat([rows, more], ignore_index=True)
    for c in ("start_date", "end_date"):
        rows[c] = pd.to_datetime(rows[c])
    found = delisting_periods(rows, [date(2014, 4, 14), date(2025, 6, 12)])
    assert found == {CODE: [(START, None, True)], "600087.SH": [(date(2014, 4, 11), None, True)]}
    old = {"600087.SH": [(date(2014, 4, 11), None, True)]}
    assert delisting_periods(rows, [date(2025, 6, 9)]) == old


def test_a_delisted_code_without_a_name_history_is_unknown_before_its_delisting(
    tmp_path: Path,
) -> None:
    """AkShare's lists give today's name only: a delisted code's period, if it had one, cannot
    be placed. The span before its delisting is `unknown` (not checked), not the board's ±10 %
    (a legal free first day would otherwise quarantine the batch); a code with a dated name
    history and no 退 name is judged as usual."""
    env = RunEnv(tmp_path / "lake", source="replay:sample", run_id="gate-unsure")
    gone, kept = "600290.SH", "600291.SH"
    day0, sold = "1998-06-24", "2025-06-27"
    rows = [
        {"symbol": gone, "attribute": "listing", "start_date": day0, "end_date": sold},
        # seen once, after the delisting (an undated list row)
        {"symbol": gone, "attribute": "name", "start_date": "2025-06-30", "name": "华仪退"},
        {"symbol": kept, "attribute": "listing", "start_date": day0, "end_date": sold},
        {"symbol": kept, "attribute": "name", "start_date": day0, "name": "某某股份"},
    ]
    for row in rows:
        row["undated"] = row["symbol"] == gone and row["attribute"] == "name"
    write(env.store, "securities", rows)
    facts = day_facts(env, [date(2025, 6, 10)])[2]
    assert facts == {gone: [(date(2025, 4, 18), date(2025, 6, 27), False)]}
    day = date(2025, 6, 10)
    for code, warned in ((gone, False), (kept, True)):
        frame = _bar(day, 60.0).assign(symbol=code)
        ctx = _context(env, _Batch(day, frame), expected=day, window=None)  # type: ignore[arg-type]
        assert ("price_limit" in validate("quotes", frame, ctx).failed_names()) is warned, code
    early = date(2025, 4, 17)  # before the span: the board's ±10 %
    frame = _bar(early, 60.0).assign(symbol=gone)
    ctx = _context(env, _Batch(early, frame), expected=early, window=None)  # type: ignore[arg-type]
    assert "price_limit" in validate("quotes", frame, ctx).failed_names()
