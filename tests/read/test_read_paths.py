"""The hot read path's pieces agree with the general ones: the sorted-scan newest-version pick
with DuckDB's GROUP BY, Arrow → rows with pandas → rows, and the store's dictionary choice
keeps every value."""

from __future__ import annotations

import io
from datetime import date, datetime, timezone

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pitlake.read.scans as scans
from pitlake.lake.catalog import Catalog
from pitlake.lake.parquet import dictionary_columns, parquet_bytes
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.records import to_records
from tests.lake.conftest import bar, bj, write

A, B = "600519.SH", "000001.SZ"
DAYS = ["2025-06-03", "2025-06-04", "2025-06-05"]


@pytest.fixture
def revised(store: LakeStore, sqlite_catalog: Catalog) -> LakeStore:
    """Three versions of A's 06-04 bar (the second and third stored later) and one of B's."""
    write(store, "quotes", [bar(s, d, 10.0 + i) for i, d in enumerate(DAYS) for s in (A, B)])
    write(store, "quotes", [bar(A, "2025-06-04", 20.0)], ingested_at=bj("2025-06-21", "09:00"))
    write(store, "quotes", [bar(A, "2025-06-04", 30.0)], ingested_at=bj("2025-06-22", "09:00"))
    for d in DAYS:
        sqlite_catalog.record_ledger("quotes", d, "OK", rows=2, vendor="tushare", at=bj(d, "18:00"))
    return store


@pytest.mark.parametrize(
    ("as_of", "close"),
    [("2025-06-20", 11.0), ("2025-06-21T12:00+08:00", 20.0), ("2025-06-23", 30.0)],
)
def test_the_point_read_and_the_grouped_read_pick_the_same_versions(
    revised: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch, as_of: str, close: float
) -> None:
    point = lake.quotes([A, B], start=DAYS[0], end=DAYS[-1], as_of=as_of)
    monkeypatch.setattr(scans, "SMALL_READ_CELLS", 0)  # force DuckDB's GROUP BY path
    grouped = lake.quotes([A, B], start=DAYS[0], end=DAYS[-1], as_of=as_of)
    assert point.data == grouped.data
    assert point.meta["known_at_max"] == grouped.meta["known_at_max"]
    assert len(point.data) == 6  # one row per (symbol, day): older versions dropped
    a_0604 = [r for r in point.data if r["symbol"] == A and r["trade_date"] == "2025-06-04"]
    assert [r["close"] for r in a_0604] == [close]
    assert [(r["symbol"], r["trade_date"]) for r in point.data] == [
        (s, d)
        for s in (B, A)
        for d in DAYS  # sorted by symbol, then date
    ]


def _edge_table() -> pa.Table:
    utc = timezone.utc
    return pa.table(
        {
            "at_us": pa.array(
                [
                    datetime(2025, 1, 1, 10, 0, 0, 123456, tzinfo=utc),
                    None,
                    datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=utc),
                    datetime(2025, 6, 1, 16, 0, tzinfo=utc),
                ],
                pa.timestamp("us", tz="UTC"),
            ),
            "at_ns": pa.array(
                [1, None, -1_500_000_001, 1_700_000_000_000_000_999], pa.timestamp("ns", tz="UTC")
            ),
            "day": pa.array([date(2025, 1, 2), None, date(1990, 12, 19), date(2026, 1, 1)]),
            "x": pa.array([1.5, float("nan"), None, float("inf")]),
            "n": pa.array([1, None, 3, 4], pa.int64()),
            "s": pa.array(["a", None, "贵州茅台", ""]),
            "flag": pa.array([True, None, False, True]),
            "tags": pa.array([["x"], None, [], ["y", "z"]]),
        }
    )


def test_arrow_rows_are_json_safe_and_in_beijing_time() -> None:
    rows = to_records(_edge_table())
    assert [r["at_us"] for r in rows] == [
        "2025-01-01T18:00:00.123456+08:00",
        None,
        "1970-01-01T07:59:59.999999+08:00",
        "2025-06-02T00:00:00+08:00",  # 16:00 UTC is the next Beijing day
    ]
    assert [r["at_ns"] for r in rows] == [
        "1970-01-01T08:00:00+08:00",  # nanoseconds are dropped, as datetime.isoformat does
        None,
        "1970-01-01T07:59:58.499999+08:00",
        "2023-11-15T06:13:20+08:00",
    ]
    assert [r["day"] for r in rows] == ["2025-01-02", None, "1990-12-19", "2026-01-01"]
    assert [r["x"] for r in rows] == [1.5, None, None, None]
    assert [r["n"] for r in rows] == [1, None, 3, 4]
    assert [r["tags"] for r in rows] == [["x"], None, [], ["y", "z"]]


def test_arrow_rows_equal_the_pandas_rows() -> None:
    table = _edge_table()
    via_pandas = to_records(table.to_pandas())
    via_arrow = to_records(table)
    assert via_arrow == via_pandas
    # ints stay ints on the Arrow path (pandas turns a nullable int column into floats)
    assert isinstance(via_arrow[0]["n"], int)


def test_near_unique_floats_get_no_dictionary_and_round_trip() -> None:
    rng = np.random.default_rng(7)
    n = 20_000
    table = pa.table(
        {
            "symbol": pa.array([f"{i % 50:06d}.SZ" for i in range(n)]),
            "close": pa.array(np.round(rng.integers(1000, 1400, n) / 100, 2)),  # ticks repeat
            "amount": pa.array(rng.random(n) * 1e8),  # near unique
            "tags": pa.array([["a"]] * n),
        }
    )
    chosen = dictionary_columns(table)
    assert chosen == ["symbol", "close", "tags.list.element"]
    data = parquet_bytes(table)
    meta = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0)
    encodings = {meta.column(i).path_in_schema: meta.column(i).encodings for i in range(4)}
    assert "RLE_DICTIONARY" not in encodings["amount"]
    assert "RLE_DICTIONARY" in encodings["close"]
    assert "RLE_DICTIONARY" in encodings["tags.list.element"]
    assert pq.read_table(io.BytesIO(data)).equals(table)


def test_a_frame_without_dense_floats_keeps_every_dictionary() -> None:
    assert dictionary_columns(pa.table({"close": [1.0, 1.0, 2.0, 2.0]})) is True
