"""Derived columns the suites check: computed once per batch, vectorised, never written.

GX pays a fixed Python cost per expectation, so work that would need a custom row loop (is this
date a session? which board limit applies?) is done here on the *distinct* values (a few dates,
a few thousand symbols) and mapped back to rows; GX then checks the results with its own
expectation classes. Every derived column starts with `DQ_PREFIX`. Missing or malformed inputs
give nulls here, never exceptions: the schema expectations report those.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Mapping
from datetime import date, datetime, time, timedelta

import numpy as np
import pandas as pd
import pyarrow as pa

from pitlake import symbols as sym
from pitlake.calendar import BEIJING, is_session
from pitlake.errors import InvalidArgumentsError
from pitlake.pit import is_quarter_end, latest_admissible_known_at, statutory_deadline

DQ_PREFIX = "_dq_"
TRADE_DAY = f"{DQ_PREFIX}trade_date"  # the trade date as datetime64[s] (midnight)
# The latest known_at a row fetched at `fetched_at` may carry (pitlake.pit's same-day rule).
KNOWN_AT_LIMIT = f"{DQ_PREFIX}known_at_limit"
IS_SESSION = f"{DQ_PREFIX}is_session"
EVENT_AT = f"{DQ_PREFIX}event_at"  # the instant a row's fact happened (UTC)
OC_MIN = f"{DQ_PREFIX}min_open_close"
OC_MAX = f"{DQ_PREFIX}max_open_close"
MIN_PRICE = f"{DQ_PREFIX}min_price"
MOVE = f"{DQ_PREFIX}move"  # |close - reference|, 元 (bars) or percent points (pct_chg only)
ALLOWED_MOVE = f"{DQ_PREFIX}allowed_move"  # the board limit plus a rounding tolerance
PERIOD_MMDD = f"{DQ_PREFIX}period_mmdd"  # report_period month*100 + day
PERIOD_DAY = f"{DQ_PREFIX}report_period"
ANN_DAY = f"{DQ_PREFIX}ann_date"
DEADLINE_DAY = f"{DQ_PREFIX}deadline"

# The moment each dated dataset's fact exists (Beijing wall time on its date).
PRICE_TICK = 0.01  # 元: limit prices are rounded to the tick, so they exceed the exact limit
ROUNDING = PRICE_TICK / 2  # by at most half a tick
_ST_NAME = re.compile(r"^[S*]*ST")
_NAT = np.datetime64("NaT", "s")


def _to_day(value: object) -> np.datetime64:
    if isinstance(value, datetime | pd.Timestamp):
        if pd.isna(value):
            return _NAT
        aware = value.tzinfo is not None
        d = value.astimezone(BEIJING).date() if aware else value.date()
        return np.datetime64(d, "s")
    if isinstance(value, date):
        return np.datetime64(value, "s")
    if isinstance(value, np.datetime64):
        return value.astype("datetime64[D]").astype("datetime64[s]")
    return _NAT  # strings, numbers, garbage: not a date (the dtype check says so)


def days(col: pd.Series | None, n: int) -> np.ndarray:
    """A date-like column → datetime64[s] at midnight; NaT where missing or not a date.
    Aware instants are read as Beijing dates (DESIGN §1.6)."""
    if col is None:
        return np.full(n, _NAT)
    dtype = col.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        local = col.dt.tz_convert(BEIJING).dt.tz_localize(None)
        return local.to_numpy().astype("datetime64[D]").astype("datetime64[s]")
    if pd.api.types.is_datetime64_dtype(dtype):
        return col.to_numpy().astype("datetime64[D]").astype("datetime64[s]")
    if pd.api.types.is_object_dtype(dtype):
        try:  # the common case: datetime.date objects (pandas 3 reading date32)
            arr = pa.array(col, type=pa.date32(), from_pandas=True)
            return arr.to_numpy(zero_copy_only=False).astype("datetime64[s]")
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
            pass
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    mapped = np.array([_to_day(u) for u in uniques] + [_NAT], dtype="datetime64[s]")
    return mapped[codes]  # code -1 (missing) picks the trailing NaT


def _map_unique(values: np.ndarray, fn, dtype) -> np.ndarray:
    """fn over the distinct values only, mapped back to every row."""
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    mapped = np.array([fn(u) for u in uniques] + [fn(None)], dtype=dtype)
    return mapped[codes]


def _session(day: object) -> bool:
    if day is None or pd.isna(day):
        return False
    try:
        return is_session(pd.Timestamp(day).date())
    except InvalidArgumentsError:  # outside the known calendar: not provably a session
        return False


def instants(day_values: np.ndarray, wall: time) -> pd.DatetimeIndex:
    """Midnight datetime64 + a Beijing wall time → UTC instants (datetime64[us, UTC]).
    An index, not a Series, so assigning it to a frame is positional."""
    offset = timedelta(
        hours=wall.hour, minutes=wall.minute, seconds=wall.second, microseconds=wall.microsecond
    ) - timedelta(hours=8)
    naive = day_values.astype("datetime64[us]") + np.timedelta64(offset, "us")
    return pd.DatetimeIndex(naive).tz_localize("UTC")


def trade_date_columns(frame: pd.DataFrame, event_time: time) -> dict[str, object]:
    """A trade-dated batch's day, whether it is a session, and its event instant (the spec's
    `event_time` on that day)."""
    n = len(frame)
    day = days(frame.get("trade_date"), n)
    return {
        TRADE_DAY: day,
        IS_SESSION: _map_unique(day, _session, bool),
        EVENT_AT: instants(day, event_time),
    }


def _numeric(frame: pd.DataFrame, col: str) -> np.ndarray:
    if col not in frame.columns:
        return np.full(len(frame), np.nan)
    return pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)


def ohlc_columns(frame: pd.DataFrame) -> dict[str, object]:
    o, h, lo, c = (_numeric(frame, k) for k in ("open", "high", "low", "close"))
    with np.errstate(invalid="ignore"):
        return {
            OC_MIN: np.fmin(o, c),
            OC_MAX: np.fmax(o, c),
            MIN_PRICE: np.fmin(np.fmin(o, h), np.fmin(lo, c)),
        }


def _limits_of(code: object) -> tuple[float, float, float]:
    """(normal, ST before the rule change, ST after) limit ratios; NaN if not parseable."""
    try:
        s = sym.parse(code)
    except InvalidArgumentsError:
        return (np.nan, np.nan, np.nan)
    before = sym.ST_LIMIT_ENDS - timedelta(days=1)
    return (
        s.price_limit(),
        s.price_limit(before, is_st=True),
        s.price_limit(sym.ST_LIMIT_ENDS, is_st=True),
    )


class _LimitTable:
    """Per-code limits, computed once per code per process (sessions repeat ~5,500 codes)
    and looked up for a whole batch with one vectorised reindex."""

    MAX_CODES = 100_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._table = pd.DataFrame(columns=["normal", "st_before", "st_after"], dtype="float64")

    def lookup(self, codes: pd.Index) -> np.ndarray:
        codes = pd.Index([c if isinstance(c, str) else None for c in codes], dtype=object)
        with self._lock:
            missing = codes.dropna().difference(self._table.index, sort=False)
            if len(missing):
                rows = pd.DataFrame(
                    [_limits_of(c) for c in missing],
                    index=missing,
                    columns=self._table.columns,
                    dtype="float64",
                )
                base = self._table if len(self._table) < self.MAX_CODES else self._table.iloc[:0]
                self._table = pd.concat([base, rows]) if len(base) else rows
            return self._table.reindex(codes).to_numpy(dtype="float64")


_LIMITS = _LimitTable()


def limit_ratios(
    frame: pd.DataFrame,
    day: np.ndarray,
    st_symbols: Collection[str] | Mapping[str, Collection[date]],
    new_listings: Collection[str] | Mapping[str, date],
) -> np.ndarray:
    """The board's daily limit per row (pitlake.symbols), NaN where exempt or unknown.
    `st_symbols` as a mapping (symbol → the days it was ST) judges each row by its own day."""
    n = len(frame)
    if "symbol" not in frame.columns or n == 0:
        return np.full(n, np.nan)
    codes, uniques = pd.factorize(frame["symbol"], use_na_sentinel=True)
    uniques = pd.Index(uniques, dtype=object)
    pad = np.full((1, 3), np.nan)
    per_row = np.vstack([_LIMITS.lookup(uniques), pad])[codes]
    if isinstance(st_symbols, Mapping):
        st_set: set[str] = set()
        is_st = np.zeros(n, dtype=bool)
        for i, u in enumerate(uniques):
            days = st_symbols.get(u)
            if days:
                rows = codes == i
                wanted = np.array(sorted(days), dtype="datetime64[D]").astype("datetime64[s]")
                is_st[rows] = np.isin(day[rows].astype("datetime64[s]"), wanted)
    else:
        st_set = set(st_symbols)
        is_st = np.append(uniques.isin(st_set), False)[codes]
    if "name" in frame.columns:
        names = frame["name"].astype("string")
        is_st |= names.isin(st_set).fillna(False).to_numpy(dtype=bool)
        is_st |= names.str.contains(_ST_NAME).fillna(False).to_numpy(dtype=bool)
    before_change = day < np.datetime64(sym.ST_LIMIT_ENDS, "s")
    st_limit = np.where(before_change, per_row[:, 1], per_row[:, 2])
    limit = np.where(is_st, st_limit, per_row[:, 0])
    if new_listings:
        if isinstance(new_listings, Mapping):  # symbol → first trading day: exempt that day
            first = np.array(
                [
                    np.datetime64(new_listings[u], "s") if u in new_listings else _NAT
                    for u in uniques
                ]
                + [_NAT],
                dtype="datetime64[s]",
            )
            exempt = first[codes] == day
        else:  # symbols listed on the batch's day: exempt in this batch
            exempt = np.append(uniques.isin(set(new_listings)), False)[codes]
        limit = np.where(exempt, np.nan, limit)
    return limit


def price_move_columns(
    frame: pd.DataFrame,
    day: np.ndarray,
    st_symbols: Collection[str] | Mapping[str, Collection[date]],
    new_listings: Collection[str] | Mapping[str, date],
    *,
    in_prices: bool,
) -> dict[str, object]:
    """Observed move vs the allowed move. With prices (`in_prices`: a bar with pre_close) the
    move is in 元, allowing the half tick by which a rounded limit price can exceed the exact
    limit; a list with only pct_chg turns that half tick into percent points of the price (plus
    pct_chg's own rounding)."""
    limit = limit_ratios(frame, day, st_symbols, new_listings)
    close, pct = _numeric(frame, "close"), _numeric(frame, "pct_chg")
    with np.errstate(invalid="ignore", divide="ignore"):
        ref_from_pct = close / (1.0 + pct / 100.0)
        if in_prices:
            ref = _numeric(frame, "pre_close")
            ref = np.where(np.isnan(ref) | (ref <= 0), ref_from_pct, ref)
            move = np.abs(close - ref)
            allowed = ref * limit + ROUNDING + 1e-6
        else:
            move = np.abs(pct)
            tick_pct = np.where(ref_from_pct > 0, ROUNDING / ref_from_pct * 100.0, 0.25)
            allowed = limit * 100.0 + tick_pct + 0.01 + 1e-6  # + pct_chg's own rounding
    return {MOVE: move, ALLOWED_MOVE: allowed}


def statement_period_columns(frame: pd.DataFrame, event_time: time) -> dict[str, object]:
    """A statement batch's period, its month-day, announcement day, statutory deadline and
    event instant (the end of the period's last day)."""
    n = len(frame)
    period = days(frame.get("report_period"), n)
    ann = days(frame.get("ann_date"), n)
    idx = pd.DatetimeIndex(period)
    mmdd = np.where(np.isnat(period), np.nan, idx.month * 100 + idx.day)

    def deadline(p: object) -> np.datetime64:
        if p is None or pd.isna(p):
            return _NAT
        d = pd.Timestamp(p).date()
        return np.datetime64(statutory_deadline(d), "s") if is_quarter_end(d) else _NAT

    return {
        PERIOD_DAY: period,
        PERIOD_MMDD: mmdd,
        ANN_DAY: ann,
        DEADLINE_DAY: _map_unique(period, deadline, "datetime64[s]"),
        EVENT_AT: instants(period, event_time),
    }


def known_at_limit_column(frame: pd.DataFrame, fetched_at: datetime) -> dict[str, object]:
    """Date-only facts (day_end, announcement, …) fetched during their own Beijing day may
    carry that day's end; any other known_at must not lie after the fetch."""
    if "known_at_basis" not in frame.columns:
        return {}
    return {KNOWN_AT_LIMIT: latest_admissible_known_at(frame["known_at_basis"], fetched_at)}
