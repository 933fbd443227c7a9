"""Frames and Arrow tables → JSON-safe rows for the answer envelope: dates 'YYYY-MM-DD',
instants ISO-8601 in +08:00, NaN/NaT → None, Arrow lists → lists.

Both paths give identical rows (tested): the Arrow one serves the hot trade-dated reads
without a pandas round trip, the pandas one everything that was shaped in pandas."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pitlake.pit import iso_beijing, iso_beijing_many

if TYPE_CHECKING:
    import pandas as pd


def json_value(v: Any) -> Any:
    pd = sys.modules.get("pandas")  # a pandas value exists only once pandas is loaded
    if v is None or (pd is not None and v is pd.NaT):
        return None
    if isinstance(v, bool | str | int):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, datetime):  # pandas.Timestamp too
        return iso_beijing(v)
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, np.ndarray | list | tuple):
        return [json_value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): json_value(x) for k, x in v.items()}
    if isinstance(v, np.generic):
        return json_value(v.item())
    return str(v)


def _floats(arr: np.ndarray) -> list[Any]:
    out = arr.tolist()
    for i in np.flatnonzero(~np.isfinite(arr)):
        out[i] = None
    return out


def _column(s: pd.Series) -> list[Any]:
    """One column as JSON-safe values. Non-float columns are factorised so each distinct value
    (a session close, a date, a symbol) is converted once: answers repeat them a lot, and
    per-cell conversion dominated large answers (measured: 19 s → under 2 s for 350k
    statement versions)."""
    import pandas as pd

    if pd.api.types.is_float_dtype(s.dtype):
        return _floats(s.to_numpy(dtype="float64"))
    if pd.api.types.is_bool_dtype(s.dtype) and s.dtype != object:
        return [bool(x) for x in s.to_numpy()]
    if pd.api.types.is_integer_dtype(s.dtype) and s.dtype != object:
        return s.to_numpy().tolist()
    if isinstance(s.dtype, pd.DatetimeTZDtype):
        return iso_beijing_many(s.array.asi8, s.dtype.unit, s.isna().to_numpy())
    try:
        codes, uniques = pd.factorize(s, use_na_sentinel=True)
    except TypeError:  # unhashable cells (Arrow lists come back as arrays)
        return [json_value(v) if not (isinstance(v, float) and math.isnan(v)) else None for v in s]
    converted = [json_value(u) for u in uniques]
    converted.append(None)  # code -1 (missing) indexes the last element
    return [converted[c] for c in codes.tolist()]


def _arrow_column(a: pa.ChunkedArray) -> list[Any]:
    """One Arrow column as JSON-safe values, the same as `_column` on its pandas form."""
    t = a.type
    if pa.types.is_floating(t):
        values = _fixed_width(a, f"float{t.bit_width}").astype("float64")
        nulls = _nulls(a)
        if nulls is not None:
            values[nulls] = np.nan
        return _floats(values)
    if pa.types.is_timestamp(t):
        nulls = _nulls(a)
        epoch = _fixed_width(a, "int64")  # naive instants count as UTC
        return iso_beijing_many(
            epoch if nulls is None else np.where(nulls, 0, epoch), t.unit, nulls
        )
    if pa.types.is_date(t):
        if a.null_count:
            return [None if v is None else v.isoformat() for v in a.to_pylist()]
        if t == pa.date32():
            days = _fixed_width(a, "int32").astype("datetime64[D]")
        else:  # date64: milliseconds since the epoch
            days = _fixed_width(a, "int64").astype("datetime64[ms]").astype("datetime64[D]")
        return np.datetime_as_string(days, unit="D").tolist()
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return a.to_pylist()
    if pa.types.is_integer(t) or pa.types.is_boolean(t):
        return a.to_pylist()
    return [json_value(v) for v in a.to_pylist()]


# pyarrow's own `to_numpy`, `as_py` of a zoned timestamp and any Python value handed to it
# (`pa.scalar`, a Python operand of a compute function) import pandas (~0.25 s), which a small
# read never needs otherwise: the helpers below read Arrow's buffers instead (decision 54).


def _fixed_width(a: pa.ChunkedArray, dtype: str) -> np.ndarray:
    """A fixed-width column's values, read from its data buffers (a null's slot holds whatever
    the buffer holds: callers mask it with `_nulls`)."""
    width = np.dtype(dtype).itemsize
    parts = [
        np.frombuffer(c.buffers()[1], dtype=dtype, count=len(c), offset=c.offset * width)
        for c in a.chunks
        if len(c)
    ]
    return np.concatenate(parts) if parts else np.empty(0, dtype=dtype)


def _nulls(a: pa.ChunkedArray) -> np.ndarray | None:
    """Which rows are null (None: none is), from the validity bitmaps."""
    if not a.null_count:
        return None
    parts = []
    for c in a.chunks:
        bitmap = c.buffers()[0]
        if bitmap is None:
            parts.append(np.zeros(len(c), dtype=bool))
            continue
        bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little")
        parts.append(bits[c.offset : c.offset + len(c)] == 0)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def latest_instant(column: pa.ChunkedArray) -> str | None:
    """The greatest instant of a timestamp column as `iso_beijing` prints it (None: no
    instant), through its epoch integer."""
    epoch = pc.max(column.cast(pa.int64())).as_py()
    return None if epoch is None else iso_beijing_many(np.array([epoch]), column.type.unit)[0]


def to_records(
    data: pd.DataFrame | pa.Table, columns: list[str] | None = None
) -> list[dict[str, Any]]:
    names = list(data.column_names if isinstance(data, pa.Table) else data.columns)
    cols = [c for c in (columns or names) if c in names]
    if len(data) == 0:
        return []
    if isinstance(data, pa.Table):
        values = [_arrow_column(data.column(c)) for c in cols]
    else:
        values = [_column(data[c]) for c in cols]
    return [dict(zip(cols, row, strict=True)) for row in zip(*values, strict=True)]


# ---------------------------------------------------------------- the columnar form

BEIJING_TZ = "Asia/Shanghai"
# dragon_tiger.seats is stored as JSON text (its schema); its columnar form is this list.
SEATS_TYPE = pa.list_(
    pa.struct(
        [
            ("side", pa.string()),
            ("branch", pa.string()),
            ("buy", pa.float64()),
            ("sell", pa.float64()),
            ("net", pa.float64()),
        ]
    )
)
# Columns stored as JSON text that the columnar form nests: a fixed type, or None for a struct
# over the keys the answer's objects carry (financials.extra differs by vendor and statement).
JSON_COLUMNS: dict[str, pa.DataType | None] = {"seats": SEATS_TYPE, "extra": None}


# Two threads for Arrow work that lets go of the GIL (kernels, Parquet decoding), shared by
# every bulk step that splits its columns or files (this module, read/kept_key_order.py); no
# task run on them submits to them again. An executor starts no thread until first used.
ARROW_WORKERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="pitlake-arrow")
# Answers from this many rows up convert their columns on two threads (Arrow's kernels let go
# of the GIL): all 788k statement versions took 66 → 44 ms; below it the threads cost more.
PARALLEL_ROWS = 100_000


def _map(fn: Callable[[Any], Any], items: list[Any], rows: int) -> list[Any]:
    if rows < PARALLEL_ROWS or len(items) < 2:
        return [fn(i) for i in items]
    return list(ARROW_WORKERS.map(fn, items))


def columnar(table: pa.Table, columns: list[str] | None = None) -> pa.Table:
    """The Arrow form of an answer, value for value the same as `to_records` of `table`:
    the same columns in order, NaN as null (JSON has no NaN), instants in Beijing time (the
    same instant; only the zone label changes), and the JSON text columns nested."""
    names = [c for c in (columns or table.column_names) if c in table.column_names]
    # the JSON columns first: the slowest, so the other thread takes the rest meanwhile
    ordered = sorted(names, key=lambda n: n not in JSON_COLUMNS)
    done = _map(lambda n: _columnar_column(n, table.column(n)), ordered, table.num_rows)
    out = dict(zip(ordered, done, strict=True))
    return pa.table({n: out[n] for n in names}) if names else pa.table({})


def _columnar_column(name: str, a: pa.ChunkedArray) -> pa.ChunkedArray | pa.Array:
    t = a.type
    if pa.types.is_floating(t) and len(a) and pc.any(pc.is_nan(a)).as_py():
        return pc.if_else(pc.is_nan(a), pa.scalar(None, t), a)
    if pa.types.is_timestamp(t):
        return a.cast(pa.timestamp(t.unit, tz=BEIJING_TZ))  # naive instants count as UTC
    if name in JSON_COLUMNS and (pa.types.is_string(t) or pa.types.is_large_string(t)):
        return _nested(a, JSON_COLUMNS[name])
    return a


def _nested(a: pa.ChunkedArray, type_: pa.DataType | None) -> pa.Array:
    """JSON text → nested values, parsing each distinct text once (answers repeat them)."""
    enc = pc.dictionary_encode(a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a)
    texts = enc.dictionary.to_pylist()
    try:
        parsed = [json.loads(s) for s in texts]
    except ValueError:
        return a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a  # not JSON: as stored
    if type_ is not None:
        values = pa.array(parsed, type=type_)
    else:
        values = _inferred_struct(parsed)
    return values.take(enc.indices)


def _inferred_struct(objects: list[Any]) -> pa.Array:
    """JSON objects → one struct over all their keys; a key whose values do not share one type
    (a number in one vendor's object, text in another's) holds their JSON text."""
    if not all(isinstance(o, dict) for o in objects):
        return pa.array([json.dumps(o, ensure_ascii=False, sort_keys=True) for o in objects])
    keys = sorted({k for o in objects for k in o})
    if not keys:
        return pa.array([{} for _ in objects], type=pa.struct([]))
    arrays = []
    for k in keys:
        values = [o.get(k) for o in objects]
        try:
            arrays.append(pa.array(values))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arrays.append(
                pa.array(
                    [
                        v if v is None or isinstance(v, str) else json.dumps(v, ensure_ascii=False)
                        for v in values
                    ],
                    type=pa.string(),
                )
            )
    return pa.StructArray.from_arrays(arrays, names=keys)
