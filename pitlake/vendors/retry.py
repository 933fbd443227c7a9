"""In-call retries driven by the error type (docs/design.md §4), and the client wrapper that applies them.

- `VendorRateLimitError` → retried, waiting `retry_after` when the vendor says how long, else
  exponential backoff with jitter; a wait that would overrun the call's time budget ends the
  retries at once (Tushare's hourly window), and a non-retryable one (a spent daily quota) is
  never retried.
- a plain `VendorError` with `retryable=True` (transport, timeout, 5xx) → retried a few times.
- not configured, permission, no data, not ready, invalid arguments → never retried in-call
  (not-ready is retried later, at flow level).

`ResilientClient` wraps any `VendorClient`: it classifies native exceptions, takes a token from
the vendor's rate limiter before every attempt, retries per the policy, and reports each call's
attempts to the `AttemptLog` the router opened with `recording()`.
"""

from __future__ import annotations

import contextvars
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pandas as pd
from tenacity import RetryCallState, Retrying, retry_if_exception

from pitlake.errors import (
    DataNotReadyError,
    NoMarketDataError,
    PitlakeError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.base import VendorClient
from pitlake.vendors.classify import check_reply, classify
from pitlake.vendors.ratelimit import Clock, RateLimiter, Sleep

T = TypeVar("T")

_NEVER_IN_CALL: tuple[type[VendorError], ...] = (
    VendorNotConfiguredError,
    VendorPermissionError,
    NoMarketDataError,
    DataNotReadyError,
)


@dataclass
class RetryPolicy:
    """How often and how long to retry one vendor call. Waits go through `sleep` (tests pass a
    no-op or a fake clock's sleep), jitter through `random`, elapsed time through `clock`."""

    max_attempts: int = 3  # plain retryable VendorError
    rate_limit_attempts: int = 4
    base_wait: float = 1.0  # first backoff for a plain error, doubled per attempt
    rate_limit_base_wait: float = 5.0  # first backoff for a rate limit without retry_after
    max_backoff: float = 60.0  # cap on one backoff wait (retry_after is honoured as given)
    max_total_wait: float = 150.0  # budget for one call: a wait past it stops the retries
    sleep: Sleep = time.sleep
    clock: Clock = time.monotonic
    random: Callable[[], float] = random.random

    @classmethod
    def no_wait(cls, **kw: Any) -> RetryPolicy:
        """Same decisions, no real waiting (tests, replay)."""
        return cls(sleep=lambda _s: None, **kw)

    def should_retry(self, exc: BaseException) -> bool:
        return (
            isinstance(exc, VendorError)
            and not isinstance(exc, _NEVER_IN_CALL)
            and bool(exc.retryable)
        )

    def attempts_for(self, exc: BaseException) -> int:
        return (
            self.rate_limit_attempts if isinstance(exc, VendorRateLimitError) else self.max_attempts
        )

    def wait_for(self, exc: BaseException, attempt: int) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        if isinstance(exc, VendorRateLimitError) and exc.retry_after is not None:
            return max(0.0, float(exc.retry_after))
        base = (
            self.rate_limit_base_wait if isinstance(exc, VendorRateLimitError) else self.base_wait
        )
        backoff = min(self.max_backoff, base * 2 ** (attempt - 1))
        return backoff * (0.5 + 0.5 * self.random())  # "equal jitter": never below half

    def run(self, fn: Callable[[], T]) -> T:
        """Call `fn` until it succeeds or the policy gives up; re-raises the last error."""
        started = self.clock()

        def wait(rs: RetryCallState) -> float:
            return self.wait_for(rs.outcome.exception(), rs.attempt_number)

        def stop(rs: RetryCallState) -> bool:
            exc = rs.outcome.exception()
            if rs.attempt_number >= self.attempts_for(exc):
                return True
            spent = max(rs.idle_for, self.clock() - started)
            return spent + rs.upcoming_sleep > self.max_total_wait

        retrying = Retrying(
            retry=retry_if_exception(self.should_retry),
            wait=wait,
            stop=stop,
            sleep=self.sleep,
            reraise=True,
        )
        return retrying(fn)


# ---------------------------------------------------------------- attempt recording


@dataclass(frozen=True)
class CallRecord:
    """One logical vendor call: how many attempts it took and how it ended."""

    vendor: str
    endpoint: str
    attempts: int
    error_type: str | None = None  # None = answered
    message: str = ""


@dataclass
class AttemptLog:
    """The calls made while it was open (see `recording()`)."""

    calls: list[CallRecord] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, record: CallRecord) -> None:
        with self._lock:
            self.calls.append(record)

    def attempts(self, vendor: str | None = None) -> int:
        with self._lock:
            return sum(c.attempts for c in self.calls if vendor in (None, c.vendor))


