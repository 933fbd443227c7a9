"""Planted future rows never leak: for every read method, rows known after the cutoff (a later
session, a later announcement, a later correction, later news, a later vendor calendar) are
never returned, however wide the request."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pandas as pd
import pytest

from pitlake.envelope import Result
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.pit import parse_cutoff
from pitlake.read.lake import Lake
from tests.lake.conftest import (
    INGEST,
    NOW,
    bar,
    bj,
    factor,
    news_frame,
    news_item,
    statement_row,
    write,
)

A = "600519.SH"
B = "603398.SH"  # listed from 2025-06-05
FUTURE_NAME = "未来名"  # a name announced on 06-04 (known at its end), in force from 06-05
INDEX = "000300.SH"  # CSI 300 (an index code: 000300.SZ would be a stock's form)
IPO = "001390.SZ"  # priced before the cutoff; its revised terms come after it
CUTOFF = "2025-06-04T16:00+08:00"
MARK = 666.0  # every planted future value carries it


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lake]:
    """One lake for the whole module (writing it is the slow part); reads do not change it."""
    root = tmp_path_factory.mktemp("planted")
    store = LakeStore(root)
    # known by the cutoff
    write(store, "quotes", [bar(A, d, 10.0) for d in ("2025-06-03", "2025-06-04")])
    write(store, "adj_factors", [factor(A, d, 1.0) for d in ("2025-06-03", "2025-06-04")])
    write(store, "valuation", [{"symbol": A, "trade_date": "2025-06-04", "pe": 20.0}])
    write(store, "index_quotes", [index_bar(d, 3850.0) for d in ("2025-06-03", "2025-06-04")])
    write(
        store,
        "dragon_tiger",
        [{"symbol": A, "trade_date": "2025-06-03", "reason": "r", "net_buy": 1.0}],
    )
    write(store, "financials", [statement_row(A, "2025-03-31", "2025-04-25", revenue=1.0)])
    write(store, "news", news_frame([news_item("old", "old", bj("2025-06-04", "09:00"), [A])]))
    write(store, "announcements", [notice("old", "2025-06-04", bj("2025-06-04", "15:59"))])
    write(store, "disclosure_schedule", [plan("2025-08-20", "2025-06-03")])
    write(store, "securities", [listing(A, "2001-08-27"), name(A, "贵州茅台", "2001-08-27")])
    write(store, "index_members", [member("2025-06-03", 1.0)])
    write(store, "limit_prices", [limits(d, 10.0) for d in ("2025-06-03", "2025-06-04")])
    write(store, "limit_pools", [pool("2025-06-03", 11.0)])  # public at the end of 06-03
    write(store, "new_shares", [ipo(IPO, "2025-05-26", 9.5)])  # known at the end of 05-27
    # from the future, seen from the cutoff
    write(store, "index_members", [member("2025-06-04", MARK)])  # known at 06-04's end
    write(store, "quotes", [bar(A, "2025-06-05", MARK)])  # the next session
    write(store, "adj_factors", [factor(A, "2025-06-05", MARK)])  # next ex-date
    write(store, "valuation", [{"symbol": A, "trade_date": "2025-06-05", "pe": MARK}])
    write(store, "index_quotes", [index_bar("2025-06-05", MARK)])  # the next session's bar
    write(store, "limit_prices", [limits("2025-06-05", MARK)])  # public 06-05 08:40
    write(store, "limit_pools", [pool("2025-06-04", MARK)])  # public at the end of 06-04
    write(store, "new_shares", [ipo("603001.SH", "2025-06-04", MARK)])  # T+1: end of 06-05
    late_terms = {**ipo(IPO, "2025-05-26", MARK), "known_at": "2025-06-04T16:01:00+08:00"}
    write(store, "new_shares", [{**late_terms, "known_at_basis": "first_seen"}])  # a revision
    write(
        store,
        "dragon_tiger",
        [{"symbol": A, "trade_date": "2025-06-04", "reason": "today", "net_buy": MARK}],
    )  # public at the end of 06-04
    write(
        store,
        "financials",
        [
            statement_row(A, "2025-06-30", "2025-08-20", revenue=MARK),  # a later report
            statement_row(A, "2025-03-31", "2025-04-25", revision="2025-06-10", revenue=MARK),
        ],
        ingested_at=INGEST.replace(month=9),
    )
    write(
        store,
        "news",
        news_frame(
            [
                news_item("later", "later", bj("2025-06-04", "16:01"), [A]),
                news_item("undated", "undated", None, [A]),  # first seen at INGEST (06-20)
            ]
        ),
    )
    write(
        store,
        "announcements",
        [
            notice("later", "2025-06-04", bj("2025-06-04", "16:01")),
            notice("day_end", "2025-06-04", None),  # date only: known at the end of 06-04
        ],
    )
    # a reschedule announced on the cutoff's day: known at its end, after the cutoff
    write(store, "disclosure_schedule", [plan("2025-08-28", "2025-06-04")])
    write(
        store,
        "securities",
        [
            name(A, FUTURE_NAME, "2025-06-05", ann="2025-06-04"),  # known at 06-04's end
            listing(B, "2025-06-05"),  # listed the next day
            listing(A, "2001-08-27", end="2025-06-05"),  # delisted from 06-06: known then
        ],
        ingested_at=INGEST.replace(day=25),
    )
    # corrections first seen after the cutoff
    later = INGEST.replace(day=25)
    write(store, "quotes", [bar(A, "2025-06-03", MARK)], ingested_at=later)
    write(
        store,
        "valuation",
        [{"symbol": A, "trade_date": "2025-06-04", "pe": MARK}],
        ingested_at=later,
    )
    catalog = Catalog(f"sqlite:///{root / 'catalog.db'}")
    for d in ("2025-06-03", "2025-06-04", "2025-06-05"):
        catalog.record_ledger("securities", d, "OK", rows=1, vendor="tushare")
    with Lake(root, catalog=catalog, clock=lambda: NOW) as lake:
        yield lake
    catalog.close()


def listing(symbol: str, start: str, end: str | None = None) -> dict[str, Any]:
    return {"symbol": symbol, "attribute": "listing", "start_date": start, "end_date": end}


def name(symbol: str, text: str, start: str, ann: str | None = None) -> dict[str, Any]:
    return {
        "symbol": symbol,
        "attribute": "name",
        "start_date": start,
        "name": text,
        "ann_date": ann or start,
    }


def limits(day: str, pre: float) -> dict[str, Any]:
    return {"symbol": A, "trade_date": day, "pre_close": pre, "up_limit": pre, "down_limit": pre}


def pool(day: str, close: float) -> dict[str, Any]:
    return {"symbol": A, "trade_date": day, "pool": "up", "close": close, "consecutive": 1.0}


def index_bar(day: str, close: float) -> dict[str, Any]:
    row = bar(INDEX, day, close)
    del row["turnover_rate"]
    return row


def notice(ann_id: str, day: str, at: datetime | None) -> dict[str, Any]:
    published = pd.Timestamp(at).tz_convert("UTC") if at is not None else pd.NaT
    return {
        "ann_id": ann_id,
        "symbols": [A],
        "title": ann_id,
        "ann_date": day,
        "published_at": published,
    }


def plan(planned: str, ann: str) -> dict[str, Any]:
    return {"symbol": A, "report_period": "2025-06-30", "planned_date": planned, "ann_date": ann}


def ipo(symbol: str, subscribed: str, price: float) -> dict[str, Any]:
    return {"symbol": symbol, "ipo_date": subscribed, "issue_price": price}


def member(day: str, weight: float) -> dict[str, Any]:
    return {"index_code": INDEX, "trade_date": day, "symbol": A, "weight": weight}


def _cutoff() -> datetime:
    return parse_cutoff(CUTOFF)


READS: list[tuple[str, Callable[[Lake], Result]]] = [
    ("quotes", lambda lk: lk.quotes(A, start="2025-01-01", end="2025-12-31", as_of=CUTOFF)),
    ("quotes-latest", lambda lk: lk.quotes(A, end="2025-12-31", as_of=CUTOFF)),
    (
        "qfq",
        lambda lk: lk.quotes(A, start="2025-06-01", end="2025-06-30", as_of=CUTOFF, adjust="qfq"),
    ),
    (
        "hfq",
        lambda lk: lk.quotes(A, start="2025-06-01", end="2025-06-30", as_of=CUTOFF, adjust="hfq"),
    ),
    ("valuation", lambda lk: lk.valuation(A, start="2025-06-01", end="2025-06-30", as_of=CUTOFF)),
    (
        "dragon_tiger",
        lambda lk: lk.dragon_tiger(start="2025-06-01", end="2025-06-30", as_of=CUTOFF),
    ),
    (
        "index_quotes",
        lambda lk: lk.index_quotes(INDEX, start="2025-06-01", end="2025-06-30", as_of=CUTOFF),
    ),
    ("index_quotes-all", lambda lk: lk.index_quotes(end="2025-12-31", as_of=CUTOFF)),
    ("index_members", lambda lk: lk.index_members(INDEX, date="2025-06-04", as_of=CUTOFF)),
    (
        "limit_prices",
        lambda lk: lk.limit_prices(start="2025-06-01", end="2025-06-30", as_of=CUTOFF),
    ),
    ("limit_pools", lambda lk: lk.limit_pools(start="2025-06-01", end="2025-06-30", as_of=CUTOFF)),
    ("financials", lambda lk: lk.financials(A, as_of=CUTOFF)),
    ("financials-latest", lambda lk: lk.financials(A, as_of=CUTOFF, latest_only=True)),
    ("news", lambda lk: lk.news(start="2025-06-01", end="2025-06-30", as_of=CUTOFF)),
    ("universe", lambda lk: lk.universe(CUTOFF)),
    ("news-symbol", lambda lk: lk.news(A, end="2025-06-30", lookback_days=30, as_of=CUTOFF)),
    (
        "announcements",
        lambda lk: lk.announcements(start="2025-06-01", end="2025-06-30", as_of=CUTOFF),
    ),
    ("announcements-symbol", lambda lk: lk.announcements(A, date="2025-06-04", as_of=CUTOFF)),
    (
        "disclosure_schedule",
        lambda lk: lk.disclosure_schedule(start="2025-08-01", end="2025-08-31", as_of=CUTOFF),
    ),
    (
        "new_shares",
        lambda lk: lk.read("new_shares", start="2025-05-01", end="2025-06-30", as_of=CUTOFF),
    ),
]


def _values(row: dict[str, Any]) -> list[Any]:
    return [v for v in row.values() if isinstance(v, float)]


@pytest.mark.parametrize("name,read", READS, ids=[r[0] for r in READS])
def test_no_future_row_leaks(planted: Lake, name: str, read: Callable[[Lake], Result]) -> None:
    r = read(planted)
    cutoff = _cutoff()
    assert r.data, f"{name}: the known rows should be served"
    for row in r.data:
        assert datetime.fromisoformat(row["known_at"]) <= cutoff, (name, row)
        assert MARK not in _values(row), (name, row)
        assert row.get("news_id") not in ("later", "undated")
        assert row.get("ann_id") not in ("later", "day_end")
        assert row.get("planned_date") != "2025-08-28"
        assert row.get("name") != FUTURE_NAME and row.get("symbol") != B
    if r.meta["known_at_max"]:
        assert datetime.fromisoformat(r.meta["known_at_max"]) <= cutoff


def test_future_rows_do_appear_after_their_time(planted: Lake) -> None:
    """The control: the same reads at a later cutoff do see the planted rows."""
    lake = planted
    late = "2025-12-31"
    assert any(
        d["close"] == MARK
        for d in lake.quotes(A, start="2025-06-01", end="2025-06-30", as_of=late).data
    )
    assert {
        d["news_id"] for d in lake.news(end="2025-06-30", lookback_days=30, as_of=late).data
    } >= {"later", "undated"}
    assert any(d["revenue"] == MARK for d in lake.financials(A, as_of=late).data)
    assert [
        d["planned_date"]
        for d in lake.disclosure_schedule(start="2025-08-01", end="2025-08-31", as_of=late).data
    ] == ["2025-08-28"]
    assert {d["ann_id"] for d in lake.announcements(date="2025-06-04", as_of=late).data} == {
        "old",
        "later",
        "day_end",
    }
    june5 = {d["symbol"]: d["name"] for d in lake.universe("2025-06-05").data}
    assert june5 == {A: FUTURE_NAME, B: None}
    assert [d["symbol"] for d in lake.universe("2025-06-06").data] == [B]  # A delisted
    assert [d["close"] for d in lake.index_quotes(INDEX, date="2025-06-05", as_of=late).data] == [
        MARK
    ]
    members = lake.index_members(INDEX, date="2025-06-04", as_of=late)
    assert [d["weight"] for d in members.data] == [MARK]
    assert any(
        d["net_buy"] == MARK
        for d in lake.dragon_tiger(start="2025-06-01", end="2025-06-30", as_of=late).data
    )


def test_limit_lists_appear_at_their_publication(planted: Lake) -> None:
    """limit_prices of 06-05 are public at 08:40 that morning, not before; the 06-04 pools at
    the end of 06-04, not at its close."""
    before = planted.limit_prices(date="2025-06-05", as_of="2025-06-05T08:39+08:00")
    assert before.data == [] and before.effective_trade_date != "2025-06-05"
    at = planted.limit_prices(date="2025-06-05", as_of="2025-06-05T08:40+08:00")
    assert [d["up_limit"] for d in at.data] == [MARK]
    evening = planted.limit_pools(date="2025-06-04", as_of="2025-06-04T20:00+08:00")
    assert evening.data == []
    night = planted.limit_pools(date="2025-06-04", as_of="2025-06-05")
    assert [d["close"] for d in night.data] == [MARK]


def test_new_shares_terms_appear_after_their_time(planted: Lake) -> None:
    now = planted.read("new_shares", start="2025-05-01", end="2025-06-30", as_of=CUTOFF)
    assert [(r["symbol"], r["issue_price"]) for r in now.data] == [(IPO, 9.5)]
    late = planted.read("new_shares", start="2025-05-01", end="2025-06-30", as_of="2025-12-31")
    assert {(r["symbol"], r["issue_price"]) for r in late.data} == {
        (IPO, MARK),  # the revision, public 06-04 16:01
        ("603001.SH", MARK),  # subscribed 06-04: known at the end of 06-05
    }
