"""qlib's file formats, written byte for byte as qlib 0.9.7's own loaders read them.

- `calendars/day.txt`: one `YYYY-MM-DD` per line (`FileCalendarStorage`).
- `instruments/<market>.txt`: `SYMBOL<TAB>start<TAB>end` per line, one line per interval, so
  a symbol may have several (`FileInstrumentStorage`).
- `features/<symbol lower>/<field>.day.bin`: float32 little-endian; the first value is the
  calendar index of the first day, the values follow one per session (`FileFeatureStorage`,
  scripts/dump_bin.py).
- `financial/<symbol lower>/<field>_q.data`: records `<IIdI` (date YYYYMMDD, period
  year*100+quarter, value float64, `_next` = byte offset of the period's next revision or
  0xFFFFFFFF), in date order; `<field>_q.index`: uint32 first year, then for each quarter from
  its Q1 the byte offset of the period's first record (or 0xFFFFFFFF) — `LocalPITProvider`,
  `qlib.utils.read_period_data`, scripts/dump_pit.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path

import numpy as np

from pitlake.symbols import to_vendor

NO_RECORD = 0xFFFFFFFF  # qlib's C.pit_record_nan["index"]
PIT_RECORD = np.dtype([("date", "<u4"), ("period", "<u4"), ("value", "<f8"), ("_next", "<u4")])
FEATURE_VALUE = np.dtype("<f4")


def qlib_symbol(symbol: str) -> str:
    """600519.SH → SH600519 (qlib's instrument form; its files are named in lower case)."""
    return to_vendor(symbol, "qlib")


def write_calendar(root: Path, days: Sequence[date]) -> None:
    path = root / "calendars" / "day.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{d.isoformat()}\n" for d in days), encoding="utf-8")


def write_instruments(
    root: Path, market: str, spans: Mapping[str, Sequence[tuple[date, date]]]
) -> None:
    """One line per (symbol, interval), symbols in order."""
    path = root / "instruments" / f"{market.lower()}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = (
        f"{qlib_symbol(sym)}\t{lo.isoformat()}\t{hi.isoformat()}\n"
        for sym in sorted(spans)
        for lo, hi in spans[sym]
    )
    path.write_text("".join(lines), encoding="utf-8")


def write_feature(
    root: Path, symbol: str, field: str, first_index: int, values: np.ndarray
) -> None:
    """One day feature: the start index, then one float32 per session from it."""
    folder = root / "features" / qlib_symbol(symbol).lower()
    folder.mkdir(parents=True, exist_ok=True)
    body = np.concatenate([[float(first_index)], np.asarray(values, dtype="float64")])
    body.astype(FEATURE_VALUE).tofile(folder / f"{field.lower()}.day.bin")


def quarter_period(report_period: date) -> int:
    """2025-03-31 → 202501 (qlib's quarterly period: year × 100 + quarter)."""
    return report_period.year * 100 + (report_period.month - 1) // 3 + 1


def pit_records(
    dates: Sequence[int] | np.ndarray,
    periods: Sequence[int] | np.ndarray,
    values: Sequence[float] | np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The `.data` records and the `.index` words of one field, from its revisions in the
    order they became visible (already sorted by date, ties in version order): each record
    links to the same period's next revision."""
    if not len(dates) == len(periods) == len(values):
        raise ValueError("dates, periods and values differ in length")
    records = np.zeros(len(dates), dtype=PIT_RECORD)
    if not len(records):
        return records, np.array([], dtype="<u4")
    records["date"] = dates
    records["period"] = periods
    records["value"] = values
    records["_next"] = NO_RECORD
    if np.any(np.diff(records["date"].astype("int64")) < 0):
        raise ValueError("PIT records must be in date order")
    first_year = int(records["period"].min()) // 100
    last_year = int(records["period"].max()) // 100
    index = np.full(1 + 4 * (last_year - first_year + 1), NO_RECORD, dtype="<u4")
    index[0] = first_year
    last_of: dict[int, int] = {}
    nexts = records["_next"]
    for i, period in enumerate(records["period"].tolist()):
        if period in last_of:
            nexts[last_of[period]] = i * PIT_RECORD.itemsize
        else:
            offset = (period // 100 - first_year) * 4 + period % 100 - 1
            index[1 + offset] = i * PIT_RECORD.itemsize
        last_of[period] = i
    return records, index


def write_pit(root: Path, symbol: str, field: str, records: np.ndarray, index: np.ndarray) -> None:
    folder = root / "financial" / qlib_symbol(symbol).lower()
    folder.mkdir(parents=True, exist_ok=True)
    records.tofile(folder / f"{field.lower()}.data")
    index.tofile(folder / f"{field.lower()}.index")
