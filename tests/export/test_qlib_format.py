"""The PIT files read back by qlib's own reader (`qlib.utils.read_period_data`), and the
symbol form."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from qlib.utils import read_period_data

from pitlake.export import qlib_format as fmt


def test_revisions_link_per_period_and_qlib_reads_the_newest_by_each_date(tmp_path: Path) -> None:
    # 2024Q4 first at 2025-03-28, 2025Q1 at 04-25, 2024Q4 restated at 06-05, 2025Q1 at 06-06.
    dates = [20250328, 20250425, 20250605, 20250606]
    periods = [202404, 202501, 202404, 202501]
    records, index = fmt.pit_records(dates, periods, [10.0, 3.0, 11.0, 3.5])
    assert records.dtype.itemsize == 20  # qlib's "IIdI"
    assert index[0] == 2024 and len(index) == 1 + 8
    fmt.write_pit(tmp_path, "600519.SH", "net_profit_q", records, index)
    folder = tmp_path / "financial" / "sh600519"
    data, idx = folder / "net_profit_q.data", folder / "net_profit_q.index"

    def at(period: int, day: int) -> float:
        return float(read_period_data(idx, data, period, day, True)[0])

    assert np.isnan(at(202404, 20250327))
    assert at(202404, 20250328) == 10.0
    assert at(202404, 20250604) == 10.0 and at(202404, 20250605) == 11.0
    assert at(202501, 20250605) == 3.0 and at(202501, 20250606) == 3.5
    assert np.isnan(at(202403, 20251231))  # a quarter never reported


def test_periods_and_symbols_in_qlib_form() -> None:
    assert fmt.quarter_period(__import__("datetime").date(2025, 3, 31)) == 202501
    assert fmt.quarter_period(__import__("datetime").date(2024, 12, 31)) == 202404
    assert fmt.qlib_symbol("600519.SH") == "SH600519"
    assert fmt.qlib_symbol("430047.BJ") == "BJ430047"
