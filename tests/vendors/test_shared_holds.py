"""A refusal holds every process on the credential (issue 31, decision 59): once the vendor has
refused one process's call, another process on the same token makes no call to that endpoint
until the hold ends, instead of spending calls on refusals of its own.

Two real processes call through pitlake's live path (`build_clients`: the Tushare HTTP client,
the ResilientClient, the limiter from the environment) against the simulated vendor served on
loopback, which allows 2 `daily` calls per 60 s while pitlake is told 600 (so process A meets a
refusal). A makes 3 calls: 2 answered, the 3rd refused, and gives up there (one rate-limit
attempt: nothing of A's runs after the hold). B starts once A's hold is recorded and makes one
call. The hold is ~60 s (the vendor's window from A's first answered call), so the test waits
that long: a hold cannot be shown without waiting one out."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pandas as pd

from benchmarks.simvendor import SimClient, SimConfig, SimMarket
from benchmarks.simvendor.http import running_server
from pitlake.calendar import sessions_between
from pitlake.vendors.quota import SharedQuota, credential_key
from tests.vendors.conftest import child_result, python_child

TOKEN = "planted-secret-holds-token-9876543210"
CHILD = """
import json, sys, time
from pitlake.errors import VendorRateLimitError
from pitlake.vendors.registry import build_clients
from pitlake.vendors.retry import RetryPolicy
client = build_clients("vendors:tushare")["tushare"]
client.policy = RetryPolicy(rate_limit_attempts=1)  # a refusal ends this process's calls
out = {"started": time.time(), "refused": 0}
for day in sys.argv[1].split(","):
    try:
        client.call("daily", trade_date=day)
    except VendorRateLimitError:
        out["refused"] += 1
print(json.dumps(out))
"""


class Arrivals:
    """The simulator, noting when each call reached it (wall clock) and for which day."""

    def __init__(self, inner: SimClient) -> None:
        self.inner = inner
        self.seen: list[tuple[float, str]] = []
        self._lock = threading.Lock()

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        with self._lock:
            self.seen.append((time.time(), str(params.get("trade_date"))))
        return self.inner.call(endpoint, **params)


def test_after_a_refusal_the_other_process_waits_the_hold_out(store_url: str) -> None:
    days = [d.strftime("%Y%m%d") for d in sessions_between("2025-03-03", "2025-03-31")][:4]
    sim = Arrivals(SimClient(SimMarket(n_symbols=5), SimConfig(quota={"daily": 2})))
    key = credential_key("tushare", {"TUSHARE_TOKEN": TOKEN})
    store = SharedQuota(store_url, key, None)  # what the processes read and write
    holds = store.holds
    with running_server(sim, tokens={TOKEN}) as server:
        env = {
            **os.environ,
            "TUSHARE_TOKEN": TOKEN,
            "PITLAKE_TUSHARE_URL": server.url,
            "PITLAKE_TUSHARE_PER_MIN": "100000",
            "PITLAKE_TUSHARE_PER_MIN_DAILY": "600",  # pitlake paces above the vendor's 2
            "PITLAKE_QUOTA_URL": store_url,
        }
        a = python_child(CHILD, days[:3], env)
        deadline = time.monotonic() + 120
        while not server.replies.get("rate_limit"):  # the vendor refused A
            assert a.poll() is None, child_result(a)
            assert time.monotonic() < deadline, "process A was never refused"
            time.sleep(0.05)
        settle = time.monotonic() + 5  # A records its hold just after the refusal's reply
        while (until := holds.until("daily")) is None and time.monotonic() < settle:
            time.sleep(0.05)
        b = python_child(CHILD, days[3:], env)
        result_a, result_b = child_result(a, 240), child_result(b, 240)
        replies = dict(server.replies)
    store.close()
    assert result_a["refused"] == 1 and result_b["refused"] == 0
    assert replies == {"ok": 3, "rate_limit": 1}, replies  # B spent no call on a refusal
    assert until is not None  # the hold is in the shared store
    (b_arrived,) = [t for t, day in sim.seen if day == days[3]]
    assert result_b["started"] < until  # B was running while the hold stood…
    assert b_arrived >= until  # …and its call reached the vendor only after it ended
