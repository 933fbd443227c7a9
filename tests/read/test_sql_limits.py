"""Lake.sql's statement limits (issue 27 item 2): a timeout that frees the core, a row cap."""

from __future__ import annotations

import time

import pytest

from pitlake.read.lake import Lake
from pitlake.read.sql_limits import MAX_ROWS_ENV, TIMEOUT_ENV
from pitlake.statuses import ResultStatus
from tests.read.test_query_future_rows import planted  # noqa: F401

SLOW = "SELECT sum(i) FROM range(100000000000) t(i)"


def test_a_statement_past_its_timeout_is_interrupted_with_a_typed_envelope(
    planted: Lake,  # noqa: F811
) -> None:
    started = time.monotonic()
    r = planted.sql(SLOW, timeout=0.3)
    elapsed = time.monotonic() - started
    assert r.status is ResultStatus.INVALID_ARGUMENTS
    assert r.retryable is False
    assert "timeout of 0.3 s" in r.message and TIMEOUT_ENV in r.message
    assert elapsed < 3.0  # the statement itself would run for minutes


def test_the_timeout_comes_from_the_environment(
    planted: Lake,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(TIMEOUT_ENV, "0.3")
    started = time.monotonic()
    r = planted.sql(SLOW)
    assert r.status is ResultStatus.INVALID_ARGUMENTS and "timeout" in r.message
    assert time.monotonic() - started < 3.0


def test_an_answer_past_the_row_cap_is_refused_naming_the_cap_and_paging(
    planted: Lake,  # noqa: F811
) -> None:
    r = planted.sql("SELECT i FROM range(1000000000) t(i)", max_rows=1000, timeout=10)
    assert r.status is ResultStatus.INVALID_ARGUMENTS
    assert "more than 1000 rows" in r.message and "LIMIT 1000 OFFSET" in r.message
    assert MAX_ROWS_ENV in r.message
    ok = planted.sql("SELECT i FROM range(1000) t(i)", max_rows=1000)
    assert ok.status is ResultStatus.OK and ok.table.num_rows == 1000


def test_statements_past_the_concurrency_bound_get_a_retryable_busy_envelope(
    planted: Lake,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    from pitlake.read import sql_limits

    monkeypatch.setattr(sql_limits, "SLOTS", sql_limits.sql_slots())
    monkeypatch.setenv(sql_limits.CONCURRENCY_ENV, "1")
    monkeypatch.setenv(sql_limits.QUEUE_WAIT_ENV, "0.2")
    slow = threading.Thread(target=planted.sql, args=(SLOW,), kwargs={"timeout": 1.5})
    slow.start()
    time.sleep(0.3)
    r = planted.sql("SELECT 1 AS one")
    slow.join()
    assert r.status is ResultStatus.RATE_LIMITED and r.retryable is True
    assert sql_limits.CONCURRENCY_ENV in r.message
    assert planted.sql("SELECT 1 AS one").status is ResultStatus.OK


def test_a_cancel_event_or_a_shutdown_interrupts_a_running_statement(
    planted: Lake,  # noqa: F811
) -> None:
    import threading

    from pitlake.read.sql_limits import interrupt_all

    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    r = planted.sql(SLOW, timeout=60, cancel=cancel)
    assert r.status is ResultStatus.RATE_LIMITED and r.retryable
    assert "cancelled" in r.message and time.monotonic() - started < 3.0

    threading.Timer(0.3, interrupt_all).start()
    started = time.monotonic()
    r = planted.sql(SLOW, timeout=60)
    assert r.status is ResultStatus.RATE_LIMITED and "shutting down" in r.message
    assert time.monotonic() - started < 3.0
    assert planted.sql("SELECT 1 AS one").status is ResultStatus.OK  # nothing left interrupted


def test_an_answer_past_the_byte_cap_is_refused_naming_the_cap(
    planted: Lake,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pitlake.read.sql_limits import MAX_BYTES_ENV

    wide = "SELECT i, repeat('x', 1000) AS pad FROM range(20000) t(i)"  # ~20 MB of strings
    r = planted.sql(wide, max_bytes=1_000_000, max_rows=0)
    assert r.status is ResultStatus.INVALID_ARGUMENTS and r.table is None
    assert "larger than 0.953674 MiB" in r.message and MAX_BYTES_ENV in r.message
    monkeypatch.setenv(MAX_BYTES_ENV, "1000000")
    assert planted.sql(wide).status is ResultStatus.INVALID_ARGUMENTS
    assert planted.sql(wide, max_bytes=0).table.num_rows == 20000  # 0: the cap is off
    monkeypatch.delenv(MAX_BYTES_ENV)
    assert planted.sql(wide).table.num_rows == 20000  # under the 256 MiB default


def test_a_busy_answer_says_how_long_to_wait(
    planted: Lake,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pitlake.read import slots, sql_limits

    monkeypatch.setattr(sql_limits, "SLOTS", sql_limits.sql_slots())
    monkeypatch.setenv(sql_limits.CONCURRENCY_ENV, "1")
    monkeypatch.setenv(sql_limits.QUEUE_WAIT_ENV, "0")
    assert sql_limits.SLOTS.acquire()  # the one slot, held by "another statement"
    try:
        r = planted.sql("SELECT 1 AS one")
    finally:
        sql_limits.SLOTS.release()
    assert r.status is ResultStatus.RATE_LIMITED
    assert r.meta["retry_after_s"] == slots.RETRY_AFTER_S
