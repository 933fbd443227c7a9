"""Statement limits for point-in-time SQL: a wall-clock timeout, caps on an answer's rows and
bytes, and a bound on concurrent statements (issue 27 item 2).

DuckDB has no statement timeout of its own, so a watchdog timer calls `con.interrupt()` when
the statement runs past its time; the statement then raises `duckdb.InterruptException` and
the core is freed. The answer's rows are fetched in batches and refused past either cap (one
batch past it at most is ever held), so a huge answer is never built before it is refused.

Defaults come from the environment (PITLAKE_SQL_TIMEOUT seconds, PITLAKE_SQL_MAX_ROWS,
PITLAKE_SQL_MAX_BYTES of Arrow memory), and `Lake.sql(..., timeout=, max_rows=, max_bytes=)`
overrides them per call; `pitlake sql` and `pitlake serve` take them as options.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import duckdb
import pyarrow as pa

from pitlake.envelope import Result
from pitlake.read.slots import Slots, retry_later
from pitlake.read.slots import env_number as _env_number

TIMEOUT_ENV = "PITLAKE_SQL_TIMEOUT"
MAX_ROWS_ENV = "PITLAKE_SQL_MAX_ROWS"
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_ROWS = 1_000_000
MAX_BYTES_ENV = "PITLAKE_SQL_MAX_BYTES"
DEFAULT_MAX_BYTES = 256 * 1024 * 1024  # of Arrow memory; a JSON answer is a few times that
CONCURRENCY_ENV = "PITLAKE_SQL_CONCURRENCY"
QUEUE_WAIT_ENV = "PITLAKE_SQL_QUEUE_WAIT"
DEFAULT_CONCURRENCY = 2
DEFAULT_QUEUE_WAIT = 5.0
_BATCH_ROWS = 65_536


class StatementTimeout(Exception):
    """The statement ran past its timeout and was interrupted."""


class TooManyRows(Exception):
    """The answer has more rows than the cap; no more than cap+1 were fetched."""


class AnswerTooLarge(Exception):
    """The answer's Arrow batches passed the byte cap; fetching stopped there."""


@dataclass(frozen=True)
class Limits:
    """A statement's timeout (seconds, None: none) and row cap (None: none)."""

    timeout: float | None
    max_rows: int | None
    cancel: threading.Event | None = field(default=None, compare=False)  # set: interrupt
    max_bytes: int | None = None

    def timeout_message(self) -> str:
        return (
            f"SQL statement interrupted after its timeout of {self.timeout:g} s; narrow it "
            f"(a smaller date range, fewer symbols) or raise the limit ({TIMEOUT_ENV}, "
            "Lake.sql(..., timeout=...))"
        )

    def rows_message(self) -> str:
        return (
            f"SQL answer has more than {self.max_rows} rows (the cap); page it with "
            f"LIMIT {self.max_rows} OFFSET n, aggregate it, or raise the cap ({MAX_ROWS_ENV}, "
            "Lake.sql(..., max_rows=...))"
        )

    def bytes_message(self) -> str:
        return (
            f"SQL answer is larger than {self.max_bytes / 2**20:g} MiB (the cap); select "
            "fewer columns, page it with LIMIT n OFFSET m, ask for --format parquet / "
            f"Accept: application/vnd.apache.parquet over fewer rows, or raise the cap "
            f"({MAX_BYTES_ENV}, Lake.sql(..., max_bytes=...))"
        )


def limits(
    timeout: float | None = None,
    max_rows: int | None = None,
    cancel: threading.Event | None = None,
    max_bytes: int | None = None,
) -> Limits:
    """The limits for one statement: the call's own, else the environment's, else defaults
    (0 or less, given or set, turns a limit off)."""
    t = timeout if timeout is not None else _env_number(TIMEOUT_ENV, DEFAULT_TIMEOUT)
    m = max_rows if max_rows is not None else _env_number(MAX_ROWS_ENV, DEFAULT_MAX_ROWS)
    b = max_bytes if max_bytes is not None else _env_number(MAX_BYTES_ENV, DEFAULT_MAX_BYTES)
    return Limits(
        timeout=t if t is not None and t > 0 else None,
        max_rows=int(m) if m is not None and m > 0 else None,
        cancel=cancel,
        max_bytes=int(b) if b is not None and b > 0 else None,
    )


