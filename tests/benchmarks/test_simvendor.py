"""The simulated vendor: deterministic data, the quota text, stale answers, injected failures."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from benchmarks.simvendor import SimClient, SimConfig, SimMarket, sim_router
from benchmarks.simvendor.client import COLUMNLESS, RATE_LIMITED, STALE, TRANSPORT
from pitlake.errors import VendorRateLimitError
from pitlake.vendors.classify import classify
from pitlake.vendors.retry import RetryPolicy

DAY = date(2024, 6, 12)
MARKET = SimMarket(n_symbols=200)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.slept += s
        self.now += s


def test_same_answers_across_clients_and_fault_seeds() -> None:
    a = SimClient(SimMarket(n_symbols=200), SimConfig(fault_seed=1))
    b = SimClient(SimMarket(n_symbols=200), SimConfig(fault_seed=99))
    for ep in ("daily", "adj_factor", "daily_basic", "top_list"):
        fa, fb = a.call(ep, trade_date="20240612"), b.call(ep, trade_date="20240612")
        pd.testing.assert_frame_equal(fa, fb)
        assert len(fa) > 0 and set(fa["trade_date"]) == {"20240612"}
    fields = "ts_code,ann_date,f_ann_date,end_date,report_type,update_flag,revenue"
    s = MARKET.symbols[3]
    pd.testing.assert_frame_equal(
        a.call("income", ts_code=s, fields=fields), b.call("income", ts_code=s, fields=fields)
    )


def test_quotes_are_consistent_and_pre_close_is_the_previous_close() -> None:
    today = MARKET.daily(DAY)
    prev = MARKET.daily(date(2024, 6, 11)).set_index("ts_code")["close"]
    assert (today["low"] <= today[["open", "close"]].min(axis=1)).all()
    assert (today["high"] >= today[["open", "close"]].max(axis=1)).all()
    joined = today.set_index("ts_code")["pre_close"]
    assert (joined == prev.reindex(joined.index)).all()
    assert today["pct_chg"].abs().max() < 10


def test_quota_answers_with_tushare_rate_limit_text() -> None:
    clock = FakeClock()
    c = SimClient(MARKET, SimConfig(quota={"daily": 3}), clock=clock, sleep=clock.sleep)
    for _ in range(3):
        c.call("daily", trade_date="20240612")
    with pytest.raises(Exception, match="每分钟最多访问该接口3次") as info:
        c.call("daily", trade_date="20240612")
    assert isinstance(classify("tushare", info.value, endpoint="daily"), VendorRateLimitError)
    clock.now += 60.5  # the window moved on
    assert len(c.call("daily", trade_date="20240612")) > 0
    assert c.log.outcomes()[RATE_LIMITED] == 1


def test_stale_answers_hold_the_previous_session() -> None:
    c = SimClient(MARKET, SimConfig(stale_rate=1.0))
    frame = c.call("daily", trade_date="20240612")
    assert set(frame["trade_date"]) == {"20240611"}
    assert c.log.outcomes() == {STALE: 1}


def test_failures_are_transport_errors_or_columnless_frames() -> None:
    import requests

    c = SimClient(MARKET, SimConfig(failure_rate=1.0))
    kinds = set()
    for _ in range(20):
        try:
            frame = c.call("adj_factor", trade_date="20240612")
            assert len(frame.columns) == 0
            kinds.add(COLUMNLESS)
        except requests.exceptions.ConnectionError:
            kinds.add(TRANSPORT)
    assert kinds == {TRANSPORT, COLUMNLESS}


def test_latency_goes_through_the_injected_sleep() -> None:
    clock = FakeClock()
    c = SimClient(MARKET, SimConfig(latency=0.15), clock=clock, sleep=clock.sleep)
    c.call("trade_cal", exchange="SSE", start_date="20240601", end_date="20240630")
    assert clock.slept == pytest.approx(0.15)


def test_pitlake_router_serves_a_session_from_the_simulator() -> None:
    from pitlake.calendar import now_beijing
    from pitlake.vendors.base import FetchRequest

    c = SimClient(MARKET, SimConfig(failure_rate=0.0))
    router = sim_router(c, policy=RetryPolicy.no_wait())
    got = router.route(FetchRequest("quotes", trade_date=DAY), now_beijing())
    assert got.ok and len(got.frame) == MARKET.listed_mask(DAY).sum()
    assert c.log.counts() == {"daily": 1}
