"""Arrow, pandas and JSON forms of one answer carry the same values (nulls, NaN, instants at
midnight Beijing, nested seats and extras), and the envelope travels with the columnar forms."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from pitlake import records
from pitlake.envelope import ENVELOPE_METADATA_KEY, Result
from pitlake.errors import AnswerUnavailableError
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.pit import iso_beijing
from pitlake.read.lake import Lake
from pitlake.records import SEATS_TYPE
from pitlake.statuses import ResultStatus
from tests.lake.conftest import NOW, bar, bj, canonical, news_frame, news_item, statement_row, write

A, B = "600519.SH", "000001.SZ"
SEATS = [
    {"side": "buy", "branch": "机构专用", "buy": 1.5e7, "sell": 0.0, "net": 1.5e7},
    {"side": "sell", "branch": "华泰证券深圳益田路", "buy": None, "sell": 9.0e6, "net": -9.0e6},
]


@pytest.fixture(scope="module")
def forms_lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lake]:
    root = tmp_path_factory.mktemp("forms")
    store = LakeStore(root)
    quotes = canonical(
        "quotes",
        [
            bar(A, "2025-06-03", 10.0),
            bar(A, "2025-06-04", 11.0, turnover_rate=float("nan"), volume=None),
            bar(B, "2025-06-04", 5.0, pct_chg=float("nan")),
        ],
    )
    # a fact public exactly at midnight Beijing (the day boundary where UTC says "yesterday")
    quotes.loc[1, "known_at"] = pd.Timestamp(bj("2025-06-05", "00:00")).tz_convert("UTC")
    write(store, "quotes", quotes)
    write(
        store,
        "dragon_tiger",
        [
            {
                "symbol": A,
                "trade_date": "2025-06-04",
                "reason": "涨幅偏离值达7%",
                "net_buy": 6.0e6,
                "seats": json.dumps(SEATS, ensure_ascii=False, sort_keys=True),
            },
            {"symbol": B, "trade_date": "2025-06-04", "reason": "换手率达20%", "seats": None},
        ],
    )
    fin = [
        statement_row(A, "2025-03-31", "2025-04-25", revenue=1.0),
        statement_row(B, "2025-03-31", "2025-04-26", revenue=float("nan")),
    ]
    fin[0]["extra"] = '{"comp_type": "1", "ebit": null, "end_type": "4"}'
    fin[1]["extra"] = None
    write(store, "financials", fin)
    write(
        store,
        "news",
        news_frame(
            [
                news_item("n1", "午夜", bj("2025-06-04", "00:00"), [A, B]),
                news_item("n2", "无代码", bj("2025-06-04", "09:30"), []),
            ]
        ),
    )
    with Lake(root, catalog=Catalog(lake_root=root), clock=lambda: NOW) as lake:
        yield lake


def plain(v: Any) -> Any:
    """A value from any form in its JSON form: the common ground the forms are compared on."""
    if v is None or v is pd.NaT or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, np.ndarray):
        return [plain(x) for x in v.tolist()]
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, pd.Timestamp | datetime):
        assert v.tzinfo is not None, "instants are tz-aware in every columnar form"
        return iso_beijing(v)
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, np.generic):
        return plain(v.item())
    return v


def json_form(column: str, v: Any) -> Any:
    """JSON rows keep stored JSON text as text; the columnar forms nest it."""
    if column in ("seats", "extra") and isinstance(v, str):
        return json.loads(v)
    return v


def assert_same_values(r: Result) -> None:
    rows = r.rows
    table = r.to_arrow()
    frame = r.to_pandas()
    assert table.num_rows == len(frame) == len(rows) == r.meta["rows"]
    assert table.column_names == list(frame.columns) == list(rows[0])
    for i, row in enumerate(rows):
        for c, v in row.items():
            want = json_form(c, v)
            assert plain(table.column(c)[i].as_py()) == want, (c, i)
            assert plain(frame[c].iloc[i]) == want, (c, i)


AS_OF = "2025-06-06"


READS = pytest.mark.parametrize(
    "read",
    [
        lambda lk: lk.quotes([A, B], start="2025-06-03", end="2025-06-04", as_of=AS_OF),
        lambda lk: lk.dragon_tiger(date="2025-06-04", as_of=AS_OF),
        lambda lk: lk.financials([A, B], as_of=AS_OF),
        lambda lk: lk.news(start="2025-06-01", end="2025-06-05", as_of=AS_OF),
        lambda lk: lk.calendar(start="2025-06-01", end="2025-06-08", as_of=AS_OF),
    ],
    ids=["quotes", "dragon_tiger", "financials", "news", "calendar"],
)


@READS
def test_arrow_pandas_and_json_agree_value_for_value(forms_lake: Lake, read: Any) -> None:
    r = read(forms_lake)
    assert r.table is not None and r.meta["rows"] > 1
    assert_same_values(r)


class _CountingPool(ThreadPoolExecutor):
    maps = 0

    def map(self, *args: Any, **kw: Any) -> Any:
        self.maps += 1
        return super().map(*args, **kw)


@READS
def test_columns_converted_on_two_threads_give_the_same_answer(
    forms_lake: Lake, read: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Large answers convert their columns on two threads (records.PARALLEL_ROWS): the same
    table, columns in the same order, as one thread gives."""
    one_thread = read(forms_lake).to_arrow()
    monkeypatch.setattr(records, "PARALLEL_ROWS", 0)
    workers = _CountingPool(max_workers=2)
    monkeypatch.setattr(records, "ARROW_WORKERS", workers)
    r = read(forms_lake)
    assert r.to_arrow().equals(one_thread, check_metadata=True)
    assert workers.maps  # the threads did run
    assert_same_values(r)


