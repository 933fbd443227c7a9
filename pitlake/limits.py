"""Price limits by the exchange rule, once, for the gate and the derived market reads.

The board's daily ratio comes from `pitlake.symbols` (main ±10 %, STAR / ChiNext ±20 %, BSE
±30 %, ST main board ±5 % until 2026-07-06); a limit price is the previous close × (1 ± ratio)
rounded half up to 0.01 (the exchanges' 四舍五入, done in integer cents so 4.565 is 4.57). From a
session's bars: who closed at the limit-up price (`up`), at the limit-down price (`down`), who
touched the limit-up price and closed below it (`broken`, 炸板), the market's breadth, and the
consecutive-limit ladder (连板: limit-up closes in a row over the code's own sessions, so a
suspension neither breaks nor extends a run). A code without a limit that day (a new listing's
first days, where the board says so) or without a trade (suspended: no bar, or no volume) is in
no pool.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Mapping
from datetime import date, timedelta

import numpy as np
import pandas as pd

from pitlake import symbols as sym
from pitlake.errors import InvalidArgumentsError

UP, DOWN, BROKEN = "up", "down", "broken"
POOLS: tuple[str, ...] = (UP, DOWN, BROKEN)
ST_NAME = re.compile(r"^[S*]*ST")
HALF_TICK = 0.005  # 元: a price within half a tick of a limit price is at it
_NAT = np.datetime64("NaT", "s")


# ---------------------------------------------------------------- ratios


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
    per_code = np.vstack([_LIMITS.lookup(uniques), np.full((1, 3), np.nan)])
    if isinstance(st_symbols, Mapping):  # (code, day) pairs, matched as one int64 key each
        st_set: set[str] = set()
        index = {u: i for i, u in enumerate(uniques)}
        pairs = [(index[u], d) for u, days in st_symbols.items() if u in index for d in days]
        is_st = np.zeros(n, dtype=bool)
        if pairs:
            st_code = np.array([c for c, _ in pairs], dtype=np.int64)
            st_day = np.array([d for _, d in pairs], dtype="datetime64[D]").astype(np.int64)
            row_day = day.astype("datetime64[D]").astype(np.int64)
            is_st = np.isin(
                codes.astype(np.int64) << 32 | (row_day & 0xFFFFFFFF), st_code << 32 | st_day
            )
    else:
        st_set = set(st_symbols)
        is_st = np.append(uniques.isin(st_set), False)[codes]
    if "name" in frame.columns:
        names = frame["name"].astype("string")
        is_st |= names.isin(st_set).fillna(False).to_numpy(dtype=bool)
        is_st |= names.str.contains(ST_NAME).fillna(False).to_numpy(dtype=bool)
    limit = per_code[:, 0][codes]
    if is_st.any():  # the ST ratio only where it applies: most rows of a history are not ST
        rows = np.flatnonzero(is_st)
        before_change = day[rows] < np.datetime64(sym.ST_LIMIT_ENDS, "s")
        st_code = codes[rows]
        limit[rows] = np.where(before_change, per_code[st_code, 1], per_code[st_code, 2])
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


def st_names(names: Mapping[str, str | None]) -> frozenset[str]:
    """Codes whose name marks them ST (ST, *ST, SST …): the gate's rule until the security
    master gives each session's ST status."""
    return frozenset(s for s, n in names.items() if isinstance(n, str) and ST_NAME.match(n))


# ---------------------------------------------------------------- prices and pools


def limit_prices(pre_close: np.ndarray, ratio: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) limit prices: pre_close × (1 ± ratio) rounded half up to 0.01 (NaN where
    either is missing)."""
    with np.errstate(invalid="ignore"):
        cents = np.round(np.asarray(pre_close, dtype="float64") * 100)
        bp = np.round(np.asarray(ratio, dtype="float64") * 10_000)
        up = np.floor((cents * (10_000 + bp) + 5_000) / 10_000) / 100
        down = np.floor((cents * (10_000 - bp) + 5_000) / 10_000) / 100
    return up, down


def _numbers(frame: pd.DataFrame, col: str) -> np.ndarray:
    if col not in frame.columns:
        return np.full(len(frame), np.nan)
    values = frame[col]
    if values.dtype == np.float64:
        return values.to_numpy()  # no copy: the common case, a float column
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype="float64", na_value=np.nan)


def _days(col: pd.Series) -> np.ndarray:
    """Each row's day as datetime64[D] (an instant or a date at midnight is its day)."""
    values = col.to_numpy() if col.dtype.kind == "M" else pd.to_datetime(col).to_numpy()
    return values.astype("datetime64[D]")


def _codes(symbols: pd.Series) -> np.ndarray:
    """Integer codes of the symbols (a categorical's own codes: no hashing of 24M strings)."""
    if isinstance(symbols.dtype, pd.CategoricalDtype):
        return np.asarray(symbols.cat.codes)
    return pd.factorize(symbols)[0]


def _symbol_date_order(codes: np.ndarray, day: np.ndarray) -> np.ndarray | None:
    """The permutation that sorts rows by symbol then date; None when they already are."""
    if len(codes) < 2:
        return None
    same = codes[1:] == codes[:-1]
    if np.all((codes[1:] > codes[:-1]) | (same & (day[1:] > day[:-1]))):
        return None
    return np.lexsort((day, codes))


