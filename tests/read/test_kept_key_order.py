"""Bulk statement reads from the key order kept per set of file identities
(`pitlake.read.kept_key_order`): the same rows, columns, types and order as the scans at every
cutoff and as-ingested instant, nothing known after the cutoff, a rewritten file read again,
and files the order cannot serve left to the scans."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pitlake.lake.store import LakeStore
from pitlake.read import kept_key_order
from pitlake.read.lake import Lake
from pitlake.read.readers import report_period
from tests.lake.conftest import INGEST, statement_row, write
from tests.read.test_kept_reports import ASKS, RAW, READS, SCHEMA, A, B, C, _raw, _write_raw, t

SYMBOLS = [A, B, C, "000002.SZ"]


def _answers(lake: Lake, symbols: list[str]) -> list[pa.Table]:
    out = []
    for as_of, as_ingested in ASKS:
        for kw in READS:
            r = lake.financials(symbols, as_of=as_of, as_ingested=as_ingested, **kw)
            assert r.table is not None
            out.append(r.table)
    return out


def _bulk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every read of more than one symbol a bulk read."""
    monkeypatch.setattr(report_period, "BULK_SYMBOLS", 1)


def _no_scans(monkeypatch: pytest.MonkeyPatch) -> None:
    def scanned(*a: Any, **k: Any) -> Any:
        raise AssertionError("answered by the scans, not from the kept key order")

    monkeypatch.setattr(report_period, "_scanned", scanned)


def _scanned_answers(lake: Lake, symbols: list[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as m:
        m.setattr(kept_key_order, "versions", lambda *a, **k: None)
        return _answers(lake, symbols)


# more versions: a key restated twice, a tie on known_at broken by the later ingestion, a
# key whose only version is public after most cutoffs, a symbol the read does not ask for;
# texts that differ by file and NULL texts beside stored ones (the files' dictionaries differ)
MORE = [
    _raw(B, "2024-12-31", t(6), t(7), 1.5, update_flag="1", extra='{"comp_type": "2"}'),
    _raw(B, "2024-12-31", t(11), t(11), 1.7, source="akshare", update_flag="0"),
    _raw(A, "2025-03-31", t(6), t(6), 6.5, source="akshare", extra='{"end_type": "1"}'),
    _raw(C, "2024-12-31", t(3), t(3), 30.0, statement="cashflow"),
    _raw(C, "2024-12-31", t(3), t(6), 31.0, statement="cashflow"),
    _raw("000002.SZ", "2025-06-30", t(13), t(13), 40.0),
    _raw("688981.SH", "2025-03-31", t(1), t(1), 50.0),
]


@pytest.mark.parametrize("shuffle", [False, True])
def test_the_kept_order_answers_what_the_scans_answer(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch, shuffle: bool
) -> None:
    _write_raw(store, RAW + MORE, shuffle=shuffle)
    _bulk(monkeypatch)
    scanned = _scanned_answers(lake, SYMBOLS, monkeypatch)
    _no_scans(monkeypatch)
    kept = _answers(lake, SYMBOLS)
    assert [k.schema for k in kept] == [s.schema for s in scanned]
    assert [k.to_pylist() for k in kept] == [s.to_pylist() for s in scanned]
    assert sum(k.num_rows for k in kept) > 100
    assert len(lake.key_orders) >= 2  # all years, and 2024's alone (the periods reads)
    every = [r for k in kept for r in k.column("symbol").to_pylist()]
    assert "688981.SH" not in every  # not asked for


def test_a_version_known_after_the_cutoff_stays_out(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_raw(store, RAW + MORE)
    _bulk(monkeypatch)
    _no_scans(monkeypatch)

    def a_income(as_of: Any, **kw: Any) -> list[float | None]:
        r = lake.financials(SYMBOLS, as_of=as_of, statement="income", **kw)
        return [
            d["net_profit"]
            for d in r.data
            if d["symbol"] == A and d["report_period"] == "2024-12-31" and d["report_type"] == "1"
        ]

    assert a_income(t(6)) == [None]  # not the 99.0 restatement, public on 06-09
    assert a_income(t(9)) == [99.0]
    for as_of in (t(2), t(6), t(10)):
        table = lake.financials(SYMBOLS, as_of=as_of).table
        assert table is not None and table.num_rows
        assert max(table.column("known_at").to_pylist()) <= as_of
    q1 = lake.financials(SYMBOLS, as_of=t(6), as_ingested=t(4), periods=["2025-03-31"]).data
    assert [d["net_profit"] for d in q1 if d["symbol"] == A] == [7.0]  # 06-05's: not stored yet


def test_a_rewritten_file_is_read_again(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bulk(monkeypatch)
    _no_scans(monkeypatch)
    write(store, "financials", [statement_row(A, "2024-12-31", "2025-03-28", net_profit=10.0)])

    def profits(as_of: str) -> list[float]:
        return [d["net_profit"] for d in lake.financials([A, B], as_of=as_of).data]

    assert profits("2025-06-30") == [10.0]
    assert lake.financials([A, B], as_of="2025-06-30", statement="cashflow").data == []
    write(
        store,
        "financials",
        [
            statement_row(A, "2024-12-31", "2025-03-28", revision="2025-05-20", net_profit=9.0),
            statement_row(B, "2024-12-31", "2025-03-28", net_profit=1.0),
        ],
        ingested_at=INGEST + timedelta(days=1),
    )
    assert profits("2025-06-30") == [1.0, 9.0]  # B sorts first; A's kept 10.0 superseded
    assert profits("2025-05-19") == [1.0, 10.0]


def test_files_whose_columns_differ_are_left_to_the_scans(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_raw(store, RAW)
    path = store.files("financials", ["2025"])[0]
    stored = pq.read_table(path)
    pq.write_table(stored.append_column("added", pa.array([1] * stored.num_rows)), path)
    _bulk(monkeypatch)
    scanned = _scanned_answers(lake, SYMBOLS, monkeypatch)
    used: list[Any] = []
    real = kept_key_order.versions

    def watched(*a: Any, **k: Any) -> Any:
        used.append(out := real(*a, **k))
        return out

    monkeypatch.setattr(kept_key_order, "versions", watched)
    assert [k.to_pylist() for k in _answers(lake, SYMBOLS)] == [s.to_pylist() for s in scanned]
    assert any(u is None for u in used)  # every read touching 2025 scanned


def test_a_remote_lake_is_scanned(lake: Lake) -> None:
    ask = lake.ask("2025-06-30")
    files = ["s3://bucket/financials/year=2025/part.parquet"]
    assert kept_key_order.versions(lake, SCHEMA, files, [A, B], ask, None, None) is None
