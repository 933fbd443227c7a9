"""Issue 29's "done when" for qlib: on the bundled sample, the export read by real qlib
(`D.features`) equals `Lake.panel` cell for cell, over the CSI 300 and the whole market.

The mapping (decision 52): qlib's `$close / $factor` is the panel's raw `close`; qlib's
`P($$x_q)` is the panel's `x` (the latest period's value as reported, year to date: `_q` is
qlib's quarterly interval, as its own PIT collector writes it), and the panel's single
quarter `x_q` is qlib's `P($$x_q - Ref($$x_q, 1))` on a Q2–Q4 period, `P($$x_q)` on a Q1 —
each period's value as known on that day in both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from pitlake.export.qlib import write_qlib
from pitlake.read.lake import Lake
from tests.export.sample_lake import END, START, build_sample_lake

AS_OF = "2025-06-30"  # the end of that Beijing day: what the lake knew by then
# Compared from 04-02: the CSI 300's first snapshot (dated 04-01) is public at the end of
# 04-01, so at 04-01's close the index's members were not known (the panel says UNKNOWN; the
# export has no csi300 line on that day either).
FROM = "2025-04-02"
ITEMS = ("net_profit_parent", "revenue", "total_assets")  # two flows and a stock
SINGLE = "P($$net_profit_parent_q - Ref($$net_profit_parent_q, 1))"
QLIB_FIELDS = [
    "$close",
    "$factor",
    "$close/$factor",
    *(f"P($${item}_q)" for item in ITEMS),
    SINGLE,
]
PANEL_FIELDS = ["close", *ITEMS, "net_profit_parent_q"]


@pytest.fixture(scope="module")
def sample_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_lake(tmp_path_factory.mktemp("sample") / "lake")


@pytest.fixture(scope="module")
def sample(sample_dir: Path) -> Iterator[Lake]:
    with Lake(sample_dir) as lake:
        yield lake


def panel_frame(lake: Lake, universe: str) -> pd.DataFrame:
    result = lake.panel(PANEL_FIELDS, FROM, END, universe=universe, as_of=AS_OF, provenance=True)
    assert result.status == "OK", result.message
    frame = result.to_pandas()
    frame["instrument"] = frame.symbol.str[7:] + frame.symbol.str[:6]  # 600519.SH → SH600519
    frame["datetime"] = pd.to_datetime(frame.trade_date)
    return frame.set_index(["instrument", "datetime"]).sort_index()


def qlib_frame(D: Any, market: str) -> pd.DataFrame:
    return D.features(D.instruments(market), QLIB_FIELDS, FROM, END).sort_index()


def same(got: pd.Series, want: pd.Series) -> np.ndarray:
    """Equal as qlib holds them (float32), NaN equal to NaN."""
    a, b = got.to_numpy("float64"), want.to_numpy("float64")
    return np.isclose(a.astype("float32"), b.astype("float32"), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("market,universe", [("csi300", "000300.SH"), ("all", "all")])
def test_d_features_equals_the_panel_cell_for_cell(
    sample: Lake, tmp_path: Path, qlib_at: Any, market: str, universe: str
) -> None:
    summary = write_qlib(sample, tmp_path / "qlib", START, END, as_of=AS_OF)
    assert summary.gaps == {} and summary.no_factor == []
    got = qlib_frame(qlib_at(tmp_path / "qlib"), market)
    want = panel_frame(sample, universe)
    assert len(want) > 300 and want.close.notna().sum() > 300
    # the same (instrument, session) rows: the universe of each session as known at its close
    assert list(got.index) == list(want.index)
    # $close is the hfq price served to 4 decimals (design §1 rule 5) and held as float32 by
    # qlib: divided by the factor it is the raw close within half a unit of that rounding
    # over the factor, plus float32's relative precision (far below a 0.01 元 tick)
    rounding = 0.5e-4 / got["$factor"].to_numpy("float64")
    raw = got["$close/$factor"].to_numpy("float64")
    assert np.allclose(
        raw, want.close.to_numpy("float64"), rtol=3e-7, atol=rounding, equal_nan=True
    )
    assert (got["$close"].notna() == want.close.notna()).all()
    for item in ITEMS:
        assert same(got[f"P($${item}_q)"], want[item]).all(), item
        assert want[item].notna().sum() > 300, item
    # the panel's single quarter: qlib's difference of the periods known that day (Q2–Q4),
    # the period itself on a Q1
    q1 = pd.to_datetime(want.income_report_period).dt.month.to_numpy() == 3
    single = np.where(q1, got["P($$net_profit_parent_q)"], got[SINGLE])
    assert same(pd.Series(single), want.net_profit_parent_q).all()
    assert q1.any() and (~q1).any() and want.net_profit_parent_q.notna().sum() > 300
