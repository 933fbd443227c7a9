"""Reading vendor cells: dates, numbers, codes, symbols and required columns, for every vendor.

One strictness policy, the same for every fetcher:
- a cell the vendor left empty (None, NaN, NaT, blank text) is *missing*, and stays missing
  (None for dates and codes, NaN for numbers); the dataset's known-at rule decides what a
  missing date means (docs/design.md §1);
- a cell that holds something which is not a date (or not a number) is *garbled*: the whole
  answer is rejected with a non-retryable `VendorError` naming the column and the value. It
  never becomes None: a garbled announcement date read as "no date" would date a late filer's
  statement at its statutory deadline, before it was public;
- a news item's publication time is the exception, and on purpose: one that cannot be read
  dates the item when first seen (pitlake.pit.parse_vendor_time, the news rule), which is
  never before it was public;
- columns the fetcher reads must all be there (`require_columns`): a missing one is schema
  drift, never partial data.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from datetime import date, datetime
from typing import TYPE_CHECKING

import pyarrow as pa

from pitlake.errors import InvalidArgumentsError, VendorError
from pitlake.symbols import canonical

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

# A unit slip is a factor of 10 or more (手 vs 股 is 100, 千元 vs 元 1000, 万 10000); a ratio
# within this factor of the expected 1 proves the scale. Prices move ±30 % at most a day.
UNIT_CHECK_TOLERANCE = 3.0


def garbled(message: str, *, vendor: str, endpoint: str) -> VendorError:
    """An answer whose shape or values are wrong: retrying returns the same garbage."""
    return VendorError(message, vendor=vendor, endpoint=endpoint, retryable=False)


def is_missing(v: object) -> bool:
    """None, NA, NaT, NaN or blank text: the vendor gave no value."""
    import pandas as pd

    if v is None or v is pd.NA or v is pd.NaT:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    return isinstance(v, str) and not v.strip()


def text_or_none(v: object) -> str | None:
    """A cell as stripped text; missing → None."""
    if is_missing(v):
        return None
    s = str(v).strip()
    return s or None


def code_text(v: object) -> str | None:
    """Vendor codes (report_type, update_flag, side) → text: 1, 1.0 and '1' are all '1'."""
    if is_missing(v):
        return None
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


def _date_text(v: object) -> str | None:
    """A date cell as YYYYMMDD text (still to be checked), None when missing."""
    import pandas as pd

    if is_missing(v):
        return None
    if isinstance(v, datetime | pd.Timestamp):
        return v.strftime("%Y%m%d")
    if isinstance(v, date):
        return v.strftime("%Y%m%d")
    text = str(code_text(v))
    if len(text) > 10 and text[10] in " T":  # 'YYYY-MM-DD HH:MM:SS', ISO with a time
        text = text[:10]
    return text.replace("-", "").replace("/", "")


def parse_dates(values: pd.Series, *, vendor: str, endpoint: str, column: str) -> pd.Series:
    """Vendor dates (`'20250603'`, `'2025-06-03[ 00:00:00]'`, date, Timestamp, 20250603) →
    `datetime.date` objects; None where the vendor gave none. A value that is not a date
    rejects the answer. Each distinct value is parsed once (histories repeat their dates)."""
    import pandas as pd

    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    distinct = pd.Series(uniques, dtype=object)
    text = distinct.map(_date_text)
    eight = text.map(lambda t: not isinstance(t, str) or (len(t) == 8 and t.isdigit()))
    parsed = pd.to_datetime(text.where(eight), format="%Y%m%d", errors="coerce")
    bad = text.notna() & parsed.isna()
    if bad.any():  # uniques come in order of appearance: this is the first bad row's value
        raise garbled(
            f"{column} {distinct[bad].iloc[0]!r} is not a date", vendor=vendor, endpoint=endpoint
        )
    as_dates = [None if pd.isna(p) else p.date() for p in parsed]
    as_dates.append(None)  # code -1: missing
    return pd.Series([as_dates[c] for c in codes.tolist()], index=values.index, dtype=object)


def parse_required_dates(
    values: pd.Series, *, vendor: str, endpoint: str, column: str
) -> pd.Series:
    """As `parse_dates`, and a missing date is garbage too (a trade date, a report period)."""
    out = parse_dates(values, vendor=vendor, endpoint=endpoint, column=column)
    if out.isna().any():
        raise garbled(f"a row has no {column}: not a dated row", vendor=vendor, endpoint=endpoint)
    return out


def parse_numbers(values: pd.Series, *, vendor: str, endpoint: str, column: str) -> pd.Series:
    """Vendor numbers → float64 (missing → NaN). Non-numeric text rejects the answer."""
    import pandas as pd

    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype):
        return values.astype("float64")  # the usual answer: nothing to clean
    cleaned = values.map(lambda v: None if is_missing(v) else v)
    parsed = pd.to_numeric(cleaned, errors="coerce").astype("float64")
    bad = cleaned.notna() & parsed.isna()
    if bad.any():
        raise garbled(
            f"{column} {values[bad].iloc[0]!r} is not a number", vendor=vendor, endpoint=endpoint
        )
    return parsed


def parse_counts(values: pd.Series, *, vendor: str, endpoint: str, column: str) -> pd.Series:
    """Vendor counts (times a seal opened, sessions in a row) → nullable integers. A count
    that is negative or not whole is garbled, like text in a number: 1.5 breaks is no count."""
    parsed = parse_numbers(values, vendor=vendor, endpoint=endpoint, column=column)
    bad = parsed.notna() & ((parsed < 0) | (parsed != parsed.round()))
    if bad.any():
        raise garbled(
            f"{column} {values[bad].iloc[0]!r} is not a count", vendor=vendor, endpoint=endpoint
        )
    return parsed.astype("Int64")


def parse_numeric(
    values: pd.Series, kind: pa.DataType, *, vendor: str, endpoint: str, column: str
) -> pd.Series:
    """A numeric cell as its canonical field types it: integers as counts, else floats."""
    parse = parse_counts if pa.types.is_integer(kind) else parse_numbers
    return parse(values, vendor=vendor, endpoint=endpoint, column=column)


def symbol_or_none(code: object) -> str | None:
    """A vendor code (600519.SH, 600519, sh600519, 600519 as an int) → canonical symbol, None
    when it is not an A-share (indices, funds)."""
    s = str(code).strip()
    if s.isdigit():
        s = s.zfill(6)
    try:
        return canonical(s)
    except InvalidArgumentsError:
        return None


def parse_symbols(values: pd.Series, *, vendor: str) -> pd.Series:
    """Vendor codes → canonical symbols; codes that are not A-shares become None, logged once
    per batch (the fetcher drops those rows)."""
    cache: dict[object, str | None] = {}

    def one(v: object) -> str | None:
        if v not in cache:
            cache[v] = symbol_or_none(v)
        return cache[v]

    out = values.map(one)
    dropped = sorted(str(v) for v, c in cache.items() if c is None)
    if dropped:
        log.warning(
            "%s: dropping rows of %d code(s) that are not A-shares, e.g. %s",
            vendor,
            len(dropped),
            ", ".join(dropped[:5]),
        )
    return out


def require_columns(
    frame: pd.DataFrame, columns: Iterable[str], *, vendor: str, endpoint: str
) -> pd.DataFrame:
    """Every column the fetcher reads must be there: a missing one is schema drift."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise garbled(
            f"schema drift: missing columns {missing} (got {list(frame.columns)[:12]})",
            vendor=vendor,
            endpoint=endpoint,
        )
    return frame