class StatementInterrupted(Exception):
    """The statement was interrupted before its end: its caller gave up (an HTTP client
    that disconnected, a `cancel` event set) or the process is shutting down."""


class _Watch:
    """One running statement: interrupted past its deadline, when its `cancel` event is set,
    or by `interrupt_all` (shutdown). A thread polls every POLL_S until the statement ends."""

    def __init__(self, con: duckdb.DuckDBPyConnection, lim: Limits) -> None:
        self.con, self.lim = con, lim
        self.reason: str | None = None  # why it was interrupted: "timeout" | "cancel" | "shutdown"
        self.done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="pitlake-sql-watch", daemon=True)

    def __enter__(self) -> _Watch:
        with _RUNNING_LOCK:
            _RUNNING.add(self)
        if self.lim.timeout is not None or self.lim.cancel is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        with _RUNNING_LOCK:
            _RUNNING.discard(self)

    def interrupt(self, reason: str) -> None:
        if self.reason is None and not self.done.is_set():
            self.reason = reason
            self.con.interrupt()

    def _watch(self) -> None:
        deadline = time.monotonic() + self.lim.timeout if self.lim.timeout else None
        while not self.done.wait(POLL_S):
            if self.lim.cancel is not None and self.lim.cancel.is_set():
                self.interrupt("cancel")
                return
            if deadline is not None and time.monotonic() >= deadline:
                self.interrupt("timeout")
                return

    def error(self, e: BaseException) -> Exception | None:
        """The typed error for a DuckDB error this watch caused (None: not ours)."""
        if self.reason == "timeout":
            return StatementTimeout(self.lim.timeout_message())
        if self.reason == "cancel":
            return StatementInterrupted("SQL statement cancelled by its caller")
        if self.reason == "shutdown":
            return StatementInterrupted("SQL statement interrupted: the server is shutting down")
        return None


POLL_S = 0.05
_RUNNING: set[_Watch] = set()
_RUNNING_LOCK = threading.Lock()


def interrupt_all() -> int:
    """Interrupt every statement running in this process (a server's SIGTERM: it exits in
    moments instead of waiting for them); how many were."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for w in running:
        w.interrupt("shutdown")
    return len(running)


def limited_rows(con: duckdb.DuckDBPyConnection, query: str, lim: Limits) -> pa.Table:
    """The statement's rows under `lim`: StatementTimeout past the timeout, TooManyRows past
    the row cap, StatementInterrupted when cancelled or shut down (the statement is
    interrupted at once: DuckDB frees the core)."""
    with _Watch(con, lim) as watch:
        try:
            rel = con.sql(query)
            if rel is None:
                return pa.table({})
            reader = rel.fetch_record_batch(_BATCH_ROWS)
            batches: list[pa.RecordBatch] = []
            count = size = 0
            for batch in reader:
                count += batch.num_rows
                size += batch.get_total_buffer_size()
                if lim.max_rows is not None and count > lim.max_rows:
                    raise TooManyRows(lim.rows_message())
                if lim.max_bytes is not None and size > lim.max_bytes:
                    raise AnswerTooLarge(lim.bytes_message())
                batches.append(batch)
            return pa.Table.from_batches(batches, schema=reader.schema)
        except duckdb.Error as e:  # an interrupt surfaces as InterruptException, or another
            typed = watch.error(e)
            if typed is not None:
                raise typed from e
            raise


T = TypeVar("T")


def sql_slots() -> Slots:
    """At most PITLAKE_SQL_CONCURRENCY statements at once in this process (read once), so
    the rest of the API keeps a core; an excess statement waits PITLAKE_SQL_QUEUE_WAIT."""
    return Slots(CONCURRENCY_ENV, DEFAULT_CONCURRENCY, QUEUE_WAIT_ENV, DEFAULT_QUEUE_WAIT)


SLOTS = sql_slots()


def under_limits(work: Callable[[], T]) -> T | Result:
    """`work` (one statement) run in a statement slot; a limit it reaches becomes the answer:
    past the timeout or a cap INVALID_ARGUMENTS naming it, no slot or interrupted
    RATE_LIMITED."""
    if not SLOTS.acquire():
        return SLOTS.busy("SQL")
    try:
        return work()
    except (StatementTimeout, TooManyRows, AnswerTooLarge) as e:
        return Result.invalid(str(e))
    except StatementInterrupted as e:
        return retry_later(str(e))
    finally:
        SLOTS.release()
