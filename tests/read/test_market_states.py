"""The derived market judges each session by the security master's states of that session:
an ST designation removed after the session still gives that session the ST limit, a session
after the removal gets the board's limit, and a listing's first day has none — from the rows
known at the cutoff, with no vendor limit prices stored (so the exchange rule decides)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

import pandas as pd
import pytest

from pitlake import limits
from pitlake.calendar import BEIJING, sessions_between
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read import market
from pitlake.read.lake import Lake
from pitlake.statuses import LedgerStatus
from pitlake.vendors.base import FetchRequest
from tests.read.test_market import SAMPLE

FETCHED = datetime(2025, 7, 1, 20, 0, tzinfo=BEIJING)
START, END = date(2025, 4, 1), date(2025, 6, 30)
ST_REMOVED = date(2025, 6, 16)  # 600234.SH's ST ends the session before (sample/README.md)


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lake]:
    from pitlake.vendors.registry import build_router

    router = build_router(f"replay:{SAMPLE}")
    root = tmp_path_factory.mktemp("market-states")
    store, catalog = LakeStore(root), Catalog(lake_root=root)
    for name in ("quotes", "securities"):
        r = router.route(FetchRequest(name, start=START, end=END), FETCHED, chain=["tushare"])
        assert r.status is LedgerStatus.OK, r.message
        store.write(name, r.frame, run_id="sample", ingested_at=FETCHED)
    for d in sessions_between(START, END):
        catalog.record_ledger("quotes", d, LedgerStatus.OK, rows=1, vendor="tushare", at=FETCHED)
    catalog.close()
    with Lake(root, clock=lambda: FETCHED) as lk:
        yield lk


def _row(lake: Lake, symbol: str, day: date, as_of: str) -> pd.Series:
    pools = market.session_pools(lake, day, lake.ask(as_of))
    found = pools[pools["symbol"].astype(str) == symbol]
    assert len(found) == 1, (symbol, day)
    return found.iloc[0]


def test_an_st_removed_later_still_limits_its_sessions_at_five_percent(lake: Lake) -> None:
    row = _row(lake, "600234.SH", date(2025, 4, 10), as_of="2025-06-20")
    up, _ = limits.limit_prices([row["pre_close"]], [0.05])
    assert row["up_limit"] == up[0] and row["pool"] == limits.UP
    assert row["consecutive"] == 3  # 04-08 … 04-10 at the ST limit, as known on 06-20
    answer = lake.limits("2025-04-10", kind="up", as_of="2025-06-20")
    assert "600234.SH" in answer.meta["ladder"]["3"]


def test_a_session_after_the_removal_gets_the_boards_limit(lake: Lake) -> None:
    day = sessions_between(ST_REMOVED, END)[1]
    row = _row(lake, "600234.SH", day, as_of="2025-06-30")
    up, _ = limits.limit_prices([row["pre_close"]], [0.10])
    assert row["up_limit"] == up[0]
    # known on 06-13 (the removal's announcement), not yet in force that day: still ST
    before = _row(lake, "600234.SH", date(2025, 6, 13), as_of="2025-06-30")
    assert before["up_limit"] == limits.limit_prices([before["pre_close"]], [0.05])[0][0]


def test_a_registration_listings_first_five_sessions_have_no_limit(lake: Lake) -> None:
    sessions = sessions_between(date(2025, 6, 10), END)
    for day in sessions[:5]:  # main board, listed after 2023-04-10: sessions 1..5 free
        row = _row(lake, "603398.SH", day, as_of="2025-06-30")
        assert pd.isna(row["up_limit"]) and pd.isna(row["pool"]), day
    sixth = _row(lake, "603398.SH", sessions[5], "2025-06-30")
    assert sixth["up_limit"] == limits.limit_prices([sixth["pre_close"]], [0.10])[0][0]


def test_published_prices_against_the_rule_are_a_finding_with_both(tmp_path: Path) -> None:
    """After the ST removal (06-16) the vendor keeps the ±5 % prices, the master says not ST:
    the answer names both pairs instead of silently preferring one."""
    from pitlake.vendors.registry import build_router

    router = build_router(f"replay:{SAMPLE}")
    store, catalog = LakeStore(tmp_path), Catalog(lake_root=tmp_path)
    start = date(2025, 6, 2)
    for name in ("quotes", "securities", "limit_prices"):
        r = router.route(FetchRequest(name, start=start, end=END), FETCHED, chain=["tushare"])
        assert r.status is LedgerStatus.OK, r.message
        store.write(name, r.frame, run_id="sample", ingested_at=FETCHED)
    for d in sessions_between(start, END):
        catalog.record_ledger("quotes", d, LedgerStatus.OK, rows=1, vendor="tushare", at=FETCHED)
    catalog.close()
    with Lake(tmp_path, clock=lambda: FETCHED) as lk:
        answer = lk.limits("2025-06-17", kind="up", as_of="2025-06-30")
    found = {f["symbol"]: f for f in answer.meta["limit_findings"]}
    assert "600234.SH" in found and "600234.SH" in answer.message
    f = found["600234.SH"]
    pre = f["rule"][0] / 1.1
    assert f["rule_state"] == "limited" and f["vendor"][0] < f["rule"][0]  # ±5 % vs ±10 %
    assert abs(f["vendor"][0] - pre * 1.05) < 0.02


def test_an_ex_date_without_pre_close_is_not_a_fall(tmp_path: Path) -> None:
    """Bars without pre_close (AkShare's) take the limit base from the factors known at the
    cutoff: a 10-for-10 bonus day that halves the price is not a limit-down session."""
    from pitlake.vendors.registry import build_router

    router = build_router(f"replay:{SAMPLE}")
    start, ex_day, code = date(2025, 6, 2), date(2025, 6, 10), "600519.SH"
    frames = {}
    for name in ("quotes", "adj_factors"):
        r = router.route(FetchRequest(name, start=start, end=END), FETCHED, chain=["tushare"])
        assert r.status is LedgerStatus.OK, r.message
        frames[name] = r.frame.copy()
    bars, factors = frames["quotes"], frames["adj_factors"]
    bars["pre_close"] = float("nan")
    after = (bars["symbol"] == code) & (pd.to_datetime(bars["trade_date"]).dt.date >= ex_day)
    bars.loc[after, ["open", "high", "low", "close"]] = (
        bars.loc[after, ["open", "high", "low", "close"]] / 2
    ).round(2)
    later = (factors["symbol"] == code) & (pd.to_datetime(factors["trade_date"]).dt.date >= ex_day)
    factors.loc[later, "adj_factor"] = factors.loc[later, "adj_factor"] * 2
    store, catalog = LakeStore(tmp_path), Catalog(lake_root=tmp_path)
    for name, frame in frames.items():
        store.write(name, frame, run_id="sample", ingested_at=FETCHED)
    for d in sessions_between(start, END):
        catalog.record_ledger("quotes", d, LedgerStatus.OK, rows=1, vendor="tushare", at=FETCHED)
    catalog.close()
    with Lake(tmp_path, clock=lambda: FETCHED) as lk:
        pools = market.session_pools(lk, ex_day, lk.ask("2025-06-30"))
        row = pools[pools["symbol"].astype(str) == code].iloc[0]
        assert pd.isna(row["pool"]), row.to_dict()
        assert row["down_limit"] < row["close"] < row["up_limit"], row.to_dict()  # ex-right base
        down = lk.limits("2025-06-10", kind="down", as_of="2025-06-30")
        assert code not in {r["symbol"] for r in down.data}


def test_a_delisting_periods_first_day_from_the_names_known_at_the_cutoff(tmp_path: Path) -> None:
    """A name marked 退 from 06-10 (the delisting-arrangement period's first session) makes
    that session a no-limit one and the next a ±10 % one, once the name is known; read as of
    before the lake first saw it (06-20), the session is judged as it was known then."""
    from pitlake.vendors.registry import build_router
    from tests.lake.conftest import canonical

    router = build_router(f"replay:{SAMPLE}")
    store, catalog = LakeStore(tmp_path), Catalog(lake_root=tmp_path)
    start, first, code = date(2025, 6, 2), date(2025, 6, 10), "600519.SH"
    for name in ("quotes", "securities"):
        r = router.route(FetchRequest(name, start=start, end=END), FETCHED, chain=["tushare"])
        assert r.status is LedgerStatus.OK, r.message
        store.write(name, r.frame, run_id="sample", ingested_at=FETCHED)
    late = canonical(  # first seen on 06-20 (a vendor's late entry): not known before
        "securities",
        [
            {
                "symbol": code,
                "attribute": "name",
                "start_date": first,
                "name": "茅台退",
                "known_at": datetime(2025, 6, 20, 20, 0, tzinfo=BEIJING),
                "known_at_basis": "first_seen",
            }
        ],
    )
    store.write("securities", late, run_id="late", ingested_at=FETCHED)
    for d in sessions_between(start, END):
        catalog.record_ledger("quotes", d, LedgerStatus.OK, rows=1, vendor="tushare", at=FETCHED)
    catalog.close()
    with Lake(tmp_path, clock=lambda: FETCHED) as lk:
        known = _row(lk, code, first, as_of="2025-06-30")
        assert known["limit_state"] == "none" and pd.isna(known["up_limit"])
        second = _row(lk, code, sessions_between(first, END)[1], as_of="2025-06-30")
        assert second["up_limit"] == limits.limit_prices([second["pre_close"]], [0.10])[0][0]
        unknown_then = _row(lk, code, first, as_of="2025-06-16")  # the name not yet public
        assert unknown_then["limit_state"] == "limited"
        assert (
            unknown_then["up_limit"]
            == limits.limit_prices([unknown_then["pre_close"]], [0.10])[0][0]
        )
