"""Every dataset comes through the router from the bundled sample, in canonical form: the
vendor that served it, known_at and its basis, and canonical units."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pandas as pd
import pytest

from pitlake import schemas
from pitlake.calendar import BEIJING
from pitlake.statuses import LedgerStatus
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.registry import build_router

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
FETCHED = datetime(2025, 7, 1, 20, 0, tzinfo=BEIJING)
D = date(2025, 4, 10)


@pytest.fixture(scope="module")
def router():
    return build_router(f"replay:{SAMPLE}")


CASES = [
    ("quotes", FetchRequest("quotes", trade_date=D), "tushare", {"session_close"}),
    ("adj_factors", FetchRequest("adj_factors", trade_date=D), "tushare", {"ex_date_open"}),
    ("valuation", FetchRequest("valuation", trade_date=D), "tushare", {"session_close"}),
    ("dragon_tiger", FetchRequest("dragon_tiger", trade_date=D), "tushare", {"day_end"}),
    (
        "financials",
        FetchRequest(
            "financials",
            start=date(2025, 4, 1),
            end=date(2025, 6, 30),
            symbols=("601318.SH", "688981.SH", "920099.BJ"),
        ),
        "tushare",
        {"announcement", "revision", "first_seen", "statutory_deadline"},
    ),
    (
        "news",
        FetchRequest(
            "news", start=date(2025, 6, 3), end=date(2025, 6, 4), symbols=("300750.SZ", "600519.SH")
        ),
        "akshare",
        {"published"},
    ),
    (
        "announcements",  # one Tushare row without rec_time: the end of its day
        FetchRequest("announcements", start=date(2025, 4, 1), end=date(2025, 6, 30)),
        "tushare",
        {"published", "announcement"},
    ),
    (
        "disclosure_schedule",  # dated by ann_date (or actual_date when later)
        FetchRequest("disclosure_schedule", start=date(2025, 4, 1), end=date(2025, 6, 30)),
        "tushare",
        {"announcement"},
    ),
    (
        "calendar",
        FetchRequest("calendar", start=date(2025, 4, 1), end=date(2025, 6, 30)),
        "tushare",
        {"first_seen"},
    ),
    (
        "new_shares",  # 603398.SH subscribed 2025-05-29: known at the end of 05-30 (T+1)
        FetchRequest("new_shares", start=date(2025, 4, 1), end=date(2025, 6, 30)),
        "tushare",
        {"announcement"},
    ),
]


def test_the_samples_new_listing_has_its_issue_price(router) -> None:
    result = router.route(FetchRequest("new_shares", trade_date=date(2025, 6, 10)), FETCHED)
    (row,) = result.frame.to_dict("records")  # a nightly asks the month around the session
    assert row["symbol"] == "603398.SH" and row["issue_price"] == 18.0
    assert row["list_date"] == date(2025, 6, 10) and row["ipo_date"] == date(2025, 5, 29)
    assert row["funds"] == pytest.approx(720_000_000.0)  # 7.2 亿元
    assert row["known_at"] == pd.Timestamp("2025-05-30 23:59:59.999999+08:00")


@pytest.mark.parametrize(("dataset", "req", "vendor", "bases"), CASES, ids=[c[0] for c in CASES])
def test_every_dataset_routes_from_the_sample(router, dataset, req, vendor, bases) -> None:
    result = router.route(req, FETCHED)
    assert result.status is LedgerStatus.OK, result.message
    assert result.vendor == vendor
    frame = result.frame
    schema = schemas.get(dataset)
    assert list(frame.columns[: len(schema.columns)]) == schema.columns
    assert {"source", "known_at", "known_at_basis"} <= set(frame.columns)
    assert set(frame["source"]) == {vendor}
    assert set(frame["known_at_basis"]) == bases
    assert str(frame["known_at"].dtype) == "datetime64[us, UTC]"
    assert (frame["known_at"] <= pd.Timestamp(FETCHED)).all()
    schema.to_arrow(frame.assign(ingested_at=pd.Timestamp(FETCHED), run_id="r"))  # typed


def test_quotes_units_are_canonical(router) -> None:
    ts = router.route(FetchRequest("quotes", trade_date=D, symbols=("600519.SH",)), FETCHED)
    ak = router.route(
        FetchRequest("quotes", trade_date=D, symbols=("600519.SH",)), FETCHED, chain=["akshare"]
    )
    a, b = ts.frame.iloc[0], ak.frame.iloc[0]
    assert (ts.vendor, ak.vendor) == ("tushare", "akshare")
    # Tushare vol (手) and amount (千元) and East Money 成交量 (手) all land in shares and 元.
    assert a["volume"] == pytest.approx(b["volume"])
    assert a["amount"] == pytest.approx(b["amount"], rel=1e-3)
    assert a["amount"] / a["volume"] == pytest.approx(a["close"], rel=0.1)  # 元 per share


def test_dragon_tiger_two_reasons_and_no_future_columns(router) -> None:
    for chain in (["tushare"], ["akshare"]):
        r = router.route(FetchRequest("dragon_tiger", trade_date=D), FETCHED, chain=chain)
        rows = r.frame[r.frame["symbol"] == "600234.SH"]
        assert rows["reason"].nunique() == 2, chain
        assert not [c for c in r.frame.columns if "上榜后" in c]


def test_news_items_dedupe_across_feeds_and_keep_beijing_days(router) -> None:
    r = router.route(
        FetchRequest(
            "news", start=date(2025, 6, 3), end=date(2025, 6, 3), symbols=("300750.SZ", "600519.SH")
        ),
        FETCHED,
    )
    published = pd.to_datetime(r.frame["published_at"], utc=True).dt.tz_convert(BEIJING)
    assert (published.dt.date == date(2025, 6, 3)).all()  # the 00:01 item of 06-04 is out
    assert len(published) >= 1  # the 23:59 item is in
    listed = router.route(
        FetchRequest(
            "news", start=date(2025, 5, 20), end=date(2025, 5, 20), symbols=("300750.SZ",)
        ),
        FETCHED,
    )
    both = listed.frame[listed.frame["sources"].map(len) == 2]  # one item carried by two feeds
    assert len(both) == 1
    assert sorted(both["sources"].iloc[0]) == [
        "akshare:stock_info_global_em",
        "akshare:stock_news_em",
    ]
