"""Latest-report reads of a few symbols from the statement files kept per file identity
(`pitlake.read.kept_reports`): the same rows, columns and types as the scans, nothing known
after the cutoff (or stored after the as-ingested instant), a rewritten file read again, and
the kept forms bounded."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient
from pitlake.schemas import get as get_schema

from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read import kept_reports
from pitlake.read.engine import DuckReader
from pitlake.read.kept import BoundedLRU
from pitlake.read.lake import Lake
from pitlake.read.readers import report_period
from pitlake.serve.api.app import create_app
from tests.lake.conftest import INGEST, statement_row, write

SCHEMA = get_schema("financials")
A, B, C = "600519.SH", "000001.SZ", "300750.SZ"


def t(day: int, hour: int = 0) -> datetime:
    return datetime(2025, 6, day, hour, tzinfo=UTC)


def _raw(sym: str, period: str, known: datetime, ingested: datetime, np_: float | None, **kw: Any):  # type: ignore[no-untyped-def]
    return {
        "symbol": sym,
        "statement": kw.get("statement", "income"),
        "report_period": date.fromisoformat(period),
        "report_type": kw.get("report_type", "1"),
        "net_profit": np_,
        "source": kw.get("source", "tushare"),
        "known_at": known,
        "known_at_basis": "announcement",
        "ingested_at": ingested,
        "run_id": "r",
        "update_flag": kw.get("update_flag"),
        "extra": kw.get("extra"),
    }


RAW = [
    _raw(B, "2024-12-31", t(1), t(2), 1.0),
    _raw(A, "2024-12-31", t(1), t(2), 2.0),
    _raw(A, "2024-12-31", t(3), t(4), None),  # the newest at 06-06: its NULL is served as NULL
    _raw(A, "2024-12-31", t(9), t(9), 99.0),  # a restatement public only on 06-09
    _raw(A, "2025-03-31", t(2), t(3), 5.0),
    _raw(A, "2025-03-31", t(2), t(5), 6.0),  # same known_at, later ingestion: wins
    _raw(A, "2025-03-31", t(2), t(4), 7.0),
    _raw(A, "2025-06-30", t(12), t(12), 8.0),  # a newer period, public only on 06-12
    _raw(A, "2024-12-31", t(1), t(2), 20.0, statement="balance"),
    _raw(A, "2024-12-31", t(1), t(2), 21.0, report_type="2"),
    _raw(C, "2025-03-31", t(8), t(8), 3.0),  # nothing visible before 06-08
    _raw(B, "2025-03-31", t(4), t(10), 11.0),  # stored later than the next version,
    _raw(B, "2025-03-31", t(5), t(6), 12.0),  # but known earlier: this one is the newest
]


def _write_raw(store: LakeStore, rows: list[dict[str, Any]], *, shuffle: bool = False) -> None:
    """Rows written straight into the partition files, in an order the store never writes:
    versions newest first and, with `shuffle`, a symbol's rows apart."""
    schema = SCHEMA.arrow_schema
    for year in sorted({r["report_period"].year for r in rows}):
        mine = [r for r in rows if r["report_period"].year == year][::-1]
        if shuffle:  # the halves swapped: the first half's last symbol apart from itself
            mine = mine[len(mine) // 2 :] + mine[: len(mine) // 2]
        table = pa.Table.from_pylist(
            [{f.name: r.get(f.name) for f in schema} for r in mine], schema=schema
        )
        path = Path(store.partition_path("financials", str(year)))
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path)


ASKS = [(t(d), None) for d in (1, 2, 3, 6, 8, 10, 12, 13)] + [(t(13), t(s)) for s in (2, 3, 4, 5)]
READS: list[dict[str, Any]] = [
    {},
    {"statement": "income"},
    {"statement": "cashflow"},
    {"periods": ["2024-12-31"]},
    {"periods": ["2024-12-31", "2025-03-31"], "statement": "balance"},
]


def _answers(lake: Lake, symbols: list[str]) -> list[pa.Table]:
    out = []
    for as_of, as_ingested in ASKS:
        for kw in READS:
            r = lake.financials(
                symbols, as_of=as_of, as_ingested=as_ingested, latest_only=True, **kw
            )
            assert r.table is not None
            out.append(r.table)
    return out


def _no_scans(monkeypatch: pytest.MonkeyPatch) -> None:
    def scanned(*a: Any, **k: Any) -> Any:
        raise AssertionError("answered by the scans, not from the kept files")

    monkeypatch.setattr(report_period, "_scanned", scanned)


