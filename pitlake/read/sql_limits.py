"""Statement limits for point-in-time SQL: a wall-clock timeout and a row cap (issue 27 item 2).

DuckDB has no statement timeout of its own, so a watchdog timer calls `con.interrupt()` when
the statement runs past its time; the statement then raises `duckdb.InterruptException` and
the core is freed. The answer's rows are fetched in batches and refused past the cap (cap+1
rows at most are ever held), so a huge answer is never built before it is refused.

Defaults come from the environment (PITLAKE_SQL_TIMEOUT seconds, PITLAKE_SQL_MAX_ROWS), and
`Lake.sql(..., timeout=, max_rows=)` overrides them per call.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import duckdb
import pyarrow as pa

TIMEOUT_ENV = "PITLAKE_SQL_TIMEOUT"
MAX_ROWS_ENV = "PITLAKE_SQL_MAX_ROWS"
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_ROWS = 1_000_000
CONCURRENCY_ENV = "PITLAKE_SQL_CONCURRENCY"
QUEUE_WAIT_ENV = "PITLAKE_SQL_QUEUE_WAIT"
DEFAULT_CONCURRENCY = 2
DEFAULT_QUEUE_WAIT = 5.0
_BATCH_ROWS = 65_536


class StatementTimeout(Exception):
    """The statement ran past its timeout and was interrupted."""


class TooManyRows(Exception):
    """The answer has more rows than the cap; no more than cap+1 were fetched."""


@dataclass(frozen=True)
class Limits:
    """A statement's timeout (seconds, None: none) and row cap (None: none)."""

    timeout: float | None
    max_rows: int | None

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


def _env_number(name: str, default: float) -> float | None:
    """The setting from the environment; 0 or a negative number turns the limit off."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if value > 0 else None


def limits(timeout: float | None = None, max_rows: int | None = None) -> Limits:
    """The limits for one statement: the call's own, else the environment's, else defaults."""
    t = timeout if timeout is not None else _env_number(TIMEOUT_ENV, DEFAULT_TIMEOUT)
    m = max_rows if max_rows is not None else _env_number(MAX_ROWS_ENV, DEFAULT_MAX_ROWS)
    return Limits(
        timeout=t if t is not None and t > 0 else None,
        max_rows=int(m) if m is not None and m > 0 else None,
    )


class _Slots:
    """At most PITLAKE_SQL_CONCURRENCY statements at once in this process (read once), so
    the rest of the API keeps a core; an excess statement waits PITLAKE_SQL_QUEUE_WAIT."""

    def __init__(self) -> None:
        self._sem: threading.BoundedSemaphore | None = None
        self._lock = threading.Lock()

    def acquire(self) -> bool:
        with self._lock:
            if self._sem is None:
                n = _env_number(CONCURRENCY_ENV, DEFAULT_CONCURRENCY) or DEFAULT_CONCURRENCY
                self._sem = threading.BoundedSemaphore(max(1, int(n)))
        wait = _env_number(QUEUE_WAIT_ENV, DEFAULT_QUEUE_WAIT) or 0.0
        return self._sem.acquire(timeout=wait)

    def release(self) -> None:
        assert self._sem is not None
        self._sem.release()


SLOTS = _Slots()


def busy_message() -> str:
    return (
        "SQL is busy: every statement slot is taken; retry shortly, or raise "
        f"{CONCURRENCY_ENV} / {QUEUE_WAIT_ENV}"
    )


def limited_rows(con: duckdb.DuckDBPyConnection, query: str, lim: Limits) -> pa.Table:
    """The statement's rows under `lim`: StatementTimeout past the timeout (the statement is
    interrupted), TooManyRows past the row cap."""
    fired = threading.Event()

    def interrupt() -> None:
        fired.set()
        con.interrupt()

    timer = threading.Timer(lim.timeout, interrupt) if lim.timeout else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        rel = con.sql(query)
        if rel is None:
            return pa.table({})
        reader = rel.fetch_record_batch(_BATCH_ROWS)
        batches: list[pa.RecordBatch] = []
        count = 0
        for batch in reader:
            count += batch.num_rows
            if lim.max_rows is not None and count > lim.max_rows:
                raise TooManyRows(lim.rows_message())
            batches.append(batch)
        return pa.Table.from_batches(batches, schema=reader.schema)
    except duckdb.InterruptException as e:
        if fired.is_set():
            raise StatementTimeout(lim.timeout_message()) from e
        raise
    except duckdb.Error as e:  # an interrupt can surface as another DuckDB error
        if fired.is_set():
            raise StatementTimeout(lim.timeout_message()) from e
        raise
    finally:
        if timer is not None:
            timer.cancel()
