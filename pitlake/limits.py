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

from collections.abc import Collection, Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING

import numpy as np

from pitlake import limit_rules as rules
from pitlake.limit_rows import Period, issue_price_rows, row_regimes, with_issue_prices

if TYPE_CHECKING:
    import pandas as pd

UP, DOWN, BROKEN = "up", "down", "broken"
POOLS: tuple[str, ...] = (UP, DOWN, BROKEN)
HALF_TICK = 0.005  # 元: a price within half a tick of a limit price is at it


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


def row_limit_prices(
    pre_close: np.ndarray, regime: rules.Regimes, issue_price: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) limit prices per row by its regime: on the previous close, or on the issue
    price on an approval-regime first day (NaN there without one: the limit is unknown)."""
    base = np.asarray(pre_close, dtype="float64")
    if regime.on_issue.any():
        issue = np.full(len(base), np.nan) if issue_price is None else issue_price
        base = np.where(regime.on_issue, issue, base)
    return rules.prices(base, regime)


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
    delisting: Mapping[str, Sequence[Period]] | None = None,
) -> pd.DataFrame:
    """Each bar with its `up_limit`, `down_limit`, `pool` (a categorical of POOLS; NaN: in
    no pool) and `limit_state` (limited / none / unknown), in the bars' own order, plus the
    rule's prices (`rule_up_limit`, `rule_down_limit`) and, with `authority` (symbol,
    trade_date, up_limit, down_limit: the vendor's published limits), the vendor's
    (`vendor_up_limit`, `vendor_down_limit`). The published price is the one used where the
    rule gives a limit or cannot (unknown); on a no-limit session neither is, and the code is
    in no pool. `delisting` (symbol → its delisting-arrangement periods) judges a session
    inside one by that period's rule. `disagreements` lists where the two differ."""
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
    pre = _reference(out, _numbers(out, "close"), day, factors)
    regime = row_regimes(out, day, st_symbols, new_listings, delisting=delisting)
    issue = issue_price_rows(out, regime, issue_prices)
    given = None
    if authority is not None and not authority.empty:
        given = (_per_row(out, authority, "up_limit"), _per_row(out, authority, "down_limit"))
    return classified(out, regime, pre, issue, given)


def classified(
    out: pd.DataFrame,
    regime: rules.Regimes,
    pre: np.ndarray,
    issue: np.ndarray | None,
    given: tuple[np.ndarray, np.ndarray] | None,
) -> pd.DataFrame:
    """`classify`'s frame from facts gathered per row: the regimes, the previous-close
    reference, the issue prices (None: no row needs one) and the published (up, down)
    limit prices (None: none stored). The panel's limit state, whose facts are each known at
    its row's cutoff, goes through it too."""
    import pandas as pd

    regime = with_issue_prices(regime, issue)
    rule_up, rule_down = row_limit_prices(pre, regime, issue)
    up, down = rule_up, rule_down
    extra: dict[str, object] = {}
    if given is not None:
        given_up, given_down = given
        usable = regime.state != rules.State.NO_LIMIT
        up = np.where(usable & ~np.isnan(given_up), given_up, up)
        down = np.where(usable & ~np.isnan(given_down), given_down, down)
        extra = {"vendor_up_limit": given_up, "vendor_down_limit": given_down}
    close, high, volume = _numbers(out, "close"), _numbers(out, "high"), _numbers(out, "volume")
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
