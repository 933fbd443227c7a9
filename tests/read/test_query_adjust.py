"""qfq / hfq at read time from the factors known at the cutoff, around an ex-date (06-03)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus
from tests.lake.conftest import INGEST, bar, factor, write

A, B = "600519.SH", "000001.SZ"
RAW = {"2025-05-29": 100.0, "2025-05-30": 102.0, "2025-06-03": 90.0, "2025-06-04": 91.0}
DAILY_FACTORS = {"2025-05-29": 1.0, "2025-05-30": 1.0, "2025-06-03": 1.1, "2025-06-04": 1.1}


def closes(result) -> dict[str, float]:  # type: ignore[no-untyped-def]
    return {d["trade_date"]: d["close"] for d in result.data}


@pytest.fixture
def ex_date(store: LakeStore) -> LakeStore:
    """A pays out on 2025-06-03: raw close drops from 102 to 90; the factor steps 1.0 → 1.1."""
    write(store, "quotes", [bar(A, d, c, pre_close=c) for d, c in RAW.items()])
    write(store, "adj_factors", [factor(A, d, f) for d, f in DAILY_FACTORS.items()])
    return store


def test_qfq_before_the_ex_date_is_what_users_saw_then(ex_date: LakeStore, lake: Lake) -> None:
    r = lake.quotes(A, start="2025-05-29", end="2025-06-04", as_of="2025-06-02", adjust="qfq")
    assert r.status is ResultStatus.OK
    assert closes(r) == {"2025-05-29": 100.0, "2025-05-30": 102.0}
    assert r.meta["adjust"]["anchors"][A]["anchor_date"] == "2025-05-30"


def test_qfq_after_the_ex_date_rescales_history(ex_date: LakeStore, lake: Lake) -> None:
    r = lake.quotes(A, start="2025-05-29", end="2025-06-04", as_of="2025-06-04", adjust="qfq")
    got = closes(r)
    assert got["2025-05-29"] == pytest.approx(100 / 1.1)
    assert got["2025-05-30"] == pytest.approx(102 / 1.1)
    assert got["2025-06-03"] == pytest.approx(90.0) and got["2025-06-04"] == pytest.approx(91.0)
    row = r.data[1]
    assert row["open"] == row["high"] == row["low"] == pytest.approx(102 / 1.1)
    assert row["pre_close"] == pytest.approx(102 / 1.1)
    assert row["volume"] == 1000.0  # volume is never adjusted
    assert row["adj_factor"] == 1.0
    assert r.meta["adjust"]["anchors"][A] == {
        "factor_source": "tushare",
        "anchor_date": "2025-06-04",
        "anchor_factor": 1.1,
    }


def test_hfq_multiplies_by_the_factor_of_each_day(ex_date: LakeStore, lake: Lake) -> None:
    r = lake.quotes(A, start="2025-05-29", end="2025-06-04", as_of="2025-06-04", adjust="hfq")
    got = closes(r)
    assert got["2025-05-30"] == pytest.approx(102.0)
    assert got["2025-06-03"] == pytest.approx(99.0) and got["2025-06-04"] == pytest.approx(100.1)


@pytest.mark.parametrize(
    "as_of,expected", [("2025-06-03T09:00+08:00", 102.0), ("2025-06-03T10:00+08:00", 102 / 1.1)]
)
def test_the_ex_date_factor_counts_from_the_call_auction(
    ex_date: LakeStore, lake: Lake, as_of: str, expected: float
) -> None:
    # ask up to the holiday so the (not yet closed) 06-03 bar is not part of the request
    r = lake.quotes(A, start="2025-05-29", end="2025-06-02", as_of=as_of, adjust="qfq")
    assert r.status is ResultStatus.OK
    assert closes(r)["2025-05-30"] == pytest.approx(expected)


def test_raw_is_the_default(ex_date: LakeStore, lake: Lake) -> None:
    r = lake.quotes(A, start="2025-05-29", end="2025-06-04", as_of="2025-06-04")
    assert closes(r) == RAW and "adj_factor" not in r.data[0]


def test_no_factors_means_no_adjusted_rows(store: LakeStore, lake: Lake) -> None:
    write(store, "quotes", [bar(B, d, c) for d, c in RAW.items()])
    r = lake.quotes([B], start="2025-05-29", end="2025-06-04", as_of="2025-06-04", adjust="qfq")
    assert r.status is ResultStatus.NOT_READY and r.retryable is True
    assert r.data == []  # never raw prices under a qfq label
    assert "adjustment factor" in r.message


def test_change_point_factors_need_the_ledger_to_cover_later_days(
    store: LakeStore, lake: Lake, sqlite_catalog: Catalog
) -> None:
    """Sina gives factors only at ex-dates (plus a 1900 sentinel): a later day is covered only
    when the ledger shows the factor fetch for it succeeded."""
    write(store, "quotes", [bar(B, d, c) for d, c in RAW.items()])
    write(
        store,
        "adj_factors",
        [factor(B, "1900-01-01", 1.0), factor(B, "2025-06-03", 1.1)],
        source="akshare",
    )
    ask = {"start": "2025-05-29", "end": "2025-06-04", "as_of": "2025-06-04", "adjust": "qfq"}
    uncovered = lake.quotes(B, **ask)
    assert uncovered.status is ResultStatus.NOT_READY and uncovered.data == []
    assert "2025-06-04" in uncovered.message
    sqlite_catalog.record_ledger("adj_factors", "2025-06-04", "OK", rows=2, at=INGEST)
    covered = lake.quotes(B, **ask)
    assert covered.status is ResultStatus.OK
    got = closes(covered)
    assert got["2025-05-29"] == pytest.approx(100 / 1.1) and got["2025-06-04"] == pytest.approx(
        91.0
    )
    assert covered.meta["adjust"]["anchors"][B]["factor_source"] == "akshare"


def test_one_vendor_series_per_symbol_never_mixed(store: LakeStore, lake: Lake) -> None:
    """Tushare factors (base 50) first; later an AkShare series (base 1.0) whose 06-03 row is the
    latest factor: from then on only AkShare's rows are used."""
    write(store, "quotes", [bar(A, d, RAW[d]) for d in ("2025-05-29", "2025-05-30", "2025-06-03")])
    write(
        store,
        "adj_factors",
        [
            factor(A, "2025-05-29", 50.0),
            factor(A, "2025-05-30", 50.0),
            factor(A, "2025-06-03", 55.0),
        ],
        source="tushare",
    )
    later = INGEST + timedelta(days=1)
    write(
        store,
        "adj_factors",
        [factor(A, "1900-01-01", 1.0), factor(A, "2025-06-03", 1.1)],
        source="akshare",
        ingested_at=later,
    )
    ask = {"start": "2025-05-29", "end": "2025-06-03", "adjust": "hfq"}
    tushare_era = lake.quotes(A, as_of="2025-06-10", **ask)
    assert closes(tushare_era)["2025-05-30"] == pytest.approx(102 * 50.0)
    assert tushare_era.meta["adjust"]["anchors"][A]["factor_source"] == "tushare"
    akshare_era = lake.quotes(A, as_of=later + timedelta(hours=1), **ask)
    assert closes(akshare_era)["2025-05-30"] == pytest.approx(102 * 1.0)
    assert closes(akshare_era)["2025-06-03"] == pytest.approx(90 * 1.1)
    assert akshare_era.meta["adjust"]["anchors"][A]["factor_source"] == "akshare"
    qfq = lake.quotes(A, as_of=later + timedelta(hours=1), **{**ask, "adjust": "qfq"})
    assert closes(qfq)["2025-05-30"] == pytest.approx(102 / 1.1)


def test_adjusted_prices_have_four_decimals_on_every_surface(
    ex_date: LakeStore, lake: Lake
) -> None:
    """102 / 1.1 = 92.72727…: served as 92.7273 by Lake.quotes and by SQL alike (units.py
    ADJUSTED_PRICE_DECIMALS), never with a ratio's float noise."""
    for mode in ("qfq", "hfq"):
        r = lake.quotes(A, start="2025-05-29", end="2025-06-04", as_of="2025-06-04", adjust=mode)
        sql = lake.sql(
            f"SELECT trade_date, close, open, pre_close FROM quotes_{mode} ORDER BY trade_date",
            as_of="2025-06-04",
        )
        assert closes(r) == {row["trade_date"]: row["close"] for row in sql.rows}
        for row in [*r.data, *sql.rows]:
            for c in ("close", "open", "pre_close"):
                assert row[c] == round(row[c], 4), (mode, c, row[c])
    qfq = closes(lake.quotes(A, date="2025-05-30", as_of="2025-06-04", adjust="qfq"))
    assert qfq == {"2025-05-30": 92.7273}
