"""`write_qlib` read back by qlib's own loaders (qlib.init, D.features, D.list_instruments):
every cell equals the lake's own read at that session's cutoff. The window holds the test
lake's failed and never-fetched sessions on purpose, so these exports allow the gaps
(test_qlib_gaps.py: without that they fail)."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from pitlake.calendar import session_close
from pitlake.export.qlib import write_qlib
from tests.export.qlib_lake import CSI300, A, B, C

START, END = "2025-05-26", "2025-06-11"
BEFORE_RESTATEMENT = "2025-06-04T15:00:00+08:00"  # after 06-04's close, before its evening
FIELDS = ["$close", "$factor", "$close/$factor", "P($$net_profit_q)", "P($$total_assets_q)"]


def q(symbol: str) -> str:
    return symbol[7:] + symbol[:6]  # 600519.SH → SH600519


def features(D: Any, market: str = "all") -> pd.DataFrame:
    frame = D.features(D.instruments(market), FIELDS, start_time=START, end_time=END)
    return frame.sort_index()


def cell(frame: pd.DataFrame, symbol: str, day: str, field: str) -> float:
    return float(frame.loc[(q(symbol), pd.Timestamp(day)), field])


def cutoff_of(day: date, as_of: datetime | None) -> datetime:
    close = session_close(day)
    return close if as_of is None else min(close, as_of)


def lake_item(lake: Any, symbol: str, statement: str, item: str, at: datetime) -> float:
    """The lake's own latest consolidated report of `symbol` at `at` (NaN: none)."""
    result = lake.financials(symbol, as_of=at, statement=statement, latest_only=True)
    rows = [r for r in result.data if r["report_type"] == "1"]
    assert len(rows) <= 1
    return float(rows[0][item]) if rows and rows[0][item] is not None else float("nan")


def same(a: float, b: float) -> bool:
    """Equal as qlib stores them (float32), NaN equal to NaN."""
    return bool(np.isnan(a) and np.isnan(b)) or np.float32(a) == np.float32(b)


@pytest.fixture(params=[None, BEFORE_RESTATEMENT], ids=["now", "as_of_06-04_close"])
def exported(request: pytest.FixtureRequest, lake: Any, tmp_path: Path) -> tuple[Path, Any]:
    as_of = request.param
    write_qlib(lake, tmp_path / "qlib", START, END, as_of=as_of, allow_gaps=True)
    return tmp_path / "qlib", (None if as_of is None else datetime.fromisoformat(as_of))


def test_every_cell_equals_the_lake_read_at_its_session_cutoff(
    exported: tuple[Path, Any], lake: Any, qlib_at: Any
) -> None:
    directory, as_of = exported
    D = qlib_at(directory)
    frame = features(D)
    days = [d.date() for d in D.calendar(start_time=START, end_time=END)]
    lake_days = [
        date.fromisoformat(r["date"])
        for r in lake.calendar(start=START, end=END, as_of=as_of).data
        if r["is_open"]
    ]
    assert days == lake_days and len(days) == 12
    bars = lake.quotes([A, B], start=START, end=END, as_of=as_of, adjust="hfq").to_pandas()
    raw = lake.quotes([A, B], start=START, end=END, as_of=as_of).to_pandas()
    checked = 0
    for sym in (A, B):
        for d in days:
            at = cutoff_of(d, as_of)
            bar = bars[(bars.symbol == sym) & (bars.trade_date == d)]
            raw_bar = raw[(raw.symbol == sym) & (raw.trade_date == d)]
            key = (q(sym), pd.Timestamp(d))
            got = frame.loc[key] if key in frame.index else pd.Series(np.nan, index=FIELDS)
            want_close = float(bar.close.iloc[0]) if len(bar) else np.nan
            want_factor = float(bar.adj_factor.iloc[0]) if len(bar) else np.nan
            want_raw = float(raw_bar.close.iloc[0]) if len(raw_bar) else np.nan
            assert same(got["$close"], want_close), (sym, d)
            assert same(got["$factor"], want_factor), (sym, d)
            assert np.isclose(got["$close/$factor"], want_raw, equal_nan=True), (sym, d)
            for field, statement, item in (
                ("P($$net_profit_q)", "income", "net_profit"),
                ("P($$total_assets_q)", "balance", "total_assets"),
            ):
                want = lake_item(lake, sym, statement, item, at)
                assert same(got[field], want), (sym, d, field, got[field], want)
            checked += 1
    assert checked == 24
    assert not bars.empty
    # A's ex-date on 06-05 is in the window unless the cutoff is before it
    assert (bars.adj_factor != 1.0).any() == (as_of is None)


