"""Each vendor's concurrency is bounded across a run's threads."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

from pitlake.errors import InvalidArgumentsError
from pitlake.vendors.registry import max_in_flight
from pitlake.vendors.retry import ResilientClient, RetryPolicy


class SlowClient:
    vendor = "tushare"

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.lock = threading.Lock()

    def call(self, endpoint: str, **params: object) -> pd.DataFrame:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        time.sleep(0.02)  # a slow vendor: overlapping calls would show in `peak`
        with self.lock:
            self.now -= 1
        return pd.DataFrame({"ts_code": ["600519.SH"]})


@pytest.mark.parametrize("bound", [1, 2])
def test_in_flight_calls_never_exceed_the_bound(bound: int) -> None:
    inner = SlowClient()
    client = ResilientClient(inner, policy=RetryPolicy.no_wait(), max_in_flight=bound)
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda _: client.call("daily"), range(12)))
    assert inner.peak == bound


def test_unbounded_client_overlaps() -> None:
    inner = SlowClient()
    client = ResilientClient(inner, policy=RetryPolicy.no_wait())
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda _: client.call("daily"), range(12)))
    assert inner.peak > 2


def test_max_in_flight_from_env() -> None:
    assert max_in_flight("tushare", {}) == 4
    assert max_in_flight("akshare", {"PITLAKE_AKSHARE_MAX_IN_FLIGHT": "3"}) == 3
    assert max_in_flight("akshare", {"PITLAKE_AKSHARE_MAX_IN_FLIGHT": "0"}) == 1
    with pytest.raises(InvalidArgumentsError, match="integer"):
        max_in_flight("tushare", {"PITLAKE_TUSHARE_MAX_IN_FLIGHT": "many"})