def _previous_close(close: np.ndarray, codes: np.ndarray, day: np.ndarray) -> np.ndarray:
    """Per row: the code's close on its previous row in `bars` (NaN on its first)."""
    order = _symbol_date_order(codes, day)
    idx = np.arange(len(close)) if order is None else order
    c = codes[idx]
    prev = np.r_[np.nan, close[idx][:-1]]
    prev[np.r_[True, c[1:] != c[:-1]]] = np.nan
    out = np.empty_like(prev)
    out[idx] = prev
    return out


def classify(
    bars: pd.DataFrame,
    st_symbols: Collection[str] | Mapping[str, Collection[date]] = frozenset(),
    new_listings: Collection[str] | Mapping[str, date] = frozenset(),
    authority: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Each bar with its `up_limit`, `down_limit` and `pool` (a categorical of POOLS; NaN:
    in no pool), in the bars' own order. `authority` (symbol, trade_date, up_limit,
    down_limit: the vendor's published limits) wins where it has a price; elsewhere the
    rule's. `pre_close` missing → the code's previous close in `bars`."""
    out = bars.reset_index(drop=True)
    if out.empty:
        return out.assign(up_limit=np.nan, down_limit=np.nan, pool=pd.Categorical([], POOLS))
    day = _days(out["trade_date"])
    close = _numbers(out, "close")
    pre = _numbers(out, "pre_close")
    missing = np.isnan(pre) | (pre <= 0)
    if missing.any():
        pre = np.where(missing, _previous_close(close, _codes(out["symbol"]), day), pre)
    ratio = limit_ratios(out, day, st_symbols, new_listings)
    up, down = limit_prices(pre, ratio)
    if authority is not None and not authority.empty:
        key = ["symbol", "trade_date"]
        given = out[key].merge(authority[[*key, "up_limit", "down_limit"]], on=key, how="left")
        up = np.where(given["up_limit"].notna(), given["up_limit"].to_numpy(float), up)
        down = np.where(given["down_limit"].notna(), given["down_limit"].to_numpy(float), down)
    high, volume = _numbers(out, "high"), _numbers(out, "volume")
    traded = ~np.isnan(close) & ~(volume <= 0)
    with np.errstate(invalid="ignore"):
        # a price past a limit proves no limit applied that day (a new listing's first days)
        limitless = (close > up + HALF_TICK) | (close < down - HALF_TICK) | (high > up + HALF_TICK)
        traded &= ~limitless
        at_up = traded & (np.abs(close - up) < HALF_TICK)
        at_down = traded & (np.abs(close - down) < HALF_TICK) & ~at_up
        touched = traded & (high > up - HALF_TICK) & ~at_up
    which = np.full(len(out), -1, dtype=np.int8)
    which[touched] = 2
    which[at_down] = 1
    which[at_up] = 0
    pool = pd.Categorical.from_codes(which, categories=list(POOLS))
    return out.assign(up_limit=up, down_limit=down, pool=pool)


def _runs(which: np.ndarray, new_code: np.ndarray) -> np.ndarray:
    """Per row: how many rows in a row, ending there, are in the same pool of the same
    code (0 for a row in no pool); one pass for every pool at once."""
    n = len(which)
    index = np.arange(n, dtype=np.int32 if n < 2**31 else np.int64)
    start = new_code | np.r_[True, which[1:] != which[:-1]]
    first = np.maximum.accumulate(np.where(start, index, 0))
    return np.where(which >= 0, index - first + 1, 0)


def ladder(classified: pd.DataFrame) -> pd.Series:
    """Per row of `classify`'s frame (any order): limit-up closes in a row ending there
    (up), limit-down closes in a row (down), the run a broken board ended (broken), 0
    elsewhere; rows in a row are the code's own rows in date order."""
    if classified.empty:
        return pd.Series([], dtype="int64")
    codes = _codes(classified["symbol"])
    order = _symbol_date_order(codes, _days(classified["trade_date"]))
    pool = classified["pool"]
    if isinstance(pool.dtype, pd.CategoricalDtype) and list(pool.cat.categories) == list(POOLS):
        which = np.asarray(pool.cat.codes)
    else:
        which = np.asarray(pd.Categorical(pool, categories=list(POOLS)).codes)
    if order is not None:
        codes, which = codes[order], which[order]
    new_code = np.r_[True, codes[1:] != codes[:-1]]
    runs = _runs(which, new_code)
    broken = which == 2  # a broken board: the up run it ended (the code's previous row)
    ended = np.r_[0, np.where(which[:-1] == 0, runs[:-1], 0)]
    runs = np.where(broken, np.where(new_code, 0, ended), runs)
    if order is not None:
        back = np.empty_like(runs)
        back[order] = runs
        runs = back
    return pd.Series(runs.astype("int64"), index=classified.index)


def breadth(bars: pd.DataFrame) -> dict[str, float | int]:
    """Advancers, decliners, unchanged (close against pre_close, suspended codes left out)
    and the total turnover in 元."""
    close, pre = _numbers(bars, "close"), _numbers(bars, "pre_close")
    volume, amount = _numbers(bars, "volume"), _numbers(bars, "amount")
    traded = ~np.isnan(close) & ~(volume <= 0) & ~np.isnan(pre)
    with np.errstate(invalid="ignore"):
        diff = np.where(traded, np.round((close - pre) * 100), np.nan)
    return {
        "advancers": int(np.sum(diff > 0)),
        "decliners": int(np.sum(diff < 0)),
        "unchanged": int(np.sum(diff == 0)),
        "traded": int(np.sum(traded)),
        "turnover": float(np.nansum(np.where(traded, amount, np.nan))),
    }
