"""Retry policy by error type, token buckets on a fake clock, and the ResilientClient wrapper."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

from pitlake.errors import (
    DataNotReadyError,
    InvalidArgumentsError,
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.ratelimit import RateConfig, RateLimiter, TokenBucket, rate_config
from pitlake.vendors.retry import ResilientClient, RetryPolicy, recording

RATE_TEXT = "抱歉，您每分钟最多访问该接口500次，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。"


class Flaky:
    """Raises the given errors in turn, then returns `result`; counts calls."""

    def __init__(self, errors, result="ok"):
        self.errors = list(errors)
        self.result = result
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return self.result


def policy_on(clock, **kw) -> RetryPolicy:
    return RetryPolicy(sleep=clock.sleep, clock=clock, random=lambda: 1.0, **kw)


# ---------------------------------------------------------------- policy


def test_rate_limit_is_retried_honouring_retry_after(clock):
    fn = Flaky([VendorRateLimitError("slow down", retry_after=60)] * 2)
    assert policy_on(clock).run(fn) == "ok"
    assert fn.calls == 3
    assert clock.sleeps == [60, 60]


def test_rate_limit_without_retry_after_backs_off_exponentially_with_jitter(clock):
    fn = Flaky([VendorRateLimitError("429")] * 10)
    policy = RetryPolicy(
        sleep=clock.sleep,
        clock=clock,
        random=lambda: 0.0,
        rate_limit_attempts=4,
        rate_limit_base_wait=5,
    )
    with pytest.raises(VendorRateLimitError):
        policy.run(fn)
    assert fn.calls == 4
    assert clock.sleeps == [2.5, 5.0, 10.0]  # 5·2ⁿ, jitter at its floor (half)
    jittered = RetryPolicy(random=lambda: 0.5, rate_limit_base_wait=5)
    assert jittered.wait_for(VendorRateLimitError("429"), 2) == pytest.approx(7.5)


def test_a_wait_beyond_the_budget_ends_retries_at_once(clock):
    fn = Flaky([VendorRateLimitError("hourly", retry_after=3600)] * 3)
    with pytest.raises(VendorRateLimitError):
        policy_on(clock, max_total_wait=150).run(fn)
    assert fn.calls == 1
    assert clock.sleeps == []


def test_total_wait_is_bounded(clock):
    fn = Flaky([VendorRateLimitError("per minute", retry_after=60)] * 5)
    with pytest.raises(VendorRateLimitError):
        policy_on(clock, max_total_wait=100, rate_limit_attempts=10).run(fn)
    assert clock.sleeps == [60]  # a second 60 s wait would pass 100 s
    assert fn.calls == 2


def test_spent_daily_quota_is_not_retried(clock):
    fn = Flaky([VendorRateLimitError("daily", retry_after=None, retryable=False)])
    with pytest.raises(VendorRateLimitError):
        policy_on(clock).run(fn)
    assert fn.calls == 1


def test_plain_errors_are_retried_a_few_times(clock):
    fn = Flaky([VendorError("reset")] * 10)
    with pytest.raises(VendorError):
        policy_on(clock, max_attempts=3, base_wait=1).run(fn)
    assert fn.calls == 3
    assert clock.sleeps == [1, 2]
    recovered = Flaky([VendorError("reset")])
    assert policy_on(clock).run(recovered) == "ok" and recovered.calls == 2


@pytest.mark.parametrize(
    "error",
    [
        VendorNotConfiguredError("no token"),
        VendorPermissionError("no right"),
        NoMarketDataError("no rows"),
        DataNotReadyError("later"),
        InvalidArgumentsError("bad symbol"),
        VendorError("schema changed", retryable=False),
        KeyError("not even typed"),
    ],
)
def test_these_are_never_retried_in_call(clock, error):
    fn = Flaky([error] * 3)
    with pytest.raises(type(error)):
        policy_on(clock).run(fn)
    assert fn.calls == 1
    assert clock.sleeps == []


def test_no_wait_policy_keeps_the_decisions_but_never_sleeps():
    fn = Flaky([VendorRateLimitError("x", retry_after=60)] * 2)
    assert RetryPolicy.no_wait().run(fn) == "ok"
    assert fn.calls == 3


# ---------------------------------------------------------------- token bucket


def test_bucket_allows_a_burst_then_paces(clock):
    bucket = TokenBucket(60, burst=2, clock=clock, sleep=clock.sleep)  # one a second
    assert bucket.acquire() == 0
    assert bucket.acquire() == 0
    assert bucket.acquire() == pytest.approx(1.0)
    assert bucket.acquire() == pytest.approx(1.0)
    clock.now += 10  # idle: refills up to the burst only
    assert [bucket.acquire() for _ in range(3)] == pytest.approx([0, 0, 1.0])
    assert sum(clock.sleeps) == pytest.approx(3.0)


def test_bucket_is_thread_safe(clock):
    bucket = TokenBucket(1, burst=10, clock=clock, sleep=clock.sleep)  # no refill to speak of
    got = []
    lock = threading.Lock()

    def grab():
        for _ in range(5):
            if bucket.try_acquire() == 0:
                with lock:
                    got.append(1)

    threads = [threading.Thread(target=grab) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 10


def test_limiter_applies_endpoint_and_vendor_buckets(clock):
    limiter = RateLimiter(
        RateConfig(per_min=120, burst=2, endpoints={"income": 60}), clock=clock, sleep=clock.sleep
    )
    assert limiter.acquire("income") == 0
    assert limiter.acquire("income") == 0
    assert limiter.acquire("income") == pytest.approx(1.0)  # its own bucket: 1/s
    assert limiter.acquire("daily") == 0  # the shared 2/s bucket refilled meanwhile
    assert limiter.acquire("daily") == pytest.approx(0.5)  # …and is now empty
    assert RateLimiter.unlimited().acquire("daily") == 0


def test_rate_config_from_environment():
    env = {
        "PITLAKE_TUSHARE_PER_MIN": "100",
        "PITLAKE_TUSHARE_BURST": "4",
        "PITLAKE_TUSHARE_PER_MIN_DAILY": "50",
    }
    cfg = rate_config("tushare", env)
    assert cfg.per_min == 100 and cfg.burst == 4
    assert cfg.endpoints["daily"] == 50
    assert cfg.endpoints["income"] == 200  # default quota kept
    assert cfg.margin == 0.05  # Tushare is paced 5 % below its quotas unless told otherwise
    assert rate_config("akshare", {}).per_min == 30
    assert rate_config("akshare", {"PITLAKE_AKSHARE_PER_MIN": "0"}).unlimited
    with pytest.raises(InvalidArgumentsError):
        rate_config("akshare", {"PITLAKE_AKSHARE_PER_MIN": "fast"})


# ---------------------------------------------------------------- ResilientClient


class ScriptedClient:
    """A raw client that raises native failures in turn, then answers."""

    def __init__(self, vendor, failures, frame=None):
        self.vendor = vendor
        self.failures = list(failures)
        self.frame = frame if frame is not None else pd.DataFrame({"ts_code": ["600519.SH"]})
        self.calls: list[tuple[str, dict]] = []

    def call(self, endpoint, **params):
        self.calls.append((endpoint, params))
        if self.failures:
            raise self.failures.pop(0)
        return self.frame


class CountingLimiter(RateLimiter):
    def __init__(self):
        super().__init__(RateConfig(per_min=0))
        self.taken: list[str] = []

    def acquire(self, endpoint: str) -> float:
        self.taken.append(endpoint)
        return 0.0


def test_resilient_client_classifies_native_failures_and_retries():
    inner = ScriptedClient("tushare", [Exception(RATE_TEXT), Exception("系统内部错误")])
    limiter = CountingLimiter()
    client = ResilientClient(inner, limiter, RetryPolicy.no_wait())
    with recording() as log:
        frame = client.call("daily", trade_date="20250603")
    assert list(frame["ts_code"]) == ["600519.SH"]
    assert len(inner.calls) == 3
    assert limiter.taken == ["daily"] * 3  # one token per attempt
    assert [(c.endpoint, c.attempts, c.error_type) for c in log.calls] == [("daily", 3, None)]
    assert client.attempts == 3 and client.calls == 1


def test_resilient_client_reports_the_typed_error_and_attempts():
    inner = ScriptedClient("tushare", [Exception(RATE_TEXT)] * 10)
    policy = RetryPolicy.no_wait(rate_limit_attempts=4, max_total_wait=1000)
    client = ResilientClient(inner, policy=policy)
    with recording() as log, pytest.raises(VendorRateLimitError) as caught:
        client.call("daily", trade_date="20250603")
    assert isinstance(caught.value.__cause__, Exception)
    assert str(caught.value.__cause__) == RATE_TEXT
    assert log.calls[0].attempts == 4
    assert log.calls[0].error_type == "VendorRateLimitError"


def test_column_less_frame_is_no_data_and_not_retried():
    inner = ScriptedClient("akshare", [], frame=pd.DataFrame())
    client = ResilientClient(inner, policy=RetryPolicy.no_wait())
    with pytest.raises(NoMarketDataError):
        client.call("stock_zh_a_hist", symbol="600519")
    assert len(inner.calls) == 1


def test_not_configured_costs_no_call_and_no_token():
    class NoToken(ScriptedClient):
        def ensure_configured(self, endpoint):
            raise VendorNotConfiguredError("no Tushare token")

    inner = NoToken("tushare", [])
    limiter = CountingLimiter()
    client = ResilientClient(inner, limiter, RetryPolicy.no_wait())
    with recording() as log, pytest.raises(VendorNotConfiguredError):
        client.call("daily", trade_date="20250603")
    assert inner.calls == [] and limiter.taken == []
    assert log.calls[0].attempts == 0


def test_recording_is_scoped():
    client = ResilientClient(ScriptedClient("akshare", []), policy=RetryPolicy.no_wait())
    with recording() as outer:
        client.call("a")
        with recording() as inner:
            client.call("b")
        client.call("c")
    assert [c.endpoint for c in outer.calls] == ["a", "c"]
    assert [c.endpoint for c in inner.calls] == ["b"]
    client.call("outside")  # no log open: nothing to record into, no error


# ---------------------------------------------------------------- pacing below the quota


def test_buckets_run_the_margin_below_the_quota(clock):
    shared = RateLimiter(
        RateConfig(per_min=60, burst=1, margin=0.5), clock=clock, sleep=clock.sleep
    )
    assert shared.acquire("daily") == 0
    assert shared.acquire("daily") == pytest.approx(2.0)  # 60/min quota paced at 30/min
    own = RateLimiter(
        RateConfig(per_min=6000, burst=1, endpoints={"income": 30}, margin=0.5),
        clock=clock,
        sleep=clock.sleep,
    )
    assert own.acquire("income") == 0
    assert own.acquire("income") == pytest.approx(4.0)  # 30/min quota paced at 15/min


def test_rate_margin_from_environment():
    assert rate_config("tushare", {"PITLAKE_TUSHARE_RATE_MARGIN": "0.1"}).margin == 0.1
    assert rate_config("tushare", {"PITLAKE_TUSHARE_RATE_MARGIN": "0"}).margin == 0
    assert rate_config("akshare", {}).margin == 0  # pitlake's own rates: nothing to keep under
    for bad in ("1", "1.5", "-0.1", "five"):
        with pytest.raises(InvalidArgumentsError):
            rate_config("tushare", {"PITLAKE_TUSHARE_RATE_MARGIN": bad})


def limiter_with_answers(clock, times, endpoint="income"):
    """A limiter that saw calls to `endpoint` answered at these clock times."""
    limiter = RateLimiter(RateConfig(per_min=1000, burst=1000), clock=clock, sleep=clock.sleep)
    for t in times:
        clock.now = t
        limiter.served(endpoint)
    return limiter


def test_a_refusal_waits_until_the_oldest_answered_call_leaves_the_window(clock):
    limiter = limiter_with_answers(clock, [1000 + 5 * i for i in range(10)])  # 1000..1045
    clock.now = 1050
    assert limiter.refused("income", (10, 60.0), 60.0, started=1049.8) == pytest.approx(10.0)
    assert limiter.acquire("income") == pytest.approx(10.0)  # every caller is held meanwhile
    assert limiter.acquire("daily") == 0  # other endpoints are not


def test_a_refusal_waits_at_least_one_quota_slot(clock):
    limiter = limiter_with_answers(clock, [1000 + 5 * i for i in range(10)])
    clock.now = 1059.9  # the oldest call leaves in 0.1 s, but the vendor may count later
    assert limiter.refused("income", (10, 60.0), 60.0, started=1059.0) == pytest.approx(6.0)


def test_calls_refused_alongside_share_the_hold(clock):
    limiter = limiter_with_answers(clock, [1000 + 5 * i for i in range(10)])
    clock.now = 1050
    assert limiter.refused("income", (10, 60.0), 60.0, started=1049.9) == pytest.approx(10.0)
    clock.now = 1051  # a call that was already on its way when the hold was placed
    assert limiter.refused("income", (10, 60.0), 60.0, started=1049.95) == pytest.approx(9.0)


def test_refused_twice_after_waiting_holds_out_waits_the_whole_window(clock):
    limiter = limiter_with_answers(clock, [1000 + 5 * i for i in range(10)])
    clock.now = 1050
    limiter.refused("income", (10, 60.0), 60.0, started=1049.9)  # held until 1060
    clock.now = 1060.5  # waited it out, refused again: estimate once more (one strike)
    assert limiter.refused("income", (10, 60.0), 60.0, started=1060.2) == pytest.approx(6.0)
    clock.now = 1067  # and again, nothing answered: a fixed minute, or other clients
    assert limiter.refused("income", (10, 60.0), 60.0, started=1066.6) == 60.0
    clock.now = 1068
    limiter.served("income")  # an answer clears the strikes
    clock.now = 1130
    limiter.refused("income", (10, 60.0), 60.0, started=1129)
    assert limiter._strikes["income"] == 1  # one strike: it waited the 60-s hold out


def test_a_hold_banks_no_tokens_so_callers_are_not_released_together(clock):
    limiter = RateLimiter(
        RateConfig(per_min=100_000, burst=10, endpoints={"income": 200}, margin=0.05),
        clock=clock,
        sleep=clock.sleep,
    )
    for i in range(10):
        clock.now = 1000 + 5 * i
        limiter.served("income")
    clock.now = 1050
    assert limiter.refused("income", (10, 60.0), 60.0, started=1049.9) == pytest.approx(10.0)
    clock.now = 1050.1
    waits = [limiter.acquire("income") for _ in range(3)]
    assert sum(waits[:1]) == pytest.approx(9.9)  # the first goes when the hold ends
    assert waits[1:] == [pytest.approx(60 / 190)] * 2  # the rest paced, not a banked rush


def test_a_refusal_our_calls_do_not_explain_keeps_the_classifiers_wait(clock):
    limiter = limiter_with_answers(clock, [1000, 1010])  # 2 calls, the quota is 10
    clock.now = 1020
    assert limiter.refused("income", (10, 60.0), 60.0, started=1019) == 60.0
    assert limiter.refused("income", None, 60.0) == 60.0  # no quota named
    assert RateLimiter.unlimited().refused("income", (10, 60.0), 60.0) == 60.0  # replay


class SlidingWindowVendor:
    """A vendor admitting `quota` calls per sliding 60 s on the fake clock, answering its
    refusals with Tushare's text; each call takes `latency` on the clock."""

    vendor = "tushare"

    def __init__(self, clock, quota, latency):
        self.clock, self.quota, self.latency = clock, quota, latency
        self.admitted: list[float] = []
        self.outcomes: list[str] = []

    def call(self, endpoint, **params):
        self.clock.sleep(self.latency)
        now = self.clock()
        recent = [t for t in self.admitted if t > now - 60]
        if len(recent) >= self.quota:
            self.outcomes.append("refused")
            raise Exception(f"抱歉，您每分钟最多访问该接口{self.quota}次，权限的具体详情访问：…")
        self.admitted.append(now)
        self.outcomes.append("ok")
        return pd.DataFrame({"ts_code": ["600519.SH"]})


