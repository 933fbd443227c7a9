"""What a live client records replays identically (fake transports: no network)."""

from __future__ import annotations

import json
from datetime import date

import pandas as pd

from pitlake.vendors.akshare.client import AkshareClient
from pitlake.vendors.replay.source import ReplaySource
from pitlake.vendors.tushare.client import TushareClient
from tests.vendors.fake_transports import (
    DAILY,
    TOKEN,
    FakePost,
    fake_akshare,
)

# ---------------------------------------------------------------- recording → replay


def test_recorded_answers_replay_identically(tmp_path):
    bars = pd.DataFrame(
        {
            "date": [date(2025, 6, 3), date(2025, 6, 4)],
            "open": [1.0, 2.0],
            "close": [1.5, 2.5],
            "volume": [100.0, 200.0],
        }
    )
    factors = pd.DataFrame(
        {
            "date": pd.to_datetime(["2025-06-26", "1900-01-01"]),
            "hfq_factor": ["1.0873569306774424", "1.0"],
        }
    )

    def stock_zh_a_daily(symbol, start_date="", end_date="", adjust=""):
        return factors.copy() if adjust == "hfq-factor" else bars.copy()

    live = AkshareClient(
        module=fake_akshare(stock_zh_a_daily=stock_zh_a_daily), record_dir=tmp_path
    )
    live.call("stock_zh_a_daily", symbol="sh600519", start_date="20250603", end_date="20250604")
    live.call("stock_zh_a_daily", symbol="sh600519", adjust="hfq-factor")
    post = FakePost(DAILY)
    TushareClient(env={"TUSHARE_TOKEN": TOKEN}, post=post, record_dir=tmp_path).call(
        "daily", trade_date="20250603"
    )

    recorded = (tmp_path / "akshare" / "stock_zh_a_daily.jsonl").read_text().splitlines()
    assert json.loads(recorded[0])["_symbol"] == "sh600519"  # Sina bars carry no symbol
    assert (tmp_path / "akshare" / "stock_zh_a_daily@hfq-factor.jsonl").exists()
    assert TOKEN not in (tmp_path / "tushare" / "daily.jsonl").read_text()

    replay = ReplaySource(tmp_path)
    again = replay.client("akshare").call(
        "stock_zh_a_daily", symbol="sh600519", start_date="20250603", end_date="20250604"
    )
    pd.testing.assert_frame_equal(again, bars)
    again_f = replay.client("akshare").call(
        "stock_zh_a_daily", symbol="sh600519", adjust="hfq-factor"
    )
    pd.testing.assert_frame_equal(again_f, factors, check_dtype=False)
    assert list(again_f["hfq_factor"]) == ["1.0873569306774424", "1.0"]
    ts = replay.client("tushare").call("daily", trade_date="20250603")
    assert ts.to_dict("records") == [
        {"ts_code": "600519.SH", "trade_date": "20250603", "close": 1437.0, "vol": 16988.0}
    ]
