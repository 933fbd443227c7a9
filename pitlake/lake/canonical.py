"""A caller's batch in canonical form: the exact dtypes a partition read returns, the
bitemporal columns filled and checked (no null key, no naive instant, no future known_at)."""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pitlake.lake.versions import SEQ
from pitlake.pit import iso_beijing, latest_admissible_known_at
from pitlake.schemas import Dataset

if TYPE_CHECKING:
    import pandas as pd

# Columns a caller supplies; the store adds ingested_at and run_id.
SUPPLIED_BITEMPORAL = ("source", "known_at", "known_at_basis")


def to_utc(value: datetime | pd.Timestamp, what: str) -> pd.Timestamp:
    import pandas as pd

    ts = pd.Timestamp(value)
    if ts.tzinfo is None:
        raise ValueError(f"{what} must be timezone-aware, got naive {value!r}")
    return ts.tz_convert("UTC").as_unit("us")


def _date_series(s: pd.Series, name: str) -> pd.Series:
    import pandas as pd

    if s.dtype == object:
        try:  # the usual case, datetime.date objects: Arrow checks them in C
            pa.array(s, type=pa.date32(), from_pandas=True)
            if not s.map(lambda v: isinstance(v, datetime)).any():
                return s
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass
        if s.map(lambda v: v is None or isinstance(v, date)).all():
            return s.map(lambda v: v.date() if isinstance(v, datetime) else v)
    parsed = pd.to_datetime(s, errors="raise")
    if getattr(parsed.dt, "tz", None) is not None:
        raise ValueError(f"column {name}: expected dates, got timestamps with a zone")
    return parsed.dt.date.astype(object).where(parsed.notna(), None)


def _timestamp_series(s: pd.Series, name: str) -> pd.Series:
    import pandas as pd

    if isinstance(s.dtype, pd.DatetimeTZDtype):
        return s.dt.tz_convert("UTC").astype("datetime64[us, UTC]")
    if s.isna().all():  # no instants at all (e.g. a feed without publish times)
        return pd.Series(pd.NaT, index=s.index, dtype="datetime64[us, UTC]")
    if pd.api.types.is_datetime64_dtype(s.dtype):
        raise ValueError(f"column {name}: naive timestamps; the lake stores UTC instants")
    naive = s.map(lambda v: isinstance(v, datetime) and v.tzinfo is None)
    if naive.any() or s.map(lambda v: isinstance(v, str)).any():
        raise ValueError(f"column {name}: expected timezone-aware instants")
    return pd.to_datetime(s, utc=True).astype("datetime64[us, UTC]")


def canonical_batch(
    schema: Dataset, frame: pd.DataFrame, *, run_id: str, ingested_at: pd.Timestamp
) -> pd.DataFrame:
    """Caller's frame → the exact dtypes a partition read returns, bitemporal columns filled.

    Raises ValueError on missing columns, null keys, naive instants, or a known_at after
    ingestion (a fact cannot be public after we stored it: that would be a future timestamp)."""
    import pandas as pd

    needed = [*schema.columns, *SUPPLIED_BITEMPORAL]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ValueError(f"{schema.name}: missing columns {missing}")
    df = frame[needed].copy()
    for f in schema.fields:
        if pa.types.is_date32(f.type):
            df[f.name] = _date_series(df[f.name], f.name)
        elif pa.types.is_timestamp(f.type):
            df[f.name] = _timestamp_series(df[f.name], f.name)
    df["known_at"] = _timestamp_series(df["known_at"], "known_at")
    null_cols = [c for c in (*schema.key, *SUPPLIED_BITEMPORAL) if df[c].isna().any()]
    if null_cols:
        raise ValueError(f"{schema.name}: null values in required columns {null_cols}")
    # Date-only facts (day_end, announcement, …) fetched during their own Beijing day carry
    # that day's end; any other known_at after ingestion is a future stamp.
    late = df["known_at"] > latest_admissible_known_at(df["known_at_basis"], ingested_at)
    if late.any():
        first = df.loc[late, "known_at"].iloc[0]
        raise ValueError(
            f"{schema.name}: known_at {iso_beijing(first)} is after ingested_at "
            f"{iso_beijing(ingested_at)}; future timestamps are rejected"
        )
    df["ingested_at"] = pd.Series(ingested_at, index=df.index).astype("datetime64[us, UTC]")
    df["run_id"] = run_id
    table = schema.to_arrow(df)
    out = table.to_pandas()
    out[SEQ] = np.arange(len(out))
    return out
