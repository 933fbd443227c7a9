"""pitlake.pipeline without Prefect: one unit's exception ends that unit with a typed ledger
status and its message; the other units and datasets of the call complete."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from pitlake.errors import NoMarketDataError, VendorRateLimitError
from pitlake.pipeline import commit as commit_module
from pitlake.pipeline import run as run_module
from pitlake.pipeline.backfill import backfill_chunk, fail_chunk
from pitlake.pipeline.commit import commit
from pitlake.pipeline.failures import failure_message, failure_status
from pitlake.pipeline.fetch import fetch
from pitlake.pipeline.gating import gate
from pitlake.pipeline.ledger import not_a_session, rows_by_scope, skip
from pitlake.pipeline.planning import backfill_units, nightly_units
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.summary import summarize
from pitlake.pipeline.units import Unit

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
D = date(2025, 6, 3)
MOUTAI = "600519.SH"


@pytest.fixture
def env(tmp_path: Path) -> RunEnv:
    e = RunEnv(tmp_path / "lake", source=f"replay:{SAMPLE}", run_id="run-f")
    yield e
    e.close()


def _status(env: RunEnv, dataset: str, day: date, symbol: str = "*") -> str | None:
    entry = env.catalog.ledger_entry(dataset, day, symbol)
    return None if entry is None else str(entry.status)


def test_news_for_named_symbols_is_counted_per_symbol(env: RunEnv) -> None:
    """The reported crash: news rows carry `symbols` (a list), not `symbol`."""
    lo, hi = date(2025, 6, 2), date(2025, 6, 6)
    outcomes = backfill_chunk(env, "news", lo, hi, (MOUTAI,))
    assert [o.status for o in outcomes] == ["OK"]
    entry = env.catalog.ledger_entry("news", hi, MOUTAI)
    assert str(entry.status) == "OK"
    frame = fetch(env, Unit("news", hi, start=lo, end=hi, symbols=(MOUTAI,))).frame
    assert entry.rows == sum(MOUTAI in list(s) for s in frame["symbols"]) > 0


def test_an_exception_in_one_units_commit_ends_only_that_unit(
    env: RunEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = rows_by_scope

    def broken(unit: Unit, frame: pd.DataFrame) -> dict:
        if unit.dataset == "valuation":
            raise RuntimeError("planted bug in the row count")
        return real(unit, frame)

    monkeypatch.setattr(commit_module, "rows_by_scope", broken)
    names = ["quotes", "valuation", "dragon_tiger"]
    units = nightly_units(env, D, names, None)
    batches = [fetch(env, u) for u in units]
    outcomes = commit(env, batches, gate(env, batches, align_on=D))
    got = {o.dataset: o for o in outcomes}
    assert got["valuation"].status == "UPSTREAM_ERROR"
    assert "RuntimeError: planted bug in the row count" in got["valuation"].message
    assert got["quotes"].status == "OK" and got["dragon_tiger"].status in ("OK", "NO_DATA")
    assert _status(env, "valuation", D) == "UPSTREAM_ERROR"
    assert "planted bug" in env.catalog.ledger_entry("valuation", D).message
    assert _status(env, "quotes", D) == "OK"
    assert _status(env, "dragon_tiger", D) in ("OK", "NO_DATA")
    summary = summarize(outcomes).to_dict()
    assert not summary["completed"]
    assert {d["dataset"]: d["status"] for d in summary["datasets"]}["valuation"] == (
        "UPSTREAM_ERROR"
    )


def test_an_exception_in_one_sessions_gate_ends_only_that_session(
    env: RunEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Backfill validates a chunk's sessions together; when that raises, each is validated
    alone, so only the session that breaks the gate fails."""
    import pitlake.expectations.gate as gate_mod

    real = gate_mod.validate
    bad = date(2025, 6, 4)

    def broken(dataset: str, frame: pd.DataFrame, ctx: object) -> object:
        if bad in set(pd.to_datetime(frame["trade_date"]).dt.date):
            raise KeyError("planted gate bug")
        return real(dataset, frame, ctx)

    monkeypatch.setattr(gate_mod, "validate", broken)
    outcomes = backfill_chunk(env, "quotes", date(2025, 6, 3), date(2025, 6, 5), None)
    by_day = {o.date_key: o for o in outcomes}
    assert by_day["2025-06-04"].status == "UPSTREAM_ERROR"
    assert "gate failed: KeyError" in by_day["2025-06-04"].message
    assert by_day["2025-06-03"].status == by_day["2025-06-05"].status == "OK"
    assert _status(env, "quotes", bad) == "UPSTREAM_ERROR"
    assert _status(env, "quotes", date(2025, 6, 5)) == "OK"
    # the failed session is not done: a rerun fetches it again, and only it
    assert [u.date_key for u in backfill_units(env, "quotes", D, date(2025, 6, 5), None)] == [bad]


