"""The exchanges' daily price-limit rules as they were on each day: the regime table, once.

One question, `regimes` (vectorised) and `limit_on` (one code, one session): what limit applied
to this code on this session, from its board, the session's date, its listing age in sessions
(from its first trading day in the security master), its ST state that session and, on an
approval-regime first day, its issue price. The answer is a `LIMITED` pair of ratios (on the
previous-close reference, or on the issue price), `NO_LIMIT` (a new listing's no-limit window)
or `UNKNOWN` (a rule that needs a fact the lake does not hold, or a date before the board's
rules are encoded): never guessed. docs/design.md §"Price-limit regimes" cites each row.

A limit price is round-half-up(base × (1 ± ratio), 2), in integer cents and basis points, so
the exact 元 value of the exchange's 四舍五入 (2.03 × 1.1 = 2.233 → 2.23; 4.565 → 4.57).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from enum import IntEnum

import numpy as np

from pitlake.calendar import XSHG
from pitlake.errors import CalendarRangeError, InvalidArgumentsError
from pitlake.symbols import PRICE_LIMIT, ST_LIMIT_ENDS, ST_PRICE_LIMIT, Board, parse

# ---------------------------------------------------------------- the dated facts (§ regimes)

ORDINARY_SINCE = date(1996, 12, 16)  # SSE/SZSE ±10 % on every stock
ST_SINCE = date(1998, 4, 22)  # special treatment (ST) begins: ±5 %
FIRST_DAY_BOUND_SINCE = date(2014, 1, 1)  # IPO first day bounded by the issue price
CHINEXT_REFORM = date(2020, 8, 24)  # ChiNext registration regime: ±20 %, 5 free sessions
MAIN_REGISTRATION = date(2023, 4, 10)  # main board registration regime: 5 free sessions
STAR_OPENS = date(2019, 7, 22)  # STAR Market: ±20 %, 5 free sessions
BSE_OPENS = date(2021, 11, 15)  # Beijing Stock Exchange: ±30 %, first day free
FREE_SESSIONS = 5  # the registration boards' no-limit window (sessions 1..5)
FIRST_DAY_UP, FIRST_DAY_DOWN = 0.44, 0.36  # approval regime's first day, on the issue price
MAIN_RATIO, ST_RATIO = PRICE_LIMIT[Board.MAIN], ST_PRICE_LIMIT
GROWTH_RATIO, BSE_RATIO = PRICE_LIMIT[Board.STAR], PRICE_LIMIT[Board.BSE]
# Sessions before a window whose first trading days still matter (a listing's free window)
LISTING_LOOKBACK = FREE_SESSIONS


class State(IntEnum):
    LIMITED = 0  # up/down ratios apply (base: `on_issue` ? issue price : pre_close)
    NO_LIMIT = 1  # a new listing's no-limit session: no check, in no pool
    UNKNOWN = 2  # the rule needs a fact the lake lacks, or predates the table: never guessed


STATE_NAMES = {State.LIMITED: "limited", State.NO_LIMIT: "none", State.UNKNOWN: "unknown"}
_BOARD_CODE = {Board.MAIN: 0, Board.B: 0, Board.CHINEXT: 1, Board.STAR: 2, Board.BSE: 3}
_D = "datetime64[D]"


def _d(day: date) -> np.datetime64:
    return np.datetime64(day, "D")


@dataclass(frozen=True)
class Regimes:
    """Per row: the state, the up and down ratios (NaN unless LIMITED), and whether the base
    is the issue price (an approval-regime first day) rather than the previous close."""

    state: np.ndarray  # int8 of State
    up: np.ndarray
    down: np.ndarray
    on_issue: np.ndarray  # bool


def board_codes(codes: object) -> np.ndarray:
    """Each code's board as a small int (MAIN/B 0, ChiNext 1, STAR 2, BSE 3; -1 unparseable)."""
    out = []
    for c in codes:  # type: ignore[attr-defined]
        try:
            out.append(_BOARD_CODE[parse(c).board])
        except InvalidArgumentsError:
            out.append(-1)
    return np.array(out, dtype=np.int8)


def listing_ages(day: np.ndarray, first_day: np.ndarray) -> np.ndarray:
    """Sessions from the first trading day to `day`, both counted (1 on the first day; 0
    where the first day is unknown or after `day`: a seasoned code)."""
    day, first = day.astype(_D), first_day.astype(_D)
    age = np.zeros(len(day), dtype=np.int64)
    known = ~np.isnat(first) & ~np.isnat(day) & (first <= day)
    if not known.any():
        return age
    lo, hi = first[known].min().astype(object), day[known].max().astype(object)
    try:
        sessions = np.array(XSHG.sessions_between(lo, min(hi, XSHG.last)), dtype=_D)
    except CalendarRangeError:
        return age
    a = np.searchsorted(sessions, first[known], "left")
    b = np.searchsorted(sessions, day[known], "right")
    age[known] = np.maximum(b - a, 1)
    return age


