"""Dragon-tiger, valuation and calendar reads."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.statuses import DateStatus, ResultStatus
from tests.lake.conftest import INGEST, bj, canonical, write

A, B, C = "600519.SH", "000001.SZ", "300750.SZ"


def lhb(symbol: str, day: str, reason: str, net: float) -> dict[str, object]:
    return {"symbol": symbol, "trade_date": day, "reason": reason, "net_buy": net, "close": 10.0}


@pytest.fixture
def board(store: LakeStore, sqlite_catalog: Catalog) -> LakeStore:
    write(
        store,
        "dragon_tiger",
        [
            lhb(A, "2025-06-03", "日涨幅偏离值达7%", 1e8),
            lhb(A, "2025-06-03", "连续三个交易日内涨幅偏离值累计达20%", 2e8),
            lhb(B, "2025-06-03", "日跌幅偏离值达7%", -5e7),
            lhb(C, "2025-06-04", "日换手率达20%", 3e7),
        ],
        source="akshare",
    )
    for d in ("2025-06-03", "2025-06-04"):
        sqlite_catalog.record_ledger("dragon_tiger", d, "OK", rows=3, vendor="akshare", at=INGEST)
    return store


def test_one_stock_can_be_listed_twice_a_day(board: LakeStore, lake: Lake) -> None:
    r = lake.dragon_tiger(date="2025-06-03", symbols=A, as_of="2025-06-04")
    assert r.status is ResultStatus.OK and r.source == "akshare"
    assert sorted(d["reason"] for d in r.data) == sorted(
        ["日涨幅偏离值达7%", "连续三个交易日内涨幅偏离值累计达20%"]
    )
    assert r.data[0]["known_at"] == "2025-06-03T23:59:59.999999+08:00"


def test_whole_market_list_is_public_at_the_end_of_the_day(board: LakeStore, lake: Lake) -> None:
    evening = lake.dragon_tiger(date="2025-06-03", as_of="2025-06-03T20:00+08:00")
    assert evening.status is ResultStatus.NOT_READY and evening.data == []
    full = lake.dragon_tiger(date="2025-06-03", as_of="2025-06-03")
    assert full.status is ResultStatus.OK and len(full.data) == 3
    assert full.date_status is DateStatus.CURRENT
    assert [d["trade_date"] for d in full.data] == ["2025-06-03"] * 3


def test_range_and_symbols_filter(board: LakeStore, lake: Lake) -> None:
    r = lake.dragon_tiger(start="2025-06-03", end="2025-06-04", symbols=[C, B], as_of="2025-06-05")
    assert [(d["symbol"], d["trade_date"]) for d in r.data] == [
        (B, "2025-06-03"),
        (C, "2025-06-04"),
    ]
    assert r.status is ResultStatus.OK  # C absent on 06-03 and B on 06-04: not on the list


def test_a_listed_day_with_no_entries_is_no_data_only_after_a_successful_fetch(
    board: LakeStore, lake: Lake, sqlite_catalog: Catalog
) -> None:
    assert lake.dragon_tiger(date="2025-06-05", as_of="2025-06-06").status is ResultStatus.UNKNOWN
    sqlite_catalog.record_ledger("dragon_tiger", "2025-06-05", "NO_DATA", at=INGEST)
    assert lake.dragon_tiger(date="2025-06-05", as_of="2025-06-06").status is ResultStatus.NO_DATA


def test_valuation_reads_latest_versions(store: LakeStore, lake: Lake) -> None:
    rows = [{"symbol": A, "trade_date": "2025-06-03", "pe": 25.0, "total_mv": 2.0e12}]
    write(store, "valuation", rows)
    write(store, "valuation", [dict(rows[0], pe=26.0)], ingested_at=INGEST + timedelta(days=1))
    old = lake.valuation(A, end="2025-06-03", as_of="2025-06-20")
    new = lake.valuation(A, end="2025-06-03", as_of=INGEST + timedelta(days=1))
    assert [d["pe"] for d in old.data] == [25.0] and [d["pe"] for d in new.data] == [26.0]
    assert new.data[0]["total_mv"] == 2.0e12 and new.effective_trade_date == "2025-06-03"
    assert lake.valuation(A, end="2025-06-03", as_of="2025-06-03T14:59+08:00").status is (
        ResultStatus.NOT_READY
    )


def test_calendar_from_the_offline_exchange_calendar(lake: Lake) -> None:
    r = lake.calendar(start="2025-05-30", end="2025-06-03", as_of="2025-06-03")
    assert r.status is ResultStatus.OK and r.source == "exchange_calendars"
    assert [(d["date"], d["is_open"]) for d in r.data] == [
        ("2025-05-30", True),
        ("2025-05-31", False),
        ("2025-06-01", False),
        ("2025-06-02", False),  # Dragon Boat Festival
        ("2025-06-03", True),
    ]
    assert r.effective_trade_date == "2025-06-03"
    assert lake.calendar(
        start="2025-05-30", end="2025-06-03", as_of="2025-06-02"
    ).effective_trade_date == ("2025-05-30")
    # a make-up weekend workday is not a session
    assert lake.calendar(start="2025-09-28", end="2025-09-28").data == [
        {"date": "2025-09-28", "is_open": False, "source": "exchange_calendars"}
    ]


def test_calendar_beyond_the_offline_range_needs_the_stored_vendor_calendar(
    store: LakeStore, lake: Lake
) -> None:
    unknown = lake.calendar(start="2026-12-31", end="2027-01-05")
    assert unknown.status is ResultStatus.UNKNOWN
    assert [d["date"] for d in unknown.data] == ["2026-12-31"]
    seen = bj("2025-12-01", "09:00")
    rows = [
        {
            "exchange": "XSHG",
            "date": d,
            "is_open": d not in ("2027-01-01", "2027-01-02", "2027-01-03"),
        }
        for d in ("2027-01-01", "2027-01-02", "2027-01-03", "2027-01-04", "2027-01-05")
    ]
    write(store, "calendar", canonical("calendar", rows, fetched_at=seen), ingested_at=seen)
    known = lake.calendar(start="2026-12-31", end="2027-01-05")
    assert known.status is ResultStatus.OK and known.source == "exchange_calendars,tushare"
    assert [d["is_open"] for d in known.data] == [True, False, False, False, True, True]
    # before we fetched it, the vendor calendar was not known
    assert lake.calendar(start="2026-12-31", end="2027-01-05", as_of="2025-11-30").status is (
        ResultStatus.UNKNOWN
    )


def test_calendar_reports_vendor_disagreement(store: LakeStore, lake: Lake) -> None:
    rows = [{"exchange": "XSHG", "date": "2025-06-02", "is_open": True}]
    write(store, "calendar", canonical("calendar", rows, fetched_at=INGEST))
    r = lake.calendar(start="2025-06-02", end="2025-06-02")
    assert r.data[0]["is_open"] is False  # the exchange calendar decides
    assert r.meta["mismatches"] == [
        {"date": "2025-06-02", "vendor": "tushare", "vendor_is_open": True}
    ]
