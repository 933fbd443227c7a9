"""The regime of each row of a frame, for `pitlake.limits` and the gate: the facts the dated
table (`pitlake.limit_rules`) needs per row — the code's board, its ST state that session
(the master's ST days, or codes and names), its listing age (its first trading day), the
delisting-arrangement period the session is in — gathered for a whole frame at once, and
the regimes made `unknown` where a fact is missing (an issue price, a listing age, a period
the names cannot place). Never guessed.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING

import numpy as np

from pitlake import limit_rules as rules

if TYPE_CHECKING:
    import pandas as pd

ST_NAME = re.compile(r"^[S*]*ST")
_NAT = np.datetime64("NaT", "D")
# a delisting-arrangement period: (first day, last day or None[, known])
Period = rules.Period | tuple[date, date | None]


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
    delisting: Mapping[str, Sequence[Period]] | None = None,
) -> rules.Regimes:
    """The limit in force per row (pitlake.limit_rules.regimes): the board from the code, the
    row's session, its ST state that session and its listing age. `st_symbols` as a mapping
    (symbol → the days it was ST) judges each row by its own day; `new_listings` as a mapping
    is symbol → first trading day (the age counts from it), as a set the codes whose first
    trading day is the row's own. Without a security master (`ages_known` False) a code's
    age is unknown, so its limit is UNKNOWN, unless the frame itself holds enough of its
    earlier sessions to prove it past every new-listing window (never guessed seasoned).
    `delisting` (symbol → its delisting-arrangement periods, (first day, last day or None))
    puts a row inside one under that period's rule."""
    import pandas as pd

    n = len(frame)
    if "symbol" not in frame.columns or n == 0:
        nan = np.full(n, np.nan)
        return rules.Regimes(np.full(n, rules.State.UNKNOWN, np.int8), nan, nan.copy(), nan > 0)
    codes, uniques = pd.factorize(frame["symbol"], use_na_sentinel=True)
    uniques = pd.Index(uniques, dtype=object)
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
    periods, unsure = _delisting_rows(day, codes, uniques, delisting) if delisting else (None, None)
    out = fact_regimes(codes, uniques, day, first, is_st, periods, unsure)
    if not ages_known:
        out = _unknown_unless_seasoned(out, codes, day)
    return out


def fact_regimes(
    codes: np.ndarray,
    uniques: pd.Index,
    day: np.ndarray,
    first: np.ndarray,
    is_st: np.ndarray,
    delisting: np.ndarray | None = None,
    unsure: np.ndarray | None = None,
) -> rules.Regimes:
    """The regime table (`limit_rules.regimes`) on facts already gathered per row: the code
    (`codes` into `uniques`, -1 none), the session, the first trading day (NaT: seasoned),
    ST that session, the first day of the delisting period it is in (NaT: none) and whether
    it lies where a period may be that the names cannot place (`unsure`: UNKNOWN). What
    `row_regimes` does after gathering, and the panel's facts as known at each row's cutoff
    (`read/panel/limit_facts.py`) go through it too."""
    board = np.append(_BOARDS.lookup(uniques), np.int8(-1))[codes]
    out = rules.regimes(board, day, first, is_st, delisting)
    if unsure is not None:
        out = unknown_where(out, unsure)
    return out


def _delisting_rows(
    day: np.ndarray,
    codes: np.ndarray,
    uniques: pd.Index,
    delisting: Mapping[str, Sequence[Period]],
) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the first day of the known delisting period its session is in (NaT outside
    one), and whether it lies in a span that may hold one (`known` False: unknown). One pass
    per period a code has (rarely more than one), not one per code."""
    out = np.full(len(codes), _NAT, dtype="datetime64[D]")
    unsure = np.zeros(len(codes), dtype=bool)
    row_day = day.astype("datetime64[D]")
    index = {u: i for i, u in enumerate(uniques)}
    found = [(index[s], list(p)) for s, p in delisting.items() if s in index and p]
    for k in range(max((len(p) for _, p in found), default=0)):
        start = np.full(len(uniques) + 1, _NAT, dtype="datetime64[D]")
        end = start.copy()
        known = np.ones(len(uniques) + 1, dtype=bool)
        for i, periods in found:
            if k < len(periods):
                period = rules.Period(*periods[k])
                start[i] = np.datetime64(period.start, "D")
                end[i] = np.datetime64(period.end, "D") if period.end is not None else _NAT
                known[i] = period.known
        lo_row, hi_row = start[codes], end[codes]
        inside = ~np.isnat(lo_row) & (row_day >= lo_row)
        inside &= np.isnat(hi_row) | (row_day <= hi_row)
        out = np.where(inside & known[codes], lo_row, out)
        unsure |= inside & ~known[codes]
    return out, unsure


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
        regime.min_tick,
    )