def test_one_refusal_costs_the_windows_need_not_a_minute(clock):
    vendor = SlidingWindowVendor(clock, quota=10, latency=5.0)
    # pitlake's bucket at the quota with no margin, as in the benchmark before: one call in
    # 10 arrives early (here: the vendor counted one more than the bucket released)
    limiter = RateLimiter(
        RateConfig(per_min=1000, endpoints={"income": 1000}), clock=clock, sleep=clock.sleep
    )
    client = ResilientClient(vendor, limiter, RetryPolicy(sleep=clock.sleep, clock=clock))
    for _ in range(10):
        client.call("income", ts_code="600519.SH")  # answered at 1005, 1010, …, 1050
    assert vendor.outcomes == ["ok"] * 10
    slept = len(clock.sleeps)
    client.call("income", ts_code="600519.SH")  # refused at 1055, then served
    assert vendor.outcomes[10:] == ["refused", "ok"]
    waits = [s for s in clock.sleeps[slept:] if s != vendor.latency]
    assert waits == [pytest.approx(10.0)]  # until 1005's call left the window, not 60 s


def test_with_a_margin_a_bucket_banks_half_of_it_and_a_minute_stays_under_the_quota(clock):
    config = RateConfig(per_min=100_000, burst=10, endpoints={"income": 200}, margin=0.05)
    limiter = RateLimiter(config, clock=clock, sleep=clock.sleep)
    assert [limiter.acquire("income") for _ in range(5)] == [0] * 5  # 200 × 5 % / 2 banked
    assert limiter.acquire("income") == pytest.approx(60 / 190)
    start, calls = clock.now, 6
    while clock.now + limiter.acquire("income") < start + 60:
        calls += 1
    # greedy callers in any minute: the banked 5, 190 paced, and the fencepost; never 200
    assert calls <= 5 + 190 + 1 < 200
    assert RateConfig(per_min=200, burst=1, margin=0.05).capacity(200) == 1  # burst still caps
