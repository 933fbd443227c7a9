"""An approval-regime main-board first day (listed 2019) is limited on its issue price, read
from the stored new shares known at the cutoff: +44 % of 10.00 is 14.40, so a close of 14.40
is limit-up and 14.41 is impossible (in no pool); without a stored issue price the first day
is `unknown` (never guessed from the previous close); a price known only after the session is
not used as of that session (no look-ahead)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pitlake import limits
from pitlake.calendar import BEIJING
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read import market
from pitlake.read.issue_prices import issue_prices
from pitlake.read.lake import Lake
from pitlake.statuses import LedgerStatus
from tests.lake.conftest import write

DEBUT, DAY2 = date(2019, 6, 10), date(2019, 6, 11)
AT_LIMIT, PAST_LIMIT, NO_PRICE, PRICED_LATER = "603999.SH", "603998.SH", "603997.SH", "603996.SH"
IPOS = (AT_LIMIT, PAST_LIMIT, NO_PRICE, PRICED_LATER)
FETCHED = datetime(2025, 7, 1, 20, 0, tzinfo=BEIJING)
LATE = datetime(2019, 6, 11, 10, 0, tzinfo=BEIJING)  # after the debut's close


def _bar(symbol: str, day: date, pre: float, close: float) -> dict:
    return {
        "symbol": symbol,
        "trade_date": day.isoformat(),
        "open": pre,
        "high": close,
        "low": pre,
        "close": close,
        "pre_close": pre,
        "volume": 1_000_000.0,
        "amount": 12_000_000.0,
    }


def _ipo(symbol: str, **kw: object) -> dict:
    return {
        "symbol": symbol,
        "ipo_date": "2019-05-29",
        "list_date": DEBUT.isoformat(),
        "issue_price": 10.0,
        **kw,
    }


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lake]:
    root = tmp_path_factory.mktemp("issue-prices")
    store = LakeStore(root)
    listings = [
        {"symbol": s, "attribute": "listing", "start_date": DEBUT.isoformat(), "board": "main"}
        for s in IPOS
    ]
    listings.append({"symbol": "600519.SH", "attribute": "listing", "start_date": "2001-08-27"})
    write(store, "securities", listings, ingested_at=FETCHED)
    closes = {AT_LIMIT: 14.40, PAST_LIMIT: 14.41, NO_PRICE: 14.40, PRICED_LATER: 14.40}
    bars = [_bar(s, DEBUT, 10.0, c) for s, c in closes.items()]
    bars += [_bar(s, DAY2, c, round(c * 1.1, 2)) for s, c in closes.items()]
    bars += [_bar("600519.SH", d, 1500.0, 1510.0) for d in (DEBUT, DAY2)]
    write(store, "quotes", bars, ingested_at=FETCHED)
    # the IPOs' terms as the fetcher dates them (end of the session after the subscription)
    write(store, "new_shares", [_ipo(AT_LIMIT), _ipo(PAST_LIMIT)], ingested_at=FETCHED)
    late = _ipo(PRICED_LATER, known_at=LATE.isoformat(), known_at_basis="first_seen")
    write(store, "new_shares", [late], ingested_at=FETCHED)
    catalog = Catalog(lake_root=root)
    for d in (DEBUT, DAY2):
        catalog.record_ledger("quotes", d, LedgerStatus.OK, rows=6, vendor="tushare", at=FETCHED)
    catalog.close()
    with Lake(root, clock=lambda: FETCHED) as lk:
        yield lk


def _row(lake: Lake, symbol: str, day: date, as_of: str) -> pd.Series:
    pools = market.session_pools(lake, day, lake.ask(as_of))
    found = pools[pools["symbol"].astype(str) == symbol]
    assert len(found) == 1, (symbol, day)
    return found.iloc[0]


def test_the_issue_prices_are_the_ones_known_at_the_cutoff(lake: Lake) -> None:
    listed = dict.fromkeys(IPOS, DEBUT)
    at_debut = issue_prices(lake.store, lake.reader, listed, lake.ask("2019-06-10").cutoff)
    assert at_debut == {AT_LIMIT: 10.0, PAST_LIMIT: 10.0}
    later = issue_prices(lake.store, lake.reader, listed, lake.ask("2019-06-11").cutoff)
    assert later == {AT_LIMIT: 10.0, PAST_LIMIT: 10.0, PRICED_LATER: 10.0}
    assert issue_prices(lake.store, lake.reader, listed, None)[PRICED_LATER] == 10.0


def test_a_close_at_44_percent_of_the_issue_price_is_limit_up(lake: Lake) -> None:
    row = _row(lake, AT_LIMIT, DEBUT, as_of="2019-06-10")
    assert row["limit_state"] == "limited"
    assert row["up_limit"] == 14.40 and row["down_limit"] == 6.40  # 10 × 1.44, 10 × 0.64
    assert row["pool"] == limits.UP and row["consecutive"] == 1
    answer = lake.limits("2019-06-10", kind="up", as_of="2019-06-10")
    assert [r["symbol"] for r in answer.data or answer.table.to_pylist()] == [AT_LIMIT]
    # day 2: ±10 % of the previous close
    second = _row(lake, AT_LIMIT, DAY2, as_of="2019-06-11")
    assert second["up_limit"] == 15.84 and second["pool"] == limits.UP
    assert second["consecutive"] == 2


def test_a_close_a_tick_past_it_is_impossible(lake: Lake) -> None:
    row = _row(lake, PAST_LIMIT, DEBUT, as_of="2019-06-10")
    assert row["up_limit"] == 14.40 and row["limit_state"] == "limited"
    assert pd.isna(row["pool"])  # beyond the limit in force: in no pool


def test_without_a_stored_issue_price_the_first_day_is_unknown(lake: Lake) -> None:
    row = _row(lake, NO_PRICE, DEBUT, as_of="2019-06-30")
    assert row["limit_state"] == "unknown"
    assert np.isnan(row["up_limit"]) and pd.isna(row["pool"])  # not guessed from pre_close
    assert _row(lake, NO_PRICE, DAY2, as_of="2019-06-30")["limit_state"] == "limited"


def test_an_issue_price_known_after_the_session_is_not_used_as_of_it(lake: Lake) -> None:
    before = _row(lake, PRICED_LATER, DEBUT, as_of="2019-06-10")
    assert before["limit_state"] == "unknown" and pd.isna(before["pool"])
    after = _row(lake, PRICED_LATER, DEBUT, as_of="2019-06-11")
    assert after["limit_state"] == "limited" and after["pool"] == limits.UP


def test_the_overview_counts_the_first_day_limit_up(lake: Lake) -> None:
    (row,) = lake.market("2019-06-10", as_of="2019-06-10").data
    assert row["limit_up"] == 1  # AT_LIMIT only: the others are impossible or unknown


def test_a_lake_without_new_shares_judges_no_first_day(tmp_path: Path) -> None:
    store = LakeStore(tmp_path)
    assert issue_prices(store, Lake(tmp_path).reader, {AT_LIMIT: DEBUT}, None) == {}
