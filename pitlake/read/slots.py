"""Bounds on concurrent heavy reads in one process (SQL statements, panels), so a burst of them
queues briefly and then is told to come back, instead of taking every core and the memory the
rest of the API needs (issue 27 item 2 for SQL; decision 60 for panels).

A bound and its queue wait are read from the environment on first use (a server sets them
before it answers); an excess call waits up to the queue wait for a slot, then is answered
RATE_LIMITED, retryable, with the wait to suggest (`meta.retry_after_s`, HTTP `Retry-After`)."""

from __future__ import annotations

import os
import threading

from pitlake.envelope import Result
from pitlake.statuses import DateStatus, ResultStatus

RETRY_AFTER_S = 1  # the Retry-After a busy answer suggests


def env_number(name: str, default: float) -> float | None:
    """The setting from the environment; 0 or a negative number turns the limit off."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if value > 0 else None


class Slots:
    """At most `$<concurrency_env>` (default `concurrency`) calls at once in this process;
    an excess call waits `$<queue_wait_env>` seconds (default `queue_wait`)."""

    def __init__(
        self, concurrency_env: str, concurrency: int, queue_wait_env: str, queue_wait: float
    ) -> None:
        self.concurrency_env, self.queue_wait_env = concurrency_env, queue_wait_env
        self._default, self._default_wait = concurrency, queue_wait
        self._sem: threading.BoundedSemaphore | None = None
        self._lock = threading.Lock()

    def acquire(self) -> bool:
        with self._lock:
            if self._sem is None:
                n = env_number(self.concurrency_env, self._default) or self._default
                self._sem = threading.BoundedSemaphore(max(1, int(n)))
        wait = env_number(self.queue_wait_env, self._default_wait) or 0.0
        return self._sem.acquire(timeout=wait)

    def release(self) -> None:
        assert self._sem is not None
        self._sem.release()

    def busy(self, what: str) -> Result:
        """The answer when no slot came free in time."""
        return retry_later(
            f"{what} is busy: every slot is taken; retry shortly, or raise "
            f"{self.concurrency_env} / {self.queue_wait_env}"
        )


def retry_later(message: str) -> Result:
    """No slot free, or interrupted by a shutdown or its caller: RATE_LIMITED, retryable, with
    the wait to suggest (`meta.retry_after_s`, HTTP `Retry-After`)."""
    return Result(
        status=ResultStatus.RATE_LIMITED,
        date_status=DateStatus.NOT_APPLICABLE,
        message=message,
        retryable=True,
        meta={"retry_after_s": RETRY_AFTER_S},
    )
