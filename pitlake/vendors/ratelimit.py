"""Per-vendor rate limits: stay under the vendor's quota instead of hitting it (docs/design.md §4).

Each vendor's plugin brings its default rates (`VendorPlugin.rates`); nothing here names one.

Where the pacing state lives: a live client's limiter (`RateLimiter.for_vendor`) paces on the
credential's shared quota (`pitlake.vendors.quota`: pyrate-limiter buckets in PostgreSQL or a
SQLite file, one per token, shared by every process and host that uses it; decision 53). The
token buckets below are the per-process fallback (PITLAKE_QUOTA_URL=process) and what unit
tests drive with a fake clock. A refusal's hold is shared the same way (`pitlake.vendors.holds`,
decision 59): every process on the credential waits it out. The answered-calls log that sizes
the hold stays per process.

Tushare caps calls per endpoint per minute (≈500/min at the basic tier, ≈200/min for statements
at 2000 points); East Money and Sina block IPs that call too fast. A `RateLimiter` holds one bucket
shared by every endpoint of a vendor, plus an extra bucket for each endpoint with its own limit;
a call takes a token from both. It is thread-safe, and its clock and sleep are injectable so tests
never wait.

The rates configured are the vendor's quotas; pitlake paces `margin` below them (5 % for
Tushare), because a bucket at exactly the quota meets it: the vendor counts a call when it
arrives, and threads, latency and a busy CPU bunch arrivals that left the bucket evenly spaced
(one refusal in a 729-call peak night, benchmarks/README.md "Nightly").

When the vendor refuses anyway, `RateLimiter.refused` says how long its window needs: Tushare
names the quota (`每分钟最多访问该接口N次`), so the wait is until the N-th most recent call this
limiter saw answered has left the 60-s window (at least one quota slot, 60/N s), not a whole
window. The endpoint is held that long for every thread (and, with the shared quota, for every
process on the credential), so the others do not spend calls on refusals meanwhile. A refusal our own calls cannot explain (other processes on the token, a
daily quota) keeps the classifier's wait.

Configuration (calls per minute; 0 disables the limit):
    PITLAKE_TUSHARE_PER_MIN, PITLAKE_AKSHARE_PER_MIN            vendor-wide quota
    PITLAKE_TUSHARE_BURST, PITLAKE_AKSHARE_BURST                bucket size (calls at once)
    PITLAKE_TUSHARE_PER_MIN_<ENDPOINT>  (e.g. ..._PER_MIN_INCOME=200)   one endpoint's quota
    PITLAKE_TUSHARE_RATE_MARGIN, PITLAKE_AKSHARE_RATE_MARGIN    fraction below the quota to
                                                                pace at (0.05 = 5 %; 0 = at it)
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pitlake.errors import InvalidArgumentsError

if TYPE_CHECKING:
    from pitlake.vendors.quota import SharedQuota

Clock = Callable[[], float]
Sleep = Callable[[float], None]


@dataclass(frozen=True)
class RateConfig:
    """A vendor's quota in calls per minute, a burst size, per-endpoint quotas, and the
    fraction below the quotas to pace at."""

    per_min: float
    burst: float = 1.0
    endpoints: Mapping[str, float] = field(default_factory=dict)
    margin: float = 0.0

    @property
    def unlimited(self) -> bool:
        return self.per_min <= 0

    def paced(self, quota_per_min: float) -> float:
        """The rate the bucket runs at for a quota."""
        return quota_per_min * (1.0 - self.margin)

    def capacity(self, quota_per_min: float) -> float:
        """Tokens a bucket may bank: `burst`, and with a margin at most half of it (a
        minute's calls are then at most quota × (1 − margin/2): the other half of the margin
        absorbs calls arriving bunched). Banked tokens let callers that woke late catch up."""
        if self.margin <= 0:
            return max(1.0, min(self.burst, quota_per_min))
        return max(1.0, min(self.burst, math.floor(quota_per_min * self.margin / 2)))


# Completed calls remembered per endpoint for `RateLimiter.refused` (above any quota we meet).
SERVED_MEMORY = 2000


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
    from pitlake.vendors.plugins import find

    plugin = find(vendor)
    base = plugin.rates if plugin is not None else RateConfig(per_min=60, burst=1)
    prefix = f"PITLAKE_{vendor.upper()}_"
    per_min = _env_float(env, prefix + "PER_MIN")
    burst = _env_float(env, prefix + "BURST")
    margin = _env_float(env, prefix + "RATE_MARGIN")
    if margin is not None and margin >= 1:
        raise InvalidArgumentsError(
            f"{prefix}RATE_MARGIN={margin:g}: a fraction below 1 (0.05 paces 5 % under the quota)"
        )
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
        margin=base.margin if margin is None else margin,
    )


_EPSILON = 1e-9


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
        self._stamp = max(self._stamp, now)  # a stamp in the future (empty_until) stands

    def empty_until(self, at: float) -> None:
        """Bank nothing until `at` (a refusal's hold ends then): one token is ready at `at`,
        the next one interval later, as if the calls had been paced through the hold."""
        with self._lock:
            self._tokens = 0.0
            self._stamp = max(self._stamp, at - 1.0 / self.rate_per_sec)

    def try_acquire(self) -> float:
        """Take a token if one is free (→ 0.0); otherwise the seconds until one will be."""
        with self._lock:
            now = self._clock()
            self._refill(now)
            if self._tokens >= 1.0 - _EPSILON:  # a float refill can land a hair short of 1
                self._tokens = max(0.0, self._tokens - 1.0)
                return 0.0
            return max(0.0, self._stamp - now) + (1.0 - self._tokens) / self.rate_per_sec

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
    """One vendor's buckets: the shared one, plus one per endpoint with its own limit, each
    `config.margin` below its quota; and, per endpoint, when its recent calls were answered
    and until when a refusal holds it."""

    def __init__(
        self,
        config: RateConfig,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
        quota: SharedQuota | None = None,
    ) -> None:
        self.config = config
        self._clock = clock
        self._sleep = sleep
        # The credential's quota shared with every process and host (pitlake.vendors.quota);
        # None: the per-process buckets below pace this process alone.
        self.quota = quota
        self._shared = (
            None
            if config.unlimited or quota is not None
            else TokenBucket(
                config.paced(config.per_min),
                config.capacity(config.per_min),
                clock=clock,
                sleep=sleep,
            )
        )
        self._endpoints: dict[str, TokenBucket] = {
            name: TokenBucket(config.paced(rate), config.capacity(rate), clock=clock, sleep=sleep)
            for name, rate in config.endpoints.items()
            if rate > 0 and not config.unlimited and quota is None
        }
        self._lock = threading.Lock()
        self._served: dict[str, deque[float]] = {}
        self._held_until: dict[str, float] = {}
        self._hold_set_at: dict[str, float] = {}
        self._strikes: dict[str, int] = {}  # refusals after waiting a hold out, in a row
        self.refusals = 0  # diagnostics: refusals seen

    @classmethod
    def for_vendor(
        cls,
        vendor: str,
        env: Mapping[str, str] | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> RateLimiter:
        """The vendor's limiter as `env` (default: the process's) configures it: its quota
        shared by every process on the credential unless PITLAKE_QUOTA_URL=process."""
        from pitlake.vendors.quota import shared_quota

        config = rate_config(vendor, env)
        return cls(config, clock=clock, sleep=sleep, quota=shared_quota(vendor, config, env))

    @classmethod
    def unlimited(cls) -> RateLimiter:
        """No limit (replay: recorded answers cost nothing)."""
        return cls(RateConfig(per_min=0))

    def acquire(self, endpoint: str) -> float:
        """Wait out a refusal's hold, then for the endpoint's bucket (if it has one) and the
        vendor's; seconds waited."""
        waited = self._wait_hold(endpoint)
        if self.quota is not None:
            waited += self.quota.acquire(endpoint)
            # a hold another process placed while this one waited for the bucket: the token
            # taken stays unused until the hold ends (spent late, never early)
            return waited + self._wait_hold(endpoint)
        bucket = self._endpoints.get(endpoint.lower())
        if bucket is not None:
            waited += bucket.acquire()
        if self._shared is not None:
            waited += self._shared.acquire()
        return waited

    # ------------------------------------------------------------ refusals

    def _wait_hold(self, endpoint: str) -> float:
        waited = 0.0
        while (hold := self._hold_left(endpoint)) > 0:
            self._sleep(hold)
            waited += hold
        return waited

    def _hold_left(self, endpoint: str) -> float:
        """Seconds this endpoint is still held: by this process's refusals, and by any other
        process's on the credential when the quota is shared (`pitlake.vendors.holds`)."""
        with self._lock:
            until = self._held_until.get(endpoint.lower())
        left = 0.0 if until is None else max(0.0, until - self._clock())
        if self.quota is not None:
            left = max(left, self.quota.holds.left(endpoint))
        return left

    def served(self, endpoint: str) -> None:
        """A call to `endpoint` was answered (so the vendor counted it by now)."""
        if self.config.unlimited:
            return
        now = self._clock()
        key = endpoint.lower()
        with self._lock:
            log = self._served.setdefault(key, deque(maxlen=SERVED_MEMORY))
            log.append(now)
            self._strikes.pop(key, None)

    def now(self) -> float:
        """The limiter's clock (a call's start, for `refused`)."""
        return self._clock()

    def refused(
        self,
        endpoint: str,
        quota: tuple[int, float] | None,
        fallback: float | None,
        *,
        started: float | None = None,
    ) -> float | None:
        """The vendor refused a call to `endpoint` that started at `started`: the seconds
        until its window has room. The endpoint is held that long for every caller, and its
        bucket banks nothing meanwhile (callers released together would be refused together).

        `quota` is the vendor's (calls, window seconds) when its refusal names them. When this
        limiter saw at least half that many calls answered within the window, the refusal is
        our own calls bunching: room comes when the oldest of them leaves the window (at least
        one quota slot away). A call that started before the current hold was placed waits
        the same hold out. Two calls in a row refused after waiting a hold out, with nothing
        answered in between, mean the window is not what we think (a fixed minute, other
        clients on the token): then, as when our calls do not explain it, `fallback` (the
        classifier's whole window)."""
        if self.config.unlimited or quota is None or fallback is None:
            return fallback
        calls, window = quota
        if calls < 1 or window <= 0:
            return fallback
        now = self._clock()
        key = endpoint.lower()
        slot = window / calls
        with self._lock:
            self.refusals += 1
            set_at = self._hold_set_at.get(key)
            until = self._held_until.get(key, now)
            if set_at is not None and started is not None and started < set_at:
                return max(until - now, slot)  # concurrent with the refusal that set the hold
            waited_one_out = set_at is not None and started is not None and started >= until
            strikes = self._strikes.get(key, 0) + (1 if waited_one_out else 0)
            log = self._served.get(key) or deque()
            recent = [t for t in log if t > now - window]
            if strikes < 2 and len(recent) * 2 >= calls:
                wait = max(recent[0] + window - now, slot)
            else:
                wait = fallback
            self._strikes[key] = strikes
            self._hold_set_at[key] = now
            self._held_until[key] = max(until, now + wait)
            bucket = self._endpoints.get(key)
            if bucket is not None:
                bucket.empty_until(self._held_until[key])
            held_for = self._held_until[key] - now
        if self.quota is not None:  # every process on the credential waits it out
            self.quota.holds.hold(key, time.time() + held_for)
        return wait