def check_unit_scale(ratio: pd.Series, what: str, *, vendor: str, endpoint: str) -> None:
    """Fail the batch when a quantity that should equal another is off by a unit factor (a
    100× volume slip when a source switches 手/股 between versions)."""
    ratio = ratio[ratio.notna() & (ratio > 0) & ratio.map(math.isfinite)]
    if ratio.empty:
        return
    median = float(ratio.median())
    if not (1 / UNIT_CHECK_TOLERANCE <= median <= UNIT_CHECK_TOLERANCE):
        raise garbled(
            f"unit drift: {what} is {median:.4g}× what it should be",
            vendor=vendor,
            endpoint=endpoint,
        )


def parse_session_times(
    days: pd.Series, values: pd.Series, *, vendor: str, endpoint: str, column: str
) -> pd.Series:
    """Beijing wall times within a session (`HHMMSS`, `HH:MM:SS`, `92500` with its leading
    zero lost) on each row's day → UTC instants; missing (blank, 0, the zero-filled `000000`
    East Money gives where it has no time) → NaT. Anything else rejects the answer."""
    import pandas as pd

    def one(day: object, v: object) -> pd.Timestamp | None:
        if is_missing(v) or day is None or is_missing(day):
            return None
        text = str(v).strip().replace(":", "")
        if text.endswith(".0"):
            text = text[:-2]
        if not text.isdigit() or len(text) > 6:
            raise garbled(f"{column} {v!r} is not a time of day", vendor=vendor, endpoint=endpoint)
        text = text.zfill(6)
        if text == "000000":
            return None
        hh, mm, ss = int(text[:2]), int(text[2:4]), int(text[4:])
        if hh > 23 or mm > 59 or ss > 59:
            raise garbled(f"{column} {v!r} is not a time of day", vendor=vendor, endpoint=endpoint)
        local = pd.Timestamp(day) + pd.Timedelta(hours=hh, minutes=mm, seconds=ss)
        return local.tz_localize("Asia/Shanghai").tz_convert("UTC")

    out = [one(d, v) for d, v in zip(days, values, strict=True)]
    return pd.Series(pd.to_datetime(out, utc=True), index=values.index).astype(
        "datetime64[us, UTC]"
    )
