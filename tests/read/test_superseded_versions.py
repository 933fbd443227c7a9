"""The statements' newest version per key found by dropping the superseded rows (the kept
multi-version rows, `pitlake.read.superseded`) is the window's answer: newest known_at, ties
to the later ingestion, the newest version whole (its NULLs stay NULL), nothing after the
cutoff or the as-ingested instant, and a rewritten file read again."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pitlake.schemas import get as get_schema

from pitlake.lake.store import LakeStore
from pitlake.pit import parse_cutoff
from pitlake.read import sql as pit_sql
from pitlake.read.lake import Lake
from pitlake.read.readers import report_period
from pitlake.read.superseded import MULTI_VERSION_ROWS
from tests.lake.conftest import INGEST, statement_row, write

SCHEMA = get_schema("financials")
A, B = "600519.SH", "000001.SZ"
ORDER = "ORDER BY symbol, statement, report_period, report_type"


def t(day: int, hour: int = 0) -> datetime:
    return datetime(2025, 6, day, hour, tzinfo=UTC)


def _rows(lake: Lake, relation: str, as_of: Any, as_ingested: Any) -> list[dict[str, Any]]:
    con = lake.duckdb(as_of=as_of, as_ingested=as_ingested)
    try:
        rel = con.sql(f"SELECT * FROM {relation} {ORDER}")
        return [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]
    finally:
        con.close()


def by_window(lake: Lake, as_of: Any, as_ingested: Any = None) -> list[dict[str, Any]]:
    """The reference: the same versions ranked by the window (the view before the change)."""
    return _rows(lake, f"({pit_sql._latest_sql(SCHEMA, None)})", as_of, as_ingested)


def by_view(lake: Lake, as_of: Any, as_ingested: Any = None) -> list[dict[str, Any]]:
    return _rows(lake, "financials", as_of, as_ingested)


def _raw_rows() -> list[dict[str, Any]]:
    def r(sym: str, period: str, known: datetime, ingested: datetime, np_: float | None) -> dict:
        return {
            "symbol": sym,
            "statement": "income",
            "report_period": date.fromisoformat(period),
            "report_type": "1",
            "net_profit": np_,
            "source": "tushare",
            "known_at": known,
            "known_at_basis": "ann_date",
            "ingested_at": ingested,
            "run_id": "r",
        }

    return [
        r(B, "2024-12-31", t(1), t(2), 1.0),
        r(A, "2024-12-31", t(1), t(2), 2.0),
        r(A, "2024-12-31", t(3), t(4), None),  # newest at 06-06: its NULL is served as NULL
        r(A, "2024-12-31", t(9), t(9), 99.0),  # after the 06-06 cutoff
        r(A, "2025-03-31", t(2), t(3), 5.0),
        r(A, "2025-03-31", t(2), t(5), 6.0),  # same known_at, later ingestion: wins
        r(A, "2025-03-31", t(2), t(4), 7.0),
        r("300750.SZ", "2025-03-31", t(8), t(8), 3.0),  # nothing visible at 06-06
    ]


def _write_raw(store: LakeStore, rows: list[dict[str, Any]]) -> None:
    """Rows written straight into the partition files (ties on known_at, which the store's
    own write refuses), versions of one key in file order opposite to their age."""
    schema = SCHEMA.arrow_schema
    for year in sorted({r["report_period"].year for r in rows}):
        mine = [r for r in rows if r["report_period"].year == year][::-1]
        table = pa.Table.from_pylist(
            [{f.name: r.get(f.name) for f in schema} for r in mine], schema=schema
        )
        path = Path(store.partition_path("financials", str(year)))
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path)


@pytest.mark.parametrize(
    "as_of", ["2025-06-01", "2025-06-02", "2025-06-03", "2025-06-06", "2025-06-10"]
)
def test_dropping_superseded_rows_gives_the_windows_answer(
    store: LakeStore, lake: Lake, as_of: str
) -> None:
    _write_raw(store, _raw_rows())
    assert by_view(lake, as_of) == by_window(lake, as_of)


def test_the_newest_version_is_served_whole_and_ties_go_to_the_later_ingestion(
    store: LakeStore, lake: Lake
) -> None:
    _write_raw(store, _raw_rows())
    got = [(r["symbol"], str(r["report_period"]), r["net_profit"]) for r in by_view(lake, t(6))]
    assert got == [(B, "2024-12-31", 1.0), (A, "2024-12-31", None), (A, "2025-03-31", 6.0)]
    later = [r["net_profit"] for r in by_view(lake, t(10)) if r["symbol"] == A]
    assert later == [99.0, 6.0]  # the planted 06-09 version, once public


def test_as_ingested_hides_later_ingestions(store: LakeStore, lake: Lake) -> None:
    _write_raw(store, _raw_rows())
    for stored_by in (t(2), t(3), t(4), t(5)):
        got = by_view(lake, t(6), stored_by)
        assert got == by_window(lake, t(6), stored_by)
        assert all(r["ingested_at"] <= stored_by for r in got)
    newest_a_q1 = [
        r["net_profit"]
        for r in by_view(lake, t(6), t(4))
        if str(r["report_period"]) == "2025-03-31"
    ]
    assert newest_a_q1 == [7.0]  # ingested 06-04: the 06-05 ingestion is not stored yet


def test_exact_ties_fall_back_to_ranking_every_key(store: LakeStore, lake: Lake) -> None:
    rows = _raw_rows()
    twin = dict(rows[0], net_profit=1.5)  # B: same key, known_at and ingested_at
    _write_raw(store, [*rows, twin])
    got = by_view(lake, t(6))
    assert [r["symbol"] for r in got].count(B) == 1
    assert [(r["symbol"], str(r["report_period"])) for r in got] == [
        (r["symbol"], str(r["report_period"])) for r in by_window(lake, t(6))
    ]


def test_a_rewritten_file_is_scanned_again(store: LakeStore, lake: Lake) -> None:
    write(store, "financials", [statement_row(A, "2024-12-31", "2025-03-28", net_profit=10.0)])
    assert [r["net_profit"] for r in by_view(lake, "2025-06-30")] == [10.0]
    write(
        store,
        "financials",
        [statement_row(A, "2024-12-31", "2025-03-28", revision="2025-05-20", net_profit=9.0)],
        ingested_at=INGEST + timedelta(days=1),
    )
    for as_of in ("2025-05-19", "2025-06-30"):
        assert by_view(lake, as_of) == by_window(lake, as_of)
    assert [r["net_profit"] for r in by_view(lake, "2025-06-30")] == [9.0]
    assert [r["net_profit"] for r in by_view(lake, "2025-05-19")] == [10.0]


def test_the_kept_rows_are_facts_of_the_files_not_of_a_cutoff(store: LakeStore, lake: Lake) -> None:
    _write_raw(store, _raw_rows())
    by_view(lake, t(6))
    files = store.files("financials")

    def no_scan(paths: list[str]) -> pa.Table:
        raise AssertionError("scanned again for the same files")

    kept = MULTI_VERSION_ROWS.get(SCHEMA, files, no_scan)
    assert kept is not None
    # every stored version of the keys stored more than once, future ones too (the cutoff
    # is applied per request): A's three 2024 versions and three Q1 versions
    assert sorted(kept.column("symbol").to_pylist()) == [A] * 6
    assert parse_cutoff("2025-06-30") > max(kept.column("known_at").to_pylist())


@pytest.mark.parametrize("latest_only", [False, True])
def test_the_statements_read_drops_the_same_rows_as_the_neighbour_comparison(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch, latest_only: bool
) -> None:
    _write_raw(store, _raw_rows())
    monkeypatch.setattr(report_period, "BULK_SYMBOLS", 0)  # a bulk read, of three symbols
    monkeypatch.setattr(report_period, "KEPT_SYMBOLS", 0)  # scanned, not from the kept files
    # nor from the kept key order (test_kept_key_order.py): the scans are its fallback
    monkeypatch.setattr(report_period.kept_key_order, "versions", lambda *a, **k: None)
    symbols = [A, B, "300750.SZ"]
    asks = [(t(d), None) for d in (1, 2, 3, 6, 10)] + [(t(6), t(s)) for s in (2, 4, 5)]

    def read() -> list[pa.Table]:
        out = []
        for as_of, as_ingested in asks:
            r = lake.financials(
                symbols, as_of=as_of, as_ingested=as_ingested, latest_only=latest_only
            )
            out.append(r.to_arrow().replace_schema_metadata(None))
        return out

    dropped = read()
    monkeypatch.setattr(MULTI_VERSION_ROWS, "get", lambda *a, **k: None)
    compared = read()
    assert [t.to_pylist() for t in dropped] == [t.to_pylist() for t in compared]
    assert all(a.schema == b.schema for a, b in zip(dropped, compared, strict=True))
    newest = dropped[3].to_pylist()  # at 06-06: A's 2024 NULL, A's Q1 06-05 ingestion
    assert [r["net_profit"] for r in newest if r["symbol"] == A] == (
        [6.0] if latest_only else [None, 6.0]
    )
