"""pitlake.serve.dashboard (the data model) on synthetic catalog facts: freshness in sessions (holidays, the
close, failures), the coverage grid (never-fetched cells, precedence, window datasets), pass
rates, quarantine, runs, the reference instant and the empty lake."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta

import pytest

from pitlake.calendar import BEIJING, XSHG
from pitlake.errors import InvalidArgumentsError
from pitlake.lake.catalog import Catalog
from pitlake.read.staleness import DEFAULT_STALE_SESSIONS, stale_threshold
from pitlake.serve.dashboard.coverage import GRID_SESSIONS, coverage
from pitlake.serve.dashboard.history import failed_expectations, pass_rates
from pitlake.serve.dashboard.model import build_dashboard, freshness
from pitlake.serve.dashboard.reference import resolve_reference
from pitlake.serve.dashboard.styles import NEVER, worst_status
from tests.serve.dashboard.conftest import NOW, RECORDED

A, B = "600519.SH", "000001.SZ"


def fresh(catalog: Catalog, as_of: str, dataset: str = "quotes", threshold: int = 1) -> dict:
    ref = resolve_reference(as_of, now=NOW)
    (row,) = [r for r in freshness(catalog, ref, [dataset], threshold) if r["dataset"] == dataset]
    return row


def grid_row(catalog: Catalog, as_of: str, dataset: str) -> dict[str, dict]:
    ref = resolve_reference(as_of, now=NOW)
    (row,) = coverage(catalog, ref, [dataset])["rows"]
    return {c["date"]: c for c in row["cells"]}


# ---------------------------------------------------------------- freshness


def test_lag_counts_sessions_across_the_dragon_boat_holiday(catalog: Catalog) -> None:
    # 2025-05-31 … 06-02 were closed: 05-30 → 06-03 is 4 calendar days but 1 session.
    catalog.record_ledger("quotes", "2025-05-30", "OK", rows=10, at=RECORDED)
    row = fresh(catalog, "2025-06-03")
    assert row["latest_ok"] == "2025-05-30"
    assert row["latest_closed_session"] == "2025-06-03"
    assert row["lag_sessions"] == 1
    assert row["state"] == "within"  # the default threshold is 1 session
    assert fresh(catalog, "2025-06-03", threshold=0)["state"] == "stale"
    assert fresh(catalog, "2025-06-04")["lag_sessions"] == 2
    assert fresh(catalog, "2025-06-04")["state"] == "stale"


def test_lag_across_the_national_day_week(catalog: Catalog) -> None:
    catalog.record_ledger("quotes", "2025-09-30", "OK", rows=10, at=RECORDED)
    row = fresh(catalog, "2025-10-09")  # 10-01 … 10-08 closed (10-11 a make-up Saturday)
    assert row["lag_sessions"] == 1
    assert fresh(catalog, "2025-10-13")["lag_sessions"] == 3  # 10-09, 10-10, 10-13


def test_before_the_close_the_latest_closed_session_is_the_previous_one(
    catalog: Catalog,
) -> None:
    catalog.record_ledger("quotes", "2025-05-30", "OK", rows=10, at=RECORDED)
    row = fresh(catalog, "2025-06-03T14:59:00+08:00")
    assert row["latest_closed_session"] == "2025-05-30"
    assert (row["lag_sessions"], row["state"]) == (0, "current")
    assert fresh(catalog, "2025-06-03T15:00:00+08:00")["lag_sessions"] == 1


def test_failures_and_later_entries_do_not_count_as_fresh(catalog: Catalog) -> None:
    catalog.record_ledger("quotes", "2025-06-03", "OK", rows=10, at=RECORDED)
    catalog.record_ledger("quotes", "2025-06-04", "UPSTREAM_ERROR", message="HTTP 502", at=RECORDED)
    catalog.record_ledger("quotes", "2025-06-05", "REJECTED", message="ohlc_low", at=RECORDED)
    catalog.record_ledger("quotes", "2025-06-09", "OK", rows=10, at=RECORDED)  # after as_of
    row = fresh(catalog, "2025-06-05")
    assert row["latest_ok"] == "2025-06-03"
    assert row["lag_sessions"] == 2
    assert row["state"] == "stale"
    assert (row["last_attempt"], row["last_attempt_status"]) == ("2025-06-05", "REJECTED")
    assert row["last_attempt_message"] == "ohlc_low"


def test_no_data_after_a_successful_fetch_is_fresh(catalog: Catalog) -> None:
    catalog.record_ledger("dragon_tiger", "2025-06-05", "NO_DATA", at=RECORDED)
    row = fresh(catalog, "2025-06-05", dataset="dragon_tiger")
    assert (row["lag_sessions"], row["state"]) == (0, "current")


def test_a_dataset_never_fetched(catalog: Catalog) -> None:
    catalog.record_ledger("quotes", "2025-06-05", "OK", rows=1, at=RECORDED)
    row = fresh(catalog, "2025-06-05", dataset="valuation")
    assert row["latest_ok"] is None
    assert row["lag_sessions"] is None
    assert row["state"] == "never"


def test_stale_threshold_from_the_environment() -> None:
    assert stale_threshold({}) == (DEFAULT_STALE_SESSIONS, None)
    assert stale_threshold({"PITLAKE_STALE_SESSIONS": "3"}) == (3, None)
    assert stale_threshold({"PITLAKE_STALE_SESSIONS": "0"}) == (0, None)
    for bad in ("x", "-1", "1.5"):
        value, note = stale_threshold({"PITLAKE_STALE_SESSIONS": bad})
        assert value == DEFAULT_STALE_SESSIONS
        assert note is not None and "PITLAKE_STALE_SESSIONS" in note


def test_the_threshold_colours_freshness(catalog: Catalog) -> None:
    catalog.record_ledger("quotes", "2025-06-03", "OK", rows=10, at=RECORDED)
    data = build_dashboard(
        catalog, as_of="2025-06-06", now=NOW, environ={"PITLAKE_STALE_SESSIONS": "3"}
    )
    quotes = next(r for r in data["freshness"] if r["dataset"] == "quotes")
    assert data["stale_sessions"] == 3
    assert (quotes["lag_sessions"], quotes["state"]) == (3, "within")
    data = build_dashboard(
        catalog, as_of="2025-06-06", now=NOW, environ={"PITLAKE_STALE_SESSIONS": "2"}
    )
    assert next(r for r in data["freshness"] if r["dataset"] == "quotes")["state"] == "stale"


# ---------------------------------------------------------------- coverage


def test_grid_is_the_last_sixty_sessions_and_skips_holidays(catalog: Catalog) -> None:
    ref = resolve_reference("2025-06-06", now=NOW)
    sessions = coverage(catalog, ref, ["quotes"])["sessions"]
    assert len(sessions) == GRID_SESSIONS
    assert sessions[-1] == "2025-06-06"
    assert "2025-06-02" not in sessions and "2025-05-31" not in sessions
    assert sessions == [d.isoformat() for d in XSHG.sessions_between(sessions[0], "2025-06-06")]


def test_cells_without_an_entry_are_never_fetched(catalog: Catalog) -> None:
    catalog.record_ledger("quotes", "2025-06-03", "OK", rows=10, vendor="tushare", at=RECORDED)
    catalog.record_ledger("quotes", "2025-06-05", "OK", rows=10, vendor="tushare", at=RECORDED)
    cells = grid_row(catalog, "2025-06-06", "quotes")
    assert cells["2025-06-03"]["status"] == "OK"
    assert cells["2025-06-03"]["code"] == "✓"
    for day in ("2025-06-04", "2025-06-06", "2025-05-30"):
        assert cells[day]["status"] == NEVER
        assert cells[day]["code"] == "·"
    never = grid_row(catalog, "2025-06-06", "valuation")
    assert {c["status"] for c in never.values()} == {NEVER}


def test_a_cell_shows_rows_vendor_trace_and_message(catalog: Catalog) -> None:
    trace = [
        {"vendor": "tushare", "outcome": "UPSTREAM_ERROR", "attempts": 3, "message": "HTTP 502"},
        {"vendor": "akshare", "outcome": "UPSTREAM_ERROR", "attempts": 1, "message": "reset"},
    ]
    catalog.record_ledger(
        "valuation",
        "2025-06-04",
        "UPSTREAM_ERROR",
        trace=trace,
        message="every vendor failed",
        run_id="nightly-1",
        at=RECORDED,
    )
    cell = grid_row(catalog, "2025-06-06", "valuation")["2025-06-04"]
    assert (cell["status"], cell["code"], cell["rows"]) == ("UPSTREAM_ERROR", "E", 0)
    assert cell["message"] == "every vendor failed"
    assert cell["run_id"] == "nightly-1"
    assert cell["trace_text"] == (
        "tushare UPSTREAM_ERROR ×3: HTTP 502; akshare UPSTREAM_ERROR: reset"
    )


def test_per_symbol_entries_show_the_most_pressing_status(catalog: Catalog) -> None:
    catalog.record_ledger(
        "financials", "2025-06-05", "OK", symbol=A, rows=3, vendor="tushare", at=RECORDED
    )
    catalog.record_ledger(
        "financials",
        "2025-06-05",
        "RATE_LIMITED",
        symbol=B,
        vendor="tushare",
        message="每分钟最多访问该接口500次",
        at=RECORDED,
    )
    cell = grid_row(catalog, "2025-06-06", "financials")["2025-06-05"]
    assert cell["status"] == "RATE_LIMITED"
    assert cell["symbols"] == {"OK": 1, "RATE_LIMITED": 1}
    assert cell["rows"] == 3
    assert cell["example_symbol"] == B
    assert cell["message"] == "每分钟最多访问该接口500次"
    assert worst_status(["OK", "NO_DATA"]) == "OK"
    assert worst_status(["NO_DATA", "REJECTED", "UPSTREAM_ERROR"]) == "REJECTED"
    assert worst_status([]) == NEVER


def test_a_window_ending_on_a_weekend_shows_on_the_session_before(catalog: Catalog) -> None:
    catalog.record_ledger("news", "2025-05-31", "OK", rows=16, vendor="akshare", at=RECORDED)
    # A trade-dated dataset has no entries on a Saturday worth showing, and a SKIPPED
    # non-session never covers the session before it.
    catalog.record_ledger("quotes", "2025-05-31", "SKIPPED", message="not a session")
    catalog.record_ledger("news", "2025-06-01", "SKIPPED", message="not a session")
    news = grid_row(catalog, "2025-06-06", "news")
    assert news["2025-05-30"]["status"] == "OK"
    assert news["2025-05-30"]["entry_dates"] == ["2025-05-31"]
    assert news["2025-06-03"]["status"] == NEVER
    assert "window" in news["2025-06-03"]["message"]
    quotes = grid_row(catalog, "2025-06-06", "quotes")
    assert {c["status"] for c in quotes.values()} == {NEVER}


# ---------------------------------------------------------------- validation


def _validate(
    catalog: Catalog,
    day: str | None,
    *,
    ok: bool = True,
    severity: str = "blocking",
    failed: tuple[str, ...] = (),
    at: datetime = RECORDED,
    partitions: tuple[str | None, ...] = ("2025",),
    dataset: str = "quotes",
) -> None:
    for partition in partitions:  # one record per partition, as Verdict.to_catalog_records
        catalog.record_validation(
            run_id="run-1",
            dataset=dataset,
            partition=partition,
            suite=f"pitlake.{dataset}",
            success=ok,
            severity=severity,
            evaluated=17,
            failed=len(failed),
            failed_expectations=[
                {"name": n, "description": f"{n} explained", "unexpected_count": 2} for n in failed
            ],
            at=at,
            date_key=day,
        )


def test_pass_rate_per_day(catalog: Catalog) -> None:
    _validate(catalog, "2025-06-03", at=RECORDED)
    # one batch spanning two partitions is one verdict
    _validate(
        catalog, "2025-06-03", at=RECORDED + timedelta(seconds=1), partitions=("2024", "2025")
    )
    _validate(catalog, "2025-06-04", at=RECORDED + timedelta(seconds=2))
    _validate(
        catalog, "2025-06-04", ok=False, failed=("ohlc_low",), at=RECORDED + timedelta(seconds=3)
    )
    _validate(
        catalog,
        "2025-06-05",
        ok=False,
        severity="warning",
        failed=("price_limit",),
        at=RECORDED + timedelta(seconds=4),
    )
    # a backfill group has no session of its own: it counts on the Beijing day it ran
    _validate(catalog, None, at=datetime(2025, 6, 7, 23, 30, tzinfo=BEIJING))
    points = pass_rates(catalog.validations("quotes"))
    assert [(p["date"], p["total"], p["passed"], p["warned"], p["rejected"]) for p in points] == [
        ("2025-06-03", 2, 2, 0, 0),
        ("2025-06-04", 2, 1, 0, 1),
        ("2025-06-05", 1, 0, 1, 0),
        ("2025-06-07", 1, 1, 0, 0),
    ]
    assert [p["rate"] for p in points] == [1.0, 0.5, 0.0, 1.0]


def test_failed_expectations_are_named_and_counted(catalog: Catalog) -> None:
    _validate(catalog, "2025-06-03", ok=False, failed=("ohlc_low", "key_unique"))
    _validate(
        catalog, "2025-06-05", ok=False, failed=("ohlc_low",), at=RECORDED + timedelta(seconds=5)
    )
    found = {f["name"]: f for f in failed_expectations(catalog.validations("quotes"))}
    assert set(found) == {"ohlc_low", "key_unique"}
    assert (found["ohlc_low"]["failures"], found["ohlc_low"]["last_date"]) == (2, "2025-06-05")
    assert found["ohlc_low"]["unexpected_rows"] == 4
    assert found["key_unique"]["description"] == "key_unique explained"
    data = build_dashboard(catalog, as_of="2025-06-06", now=NOW)
    quotes = next(v for v in data["validation"]["datasets"] if v["dataset"] == "quotes")
    assert (quotes["batches"], quotes["passed"], quotes["rate"]) == (2, 0, 0.0)
    assert quotes["failed_expectations"][0]["name"] == "ohlc_low"  # most recent first


def test_pass_rate_keeps_the_latest_days() -> None:
    from pitlake.lake.catalog_values import ValidationRecord

    start = date(2025, 1, 1)
    records = [
        ValidationRecord(
            id=i,
            run_id="r",
            dataset="quotes",
            partition="2025",
            date_key=start + timedelta(days=i),
            suite="pitlake.quotes",
            success=i % 2 == 0,
            severity="blocking",
            evaluated=5,
            failed=0 if i % 2 == 0 else 1,
            failed_expectations=[],
            recorded_at=RECORDED,
        )
        for i in range(70)
    ]
    points = pass_rates(records, points=60)
    assert len(points) == 60
    assert points[-1]["date"] == (start + timedelta(days=69)).isoformat()
    assert points[0]["date"] == (start + timedelta(days=10)).isoformat()


# ---------------------------------------------------------------- quarantine, runs


def test_quarantine_and_runs(catalog: Catalog, lake) -> None:
    catalog.record_quarantine(
        "backfill-1",
        "quotes",
        "2025-06-12",
        lake / "quarantine" / "quotes" / "backfill-1" / "batch.parquet",
        "quotes: rejected: ohlc_low (1 rows)",
        failed_expectations=[{"name": "ohlc_low", "description": "low ≤ min(open, close)"}],
        sample_rows=[{"symbol": A, "low": 1486.1, "_dq_min_open_close": 1470.7}],
        at=RECORDED,
    )
    catalog.start_run("backfill-1", "backfill", {"start": "2025-04-01", "symbols": None}, RECORDED)
    catalog.finish_run(
        "backfill-1",
        "FAILED",
        {
            "datasets": [
                {
                    "dataset": "valuation",
                    "status": "UPSTREAM_ERROR",
                    "vendors": ["tushare"],
                    "failed_units": [
                        {
                            "date": "2025-06-10",
                            "status": "UPSTREAM_ERROR",
                            "trace": [{"vendor": "tushare", "outcome": "UPSTREAM_ERROR"}],
                        }
                    ],
                }
            ]
        },
        RECORDED + timedelta(seconds=83),
    )
    data = build_dashboard(catalog, lake_root=lake, as_of="2025-07-02", now=NOW)
    (q,) = data["quarantine"]
    assert q["path"] == "quarantine/quotes/backfill-1/batch.parquet"
    assert [f["name"] for f in q["failed_expectations"]] == ["ohlc_low"]
    assert q["sample_columns"] == ["symbol", "low"]  # gate-internal helper columns left out
    assert q["sample_rows"] == [[A, 1486.1]]
    (run,) = data["runs"]
    assert (run["status"], run["duration_s"], run["duration"]) == ("FAILED", 83.0, "1 min 23 s")
    assert run["params"] == {"start": "2025-04-01"}
    (ds,) = run["datasets"]
    assert ds["failed_units"][0]["trace_text"] == "tushare UPSTREAM_ERROR"


def test_a_dashboard_as_of_a_day_shows_nothing_recorded_after_it(catalog: Catalog, lake) -> None:
    """Issue 27 item 5: validations, quarantine and runs as of the reference, as rows are."""
    for day, run_id in (("2025-06-12", "early"), ("2025-06-18", "late")):
        catalog.record_quarantine(
            run_id,
            "quotes",
            day,
            lake / "quarantine" / f"{run_id}.parquet",
            "rejected",
            at=RECORDED,
        )
        catalog.record_validation(
            run_id=run_id,
            dataset="limit_pools",
            partition=None,
            suite="limit_pools",
            date_key=day,
            success=False,
            severity="blocking",
            evaluated=3,
            failed=1,
            failed_expectations=[{"name": f"planted_{run_id}"}],
            at=RECORDED,
        )
    started = datetime(2025, 6, 15, 9, 0, tzinfo=BEIJING)
    catalog.start_run("started-before", "backfill", {}, started)
    catalog.finish_run("started-before", "FAILED", {"datasets": []}, started + timedelta(days=3))
    catalog.start_run("started-after", "backfill", {}, started + timedelta(days=2))
    pinned = datetime(2025, 6, 16, 16, 0, tzinfo=BEIJING)
    data = build_dashboard(catalog, lake_root=lake, now=NOW, pin=pinned)
    assert [q["date"] for q in data["quarantine"]] == ["2025-06-12"]
    assert data["quarantine"][0]["recorded_at"] is None  # recorded 07-01, after the pin
    (pools,) = [v for v in data["validation"]["datasets"] if v["dataset"] == "limit_pools"]
    assert [p["date"] for p in pools["points"]] == ["2025-06-12"]
    assert [f["name"] for f in pools["failed_expectations"]] == ["planted_early"]
    (run,) = data["runs"]  # the later run had not started; the other had not ended
    assert (run["run_id"], run["status"], run["ended_at"]) == ("started-before", "RUNNING", None)
    assert "2025-06-18" not in json.dumps(data)
    full = build_dashboard(catalog, lake_root=lake, now=NOW)
    assert len(full["quarantine"]) == 2 and len(full["runs"]) == 2


# ---------------------------------------------------------------- reference, empty lake


def test_reference_defaults_to_now_and_is_clamped_by_a_pin() -> None:
    ref = resolve_reference(None, now=datetime(2025, 6, 4, 10, 0, tzinfo=BEIJING))
    assert (ref.source, ref.session) == ("now", date(2025, 6, 3))
    pin = datetime(2025, 6, 5, 16, 0, tzinfo=BEIJING)
    ref = resolve_reference("2025-06-20", now=NOW, pin=pin)
    assert (ref.source, ref.session) == ("pin", date(2025, 6, 5))
    assert ref.notes and "pinned" in ref.notes[0]
    assert resolve_reference("2025-06-04", now=NOW, pin=pin).source == "as_of"


def test_reference_past_the_calendar_uses_its_last_session() -> None:
    ref = resolve_reference("2031-01-06", now=NOW)
    assert ref.session == XSHG.session_on_or_before(XSHG.last)
    assert any("calendar" in n for n in ref.notes)


@pytest.mark.parametrize("bad", ["yesterday", "2025-13-01", "1989-01-01"])
def test_reference_refuses_bad_as_of(bad: str) -> None:
    with pytest.raises(InvalidArgumentsError):
        resolve_reference(bad, now=NOW)


def test_an_empty_lake_is_a_valid_empty_structure(catalog: Catalog, lake) -> None:
    data = build_dashboard(catalog, lake_root=lake, now=NOW)
    json.dumps(data, allow_nan=False)  # strict JSON
    assert data["empty"] is True
    assert data["reference"]["source"] == "now"
    assert data["quarantine"] == [] and data["runs"] == []
    assert {f["state"] for f in data["freshness"]} == {"never"}
    assert all(v["points"] == [] and v["rate"] is None for v in data["validation"]["datasets"])
    assert data["data_docs"] == {"url": "/dq/", "available": False}
    commands = " ".join(c["command"] for c in data["first_ingest"])
    assert (
        f"pitlake ingest --source replay:sample --start 2025-04-01 --end 2025-06-30 --lake {lake}"
        in commands
    )
    catalog.record_ledger("quotes", "2025-06-03", "OK", rows=1, at=RECORDED)
    again = build_dashboard(catalog, lake_root=lake, now=NOW)
    assert again["empty"] is False and again["first_ingest"] == []