def regimes(
    board: np.ndarray, day: np.ndarray, first_day: np.ndarray, is_st: np.ndarray
) -> Regimes:
    """The regime table applied to every row at once (board from `board_codes`, the
    session, the code's first trading day or NaT for a seasoned code, its ST state)."""
    n = len(board)
    day = day.astype(_D)
    first = first_day.astype(_D)
    age = listing_ages(day, first)
    up = np.full(n, np.nan)
    main, chinext, star, bse = (board == k for k in range(4))
    # ChiNext followed the main board's rules until its reform
    main_rules = main | (chinext & (day < _d(CHINEXT_REFORM)))
    st_main = main_rules & is_st & (day >= _d(ST_SINCE)) & (day < _d(ST_LIMIT_ENDS))
    up = np.where(main_rules & (day >= _d(ORDINARY_SINCE)), MAIN_RATIO, up)
    up = np.where(st_main, ST_RATIO, up)
    up = np.where(chinext & (day >= _d(CHINEXT_REFORM)), GROWTH_RATIO, up)
    up = np.where(star & (day >= _d(STAR_OPENS)), GROWTH_RATIO, up)
    up = np.where(bse & (day >= _d(BSE_OPENS)), BSE_RATIO, up)
    state = np.where(np.isnan(up), State.UNKNOWN, State.LIMITED).astype(np.int8)
    down = up.copy()
    on_issue = np.zeros(n, dtype=bool)
    # new listings: the registration boards' free sessions
    free = (
        (star & (first >= _d(STAR_OPENS)) & (age >= 1) & (age <= FREE_SESSIONS))
        | (chinext & (first >= _d(CHINEXT_REFORM)) & (age >= 1) & (age <= FREE_SESSIONS))
        | (main & (first >= _d(MAIN_REGISTRATION)) & (age >= 1) & (age <= FREE_SESSIONS))
        | (bse & (first >= _d(BSE_OPENS)) & (age == 1))
    )
    # the approval regime's first day (main board; ChiNext before its reform)
    approval_first = (age == 1) & ~free & (main | (chinext & (first < _d(CHINEXT_REFORM))))
    unbounded = approval_first & (first < _d(FIRST_DAY_BOUND_SINCE))
    bounded = approval_first & ~unbounded
    state = np.where(free | unbounded, State.NO_LIMIT, state).astype(np.int8)
    up = np.where(free | unbounded, np.nan, up)
    down = np.where(free | unbounded, np.nan, down)
    up = np.where(bounded, FIRST_DAY_UP, up)
    down = np.where(bounded, FIRST_DAY_DOWN, down)
    on_issue |= bounded
    return Regimes(state=state, up=up, down=down, on_issue=on_issue)


# ---------------------------------------------------------------- prices


def round_price(base: np.ndarray, ratio: np.ndarray, sign: int) -> np.ndarray:
    """round-half-up(base × (1 + sign × ratio), 2) in integer cents × basis points: exact
    for every price in cents and ratio in basis points (NaN where either is missing)."""
    with np.errstate(invalid="ignore"):
        cents = np.round(np.asarray(base, dtype="float64") * 100)
        bp = np.round(np.asarray(ratio, dtype="float64") * 10_000)
        return np.floor((cents * (10_000 + sign * bp) + 5_000) / 10_000) / 100


def exact_price(base: float, ratio: float, sign: int) -> Decimal:
    """The same rounding in Decimal (the reference the integer method is tested against)."""
    b = Decimal(str(round(base, 2)))
    r = Decimal(str(round(ratio, 4)))
    return (b * (1 + sign * r)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class Limit:
    """The limit in force on one code's session (see `limit_on`)."""

    state: State
    up_ratio: float | None
    down_ratio: float | None
    on_issue: bool  # the base is the issue price (an approval-regime first day)

    def prices(self, pre_close: float, issue_price: float | None = None) -> tuple | None:
        """(up, down) limit prices, or None when no limit applies or a fact is missing."""
        base = issue_price if self.on_issue else pre_close
        if self.state is not State.LIMITED or base is None or not base > 0:
            return None
        assert self.up_ratio is not None and self.down_ratio is not None
        up = round_price(np.array([base]), np.array([self.up_ratio]), 1)[0]
        down = round_price(np.array([base]), np.array([self.down_ratio]), -1)[0]
        return float(up), float(down)


def limit_on(code: str, day: date, *, first_day: date | None = None, is_st: bool = False) -> Limit:
    """The limit that applied to `code` on `day` (first_day: its first trading day, None for a
    code listed long before). The same table as `regimes`, for one row."""
    r = regimes(
        board_codes([code]),
        np.array([day], dtype=_D),
        np.array([first_day if first_day else "NaT"], dtype=_D),
        np.array([is_st]),
    )
    state = State(int(r.state[0]))
    if state is not State.LIMITED:
        return Limit(state, None, None, False)
    return Limit(state, float(r.up[0]), float(r.down[0]), bool(r.on_issue[0]))


def with_lookback(days: list[date]) -> list[date]:
    """`days` and the LISTING_LOOKBACK sessions before the first: a code listed there is still
    inside its no-limit window (or its listing age counts) on the window's days."""
    if not days:
        return days
    out = sorted(set(days))
    first = out[0]
    extra = []
    try:
        for _ in range(LISTING_LOOKBACK):
            first = XSHG.previous_session(first)
            extra.append(first)
    except CalendarRangeError:
        pass
    return sorted(extra) + out
