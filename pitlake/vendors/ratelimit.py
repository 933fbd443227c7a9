"""Per-vendor token buckets: stay under the vendor's quota instead of hitting it (DESIGN.md §4).

Tushare caps calls per endpoint per minute (≈500/min at the basic tier, ≈200/min for statements
at 2000 points); East Money and Sina block IPs that call too fast. A `RateLimiter` holds one bucket
shared by every endpoint of a vendor, plus an extra bucket for each endpoint with its own limit;
a call takes a token from both. It is thread-safe, and its clock and sleep are injectable so tests
never wait.

Configuration (calls per minute; 0 disables the limit):
    PITLAKE_TUSHARE_PER_MIN, PITLAKE_AKSHARE_PER_MIN            vendor-wide rate
    PITLAKE_TUSHARE_BURST, PITLAKE_AKSHARE_BURST                bucket size (calls at once)
    PITLAKE_TUSHARE_PER_MIN_<ENDPOINT>  (e.g. ..._PER_MIN_INCOME=180)   one endpoint's rate
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pitlake.errors import InvalidArgumentsError

Clock = Callable[[], float]
Sleep = Callable[[float], None]


@dataclass(frozen=True)
class RateConfig:
    """Calls per minute for a vendor, a burst size, and per-endpoint overrides."""

    per_min: float
    burst: float = 1.0
    endpoints: Mapping[str, float] = field(default_factory=dict)

    @property
    def unlimited(self) -> bool:
        return self.per_min <= 0


# Below the vendors' documented quotas, so a run never meets the limit under normal use.
DEFAULT_RATES: dict[str, RateConfig] = {
    "tushare": RateConfig(
        per_min=400,
        burst=10,
        endpoints={"income": 180, "balancesheet": 180, "cashflow": 180},
    ),
    # East Money blocks after bursts; AkShare is the fallback, so slow and steady.
    "akshare": RateConfig(per_min=30, burst=3),
}


def _env_float(env: Mapping[str, str], name: str) -> float | None:
    raw = env.get(name)
    if raw is None or not raw.strip():
        return None
    try:
        value = float(raw)
    except ValueError:
        raise InvalidArgumentsError(f"{name}={raw!r}: expected a number") from None
    if value < 0:
        raise InvalidArgumentsError(f"{name}={raw!r}: must not be negative")
    return value


def rate_config(vendor: str, env: Mapping[str, str] | None = None) -> RateConfig:
    """The vendor's limits: defaults, overridden by PITLAKE_<VENDOR>_* variables."""
    env = os.environ if env is None else env
    base = DEFAULT_RATES.get(vendor, RateConfig(per_min=60, burst=1))
    prefix = f"PITLAKE_{vendor.upper()}_"
    per_min = _env_float(env, prefix + "PER_MIN")
    burst = _env_float(env, prefix + "BURST")
    endpoints = dict(base.endpoints)
    for name in list(env):
        if name.startswith(prefix + "PER_MIN_"):
            endpoint = name[len(prefix + "PER_MIN_") :].lower()
            value = _env_float(env, name)
            if endpoint and value is not None:
                endpoints[endpoint] = value
    return RateConfig(
        per_min=base.per_min if per_min is None else per_min,
        burst=base.burst if burst is None else max(burst, 1.0),
        endpoints=endpoints,
    )


class TokenBucket:
    """`rate_per_min` tokens a minute, at most `burst` banked. `acquire()` blocks until a token
    is free. Waiting happens outside the lock, so other threads are not held up by a sleeper."""

    def __init__(
        self,
        rate_per_min: float,
        burst: float = 1.0,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> None:
        if rate_per_min <= 0:
            raise InvalidArgumentsError("a token bucket needs a positive rate")
        self.rate_per_sec = rate_per_min / 60.0
        self.capacity = max(float(burst), 1.0)
        self._clock = clock
        self._sleep = sleep
        self._tokens = self.capacity
        self._stamp = clock()
        self._lock = threading.Lock()
        self.waited = 0.0  # total seconds callers spent waiting (diagnostics)

    def _refill(self, now: float) -> None:
        elapsed = max(0.0, now - self._stamp)
        self._tokens = min(self.capacity, self._tokens + elapsed * self.rate_per_sec)
        self._stamp = now

    def try_acquire(self) -> float:
        """Take a token if one is free (→ 0.0); otherwise the seconds until one will be."""
        with self._lock:
            self._refill(self._clock())
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                return 0.0
            return (1.0 - self._tokens) / self.rate_per_sec

    def acquire(self) -> float:
        """Block until a token is taken; returns the seconds waited."""
        waited = 0.0
        while (wait := self.try_acquire()) > 0:
            self._sleep(wait)
            waited += wait
        if waited:
            with self._lock:
                self.waited += waited
        return waited


class RateLimiter:
    """One vendor's buckets: the shared one, plus one per endpoint with its own limit."""

    def __init__(
        self,
        config: RateConfig,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> None:
        self.config = config
        self._shared = (
            None
            if config.unlimited
            else TokenBucket(config.per_min, config.burst, clock=clock, sleep=sleep)
        )
        self._endpoints: dict[str, TokenBucket] = {
            name: TokenBucket(rate, min(config.burst, rate), clock=clock, sleep=sleep)
            for name, rate in config.endpoints.items()
            if rate > 0 and not config.unlimited
        }

    @classmethod
    def for_vendor(
        cls,
        vendor: str,
        env: Mapping[str, str] | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> RateLimiter:
        return cls(rate_config(vendor, env), clock=clock, sleep=sleep)

    @classmethod
    def unlimited(cls) -> RateLimiter:
        """No limit (replay: recorded answers cost nothing)."""
        return cls(RateConfig(per_min=0))

    def acquire(self, endpoint: str) -> float:
        """Wait for the endpoint's bucket (if it has one) and the vendor's; seconds waited."""
        waited = 0.0
        bucket = self._endpoints.get(endpoint.lower())
        if bucket is not None:
            waited += bucket.acquire()
        if self._shared is not None:
            waited += self._shared.acquire()
        return waited
