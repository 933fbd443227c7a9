"""Quotes as of a cutoff: statuses from the ledger, date statuses, revisions, pinning and the
ingestion axis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.statuses import DateStatus, LedgerStatus, ResultStatus
from tests.lake.conftest import INGEST, NOW, bar, bj, write

A, B = "600519.SH", "000001.SZ"
SESSIONS = ["2025-05-29", "2025-05-30", "2025-06-03", "2025-06-04"]


@pytest.fixture
def filled(store: LakeStore, sqlite_catalog: Catalog) -> LakeStore:
    """Bars for A and B on four sessions around the Dragon Boat holiday (05-31…06-02), each
    session recorded OK in the ledger as a whole-market fetch."""
    write(store, "quotes", [bar(s, d, 10.0 + i) for i, d in enumerate(SESSIONS) for s in (A, B)])
    for d in SESSIONS:
        sqlite_catalog.record_ledger(
            "quotes",
            d,
            "OK",
            rows=2,
            vendor="tushare",
            trace=[{"vendor": "tushare", "ok": True}],
            at=INGEST,
        )
    return store


def test_current_session_ok(filled: LakeStore, lake: Lake) -> None:
    r = lake.quotes("600519", end="2025-06-03", as_of="2025-06-03")
    assert r.status is ResultStatus.OK and r.date_status is DateStatus.CURRENT
    assert r.requested_date == r.effective_trade_date == "2025-06-03"
    assert r.as_of == "2025-06-03T23:59:59.999999+08:00"
    assert r.source == "tushare" and r.retryable is False
    [row] = r.data
    assert row["symbol"] == A and row["trade_date"] == "2025-06-03" and row["close"] == 12.0
    assert row["known_at"] == "2025-06-03T15:00:00+08:00"
    assert row["ingested_at"] == "2025-06-20T18:00:00+08:00"
    assert r.meta["rows"] == 1 and r.meta["known_at_max"] == "2025-06-03T15:00:00+08:00"
    assert r.meta["vendor_trace"][0]["trace"] == [{"vendor": "tushare", "ok": True}]
    assert r.meta["pinned"] is False


def test_before_the_close_the_session_is_not_ready_and_not_silently_older(
    filled: LakeStore, lake: Lake
) -> None:
    r = lake.quotes(A, end="2025-06-03", as_of="2025-06-03T14:00+08:00")
    assert r.status is ResultStatus.NOT_READY and r.retryable is True
    assert r.data == []
    assert r.date_status is DateStatus.STALE and r.effective_trade_date == "2025-05-30"
    assert "2025-05-30" in r.message and "15:00" in r.message
    at_close = lake.quotes(A, end="2025-06-03", as_of="2025-06-03T15:00+08:00")
    assert at_close.status is ResultStatus.OK and at_close.data[0]["trade_date"] == "2025-06-03"


@pytest.mark.parametrize(
    "end,effective",
    [("2025-06-02", "2025-05-30"), ("2025-05-31", "2025-05-30"), ("2025-06-01", "2025-05-30")],
)
def test_holiday_or_weekend_answers_the_latest_session(
    filled: LakeStore, lake: Lake, end: str, effective: str
) -> None:
    r = lake.quotes(A, end=end, as_of=end)
    assert r.status is ResultStatus.OK and r.date_status is DateStatus.LATEST_TRADING_DAY
    assert r.requested_date == end and r.effective_trade_date == effective
    assert [d["trade_date"] for d in r.data] == [effective]
    assert "not an XSHG session" in r.message


def test_default_dates_mean_the_latest_session_at_the_cutoff(filled: LakeStore, lake: Lake) -> None:
    r = lake.quotes(A, as_of="2025-06-04T16:00+08:00")
    assert r.status is ResultStatus.OK and r.effective_trade_date == "2025-06-04"
    assert r.date_status is DateStatus.CURRENT


def test_a_request_past_the_cutoff_answers_the_cutoffs_session(
    filled: LakeStore, lake: Lake
) -> None:
    r = lake.quotes(A, end="2025-06-04", as_of="2025-06-03")
    assert r.status is ResultStatus.OK and r.effective_trade_date == "2025-06-03"
    assert r.date_status is DateStatus.LATEST_TRADING_DAY and "after the as-of" in r.message
    assert all(d["trade_date"] <= "2025-06-03" for d in r.data)


@pytest.mark.parametrize(
    "ledger,expected",
    [
        (LedgerStatus.NOT_READY, ResultStatus.NOT_READY),
        (LedgerStatus.UPSTREAM_ERROR, ResultStatus.UPSTREAM_ERROR),
        (LedgerStatus.RATE_LIMITED, ResultStatus.RATE_LIMITED),
        (LedgerStatus.PERMISSION_DENIED, ResultStatus.PERMISSION_DENIED),
        (LedgerStatus.NOT_CONFIGURED, ResultStatus.NOT_CONFIGURED),
        (LedgerStatus.REJECTED, ResultStatus.NOT_READY),
        (LedgerStatus.NO_DATA, ResultStatus.NO_DATA),
    ],
)
def test_a_session_without_rows_carries_the_ledger_status(
    filled: LakeStore,
    lake: Lake,
    sqlite_catalog: Catalog,
    ledger: LedgerStatus,
    expected: ResultStatus,
) -> None:
    sqlite_catalog.record_ledger(
        "quotes", "2025-06-05", ledger, message="vendor said so", at=INGEST
    )
    r = lake.quotes([A, B], end="2025-06-05", as_of="2025-06-05")
    assert r.status is expected
    assert r.data == []  # never the previous session's bars in place of the requested one
    if expected is ResultStatus.NO_DATA:
        # fetched, and nothing there: the answer is about the requested session itself
        assert r.effective_trade_date == "2025-06-05" and r.date_status is DateStatus.CURRENT
    else:
        assert r.effective_trade_date == "2025-06-04" and r.date_status is DateStatus.STALE
    assert r.retryable is (
        expected in {ResultStatus.NOT_READY, ResultStatus.UPSTREAM_ERROR, ResultStatus.RATE_LIMITED}
    )
    assert r.meta["vendor_trace"][0]["status"] == ledger.value
    if expected is not ResultStatus.NO_DATA:
        assert "vendor said so" in r.message


def test_never_fetched_is_unknown(filled: LakeStore, lake: Lake) -> None:
    r = lake.quotes(A, end="2025-06-06", as_of="2025-06-06")
    assert r.status is ResultStatus.UNKNOWN and r.data == []
    assert "never fetched" in r.message


def test_an_empty_lake_is_unknown_with_unknown_date_status(lake: Lake) -> None:
    r = lake.quotes(A, end="2025-06-03", as_of="2025-06-03")
    assert r.status is ResultStatus.UNKNOWN and r.date_status is DateStatus.UNKNOWN
    assert r.effective_trade_date is None and r.data == []


def test_a_symbol_missing_from_a_successful_market_fetch_is_no_data(
    filled: LakeStore, lake: Lake, sqlite_catalog: Catalog, store: LakeStore
) -> None:
    write(store, "quotes", [bar(B, "2025-06-05", 20.0)])  # A suspended that day
    sqlite_catalog.record_ledger("quotes", "2025-06-05", "OK", rows=1, at=INGEST)
    only_a = lake.quotes(A, end="2025-06-05", as_of="2025-06-05")
    assert only_a.status is ResultStatus.NO_DATA and only_a.data == []
    assert only_a.retryable is False
    both = lake.quotes([A, B], end="2025-06-05", as_of="2025-06-05")
    assert both.status is ResultStatus.OK and [d["symbol"] for d in both.data] == [B]
    assert both.meta["gaps"][0]["symbol"] == A and both.meta["gaps"][0]["status"] == "NO_DATA"
    assert A in both.message and "succeeded without them" in both.message


def test_a_symbol_level_failure_beats_the_market_entry(
    filled: LakeStore, lake: Lake, sqlite_catalog: Catalog, store: LakeStore
) -> None:
    write(store, "quotes", [bar(B, "2025-06-05", 20.0)])
    sqlite_catalog.record_ledger("quotes", "2025-06-05", "OK", rows=1, at=INGEST)
    sqlite_catalog.record_ledger(
        "quotes", "2025-06-05", "UPSTREAM_ERROR", symbol=A, message="timeout", at=INGEST
    )
    r = lake.quotes([A, B], end="2025-06-05", as_of="2025-06-05")
    assert r.status is ResultStatus.UPSTREAM_ERROR
    assert [d["symbol"] for d in r.data] == [B]  # the served rows are right; the status says more
    assert "600519.SH" in r.message and "timeout" in r.message


def test_a_range_serves_history_and_reports_an_unready_end(filled: LakeStore, lake: Lake) -> None:
    r = lake.quotes(A, start="2025-05-29", end="2025-06-04", as_of="2025-06-04T10:00+08:00")
    assert [d["trade_date"] for d in r.data] == ["2025-05-29", "2025-05-30", "2025-06-03"]
    assert r.status is ResultStatus.NOT_READY and r.date_status is DateStatus.STALE
    assert r.effective_trade_date == "2025-06-03"
    full = lake.quotes(A, start="2025-05-29", end="2025-06-04", as_of="2025-06-04")
    assert full.status is ResultStatus.OK and len(full.data) == 4


def test_a_range_entirely_after_the_cutoff_is_not_ready(filled: LakeStore, lake: Lake) -> None:
    r = lake.quotes(A, start="2025-06-03", end="2025-06-04", as_of="2025-05-30")
    assert r.status is ResultStatus.NOT_READY and r.data == []


def test_revisions_are_served_by_cutoff(filled: LakeStore, lake: Lake, store: LakeStore) -> None:
    corrected_at = bj("2025-06-25", "09:00")
    res = write(store, "quotes", [bar(A, "2025-06-03", 12.5)], ingested_at=corrected_at)
    assert res.revisions == 1
    before = lake.quotes(A, end="2025-06-03", as_of="2025-06-24")
    after = lake.quotes(A, end="2025-06-03", as_of="2025-06-25T10:00+08:00")
    assert before.data[0]["close"] == 12.0 and before.data[0]["known_at_basis"] == "session_close"
    assert after.data[0]["close"] == 12.5 and after.data[0]["known_at_basis"] == "first_seen"
    assert len(after.data) == 1


def test_as_ingested_hides_rows_stored_later(filled: LakeStore, lake: Lake) -> None:
    # the bars were backfilled on 06-20; on the known_at axis 06-03 is public at the close
    assert lake.quotes(A, end="2025-06-03", as_of="2025-06-03").status is ResultStatus.OK
    r = lake.quotes(A, end="2025-06-03", as_of="2025-06-03", as_ingested="2025-06-10")
    assert r.status is ResultStatus.NOT_READY and r.data == []
    assert r.meta["as_ingested"] == "2025-06-10T23:59:59.999999+08:00"


def test_a_pinned_lake_clamps_every_request(
    filled: LakeStore, lake_root: Path, sqlite_catalog: Catalog
) -> None:
    pinned = Lake(lake_root, catalog=sqlite_catalog, pin_as_of="2025-06-03", clock=lambda: NOW)
    r = pinned.quotes(A, end="2025-06-04", as_of="2025-06-04")
    assert r.meta["pinned"] is True and r.as_of == "2025-06-03T23:59:59.999999+08:00"
    assert "clamped" in r.message
    assert [d["trade_date"] for d in r.data] == ["2025-06-03"]
    assert pinned.quotes(A).effective_trade_date == "2025-06-03"  # no as_of: the pin
    earlier = pinned.quotes(A, end="2025-05-30", as_of="2025-05-30")
    assert earlier.as_of.startswith("2025-05-30") and "clamped" not in earlier.message
    pinned.close()


def test_a_future_as_of_is_answered_as_of_now(
    filled: LakeStore, lake_root: Path, sqlite_catalog: Catalog
) -> None:
    now = bj("2025-06-04", "16:00")
    lk = Lake(lake_root, catalog=sqlite_catalog, clock=lambda: now)
    r = lk.quotes(A, end="2025-06-04", as_of="2025-06-30")
    assert r.as_of == "2025-06-04T16:00:00+08:00" and "future" in r.message
    assert r.effective_trade_date == "2025-06-04"
    assert lk.quotes(A).as_of == "2025-06-04T16:00:00+08:00"  # as_of omitted = now
    today = lk.quotes(A, as_of="2025-06-04")  # the end of today: simply now, no note
    assert today.as_of == "2025-06-04T16:00:00+08:00" and "future" not in today.message
    lk.close()


def test_vendor_forms_are_accepted_and_deduplicated(filled: LakeStore, lake: Lake) -> None:
    r = lake.quotes(["sh600519", "600519.XSHG", "000001"], end="2025-06-03", as_of="2025-06-03")
    assert [d["symbol"] for d in r.data] == [B, A]  # sorted by symbol
    assert len(r.data) == 2
    assert (
        lake.quotes("600519.SH,000001.SZ", end="2025-06-03", as_of="2025-06-03").meta["rows"] == 2
    )


def test_the_envelope_is_json_ready(filled: LakeStore, lake: Lake) -> None:
    r = lake.quotes([A, B], start="2025-05-29", end="2025-06-04", as_of="2025-06-04")
    text = json.dumps(r.to_dict(), allow_nan=False)
    assert '"status": "OK"' in text
