"""`to_records` reads Arrow's buffers (not pyarrow's `to_numpy`, which imports pandas; decision
54): every column answers what its pandas form answers, across chunks, slices (offsets into
the buffers and bitmaps), nulls and widths."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from pitlake import records

UTC = dt.UTC


def _columns() -> dict[str, pa.ChunkedArray]:
    t = [dt.datetime(2025, 6, 3, 7, 0, tzinfo=UTC), None, dt.datetime(2025, 6, 4, 7, 0, 0, 1, UTC)]
    d = [dt.date(2025, 6, 3), dt.date(2025, 6, 4), dt.date(1969, 12, 31)]
    return {
        "f64": pa.chunked_array([[1.5, None, float("inf")], [2.25, float("nan"), -0.0]]),
        "f32": pa.chunked_array([pa.array([1.5, None, 3.25], pa.float32())]),
        "ts_utc": pa.chunked_array([pa.array(t, pa.timestamp("us", tz="UTC"))] * 2),
        "ts_ns": pa.chunked_array([pa.array(t, pa.timestamp("ns", tz="UTC"))]),
        "ts_naive": pa.chunked_array([pa.array([x and x.replace(tzinfo=None) for x in t])]),
        "ts_all_null": pa.chunked_array([pa.nulls(3, pa.timestamp("us", tz="UTC"))]),
        "date32": pa.chunked_array([pa.array(d, pa.date32()), pa.array(d[:1], pa.date32())]),
        "date64": pa.chunked_array([pa.array(d, pa.date64())]),
        "ints": pa.chunked_array([[1, None, 3], [4, 5, 6]]),
    }


@pytest.mark.parametrize("name", sorted(_columns()))
@pytest.mark.parametrize("cut", [(0, None), (1, 4), (2, 3), (3, 0)])
def test_a_column_answers_what_its_pandas_form_answers(name: str, cut: tuple) -> None:
    column = _columns()[name]
    start, length = cut
    sliced = column.slice(start, length)  # offsets into the chunks' buffers and bitmaps
    table = pa.table({name: sliced})
    got = records.to_records(table)
    want = records.to_records(table.to_pandas())
    assert got == want
    assert len(got) == len(sliced)


def test_latest_instant_is_iso_beijing_of_the_greatest() -> None:
    ts = pa.chunked_array([pa.array([dt.datetime(2025, 6, 3, 7, 0, 0, 5, UTC), None])])
    assert records.latest_instant(ts) == "2025-06-03T15:00:00.000005+08:00"
    assert records.latest_instant(pa.chunked_array([pa.nulls(2, ts.type)])) is None