def test_a_failing_group_write_is_retried_unit_by_unit(
    env: RunEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = env.store.write
    bad = date(2025, 6, 5)

    def broken(dataset: str, frame: pd.DataFrame, **kw: object) -> object:
        if bad in set(pd.to_datetime(frame["trade_date"]).dt.date):
            raise ValueError("planted write bug")
        return real(dataset, frame, **kw)

    monkeypatch.setattr(env.store, "write", broken)
    outcomes = backfill_chunk(env, "valuation", D, bad, None)
    by_day = {o.date_key: o.status for o in outcomes}
    assert by_day == {"2025-06-03": "OK", "2025-06-04": "OK", "2025-06-05": "UPSTREAM_ERROR"}
    assert _status(env, "valuation", date(2025, 6, 4)) == "OK"
    assert _status(env, "valuation", bad) == "UPSTREAM_ERROR"


def test_a_transient_error_goes_up_to_the_tasks_retries(
    env: RunEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    def flaky(*a: object, **kw: object) -> object:
        raise ConnectionResetError("disk or network blinked")

    monkeypatch.setattr(run_module, "fetch", flaky)
    with pytest.raises(ConnectionResetError):
        backfill_chunk(env, "quotes", D, D, None)


def test_a_chunk_that_failed_for_good_records_its_pending_units(env: RunEnv) -> None:
    outcomes = fail_chunk(env, "quotes", D, date(2025, 6, 4), None, OSError("gone"))
    assert [o.status for o in outcomes] == ["UPSTREAM_ERROR", "UPSTREAM_ERROR"]
    assert "chunk failed: OSError: gone" in env.catalog.ledger_entry("quotes", D).message


def test_failure_status_is_the_errors_own_but_never_a_success() -> None:
    assert str(failure_status(VendorRateLimitError("slow down"))) == "RATE_LIMITED"
    assert str(failure_status(NoMarketDataError("empty"))) == "UPSTREAM_ERROR"
    assert str(failure_status(KeyError("symbol"))) == "UPSTREAM_ERROR"


def test_a_non_session_says_why() -> None:
    assert not_a_session(date(2025, 6, 7)) == "2025-06-07 is not an XSHG session (Saturday)"
    assert not_a_session(date(2025, 6, 2)) == (
        "2025-06-02 is not an XSHG session (Monday, an exchange holiday)"
    )


def test_a_skipped_dataset_keeps_its_reason_in_the_summary(env: RunEnv) -> None:
    day = date(2025, 6, 7)
    out = skip(env, "quotes", day, not_a_session(day))
    (d,) = summarize([out]).to_dict()["datasets"]
    assert d["status"] == "SKIPPED"
    assert d["message"] == "2025-06-07 is not an XSHG session (Saturday)"


def test_a_failure_message_is_one_line() -> None:
    exc = RuntimeError("No magic bytes found\n\nLINE 1: SELECT DISTINCT symbol")
    assert failure_message(exc, "planning") == (
        "planning failed: RuntimeError: No magic bytes found"
    )
    assert failure_message(KeyError(), "gate") == "gate failed: KeyError"
