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
    if isinstance(s.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(s.dtype):
        # Instants repeat a lot (one session close per day): format each distinct one once.
        uniq = {v: json_value(v) for v in pd.unique(s.dropna())}
        return [None if pd.isna(v) else uniq[v] for v in s]
    if pd.api.types.is_float_dtype(s.dtype):
        return [None if not math.isfinite(x) else float(x) for x in s.to_numpy(dtype="float64")]
    if pd.api.types.is_bool_dtype(s.dtype) and s.dtype != object:
        return [bool(x) for x in s]
    if pd.api.types.is_integer_dtype(s.dtype) and s.dtype != object:
        return [int(x) for x in s]
    return [json_value(v) if not (isinstance(v, float) and math.isnan(v)) else None for v in s]


def to_records(frame: pd.DataFrame, columns: list[str] | None = None) -> list[dict[str, Any]]:
    cols = [c for c in (columns or list(frame.columns)) if c in frame.columns]
    if frame.empty:
        return []
    values = {c: _column(frame[c]) for c in cols}
    return [{c: values[c][i] for c in cols} for i in range(len(frame))]