def test_columnar_types_come_from_the_schema(forms_lake: Lake) -> None:
    q = forms_lake.quotes([A, B], start="2025-06-03", end="2025-06-04", as_of=AS_OF)
    t = q.to_arrow()
    assert t.schema.field("trade_date").type == pa.date32()
    assert t.schema.field("known_at").type == pa.timestamp("us", tz="Asia/Shanghai")
    frame = q.to_pandas()
    assert isinstance(frame["known_at"].dtype, pd.DatetimeTZDtype)
    assert str(frame["known_at"].dt.tz) == "Asia/Shanghai"
    assert isinstance(frame["trade_date"].iloc[0], date)
    # midnight Beijing stays on its Beijing day in every form
    midnight = frame[frame["known_at"].dt.hour == 0]
    assert len(midnight) == 1 and midnight["known_at"].iloc[0].date() == date(2025, 6, 5)
    i = int(midnight.index[0])
    assert q.rows[i]["known_at"] == "2025-06-05T00:00:00+08:00"
    # NaN and null are one "missing" in every form: JSON None, Arrow null, pandas NaN
    assert t.column("turnover_rate").null_count == 1
    assert q.rows[i]["turnover_rate"] is None and math.isnan(frame["turnover_rate"].iloc[i])


def test_seats_and_extra_are_nested_not_text(forms_lake: Lake) -> None:
    dt = forms_lake.dragon_tiger(date="2025-06-04", as_of=AS_OF).to_arrow()
    assert dt.schema.field("seats").type == SEATS_TYPE
    by_symbol = dict(
        zip(dt.column("symbol").to_pylist(), dt.column("seats").to_pylist(), strict=True)
    )
    assert by_symbol[A] == SEATS and by_symbol[B] is None
    fin = forms_lake.financials([A, B], as_of=AS_OF).to_arrow()
    assert pa.types.is_struct(fin.schema.field("extra").type)
    extras = dict(
        zip(fin.column("symbol").to_pylist(), fin.column("extra").to_pylist(), strict=True)
    )
    assert extras[A] == {"comp_type": "1", "ebit": None, "end_type": "4"} and extras[B] is None