@pytest.mark.parametrize("shuffle", [False, True])
def test_the_kept_files_answer_what_the_scans_answer(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch, shuffle: bool
) -> None:
    _write_raw(store, RAW, shuffle=shuffle)
    symbols = [A, B, C, "000002.SZ"]
    with monkeypatch.context() as m:
        m.setattr(report_period, "KEPT_SYMBOLS", 0)
        scanned = _answers(lake, symbols)
    _no_scans(monkeypatch)
    kept = _answers(lake, symbols)
    assert [k.schema for k in kept] == [s.schema for s in scanned]
    assert [k.to_pylist() for k in kept] == [s.to_pylist() for s in scanned]
    assert sum(k.num_rows for k in kept) > 50


def _newest(lake: Lake, as_of: Any, **kw: Any) -> list[tuple[str, str, str, str, float | None]]:
    r = lake.financials([A, B, C], as_of=as_of, latest_only=True, **kw)
    return [
        (d["symbol"], d["statement"], d["report_period"], d["report_type"], d.get("net_profit"))
        for d in r.data
    ]


def test_a_version_known_after_the_cutoff_stays_out(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_raw(store, RAW)
    _no_scans(monkeypatch)
    at_6 = _newest(lake, t(6), statement="income", periods=["2024-12-31"])
    assert at_6 == [
        (B, "income", "2024-12-31", "1", 1.0),
        (A, "income", "2024-12-31", "1", None),  # not the 99.0 restatement, public on 06-09
        (A, "income", "2024-12-31", "2", 21.0),
    ]
    at_10 = _newest(lake, t(10), statement="income", periods=["2024-12-31"])
    assert (A, "income", "2024-12-31", "1", 99.0) in at_10  # the restatement, once public

    def a_income(as_of: datetime) -> list[tuple[str, str, str, str, float | None]]:
        return [r for r in _newest(lake, as_of, statement="income") if r[0] == A and r[3] == "1"]

    # the newest period is Q1 until the half-year report is public; then the half year
    assert a_income(t(11)) == [(A, "income", "2025-03-31", "1", 6.0)]
    assert a_income(t(12)) == [(A, "income", "2025-06-30", "1", 8.0)]
    for as_of in (t(6), t(11)):
        known = lake.financials([A, B, C], as_of=as_of, latest_only=True).table
        assert known is not None and known.num_rows
        assert max(known.column("known_at").to_pylist()) <= as_of


def test_as_ingested_hides_versions_stored_later(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_raw(store, RAW)
    _no_scans(monkeypatch)
    newest = _newest(lake, t(6), as_ingested=t(4), statement="income")
    q1 = [r for r in newest if r[0] == A and r[2] == "2025-03-31"]
    assert q1 == [(A, "income", "2025-03-31", "1", 7.0)]  # the 06-05 ingestion: not stored yet
    assert _newest(lake, t(6), as_ingested=t(1)) == []


@pytest.fixture
def served(store: LakeStore, sqlite_catalog: Catalog, lake_root: Path) -> Iterator[TestClient]:
    _write_raw(store, RAW)
    sqlite_catalog.record_ledger("financials", "2025-03-31", "OK", rows=len(RAW), at=INGEST)
    app = create_app(lake_root, token="", clock=lambda: datetime(2025, 7, 1, tzinfo=UTC))
    with TestClient(app) as client:
        yield client


def test_the_snapshot_leaves_out_a_version_known_after_its_as_of(
    served: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_scans(monkeypatch)

    def section(as_of: str) -> list[tuple[str, str, Any]]:
        r = served.get(
            "/v1/snapshot", params={"symbols": f"{A},{B}", "datasets": "financials", "as_of": as_of}
        )
        assert r.status_code == 200, r.text
        rows = r.json()["data"][0]["data"]
        assert all(row["known_at"] <= as_of for row in rows)
        return [
            (d["statement"], d["report_period"], d["net_profit"]) for d in rows if d["symbol"] == A
        ]

    early = section("2025-06-06T12:00:00+08:00")
    assert ("income", "2025-03-31", 6.0) in early and 8.0 not in [n for *_, n in early]
    late = section("2025-06-12T12:00:00+08:00")
    assert ("income", "2025-06-30", 8.0) in late  # public at 08:00 +08:00


def test_a_rewritten_file_is_read_again(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_scans(monkeypatch)
    write(store, "financials", [statement_row(A, "2024-12-31", "2025-03-28", net_profit=10.0)])
    assert [r[-1] for r in _newest(lake, "2025-06-30")] == [10.0]
    write(
        store,
        "financials",
        [statement_row(A, "2024-12-31", "2025-03-28", revision="2025-05-20", net_profit=9.0)],
        ingested_at=INGEST + timedelta(days=1),
    )
    assert [r[-1] for r in _newest(lake, "2025-06-30")] == [9.0]  # not the kept 10.0
    assert [r[-1] for r in _newest(lake, "2025-05-19")] == [10.0]


def test_a_file_rewritten_between_its_index_and_its_rows_is_not_used(
    store: LakeStore, lake: Lake
) -> None:
    write(store, "financials", [statement_row(A, "2024-12-31", "2025-03-28", net_profit=10.0)])
    files = store.files("financials")
    indexed = lake.reports.index(SCHEMA, files, lambda path: _index_scan(lake, path))
    assert indexed is not None
    fid = indexed[0][0]
    write(
        store,
        "financials",
        [statement_row(B, "2024-12-31", "2025-03-28", net_profit=1.0)],
        ingested_at=INGEST + timedelta(days=1),
    )

    def read(path: str, numbers: Any) -> pa.Table:
        raise AssertionError("read at another identity")

    rows = np.asarray([0])
    for keep in (True, False):
        assert lake.reports.take(SCHEMA, files[0], fid, rows, read, keep=keep) is None
    # and the read itself answers from the new file
    assert [r[0] for r in _newest(lake, "2025-06-30")] == [B, A]


def _index_scan(lake: Lake, path: str) -> pa.Table:
    p = kept_reports.Params()
    return lake.reader.table(kept_reports.index_sql(SCHEMA, p.add([path])), p)


def test_warm_reads_of_other_symbols_scan_no_file(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_raw(store, RAW)
    for _ in range(2):  # one file read whole and kept per read: 2024's, then 2025's
        lake.financials([A], as_of=t(13), latest_only=True)
    seen: list[str] = []
    real = DuckReader.table

    def counting(self: DuckReader, sql: str, *a: Any, **k: Any) -> Any:
        if "read_parquet" in sql:
            seen.append(sql)
        return real(self, sql, *a, **k)

    monkeypatch.setattr(DuckReader, "table", counting)
    assert [r[0] for r in _newest(lake, t(13))][:1] == [B]
    assert seen == []  # the indexes and the 2024 and 2025 files' rows were kept


def test_one_file_is_read_whole_per_read_the_others_rows_alone(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_raw(store, RAW)
    with monkeypatch.context() as m:
        m.setattr(report_period, "KEPT_SYMBOLS", 0)
        scanned = _newest(lake, t(13))
    _no_scans(monkeypatch)
    first = _newest(lake, t(13))  # A's income, B's and C's in 2025; A's balance, type 2 in 2024
    assert first == scanned and {r[2][:4] for r in first} == {"2024", "2025"}
    kept = list(lake.reports.rows._kept)
    assert len(kept) == 1 and "year=2025" in kept[0][1][0]  # 2025's rows: three of five
    assert _newest(lake, t(13)) == scanned  # 2024's rows read alone, then kept
    assert len(lake.reports.rows) == 2


def test_the_kept_forms_are_bounded_by_bytes() -> None:
    kept: BoundedLRU[object] = BoundedLRU(max_bytes=100)
    for i in range(5):
        kept.keep(("financials", (f"f{i}", 1, 1, i)), i, 40)
    assert len(kept) == 2 and kept.nbytes == 80
    assert kept.get(("financials", ("f0", 1, 1, 0))) is None
    assert kept.get(("financials", ("f4", 1, 1, 4))) == 4
    kept.keep(("financials", ("big", 1, 1, 9)), "big", 500)  # alone over the bound: kept alone
    assert len(kept) == 1


def test_a_lake_without_local_files_is_scanned(lake: Lake) -> None:
    def scan(path: str) -> pa.Table:
        raise AssertionError("no scan for a remote file")

    assert (
        lake.reports.index(SCHEMA, ["s3://bucket/financials/year=2025/part.parquet"], scan) is None
    )


def test_an_index_keeps_a_symbols_rows_together_and_their_file_rows(
    store: LakeStore, lake: Lake
) -> None:
    _write_raw(store, RAW, shuffle=True)
    path = store.files("financials", ["2024"])[0]
    idx = kept_reports._file_index(SCHEMA, _index_scan(lake, str(path)))
    assert idx is not None and idx.rows is not None  # the file's symbols were apart
    stored = pq.read_table(path)
    at, sym = idx.picked(np.asarray([A, B], dtype=str))
    symbols = stored.column("symbol").take(pa.array(idx.rows[at])).to_pylist()
    assert symbols == [[A, B][i] for i in sym]
    assert sorted(symbols) == sorted(s for s in stored.column("symbol").to_pylist() if s in (A, B))
