"""limit_pools and limit_prices from the bundled sample, through the router, both vendors: the
planted week (a three-board ladder, then a broken board), the limit-down after a suspension,
ST stocks left out, seal times as instants of the session, known_at at the day's end (pools)
and at 08:40 of the session (limit prices); an empty session is NO_DATA, a failure is not."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pandas as pd
import pytest

from pitlake.calendar import BEIJING
from pitlake.statuses import LedgerStatus
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.registry import build_router

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
FETCHED = datetime(2025, 7, 1, 20, 0, tzinfo=BEIJING)
VENDORS = ("tushare", "akshare")


@pytest.fixture(scope="module")
def router():
    return build_router(f"replay:{SAMPLE}")


def pools(router, vendor: str, start: date, end: date | None = None) -> pd.DataFrame:
    req = FetchRequest("limit_pools", start=start, end=end or start)
    result = router.route(req, FETCHED, chain=[vendor])
    assert result.status is LedgerStatus.OK, result.message
    assert result.vendor == vendor
    return result.frame


@pytest.mark.parametrize("vendor", VENDORS)
def test_the_planted_week_three_boards_then_a_broken_board(router, vendor: str) -> None:
    week = pools(router, vendor, date(2025, 6, 9), date(2025, 6, 13))
    byd = week[week["symbol"] == "002594.SZ"].sort_values("trade_date")
    assert list(byd["pool"]) == ["up", "up", "up", "broken"]
    assert list(byd["consecutive"].iloc[:3]) == [1.0, 2.0, 3.0]
    assert list(byd["limit_stat"].iloc[:3]) == ["1/1", "2/2", "3/3"]  # N/T on both vendors
    assert set(week["known_at_basis"]) == {"day_end"}
    third = byd.iloc[2]
    end_of_day = pd.Timestamp(datetime(2025, 6, 11, 23, 59, 59, 999999, tzinfo=BEIJING))
    assert third["known_at"] == end_of_day  # published after the close, not at a seal time
    sealed = pd.Timestamp(third["first_sealed_at"]).tz_convert(BEIJING)
    assert sealed.date() == date(2025, 6, 11) and sealed.hour < 15  # an instant of the session
    assert third["first_sealed_at"] <= third["last_sealed_at"]


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_limit_down_after_the_suspension_and_st_left_out(router, vendor: str) -> None:
    down = pools(router, vendor, date(2025, 5, 15))
    assert list(down[["symbol", "pool"]].itertuples(index=False, name=None)) == [
        ("000002.SZ", "down")
    ]
    assert pd.isna(down["first_sealed_at"].iloc[0])  # a limit-down list has no first seal
    # 600234.SH (ST) closed at its 5 % limit 04-08..04-10: neither vendor lists it
    april = FetchRequest("limit_pools", start=date(2025, 4, 1), end=date(2025, 4, 30))
    assert router.route(april, FETCHED, chain=[vendor]).status is LedgerStatus.NO_DATA


def test_akshare_down_pool_of_an_st_week_is_no_data(router) -> None:
    """2025-04-08: only the ST stock is at its limit; both vendors leave it out, so the session
    was fetched and its pools are empty: NO_DATA, a successful fetch."""
    for vendor in VENDORS:
        r = router.route(
            FetchRequest("limit_pools", trade_date=date(2025, 4, 8)), FETCHED, chain=[vendor]
        )
        assert r.status is LedgerStatus.NO_DATA, (vendor, r.status, r.message)


def test_the_planted_vendor_error_is_only_on_tushare(router) -> None:
    ts = pools(router, "tushare", date(2025, 6, 18))
    assert list(ts["symbol"]) == ["688981.SH"]  # closed +16.12 %, under its 20 % limit
    ak = router.route(
        FetchRequest("limit_pools", trade_date=date(2025, 6, 18)), FETCHED, chain=["akshare"]
    )
    assert ak.status is LedgerStatus.NO_DATA


def test_limit_prices_are_known_at_0840_of_their_session(router) -> None:
    day = date(2025, 6, 11)
    r = router.route(FetchRequest("limit_prices", trade_date=day), FETCHED)
    assert r.status is LedgerStatus.OK and r.vendor == "tushare"
    frame = r.frame.set_index("symbol")
    assert set(frame["known_at_basis"]) == {"pre_open"}
    assert (frame["known_at"] == pd.Timestamp(datetime(2025, 6, 11, 8, 40, tzinfo=BEIJING))).all()
    byd = frame.loc["002594.SZ"]
    assert byd["up_limit"] == round(byd["pre_close"] * 1.1, 2)
    st = frame.loc["600234.SH"]
    assert st["up_limit"] == round(st["pre_close"] * 1.05, 2)  # ST: ±5 % before 2026-07-06
    suspended = router.route(FetchRequest("limit_prices", trade_date=date(2025, 5, 13)), FETCHED)
    assert "000002.SZ" in set(suspended.frame["symbol"])  # listed while suspended