def test_a_restatement_and_an_evening_report_appear_on_the_first_session_after_known_at(
    lake: Any, tmp_path: Path, qlib_at: Any
) -> None:
    write_qlib(lake, tmp_path / "qlib", START, END, allow_gaps=True)
    frame = features(qlib_at(tmp_path / "qlib"))
    # A restated Q1 on 06-04 (a date: known at that day's end) → from the 06-05 session.
    assert cell(frame, A, "2025-06-04", "P($$net_profit_q)") == 3.0
    assert cell(frame, A, "2025-06-05", "P($$net_profit_q)") == 3.5
    # B's Q1 came out at 19:30 on 06-04, after the close → not on 06-04, on 06-05.
    assert cell(frame, B, "2025-06-04", "P($$net_profit_q)") == 4.0  # its 2024 annual
    assert cell(frame, B, "2025-06-05", "P($$net_profit_q)") == np.float32(1.2)
    # B's annual came out at 11:30 on 06-03, before the close → that very session; not 05-30.
    assert cell(frame, B, "2025-06-03", "P($$net_profit_q)") == 4.0
    assert np.isnan(cell(frame, B, "2025-05-30", "P($$net_profit_q)"))
    # A's balance sheet announced on the 05-31 holiday → the next session, 06-03.
    assert np.isnan(cell(frame, A, "2025-05-30", "P($$total_assets_q)"))
    assert cell(frame, A, "2025-06-03", "P($$total_assets_q)") == 500.0


def test_as_of_keeps_later_bars_reports_and_snapshots_out(
    lake: Any, tmp_path: Path, qlib_at: Any
) -> None:
    write_qlib(lake, tmp_path / "qlib", START, END, as_of=BEFORE_RESTATEMENT, allow_gaps=True)
    D = qlib_at(tmp_path / "qlib")
    frame = features(D)
    assert cell(frame, A, "2025-06-04", "$close") == 1502.0
    for day in ("2025-06-05", "2025-06-06", "2025-06-11"):
        assert np.isnan(cell(frame, A, day, "$close"))  # bars of later sessions: not known
        assert cell(frame, A, day, "P($$net_profit_q)") == 3.0  # the restatement: not known
        assert cell(frame, B, day, "P($$net_profit_q)") == 4.0  # the evening report: not known
    spans = D.list_instruments(D.instruments("csi300"), START, END, as_list=False)
    assert spans[q(B)] == [(pd.Timestamp("2025-06-04"), pd.Timestamp(END))]  # no later exit


def test_instruments_are_survivorship_free_and_index_spells_follow_the_snapshots(
    lake: Any, tmp_path: Path, qlib_at: Any
) -> None:
    write_qlib(lake, tmp_path / "qlib", START, END, allow_gaps=True)
    D = qlib_at(tmp_path / "qlib")
    everyone = D.list_instruments(D.instruments("all"), START, END, as_list=False)
    ts = pd.Timestamp
    assert everyone[q(C)] == [(ts(START), ts("2025-06-04"))]  # delisted from 06-05, kept
    assert everyone[q(A)] == [(ts(START), ts(END))]
    csi300 = D.list_instruments(D.instruments("csi300"), START, END, as_list=False)
    assert csi300[q(A)] == [(ts("2025-06-04"), ts(END))]
    # B left with the 06-04 snapshot (public at that day's end: out from 06-05) and came back
    # with 06-05's (in from 06-06): two spells, not one span.
    assert csi300[q(B)] == [(ts("2025-06-04"), ts("2025-06-04")), (ts("2025-06-06"), ts(END))]
    for d in D.calendar(start_time=START, end_time=END):
        listed = lake.index_members(CSI300, date=d.date(), as_of=session_close(d.date()))
        lake_members = {r["symbol"] for r in listed.data}
        in_spell = {
            sym for sym in (A, B) if any(lo <= d <= hi for lo, hi in csi300.get(q(sym), []))
        }
        assert in_spell == lake_members, d
    rows = D.features(D.instruments("csi300"), ["$close"], START, END)
    b_days = sorted(t.date().isoformat() for t in rows.loc[q(B)].index)
    assert "2025-06-05" not in b_days and "2025-06-04" in b_days and "2025-06-06" in b_days
