"""An answer as of D shows nothing a fetch found after D, in meta as in rows (issue 27 item 4,
decision 36): a window's ledger entry dated after D is clipped to D without its counts, a
window that started after D cannot make D's silence NO_DATA, and days no window covered are
never fetched. A catalog from before `window_start` is read as before and mended on write."""

from __future__ import annotations

import json
import sqlite3
from datetime import date
from pathlib import Path

from pitlake.lake.catalog import Catalog
from pitlake.lake.catalog_values import LedgerEntry
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.read.ledger_asof import uncovered
from pitlake.statuses import LedgerStatus, ResultStatus
from tests.lake.conftest import INGEST, bj, news_frame, news_item, statement_row, write

A = "600519.SH"
LATER = "6 statements published after the as-of"


def _dates_and_counts(meta: dict) -> tuple[list[str], str]:
    return [t["date"] for t in meta["vendor_trace"]], json.dumps(meta, ensure_ascii=False)


def test_a_statement_fetch_recorded_later_shows_no_later_date_or_count(
    store: LakeStore, sqlite_catalog: Catalog, lake: Lake
) -> None:
    write(store, "financials", [statement_row(A, "2024-09-30", "2024-10-25", net_profit=1.0)])
    write(store, "financials", [statement_row(A, "2025-03-31", "2025-04-29", net_profit=2.0)])
    sqlite_catalog.record_ledger(
        "financials",
        "2025-06-30",
        "OK",
        symbol=A,
        rows=9,
        vendor="tushare",
        message=f"served by tushare: 9 rows ({LATER})",
        trace=[{"vendor": "tushare", "outcome": "OK", "attempts": 3, "rows": 9, "message": "9"}],
        window_start="2025-04-01",
        at=INGEST,
    )
    r = lake.financials(symbols=A, as_of="2025-04-01")
    assert r.status is ResultStatus.OK and r.meta["rows"] == 1  # the 04-29 report is hidden
    dates, text = _dates_and_counts(r.meta)
    assert dates == ["2025-04-01"]  # not 2025-06-30
    (shown,) = r.meta["vendor_trace"]
    assert shown["rows"] is None and LATER not in text
    assert shown["trace"] == [{"vendor": "tushare", "outcome": "OK", "attempts": 3}]
    # as of after the window's end the entry is shown as recorded
    full = lake.financials(symbols=A, as_of="2025-07-01").meta["vendor_trace"][0]
    assert full["date"] == "2025-06-30" and full["rows"] == 9


def test_a_news_window_that_starts_after_the_as_of_is_not_its_no_data(
    store: LakeStore, sqlite_catalog: Catalog, lake: Lake
) -> None:
    write(store, "news", news_frame([news_item("may", "五月", bj("2025-05-10", "09:00"), [A])]))
    sqlite_catalog.record_ledger(
        "news", "2025-05-31", "OK", rows=1, window_start="2025-05-01", at=INGEST
    )
    r = lake.news(symbols=A, start="2025-04-20", end="2025-04-25", as_of="2025-04-25")
    assert r.status is ResultStatus.UNKNOWN, r.message  # was NO_DATA from May's fetch
    assert "never fetched" in r.message
    assert r.meta["vendor_trace"] == []  # May's fetch says nothing about April
    # once April is fetched (nothing in it), the same question is NO_DATA
    sqlite_catalog.record_ledger(
        "news", "2025-04-30", "NO_DATA", window_start="2025-04-01", at=INGEST
    )
    again = lake.news(symbols=A, start="2025-04-20", end="2025-04-25", as_of="2025-04-25")
    assert again.status is ResultStatus.NO_DATA
    assert [t["date"] for t in again.meta["vendor_trace"]] == ["2025-04-25"]


def test_days_no_window_covered_are_never_fetched_even_beside_rows(
    store: LakeStore, sqlite_catalog: Catalog, lake: Lake
) -> None:
    write(store, "news", news_frame([news_item("apr", "四月", bj("2025-04-10", "09:00"), [A])]))
    sqlite_catalog.record_ledger(
        "news", "2025-04-30", "OK", rows=1, window_start="2025-04-01", at=INGEST
    )
    r = lake.news(symbols=A, start="2025-03-25", end="2025-04-15", as_of="2025-04-15")
    assert r.meta["rows"] == 1 and r.status is ResultStatus.UNKNOWN
    assert "2025-03-25…2025-03-31" in r.message


def test_uncovered_spans() -> None:
    def ok(lo: str, hi: str | None, status: str = "OK") -> LedgerEntry:
        return LedgerEntry(
            "news", date.fromisoformat(hi or lo), "*", LedgerStatus(status), 0, None, [], "",
            None, INGEST, date.fromisoformat(lo) if hi else None,
        )  # fmt: skip

    d = date.fromisoformat
    assert uncovered([ok("2025-04-01", "2025-04-30")], d("2025-04-03"), d("2025-04-09")) is None
    gap = uncovered(
        [ok("2025-04-01", "2025-04-10"), ok("2025-04-15", "2025-04-30")],
        d("2025-04-01"),
        d("2025-04-30"),
    )
    assert gap == (d("2025-04-11"), d("2025-04-14"))
    failed = ok("2025-04-11", "2025-04-14", "UPSTREAM_ERROR")
    assert uncovered([failed, ok("2025-04-01", "2025-04-10")], d("2025-04-01"), d("2025-04-12"))
    assert uncovered([ok("2025-04-30", None)], d("2025-04-01"), d("2025-04-30")) is None  # old


def _drop_window_start(path: Path) -> None:
    """Make the catalog as an older pitlake left it: the ledger without `window_start`."""
    conn = sqlite3.connect(path)
    try:
        for table in ("ledger", "ledger_events"):
            conn.execute(f"ALTER TABLE {table} DROP COLUMN window_start")
        conn.commit()
    finally:
        conn.close()  # the last connection checkpoints the WAL into the file


def test_an_older_catalog_is_read_as_before_and_mended_by_a_writer(lake_root: Path) -> None:
    with Catalog(lake_root=lake_root) as cat:
        cat.record_ledger("news", "2025-04-30", "OK", rows=2, window_start="2025-04-01")
        path = Path(cat.engine.url.database or "")
    _drop_window_start(path)
    before = path.read_bytes()
    with Catalog(lake_root=lake_root, read_only=True) as ro:
        (entry,) = ro.ledger_entries("news")
        assert entry.rows == 2 and entry.window_start is None
        assert ro.missing_columns == {("ledger", "window_start"), ("ledger_events", "window_start")}
    assert path.read_bytes() == before  # a read never writes, not even a migration
    with Catalog(lake_root=lake_root) as rw:
        assert rw.missing_columns == frozenset()
        rw.record_ledger("news", "2025-05-31", "OK", rows=1, window_start="2025-05-01")
        entries = rw.ledger_entries("news")
        assert [e.window_start for e in entries] == [None, date(2025, 5, 1)]
        assert rw.ledger_history("news", "2025-05-31")[0].window_start == date(2025, 5, 1)
