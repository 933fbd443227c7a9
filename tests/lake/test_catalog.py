"""The catalog on SQLite and PostgreSQL: runs, the ledger and its history, partition files,
validations, quarantine, instants, and concurrent writers."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import text

from pitlake.calendar import BEIJING
from pitlake.lake.catalog import Catalog
from pitlake.lake.catalog_engine import resolve_url
from pitlake.statuses import LedgerStatus

T0 = datetime(2025, 6, 3, 18, 30, tzinfo=BEIJING)


def test_runs_lifecycle_newest_first(catalog: Catalog) -> None:
    catalog.start_run("r1", "nightly", {"trade_date": date(2025, 6, 3)}, T0)
    catalog.start_run("r2", "backfill", {"datasets": ["quotes"]}, T0 + timedelta(hours=1))
    catalog.finish_run(
        "r1", "Completed", {"quotes": "OK", "rows": np.int64(5)}, T0 + timedelta(minutes=5)
    )
    runs = catalog.runs()
    assert [r.run_id for r in runs] == ["r2", "r1"]
    r1 = catalog.run("r1")
    assert r1 is not None and r1.status == "Completed" and r1.flow == "nightly"
    assert r1.params == {"trade_date": "2025-06-03"}
    assert r1.summary == {"quotes": "OK", "rows": 5}
    assert r1.started_at == T0 and r1.ended_at == T0 + timedelta(minutes=5)
    assert catalog.run("r2").status == "RUNNING"  # type: ignore[union-attr]
    assert catalog.runs(limit=1)[0].run_id == "r2"
    assert r1.to_dict()["started_at"] == "2025-06-03T18:30:00+08:00"


def test_finishing_a_run_that_never_started_still_records_it(catalog: Catalog) -> None:
    catalog.finish_run("lost", "Crashed", {"error": "boom"}, T0)
    run = catalog.run("lost")
    assert run is not None and run.status == "Crashed" and run.ended_at == T0


def test_ledger_keeps_latest_per_key_and_every_event(catalog: Catalog) -> None:
    d = date(2025, 6, 3)
    catalog.record_ledger(
        "quotes", d, LedgerStatus.NOT_READY, message="tushare returned 06-02", at=T0
    )
    catalog.record_ledger(
        "quotes",
        "2025-06-03",
        "OK",
        rows=5000,
        vendor="tushare",
        trace=[{"vendor": "tushare", "error": None, "attempts": 1}],
        run_id="r2",
        at=T0 + timedelta(hours=2),
    )
    # a record from a slow, older run arrives last: it joins the history, not the latest
    catalog.record_ledger("quotes", d, "UPSTREAM_ERROR", at=T0 + timedelta(hours=1))
    entry = catalog.ledger_entry("quotes", d)
    assert entry is not None
    assert entry.status is LedgerStatus.OK and entry.rows == 5000 and entry.vendor == "tushare"
    assert entry.trace == [{"vendor": "tushare", "error": None, "attempts": 1}]
    assert entry.symbol == "*" and entry.run_id == "r2" and entry.successful
    history = catalog.ledger_history("quotes", d)
    assert [e.status for e in history] == ["NOT_READY", "UPSTREAM_ERROR", "OK"]
    assert catalog.ledger_entry("quotes", d, "600519.SH") is None


def test_ledger_queries_by_dataset_range_and_symbols(catalog: Catalog) -> None:
    for i, st in enumerate(["OK", "NO_DATA", "RATE_LIMITED", "OK"]):
        catalog.record_ledger("quotes", date(2025, 6, 3) + timedelta(days=i), st, at=T0)
    catalog.record_ledger("financials", "2025-03-31", "OK", symbol="600519.SH", rows=3, at=T0)
    catalog.record_ledger(
        "financials", "2025-03-31", "PERMISSION_DENIED", symbol="000001.SZ", at=T0
    )
    got = catalog.ledger_entries("quotes", start="2025-06-04", end="2025-06-05")
    assert [(e.date_key.isoformat(), e.status) for e in got] == [
        ("2025-06-04", "NO_DATA"),
        ("2025-06-05", "RATE_LIMITED"),
    ]
    fin = catalog.ledger_entries("financials", symbol=["600519.SH", "*"])
    assert [e.symbol for e in fin] == ["600519.SH"]
    assert len(catalog.ledger_entries()) == 6
    assert catalog.latest_ok_date("quotes") == date(2025, 6, 6)
    assert catalog.latest_ok_date("quotes", statuses=[LedgerStatus.NO_DATA]) == date(2025, 6, 4)
    assert catalog.latest_ok_date("news") is None
    assert catalog.latest_ok_dates(date(2025, 6, 6)) == {
        "quotes": date(2025, 6, 6),
        "financials": date(2025, 3, 31),
    }
    assert catalog.latest_ok_dates(date(2025, 6, 5)) == {  # 06-05 was RATE_LIMITED
        "quotes": date(2025, 6, 4),
        "financials": date(2025, 3, 31),
    }


def test_the_ledger_summaries_the_dashboard_reads(catalog: Catalog) -> None:
    assert catalog.is_empty() and catalog.ledger_datasets() == set()
    d1, d2 = date(2025, 6, 3), date(2025, 6, 4)
    catalog.record_ledger("quotes", d1, "OK", rows=10, at=T0)
    catalog.record_ledger("quotes", d2, "UPSTREAM_ERROR", at=T0)
    catalog.record_ledger("financials", d2, "OK", symbol="600519.SH", rows=3, at=T0)
    catalog.record_ledger("financials", d2, "OK", symbol="000001.SZ", rows=2, at=T0)
    catalog.record_ledger("financials", d2, "NO_DATA", symbol="000002.SZ", at=T0)
    assert not catalog.is_empty()
    assert catalog.ledger_datasets() == {"quotes", "financials"}
    assert catalog.latest_entry_dates(d1) == {"quotes": d1}
    assert catalog.latest_entry_dates(d2) == {"quotes": d2, "financials": d2}
    counts = sorted(catalog.symbol_entry_counts(d1, d2))
    assert [(c.dataset, c.status, c.count, c.rows, c.example_symbol) for c in counts] == [
        ("financials", "NO_DATA", 1, 0, "000002.SZ"),
        ("financials", "OK", 2, 5, "000001.SZ"),
    ]


def test_ledger_rows_are_the_latest_entries_as_plain_rows(catalog: Catalog) -> None:
    d = date(2025, 6, 3)
    catalog.record_ledger("quotes", d, "NOT_READY", at=T0)
    trace = [{"vendor": "tushare", "outcome": "OK"}]
    catalog.record_ledger(
        "quotes",
        d,
        "OK",
        rows=7,
        vendor="tushare",
        trace=trace,
        run_id="r",
        at=T0 + timedelta(hours=1),
    )
    catalog.record_ledger("quotes", d, "OK", symbol="600519.SH", rows=1, at=T0)
    rows = catalog.ledger_rows("quotes", d, d)
    assert [r[:7] for r in rows] == [
        (d, "*", "OK", 7, "tushare", "", "r"),
        (d, "600519.SH", "OK", 1, None, "", None),
    ]
    assert "tushare" in rows[0][8]
    assert [r[1] for r in catalog.ledger_rows("quotes", d, d, ["600519.SH"])] == ["600519.SH"]


def test_ledger_rejects_unknown_statuses(catalog: Catalog) -> None:
    with pytest.raises(ValueError):
        catalog.record_ledger("quotes", "2025-06-03", "FINE")
    with pytest.raises(ValueError):
        catalog.record_ledger("quotes", "2025-06-03", "OK", rows=-1)


def test_json_columns_take_vendor_values(catalog: Catalog) -> None:
    trace = [
        {
            "vendor": "akshare",
            "retry_after": float("nan"),
            "at": T0,
            "n": np.int32(2),
            "codes": ("a", "b"),
        }
    ]
    entry = catalog.record_ledger("quotes", "2025-06-03", "RATE_LIMITED", trace=trace, at=T0)
    got = catalog.ledger_entry("quotes", "2025-06-03")
    assert got is not None and got.trace == entry.trace
    assert got.trace == [
        {
            "vendor": "akshare",
            "retry_after": None,
            "at": "2025-06-03T18:30:00+08:00",
            "n": 2,
            "codes": ["a", "b"],
        }
    ]


def test_partition_files_upsert(catalog: Catalog) -> None:
    catalog.record_partition_file("quotes", "2025", "/lake/a", 10, "aa", "r1", T0)
    catalog.record_partition_file(
        "quotes", "2025", Path("/lake/a"), 12, "bb", "r2", T0 + timedelta(hours=1)
    )
    catalog.record_partition_file("quotes", "2024", "/lake/b", 7, "cc", "r1", T0)
    files = catalog.partition_files("quotes")
    assert [(f.partition, f.rows, f.sha256, f.run_id) for f in files] == [
        ("2024", 7, "cc", "r1"),
        ("2025", 12, "bb", "r2"),
    ]
    assert catalog.partition_files("news") == []


def test_validations_newest_first(catalog: Catalog) -> None:
    catalog.record_validation(
        "r1", "quotes", "2025", "quotes", True, "blocking", 9, 0, [], T0, date_key="2025-06-03"
    )
    vid = catalog.record_validation(
        "r2",
        "quotes",
        "2025",
        "quotes",
        False,
        "warning",
        9,
        1,
        [{"expectation": "price_limit", "unexpected": 3}],
        T0 + timedelta(hours=1),
    )
    got = catalog.validations("quotes")
    assert got[0].id == vid
    assert got[0].failed_expectations == [{"expectation": "price_limit", "unexpected": 3}]
    assert got[0].success is False and got[0].severity == "warning" and got[0].date_key is None
    assert got[1].date_key == date(2025, 6, 3)
    assert len(catalog.validations(limit=1)) == 1
    assert [v.run_id for v in catalog.validations(run_id="r1")] == ["r1"]
    with pytest.raises(ValueError, match="severity"):
        catalog.record_validation("r", "quotes", None, "s", True, "fatal", 1, 0, [], T0)


def test_quarantine_entries(catalog: Catalog) -> None:
    qid = catalog.record_quarantine(
        "r1",
        "quotes",
        "2025-06-03",
        "/lake/quarantine/quotes/r1/batch.parquet",
        "stale trade_date",
        [{"expectation": "trade_date == 2025-06-03"}],
        [{"symbol": "600519.SH", "trade_date": date(2025, 6, 2), "close": float("nan")}],
        T0,
    )
    got = catalog.quarantines()
    assert [q.id for q in got] == [qid]
    assert got[0].sample_rows == [
        {"symbol": "600519.SH", "trade_date": "2025-06-02", "close": None}
    ]
    assert got[0].date_key == date(2025, 6, 3) and got[0].reason == "stale trade_date"
    assert catalog.quarantines(dataset="news") == []


def test_instants_round_trip_as_the_same_utc_instant(catalog: Catalog) -> None:
    aware = datetime(2025, 6, 3, 23, 30, tzinfo=BEIJING)  # 15:30 UTC
    catalog.record_ledger("quotes", "2025-06-03", "OK", at=aware)
    got = catalog.ledger_entry("quotes", "2025-06-03")
    assert got is not None and got.recorded_at == aware
    assert got.recorded_at.tzinfo is not None and got.recorded_at.utcoffset() == timedelta(0)
    # a naive instant is Beijing wall time (pitlake's rule), never the host's zone
    catalog.record_ledger("quotes", "2025-06-04", "OK", at=datetime(2025, 6, 4, 1, 0))
    naive = catalog.ledger_entry("quotes", "2025-06-04")
    assert naive is not None
    assert naive.recorded_at == datetime(2025, 6, 3, 17, 0, tzinfo=timezone.utc)


def test_concurrent_threads_record_without_losing_events(catalog: Catalog) -> None:
    def worker(i: int) -> None:
        for j in range(15):
            catalog.record_ledger(
                "quotes",
                date(2025, 6, 3) + timedelta(days=j % 3),
                "OK",
                symbol=f"{600000 + i:06d}.SH",
                rows=j,
                at=T0 + timedelta(seconds=j),
            )

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(worker, range(6)))
    assert len(catalog.ledger_entries("quotes")) == 6 * 3
    total = sum(
        len(
            catalog.ledger_history(
                "quotes", date(2025, 6, 3) + timedelta(days=k), f"{600000 + i:06d}.SH"
            )
        )
        for i in range(6)
        for k in range(3)
    )
    assert total == 6 * 15


# ---------------------------------------------------------------- SQLite specifics


def test_default_is_sqlite_in_the_lake_created_if_missing(tmp_path: Path) -> None:
    root = tmp_path / "a" / "new" / "lake"
    cat = Catalog(lake_root=root)
    assert cat.url == f"sqlite:///{root.resolve() / 'catalog.db'}"
    assert (root / "catalog.db").is_file()
    with cat.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() >= 5000
    cat.close()


def test_env_url_overrides_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "elsewhere.db"
    monkeypatch.setenv("PITLAKE_CATALOG_URL", f"sqlite:///{other}")
    cat = Catalog(lake_root=tmp_path / "lake")
    cat.record_ledger("quotes", "2025-06-03", "OK")
    assert other.is_file() and not (tmp_path / "lake" / "catalog.db").exists()
    cat.close()
    explicit = Catalog(f"sqlite:///{tmp_path / 'explicit.db'}", lake_root=tmp_path / "lake")
    assert explicit.url.endswith("explicit.db")
    explicit.close()


def test_plain_postgres_urls_use_psycopg3() -> None:
    assert resolve_url("postgresql://u@h/db", None) == "postgresql+psycopg://u@h/db"
    assert resolve_url("postgres://u@h/db", None) == "postgresql+psycopg://u@h/db"
    with pytest.raises(ValueError):
        resolve_url(None, None)


def test_two_catalog_objects_on_one_file_see_each_other(tmp_path: Path) -> None:
    a, b = Catalog(lake_root=tmp_path), Catalog(lake_root=tmp_path)
    a.record_ledger("quotes", "2025-06-03", "OK", rows=1)
    got = b.ledger_entry("quotes", "2025-06-03")
    assert got is not None and got.rows == 1
    a.close()
    b.close()