def test_the_envelope_travels_with_the_columnar_forms(forms_lake: Lake) -> None:
    r = forms_lake.quotes(A, as_of="2025-06-04T16:00+08:00")
    meta = json.loads(r.arrow_table().schema.metadata[ENVELOPE_METADATA_KEY.encode()])
    assert meta["status"] == str(r.status) and meta["as_of"] == r.as_of
    assert meta["effective_trade_date"] == r.effective_trade_date == "2025-06-03"
    assert "data" not in meta and meta["meta"] == r.meta and meta["status"] == "NOT_READY"
    with pytest.raises(AnswerUnavailableError) as failed:  # no rows: never an empty frame
        r.to_pandas()
    assert failed.value.envelope["date_status"] == str(r.date_status)
    ok = forms_lake.quotes(A, start="2025-06-03", end="2025-06-03", as_of=AS_OF)
    assert ok.to_pandas().attrs["pitlake"]["status"] == str(ok.status) == "OK"


def test_rows_are_built_only_when_asked_for(forms_lake: Lake) -> None:
    r = forms_lake.quotes([A, B], start="2025-06-03", end="2025-06-04", as_of=AS_OF)
    assert r._data is None  # the Arrow table is the answer until JSON is wanted
    r.to_arrow()
    assert r._data is None
    assert r.data is r.rows and len(r.rows) == 3
    assert r.to_dict()["data"] == r.rows


def test_rows_only_results_still_convert() -> None:
    r = Result(status=ResultStatus.OK, data=[{"a": 1, "b": None}, {"a": 2, "b": "x"}])
    assert r.to_arrow().to_pylist() == r.rows
    assert r.meta["rows"] == 2 and Result(status="NO_DATA").to_arrow().num_rows == 0


def test_to_polars_names_the_install_when_polars_is_missing(
    forms_lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "polars", None)  # import polars → ImportError
    with pytest.raises(ImportError, match="pip install polars"):
        forms_lake.quotes(A, start="2025-06-03", end="2025-06-03", as_of=AS_OF).to_polars()


def test_to_pandas_with_arrow_dtypes_keeps_the_types(forms_lake: Lake) -> None:
    r = forms_lake.dragon_tiger(date="2025-06-04", as_of=AS_OF)
    frame = r.to_pandas(dtype_backend="pyarrow")
    assert all(isinstance(t, pd.ArrowDtype) for t in frame.dtypes)
    assert frame["seats"].dtype.pyarrow_dtype == SEATS_TYPE
    assert frame["trade_date"].dtype.pyarrow_dtype == pa.date32()
    assert frame.attrs["pitlake"]["status"] == str(r.status)
    with pytest.raises(ValueError, match="dtype_backend"):
        r.to_pandas(dtype_backend="polars")


def test_to_pandas_keeps_nested_columns_arrow_backed_and_the_rest_numpy(forms_lake: Lake) -> None:
    # building a Python dict per `extra` cell was most of a whole market's conversion
    fin = forms_lake.financials([A, B], as_of=AS_OF).to_pandas()
    assert isinstance(fin["extra"].dtype, pd.ArrowDtype)
    assert pa.types.is_struct(fin["extra"].dtype.pyarrow_dtype)
    extras = dict(zip(fin["symbol"], fin["extra"], strict=True))
    assert extras[A] == {"comp_type": "1", "ebit": None, "end_type": "4"} and extras[B] is pd.NA
    comp = dict(zip(fin["symbol"], fin["extra"].struct.field("comp_type"), strict=True))
    assert comp[A] == "1" and comp[B] is pd.NA
    assert fin["net_profit"].dtype == np.float64
    assert isinstance(fin["known_at"].dtype, pd.DatetimeTZDtype)
    assert isinstance(fin["report_period"].iloc[0], date)  # dates stay dates
    seats = forms_lake.dragon_tiger(date="2025-06-04", as_of=AS_OF).to_pandas()["seats"]
    assert seats.dtype.pyarrow_dtype == SEATS_TYPE
