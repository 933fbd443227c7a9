"""Price limits by the exchange rule, once, for the gate and the derived market reads.

The limit in force on each row comes from the dated regime table (`pitlake.limit_rules`: the
board, the session, the code's listing age and ST state that session); a limit price is the
reference (the previous close, ex-right on an ex-date; the issue price on an approval-regime
first day) × (1 ± ratio) rounded half up to 0.01 (the exchanges' 四舍五入, in integer cents so
4.565 is 4.57 and 2.03 → 2.23 at +9.85 %). From a session's bars: who closed at the limit-up
price (`up`), at the limit-down price (`down`), who touched the limit-up price and closed below
it (`broken`, 炸板), the market's breadth, and the consecutive-limit ladder (连板: limit-up closes
in a row over the code's own sessions, so a suspension neither breaks nor extends a run). A
code on a no-limit session (a new listing's free window), with an unknown limit, or without a
trade (suspended: no bar, or no volume) is in no pool.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Mapping
from datetime import date
from typing import TYPE_CHECKING

import numpy as np

from pitlake import limit_rules as rules

if TYPE_CHECKING:
    import pandas as pd

UP, DOWN, BROKEN = "up", "down", "broken"
POOLS: tuple[str, ...] = (UP, DOWN, BROKEN)
ST_NAME = re.compile(r"^[S*]*ST")
HALF_TICK = 0.005  # 元: a price within half a tick of a limit price is at it
_NAT = np.datetime64("NaT", "D")


# ---------------------------------------------------------------- the rule per row


class _BoardTable:
    """Each code's board (limit_rules.board_codes), parsed once per code per process
    (sessions repeat ~5,500 codes) and looked up for a whole batch with one reindex."""

    MAX_CODES = 100_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._table: pd.Series | None = None  # built by the first look-up (pandas then)

    def lookup(self, codes: pd.Index) -> np.ndarray:
        import pandas as pd

        codes = pd.Index([c if isinstance(c, str) else None for c in codes], dtype=object)
        with self._lock:
            if self._table is None:
                self._table = pd.Series([], dtype="int8")
            missing = codes.dropna().difference(self._table.index, sort=False)
            if len(missing):
                rows = pd.Series(rules.board_codes(missing), index=missing, dtype="int8")
                base = self._table if len(self._table) < self.MAX_CODES else self._table.iloc[:0]
                self._table = pd.concat([base, rows]) if len(base) else rows
            return self._table.reindex(codes).fillna(-1).to_numpy(dtype="int8")


_BOARDS = _BoardTable()


def _st_rows(
    frame: pd.DataFrame,
    day: np.ndarray,
    codes: np.ndarray,
    uniques: pd.Index,
    st_symbols: Collection[str] | Mapping[str, Collection[date]],
) -> np.ndarray:
    """Per row: ST that session (the master's days, or a set of codes or names)."""
    n = len(frame)
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
    return is_st


def row_regimes(
    frame: pd.DataFrame,
    day: np.ndarray,
    st_symbols: Collection[str] | Mapping[str, Collection[date]],
    new_listings: Collection[str] | Mapping[str, date],
    *,
    ages_known: bool = True,
) -> rules.Regimes:
    """The limit in force per row (pitlake.limit_rules.regimes): the board from the code, the
    row's session, its ST state that session and its listing age. `st_symbols` as a mapping
    (symbol → the days it was ST) judges each row by its own day; `new_listings` as a mapping
    is symbol → first trading day (the age counts from it), as a set the codes whose first
    trading day is the row's own. Without a security master (`ages_known` False) a code's
    age is unknown, so its limit is UNKNOWN, unless the frame itself holds enough of its
    earlier sessions to prove it past every new-listing window (never guessed seasoned)."""
    import pandas as pd

    n = len(frame)
    if "symbol" not in frame.columns or n == 0:
        nan = np.full(n, np.nan)
        return rules.Regimes(np.full(n, rules.State.UNKNOWN, np.int8), nan, nan.copy(), nan > 0)
    codes, uniques = pd.factorize(frame["symbol"], use_na_sentinel=True)
    uniques = pd.Index(uniques, dtype=object)
    board = np.append(_BOARDS.lookup(uniques), np.int8(-1))[codes]
    is_st = _st_rows(frame, day, codes, uniques, st_symbols)
    first = np.full(n, np.datetime64("NaT"), dtype="datetime64[D]")
    if new_listings:
        if isinstance(new_listings, Mapping):
            per_code = np.array(
                [
                    np.datetime64(new_listings[u], "D") if u in new_listings else _NAT
                    for u in uniques
                ]
                + [_NAT],
                dtype="datetime64[D]",
            )
            first = per_code[codes]
        else:
            listed = np.append(uniques.isin(set(new_listings)), False)[codes]
            first = np.where(listed, day.astype("datetime64[D]"), first)
    out = rules.regimes(board, day, first, is_st)
    if not ages_known:
        out = _unknown_unless_seasoned(out, codes, day)
    return out


def _unknown_unless_seasoned(r: rules.Regimes, codes: np.ndarray, day: np.ndarray) -> rules.Regimes:
    """UNKNOWN for a row whose code has fewer than FREE_SESSIONS earlier sessions in the
    frame: it could be inside a new listing's no-limit window."""
    order = np.lexsort((day.astype("datetime64[D]"), codes))
    earlier = np.empty(len(codes), dtype=np.int64)
    sorted_codes = codes[order]
    starts = np.r_[0, np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1]
    run_start = np.repeat(starts, np.diff(np.r_[starts, len(codes)]))
    earlier[order] = np.arange(len(codes)) - run_start
    return unknown_where(r, earlier < rules.FREE_SESSIONS)


def limit_ratios(
    frame: pd.DataFrame,
    day: np.ndarray,
    st_symbols: Collection[str] | Mapping[str, Collection[date]],
    new_listings: Collection[str] | Mapping[str, date],
) -> np.ndarray:
    """The ratio on the previous close per row; NaN where no limit applies, the limit is
    unknown, or its base is the issue price (see `row_regimes`)."""
    r = row_regimes(frame, day, st_symbols, new_listings)
    return np.where(r.on_issue, np.nan, r.up)


def st_names(names: Mapping[str, str | None]) -> frozenset[str]:
    """Codes whose name marks them ST (ST, *ST, SST …): the gate's rule until the security
    master gives each session's ST status."""
    return frozenset(s for s, n in names.items() if isinstance(n, str) and ST_NAME.match(n))


# ---------------------------------------------------------------- prices and pools


def limit_prices(pre_close: np.ndarray, ratio: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) limit prices: pre_close × (1 ± ratio) rounded half up to 0.01 (NaN where
    either is missing)."""
    return rules.round_price(pre_close, ratio, 1), rules.round_price(pre_close, ratio, -1)


def _numbers(frame: pd.DataFrame, col: str) -> np.ndarray:
    import pandas as pd

    if col not in frame.columns:
        return np.full(len(frame), np.nan)
    values = frame[col]
    if values.dtype == np.float64:
        return values.to_numpy()  # no copy: the common case, a float column
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype="float64", na_value=np.nan)


def _days(col: pd.Series) -> np.ndarray:
    """Each row's day as datetime64[D] (an instant or a date at midnight is its day)."""
    import pandas as pd

    values = col.to_numpy() if col.dtype.kind == "M" else pd.to_datetime(col).to_numpy()
    return values.astype("datetime64[D]")


def _codes(symbols: pd.Series) -> np.ndarray:
    """Integer codes of the symbols (a categorical's own codes: no hashing of 24M strings)."""
    import pandas as pd

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


def issue_price_rows(
    frame: pd.DataFrame, regime: rules.Regimes, issue_prices: Mapping[str, float] | None
) -> np.ndarray | None:
    """Per row: its code's issue price on an approval-regime first day (NaN elsewhere and
    where none is given); None when no row needs one."""
    import pandas as pd

    if not regime.on_issue.any():
        return None
    if not issue_prices:
        return np.full(len(frame), np.nan)
    found = frame["symbol"].astype(object).map(issue_prices)
    price = pd.to_numeric(found, errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    return np.where(regime.on_issue, price, np.nan)


def with_issue_prices(regime: rules.Regimes, issue_price: np.ndarray | None) -> rules.Regimes:
    """The regimes with an approval-regime first day whose issue price is unknown (missing or
    not positive) made UNKNOWN: its limit is never guessed from the previous close."""
    if not regime.on_issue.any():
        return regime
    issue = np.full(len(regime.state), np.nan) if issue_price is None else issue_price
    with np.errstate(invalid="ignore"):
        missing = regime.on_issue & ~(issue > 0)
    return unknown_where(regime, missing)


def unknown_where(regime: rules.Regimes, mask: np.ndarray) -> rules.Regimes:
    """The regimes with the rows of `mask` made UNKNOWN: no state, no limit prices."""
    if not mask.any():
        return regime
    nan = np.where(mask, np.nan, 0.0)
    return rules.Regimes(
        np.where(mask, np.int8(rules.State.UNKNOWN), regime.state).astype(np.int8),
        regime.up + nan,
        regime.down + nan,
        regime.on_issue & ~mask,
    )


def row_limit_prices(
    pre_close: np.ndarray, regime: rules.Regimes, issue_price: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) limit prices per row by its regime: on the previous close, or on the issue
    price on an approval-regime first day (NaN there without one: the limit is unknown)."""
    base = np.asarray(pre_close, dtype="float64")
    if regime.on_issue.any():
        issue = np.full(len(base), np.nan) if issue_price is None else issue_price
        base = np.where(regime.on_issue, issue, base)
    return rules.round_price(base, regime.up, 1), rules.round_price(base, regime.down, -1)


def _per_row(out: pd.DataFrame, table: pd.DataFrame, col: str) -> np.ndarray:
    """`table`'s `col` for each (symbol, trade_date) of `out` (NaN where it has none)."""
    import pandas as pd

    key = ["symbol", "trade_date"]
    right = table[[*key, col]].drop_duplicates(key, keep="last")
    right = right.assign(
        symbol=right["symbol"].astype(object),
        trade_date=pd.to_datetime(right["trade_date"]).to_numpy().astype("datetime64[s]"),
    )
    left = pd.DataFrame(
        {
            "symbol": out["symbol"].astype(object).to_numpy(),
            "trade_date": _days(out["trade_date"]).astype("datetime64[s]"),
        }
    )
    return pd.to_numeric(left.merge(right, on=key, how="left")[col], errors="coerce").to_numpy(
        dtype="float64", na_value=np.nan
    )


def _reference(
    out: pd.DataFrame, close: np.ndarray, day: np.ndarray, factors: pd.DataFrame | None
) -> np.ndarray:
    """The exchange's previous-close reference per row: the vendor's pre_close (Tushare's is
    the ex-right reference already); without one, the code's previous close in the bars,
    times previous factor / today's factor where `factors` (symbol, trade_date, adj_factor:
    those known at 09:15 of the day) has both, so an ex-date is not a fall."""
    pre = _numbers(out, "pre_close")
    missing = np.isnan(pre) | (pre <= 0)
    if not missing.any():
        return pre
    codes = _codes(out["symbol"])
    prev = _previous_close(close, codes, day)
    if factors is not None and not factors.empty:
        factor = _per_row(out, factors, "adj_factor")
        prev_factor = _previous_close(factor, codes, day)
        with np.errstate(invalid="ignore", divide="ignore"):
            adjusted = np.round(prev * prev_factor / factor, 2)
        prev = np.where(np.isfinite(adjusted) & (adjusted > 0), adjusted, prev)
    return np.where(missing, prev, pre)


def classify(
    bars: pd.DataFrame,
    st_symbols: Collection[str] | Mapping[str, Collection[date]] = frozenset(),
    new_listings: Collection[str] | Mapping[str, date] = frozenset(),
    authority: pd.DataFrame | None = None,
    *,
    issue_prices: Mapping[str, float] | None = None,
    factors: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Each bar with its `up_limit`, `down_limit`, `pool` (a categorical of POOLS; NaN: in
    no pool) and `limit_state` (limited / none / unknown), in the bars' own order, plus the
    rule's prices (`rule_up_limit`, `rule_down_limit`) and, with `authority` (symbol,
    trade_date, up_limit, down_limit: the vendor's published limits), the vendor's
    (`vendor_up_limit`, `vendor_down_limit`). The published price is the one used where the
    rule gives a limit or cannot (unknown); on a no-limit session neither is, and the code is
    in no pool. `disagreements` lists where the two differ."""
    import pandas as pd

    out = bars.reset_index(drop=True)
    if out.empty:
        return out.assign(
            up_limit=np.nan,
            down_limit=np.nan,
            pool=pd.Categorical([], POOLS),
            limit_state=pd.Categorical([], list(rules.STATE_NAMES.values())),
            rule_up_limit=np.nan,
            rule_down_limit=np.nan,
        )
    day = _days(out["trade_date"])
    close = _numbers(out, "close")
    pre = _reference(out, close, day, factors)
    regime = row_regimes(out, day, st_symbols, new_listings)
    issue = issue_price_rows(out, regime, issue_prices)
    regime = with_issue_prices(regime, issue)
    rule_up, rule_down = row_limit_prices(pre, regime, issue)
    up, down = rule_up, rule_down
    extra: dict[str, object] = {}
    if authority is not None and not authority.empty:
        given_up = _per_row(out, authority, "up_limit")
        given_down = _per_row(out, authority, "down_limit")
        usable = regime.state != rules.State.NO_LIMIT
        up = np.where(usable & ~np.isnan(given_up), given_up, up)
        down = np.where(usable & ~np.isnan(given_down), given_down, down)
        extra = {"vendor_up_limit": given_up, "vendor_down_limit": given_down}
    high, volume = _numbers(out, "high"), _numbers(out, "volume")
    traded = ~np.isnan(close) & ~(volume <= 0)
    with np.errstate(invalid="ignore"):
        # a price past the limit in force is impossible data (the gate quarantines it): in
        # no pool
        beyond = (close > up + HALF_TICK) | (close < down - HALF_TICK) | (high > up + HALF_TICK)
        traded &= ~beyond
        at_up = traded & (np.abs(close - up) < HALF_TICK)
        at_down = traded & (np.abs(close - down) < HALF_TICK) & ~at_up
        touched = traded & (high > up - HALF_TICK) & ~at_up
    which = np.full(len(out), -1, dtype=np.int8)
    which[touched] = 2
    which[at_down] = 1
    which[at_up] = 0
    pool = pd.Categorical.from_codes(which, categories=list(POOLS))
    state = pd.Categorical.from_codes(
        regime.state.astype(np.int8), categories=list(rules.STATE_NAMES.values())
    )
    return out.assign(
        up_limit=up,
        down_limit=down,
        pool=pool,
        limit_state=state,
        rule_up_limit=rule_up,
        rule_down_limit=rule_down,
        **extra,
    )


def disagreements(classified: pd.DataFrame) -> list[dict[str, object]]:
    """Rows of `classify(…, authority)` whose published limit prices are not the rule's:
    each with both pairs (the rule's None where it gives no limit or cannot), never one
    silently preferred."""
    import pandas as pd

    if "vendor_up_limit" not in classified.columns or classified.empty:
        return []
    v_up, v_down = classified["vendor_up_limit"], classified["vendor_down_limit"]
    r_up, r_down = classified["rule_up_limit"], classified["rule_down_limit"]
    published = v_up.notna() | v_down.notna()
    known = r_up.notna() & r_down.notna()
    differs = ((v_up - r_up).abs() >= HALF_TICK) | ((v_down - r_down).abs() >= HALF_TICK)
    no_limit = classified["limit_state"] == rules.STATE_NAMES[rules.State.NO_LIMIT]
    bad = classified[published & ((known & differs) | no_limit)]
    return [
        {
            "symbol": str(row.symbol),
            "trade_date": pd.Timestamp(row.trade_date).date().isoformat(),
            "vendor": [_price(row.vendor_up_limit), _price(row.vendor_down_limit)],
            "rule": [_price(row.rule_up_limit), _price(row.rule_down_limit)],
            "rule_state": str(row.limit_state),
        }
        for row in bad.itertuples(index=False)
    ]


def _price(value: object) -> float | None:
    import pandas as pd

    return None if value is None or pd.isna(value) else round(float(value), 2)  # type: ignore[arg-type]


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
    import pandas as pd

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
