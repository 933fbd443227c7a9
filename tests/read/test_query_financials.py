"""Financial statements as of a cutoff: versions, restatements, latest report, statuses."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.statuses import DateStatus, ResultStatus
from tests.lake.conftest import INGEST, canonical, statement_row, write

A, B = "600519.SH", "000001.SZ"


@pytest.fixture
def reports(store: LakeStore) -> LakeStore:
    """A: annual 2024 announced 03-28, Q1 2025 announced 04-25, and a restatement of the 2024
    annual dated 05-20 (a late correction of an *older* period)."""
    write(
        store,
        "financials",
        [
            statement_row(A, "2024-12-31", "2025-03-28", revenue=100.0, net_profit=10.0),
            statement_row(A, "2025-03-31", "2025-04-25", revenue=30.0, net_profit=3.0),
            statement_row(A, "2024-12-31", "2025-03-28", statement="balance", total_assets=500.0),
        ],
    )
    write(
        store,
        "financials",
        [
            statement_row(
                A, "2024-12-31", "2025-03-28", revision="2025-05-20", revenue=95.0, net_profit=9.0
            ),
        ],
        ingested_at=INGEST + timedelta(days=1),
    )
    return store


def periods(result) -> list[tuple[str, str, float]]:  # type: ignore[no-untyped-def]
    return [(d["statement"], d["report_period"], d.get("revenue")) for d in result.data]


def test_before_any_announcement_nothing_is_known(
    reports: LakeStore, lake: Lake, sqlite_catalog: Catalog
) -> None:
    sqlite_catalog.record_ledger("financials", "2024-12-31", "OK", symbol=A, rows=3, at=INGEST)
    r = lake.financials(A, as_of="2025-03-27")
    assert r.status is ResultStatus.NO_DATA and r.data == []
    assert r.date_status is DateStatus.NOT_APPLICABLE and r.effective_trade_date is None


def test_versions_by_cutoff(reports: LakeStore, lake: Lake) -> None:
    r = lake.financials(A, as_of="2025-04-26", statement="income")
    assert r.status is ResultStatus.OK
    assert periods(r) == [("income", "2024-12-31", 100.0), ("income", "2025-03-31", 30.0)]
    restated = lake.financials(A, as_of="2025-05-21", statement="income")
    assert periods(restated) == [("income", "2024-12-31", 95.0), ("income", "2025-03-31", 30.0)]
    assert restated.data[0]["known_at_basis"] == "revision"
    assert restated.data[0]["known_at"] == "2025-05-20T23:59:59.999999+08:00"
    assert restated.meta["known_at_max"] == "2025-05-20T23:59:59.999999+08:00"


def test_latest_report_is_the_greatest_period_not_the_latest_announcement(
    reports: LakeStore, lake: Lake
) -> None:
    assert periods(
        lake.financials(A, as_of="2025-04-01", statement="income", latest_only=True)
    ) == [("income", "2024-12-31", 100.0)]
    assert periods(
        lake.financials(A, as_of="2025-04-26", statement="income", latest_only=True)
    ) == [("income", "2025-03-31", 30.0)]
    # the 2024 restatement (announced 05-20) must not displace Q1 2025
    assert periods(
        lake.financials(A, as_of="2025-05-21", statement="income", latest_only=True)
    ) == [("income", "2025-03-31", 30.0)]
    both = lake.financials(A, as_of="2025-05-21", latest_only=True)
    assert periods(both) == [("balance", "2024-12-31", None), ("income", "2025-03-31", 30.0)]


def test_period_filter(reports: LakeStore, lake: Lake) -> None:
    r = lake.financials(A, as_of="2025-06-30", periods=["2024-12-31"], statement="income")
    assert periods(r) == [("income", "2024-12-31", 95.0)]
    r = lake.financials(A, as_of="2025-06-30", periods="20250331")
    assert periods(r) == [("income", "2025-03-31", 30.0)]


def test_an_undated_restatement_is_known_from_when_we_saw_it(store: LakeStore, lake: Lake) -> None:
    write(store, "financials", [statement_row(B, "2024-12-31", "2025-03-20", revenue=50.0)])
    seen = INGEST + timedelta(days=3)
    frame = canonical(
        "financials",
        [dict(statement_row(B, "2024-12-31", "2025-03-20", revenue=55.0), undated_revision=True)],
        fetched_at=seen,
    )
    res = store.write("financials", frame, run_id="r2", ingested_at=seen)
    assert res.rows_added == 1
    before = lake.financials(B, as_of=seen - timedelta(minutes=1))
    after = lake.financials(B, as_of=seen)
    assert [d["revenue"] for d in before.data] == [50.0]
    assert [d["revenue"] for d in after.data] == [55.0]
    assert after.data[0]["known_at_basis"] == "first_seen"


@pytest.mark.parametrize(
    "ledger,expected",
    [
        (None, ResultStatus.UNKNOWN),
        ("NO_DATA", ResultStatus.NO_DATA),
        ("OK", ResultStatus.NO_DATA),
        ("PERMISSION_DENIED", ResultStatus.PERMISSION_DENIED),
        ("UPSTREAM_ERROR", ResultStatus.UPSTREAM_ERROR),
    ],
)
def test_status_of_a_symbol_without_rows_comes_from_the_ledger(
    reports: LakeStore,
    lake: Lake,
    sqlite_catalog: Catalog,
    ledger: str | None,
    expected: ResultStatus,
) -> None:
    if ledger is not None:
        sqlite_catalog.record_ledger("financials", "2025-03-31", ledger, symbol=B, at=INGEST)
    r = lake.financials(B, as_of="2025-06-30")
    assert r.status is expected and r.data == []
    mixed = lake.financials([A, B], as_of="2025-06-30")
    assert {d["symbol"] for d in mixed.data} == {A}
    assert mixed.status is (ResultStatus.OK if expected is ResultStatus.NO_DATA else expected)