_current_log: contextvars.ContextVar[AttemptLog | None] = contextvars.ContextVar(
    "pitlake_attempt_log", default=None
)


@contextmanager
def recording() -> Iterator[AttemptLog]:
    """Collect the CallRecords of every ResilientClient call made in this context."""
    log = AttemptLog()
    token = _current_log.set(log)
    try:
        yield log
    finally:
        _current_log.reset(token)


# ---------------------------------------------------------------- the wrapper


class ResilientClient:
    """A VendorClient that classifies, rate-limits and retries another VendorClient."""

    def __init__(
        self,
        inner: VendorClient,
        bucket: RateLimiter | None = None,
        policy: RetryPolicy | None = None,
        max_in_flight: int | None = None,
    ) -> None:
        self.inner = inner
        self.vendor = inner.vendor
        self.bucket = bucket or RateLimiter.unlimited()
        self.policy = policy or RetryPolicy()
        self._lock = threading.Lock()
        # Bounds concurrent calls to this vendor across a run's threads (None: unbounded).
        self._in_flight = threading.BoundedSemaphore(max_in_flight) if max_in_flight else None
        self.calls = 0
        self.attempts = 0
        # (calls, window) a refusal's text names, read by the vendor's plugin (if it has one)
        self._quota_of = _quota_reader(self.vendor)

    def __repr__(self) -> str:
        return f"ResilientClient({self.inner!r})"

    def _typed(self, exc: BaseException, endpoint: str) -> PitlakeError:
        return classify(self.vendor, exc, endpoint=endpoint)

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        attempts = 0

        def once() -> pd.DataFrame:
            nonlocal attempts
            self.bucket.acquire(endpoint)
            started = self.bucket.now()
            attempts += 1
            try:
                if self._in_flight is None:
                    frame = self.inner.call(endpoint, **params)
                else:
                    with self._in_flight:
                        frame = self.inner.call(endpoint, **params)
            except Exception as exc:
                err = self._typed(exc, endpoint)
                if isinstance(err, VendorNotConfiguredError):
                    attempts -= 1  # nothing was asked of the vendor
                if isinstance(err, VendorRateLimitError) and err.retryable:
                    # wait only as long as the vendor's window needs (ratelimit.py)
                    err.retry_after = self.bucket.refused(
                        endpoint, self._quota_of(err.message), err.retry_after, started=started
                    )
                if err is exc:
                    raise
                raise err from exc
            self.bucket.served(endpoint)
            return check_reply(self.vendor, endpoint, frame)

        try:
            ensure = getattr(self.inner, "ensure_configured", None)
            if ensure is not None:  # a missing token or library costs no token and no wait
                try:
                    ensure(endpoint)
                except Exception as exc:
                    err = self._typed(exc, endpoint)
                    if err is exc:
                        raise
                    raise err from exc
            frame = self.policy.run(once)
        except Exception as err:
            self._record(endpoint, attempts, err)
            raise
        self._record(endpoint, attempts, None)
        return frame

    def _record(self, endpoint: str, attempts: int, err: BaseException | None) -> None:
        with self._lock:
            self.calls += 1
            self.attempts += attempts
        log = _current_log.get()
        if log is not None:
            log.add(
                CallRecord(
                    vendor=self.vendor,
                    endpoint=endpoint,
                    attempts=attempts,
                    error_type=None if err is None else type(err).__name__,
                    message="" if err is None else str(err),
                )
            )


def _no_quota(_message: str) -> tuple[int, float] | None:
    return None


def _quota_reader(vendor: str) -> Callable[[str], tuple[int, float] | None]:
    from pitlake.vendors.plugins import find

    plugin = find(vendor)
    return (plugin.quota_of if plugin is not None else None) or _no_quota
