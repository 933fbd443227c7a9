"""The replay source's tables and filters: how a recorded table answers a call's parameters.

A `Filter` maps a call parameter to a column and a way to match (the vendor's own filtering);
an `EndpointSpec` is one endpoint's filters, defaults, no-rows reply and column types. Values
are compared as the vendor compares them: dates in any form as YYYYMMDD, times as instants.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

FORMATS = (".jsonl", ".csv", ".parquet")


@dataclass(frozen=True)
class Filter:
    """`param` of a call → rows whose `column` matches it.

    kind: eq (string equality) | list (comma list, any of) | date (same day) |
          date_from / date_to (inclusive day bounds) | time_from / time_to (timestamp bounds) |
          a kind of the vendor's replay dialect (`ReplayDialect.matchers`, e.g. AkShare's
          secucode and notice_kind)."""

    param: str
    column: str
    kind: str = "eq"
    unless: tuple[str, ...] = ()  # param values that mean "no filter" (e.g. 全部)


@dataclass(frozen=True)
class EndpointSpec:
    filters: tuple[Filter, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)  # the vendor's parameter defaults
    # columns | no_columns | type_error | value_error | key_error:<key> (the library's own
    # reply to "no rows", so the live client's reading of it is what replay exercises)
    no_rows: str = "columns"
    date_column: str | None = None  # what `stale` moves back
    require: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # only these are held
    date_columns: tuple[str, ...] = ()  # AkShare: returned as datetime.date
    datetime_columns: tuple[str, ...] = ()  # returned as datetime64
    str_columns: tuple[str, ...] = ()  # always strings (codes, factor texts)

    @property
    def date_filters(self) -> tuple[Filter, ...]:
        return tuple(
            f
            for f in self.filters
            if f.column == self.date_column and f.kind in ("date", "date_from", "date_to")
        )


_DIGITS = re.compile(r"\D")


def date_int(value: Any) -> int | None:
    """Any date form (20250603, '2025-06-03', '2025-06-03 00:00:00', date, Timestamp) →
    20250603; None when it is not a date."""
    import pandas as pd

    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NaT:
        return None
    if isinstance(value, datetime | date):
        return value.year * 10000 + value.month * 100 + value.day
    digits = _DIGITS.sub("", str(value).strip()[:10])
    if len(digits) != 8:
        return None
    try:
        d = date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
    except ValueError:
        return None
    return d.year * 10000 + d.month * 100 + d.day


def _as_date(value: Any) -> date | None:
    n = date_int(value)
    return None if n is None else date(n // 10000, n // 100 % 100, n % 100)


def _date_keys(column: pd.Series) -> pd.Series:
    """Vectorised date_int: YYYYMMDD as float (NaN where not a date)."""
    import pandas as pd

    text = column.astype("string").str.strip().str.slice(0, 10).str.replace(r"\D", "", regex=True)
    text = text.where(text.str.len() == 8)
    return pd.to_numeric(text, errors="coerce").astype("float64")


def _time_keys(column: pd.Series) -> pd.Series:
    import pandas as pd

    return pd.to_datetime(column.astype("string"), errors="coerce", format="mixed")


def time_bound(value: Any, *, upper: bool) -> pd.Timestamp | None:
    import pandas as pd

    text = str(value).strip()
    try:
        ts = pd.Timestamp(text)
    except (ValueError, TypeError):
        return None
    date_only = len(_DIGITS.sub("", text)) <= 8
    if upper and date_only:  # a bare end date includes that whole day
        ts = ts + pd.Timedelta(days=1) - pd.Timedelta(microseconds=1)
    return ts


def as_text(col: pd.Series) -> pd.Series:
    """A column as the vendor's strings (missing stays missing; 20250603.0 → '20250603')."""
    import pandas as pd

    return pd.Series([_text(v) for v in col], index=col.index, dtype="str")


def as_dates(col: pd.Series) -> pd.Series:
    """A column as `datetime.date` objects (AkShare's date columns)."""
    import pandas as pd

    return pd.Series([_as_date(v) for v in col], index=col.index, dtype=object)


def numeric_text(col: pd.Series) -> pd.Series | None:
    """A text column whose every value is a number (and none a zero-padded code) → numbers."""
    import pandas as pd

    values = col.dropna().astype(str).str.strip()
    if values.empty or values.str.match(r"^-?0\d").any():
        return None
    parsed = pd.to_numeric(col, errors="coerce")
    if parsed.notna().sum() != len(values):
        return None
    return parsed


def _text(value: Any) -> str | None:
    """A value as the vendor's string (missing stays missing; 20250603.0 → '20250603')."""
    import pandas as pd

    if value is None or value is pd.NaT or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Table:
    """A file's rows typed as the vendor returns them, plus cached filter keys."""

    def __init__(self, frame: pd.DataFrame) -> None:

        self.frame = frame
        self._keys: dict[tuple[str, str], pd.Series] = {}
        self._lock = threading.Lock()

    def key(self, column: str, kind: str) -> pd.Series:
        with self._lock:
            cached = self._keys.get((column, kind))
            if cached is None:
                col = self.frame[column]
                if kind == "date":
                    cached = _date_keys(col)
                elif kind == "time":
                    cached = _time_keys(col)
                else:
                    cached = col.astype("string").str.strip()
                self._keys[(column, kind)] = cached
            return cached


def read_rows(path: Path) -> pd.DataFrame:
    import pandas as pd

    if path.suffix == ".jsonl":
        records = [
            json.loads(line)
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        return pd.DataFrame.from_records(records) if records else pd.DataFrame()
    if path.suffix == ".csv":
        return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    return pd.read_parquet(path)
