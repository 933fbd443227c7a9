"""Derived columns the suites check: computed once per batch, vectorised, never written.

GX pays a fixed Python cost per expectation, so work that would need a custom row loop (is this
date a session? which board limit applies?) is done here on the *distinct* values (a few dates,
a few thousand symbols) and mapped back to rows; GX then checks the results with its own
expectation classes. Every derived column starts with `DQ_PREFIX`. Missing or malformed inputs
give nulls here, never exceptions: the schema expectations report those.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import date, datetime, time, timedelta

import numpy as np
import pandas as pd
import pyarrow as pa

from pitlake.calendar import BEIJING, is_session
from pitlake.errors import InvalidArgumentsError
from pitlake.limit_rows import issue_price_rows, row_regimes, with_issue_prices
from pitlake.limits import row_limit_prices
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
MOVE = f"{DQ_PREFIX}move"  # 元 past the limit price (bars) or |pct_chg| (pct_chg only)
ALLOWED_MOVE = f"{DQ_PREFIX}allowed_move"  # half a tick (bars) or the limit + rounding (pct)
PERIOD_MMDD = f"{DQ_PREFIX}period_mmdd"  # report_period month*100 + day
PERIOD_DAY = f"{DQ_PREFIX}report_period"
ANN_DAY = f"{DQ_PREFIX}ann_date"
DEADLINE_DAY = f"{DQ_PREFIX}deadline"

# The moment each dated dataset's fact exists (Beijing wall time on its date).
PRICE_TICK = 0.01  # 元: limit prices are rounded to the tick, so they exceed the exact limit
ROUNDING = PRICE_TICK / 2  # by at most half a tick
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


def price_move_columns(
    frame: pd.DataFrame,
    day: np.ndarray,
    st_symbols: Collection[str] | Mapping[str, Collection[date]],
    new_listings: Collection[str] | Mapping[str, date],
    *,
    in_prices: bool,
    ages_known: bool = True,
    issue_prices: Mapping[str, float] | None = None,
    delisting: Mapping[str, Sequence[tuple[date, date | None]]] | None = None,
) -> dict[str, object]:
    """Observed vs allowed, by the limit in force on each row (pitlake.limit_rows.row_regimes:
    NaN, so no check, on a no-limit session or where the limit is unknown). With prices
    (`in_prices`) the move is how far the close, high or low lies past the limit price
    (元; ≤ 0 inside), allowed half a tick: one tick past it is impossible data. A bar without
    pre_close takes its reference from pct_chg, whose rounding widens the allowance. A list
    with only pct_chg compares |pct_chg| with the ratio in percent points plus a tick. An
    approval-regime first day is judged on its code's issue price (`issue_prices`), and not
    at all without one (unknown). A session inside a delisting-arrangement period
    (`delisting`) is judged by that period's rule."""
    regime = row_regimes(
        frame, day, st_symbols, new_listings, ages_known=ages_known, delisting=delisting
    )
    issue = issue_price_rows(frame, regime, issue_prices)
    regime = with_issue_prices(regime, issue)
    close, pct = _numeric(frame, "close"), _numeric(frame, "pct_chg")
    with np.errstate(invalid="ignore", divide="ignore"):
        ref_from_pct = close / (1.0 + pct / 100.0)
        if in_prices:
            given = _numeric(frame, "pre_close")
            has_ref = ~np.isnan(given) & (given > 0)
            ref = np.where(has_ref, given, np.round(ref_from_pct, 2))
            up, down = row_limit_prices(ref, regime, issue)
            high, low = _numeric(frame, "high"), _numeric(frame, "low")
            past = np.fmax(np.fmax(close - up, down - close), np.fmax(high - up, down - low))
            move = np.where(np.isnan(up) | np.isnan(down), np.nan, past)
            slack = np.where(has_ref, 0.0, PRICE_TICK + np.abs(close) * 1e-4)
            allowed = np.where(np.isnan(move), np.nan, ROUNDING - 1e-6 + slack)
        else:
            ratio = np.where(regime.on_issue, np.nan, np.fmax(regime.up, regime.down))
            move = np.abs(pct)
            tick_pct = np.where(ref_from_pct > 0, ROUNDING / ref_from_pct * 100.0, 0.25)
            allowed = ratio * 100.0 + tick_pct + 0.01 + 1e-6  # + pct_chg's own rounding
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
