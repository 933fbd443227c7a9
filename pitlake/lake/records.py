"""Frames → JSON-safe rows for the answer envelope: dates 'YYYY-MM-DD', instants ISO-8601 in
+08:00, NaN/NaT → None, Arrow lists → lists."""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

from pitlake.pit import iso_beijing


def json_value(v: Any) -> Any:
    if v is None or v is pd.NaT:
        return None
    if isinstance(v, bool | str | int):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, pd.Timestamp | datetime):
        return iso_beijing(v)
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, np.ndarray | list | tuple):
        return [json_value(x) for x in v]
    if isinstance(v, np.generic):
        return json_value(v.item())
    return str(v)


def _column(s: pd.Series) -> list[Any]:
    """One column as JSON-safe values. Non-float columns are factorised so each distinct value
    (a session close, a date, a symbol) is converted once: answers repeat them a lot, and
    per-cell conversion dominated large answers (measured: 19 s → under 2 s for 350k
    statement versions)."""
    if pd.api.types.is_float_dtype(s.dtype):
        arr = s.to_numpy(dtype="float64")
        out = arr.tolist()
        for i in np.flatnonzero(~np.isfinite(arr)):
            out[i] = None
        return out
    if pd.api.types.is_bool_dtype(s.dtype) and s.dtype != object:
        return [bool(x) for x in s.to_numpy()]
    if pd.api.types.is_integer_dtype(s.dtype) and s.dtype != object:
        return s.to_numpy().tolist()
    try:
        codes, uniques = pd.factorize(s, use_na_sentinel=True)
    except TypeError:  # unhashable cells (Arrow lists come back as arrays)
        return [json_value(v) if not (isinstance(v, float) and math.isnan(v)) else None for v in s]
    converted = [json_value(u) for u in uniques]
    converted.append(None)  # code -1 (missing) indexes the last element
    return [converted[c] for c in codes.tolist()]


def to_records(frame: pd.DataFrame, columns: list[str] | None = None) -> list[dict[str, Any]]:
    cols = [c for c in (columns or list(frame.columns)) if c in frame.columns]
    if frame.empty:
        return []
    values = {c: _column(frame[c]) for c in cols}
    return [{c: values[c][i] for c in cols} for i in range(len(frame))]
