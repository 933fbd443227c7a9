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
from typing import NamedTuple

import numpy as np

from pitlake.calendar import XSHG
from pitlake.errors import CalendarRangeError, InvalidArgumentsError
from pitlake.symbols import PRICE_LIMIT, ST_LIMIT_ENDS, ST_PRICE_LIMIT, Board, Exchange, parse

# ---------------------------------------------------------------- the dated facts (§ regimes)

ORDINARY_SINCE = date(1996, 12, 16)  # SSE/SZSE ±10 % on every stock
ST_SINCE = date(1998, 4, 22)  # special treatment (ST) begins: ±5 %
SSE_FIRST_DAY_BOUND = date(2013, 12, 13)  # SSE IPO first day: 64 %..144 % of the issue price
SZSE_FIRST_DAY_BOUND = date(2014, 6, 13)  # SZSE's (main board and ChiNext) from this day
CHINEXT_REFORM = date(2020, 8, 24)  # ChiNext registration regime: ±20 %, 5 free sessions
MAIN_REGISTRATION = date(2023, 4, 10)  # main board registration regime: 5 free sessions
STAR_OPENS = date(2019, 7, 22)  # STAR Market: ±20 %, 5 free sessions
BSE_OPENS = date(2021, 11, 15)  # Beijing Stock Exchange: ±30 %, first day free
SZSE_DELISTING_SINCE = date(2012, 12, 17)  # SZSE delisting-arrangement period (退市整理期)
SSE_DELISTING_SINCE = date(2013, 1, 1)  # SSE's (the risk-warning board's measures)
DELISTING_FIRST_DAY_FREE = date(2020, 12, 31)  # the period's first session: no limit
SZSE_MIN_TICK_SINCE = date(2011, 2, 28)  # a limit less than a tick off: pre_close ± 0.01
SSE_MIN_TICK_SINCE = date(2023, 4, 10)  # the same rule at the SSE (2023 trading rules)
# A limit can round onto its base only below this (¥0.30 at the smallest ratio, ±5 %)
FLOOR_BELOW = 0.31
FREE_SESSIONS = 5  # the registration boards' no-limit window (sessions 1..5)
FIRST_DAY_UP, FIRST_DAY_DOWN = 0.44, 0.36  # approval regime's first day, on the issue price
MAIN_RATIO, ST_RATIO = PRICE_LIMIT[Board.MAIN], ST_PRICE_LIMIT
GROWTH_RATIO, BSE_RATIO = PRICE_LIMIT[Board.STAR], PRICE_LIMIT[Board.BSE]
# Sessions before a window whose first trading days still matter (a listing's free window)
LISTING_LOOKBACK = FREE_SESSIONS


class Period(NamedTuple):
    """A delisting-arrangement period of one code: its first day, its last (None while open),
    and whether it is known; `known` False marks a span that may hold one, its days unknown."""

    start: date
    end: date | None
    known: bool = True


class State(IntEnum):
    LIMITED = 0  # up/down ratios apply (base: `on_issue` ? issue price : pre_close)
    NO_LIMIT = 1  # a new listing's no-limit session: no check, in no pool
    UNKNOWN = 2  # the rule needs a fact the lake lacks, or predates the table: never guessed


STATE_NAMES = {State.LIMITED: "limited", State.NO_LIMIT: "none", State.UNKNOWN: "unknown"}
# A code's board as a small int: the main board (and B shares) by exchange, whose rules
# differ in their dates (first-day bounds, delisting periods, the one-tick floor)
MAIN_SH, CHINEXT, STAR, BSE, MAIN_SZ = range(5)
_BOARD_CODE = {
    (Board.MAIN, Exchange.SH): MAIN_SH,
    (Board.B, Exchange.SH): MAIN_SH,
    (Board.MAIN, Exchange.SZ): MAIN_SZ,
    (Board.B, Exchange.SZ): MAIN_SZ,
    (Board.CHINEXT, Exchange.SZ): CHINEXT,
    (Board.STAR, Exchange.SH): STAR,
    (Board.BSE, Exchange.BJ): BSE,
}
_D = "datetime64[D]"


def _d(day: date) -> np.datetime64:
    return np.datetime64(day, "D")


@dataclass(frozen=True)
class Regimes:
    """Per row: the state, the up and down ratios (NaN unless LIMITED), whether the base
    is the issue price (an approval-regime first day) rather than the previous close, and
    whether a limit price less than a tick off the previous close is moved to one tick."""

    state: np.ndarray  # int8 of State
    up: np.ndarray
    down: np.ndarray
    on_issue: np.ndarray  # bool
    min_tick: np.ndarray | None = None  # bool; None: nowhere


def board_codes(codes: object) -> np.ndarray:
    """Each code's board as a small int (MAIN_SH, CHINEXT, STAR, BSE, MAIN_SZ; B shares
    with their exchange's main board; -1 unparseable)."""
    out = []
    for c in codes:  # type: ignore[attr-defined]
        try:
            p = parse(c)
            out.append(_BOARD_CODE.get((p.board, p.exchange), -1))
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
    board: np.ndarray,
    day: np.ndarray,
    first_day: np.ndarray,
    is_st: np.ndarray,
    delisting: np.ndarray | None = None,
) -> Regimes:
    """The regime table applied to every row at once (board from `board_codes`, the
    session, the code's first trading day or NaT for a seasoned code, its ST state, and
    the first day of the delisting period the row's session is in, NaT outside one)."""
    n = len(board)
    day = day.astype(_D)
    first = first_day.astype(_D)
    age = listing_ages(day, first)
    up = np.full(n, np.nan)
    sh, chinext, star, bse, sz = (board == k for k in range(5))
    main = sh | sz
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
    first_of = age == 1
    # new listings: the registration boards' free sessions
    window = (age >= 1) & (age <= FREE_SESSIONS)
    free = (
        (star & (first >= _d(STAR_OPENS)) & window)
        | (chinext & (first >= _d(CHINEXT_REFORM)) & window)
        | (main & (first >= _d(MAIN_REGISTRATION)) & window)
        | (bse & (first > _d(BSE_OPENS)) & first_of)
    )
    # the BSE's opening day: its public offerings had no limit, the NEEQ select-tier
    # companies moved over that day had ±30 %; the master does not tell them apart
    unknown = bse & (first == _d(BSE_OPENS)) & first_of
    # the approval regime's first day (main board; ChiNext before its reform): bounded on
    # the issue price from each exchange's notice, no limit before
    approval_first = first_of & ~free & (main | (chinext & (first < _d(CHINEXT_REFORM))))
    bounded = approval_first & (first >= _d(SSE_FIRST_DAY_BOUND))
    bounded &= sh | (first >= _d(SZSE_FIRST_DAY_BOUND))
    free |= approval_first & ~bounded
    if delisting is not None:
        start = delisting.astype(_D)
        state, up, down, free, unknown = _delisting(
            board, day, start, (state, up, down, free, unknown)
        )
        bounded &= np.isnat(start) | (start > day)  # a period's rule, not a first day's
    state = np.where(free, State.NO_LIMIT, state)
    state = np.where(unknown, State.UNKNOWN, state).astype(np.int8)
    gone = free | unknown
    up = np.where(gone, np.nan, np.where(bounded, FIRST_DAY_UP, up))
    down = np.where(gone, np.nan, np.where(bounded, FIRST_DAY_DOWN, down))
    on_issue |= bounded & ~gone
    min_tick = ((sz | chinext) & (day >= _d(SZSE_MIN_TICK_SINCE))) | (
        (sh | star) & (day >= _d(SSE_MIN_TICK_SINCE))
    )
    if delisting is not None:  # the SSE risk-warning board's ¥0.01 below a ¥0.05 close
        min_tick |= sh & ~np.isnat(start) & (start <= day) & (start >= _d(SSE_DELISTING_SINCE))
    return Regimes(state=state, up=up, down=down, on_issue=on_issue, min_tick=min_tick)


def _delisting(
    board: np.ndarray, day: np.ndarray, start: np.ndarray, current: tuple
) -> tuple[np.ndarray, ...]:
    """The delisting-arrangement period (退市整理期) over the table: from its first session
    on, the board's ratio whatever the ST state (ChiNext ±10 % for a period begun before
    its reform); no limit on the first session from DELISTING_FIRST_DAY_FREE (the BSE's
    always); unknown for a period before the exchange's rules provide one."""
    state, up, down, free, unknown = current
    sh, chinext, star, bse, sz = (board == k for k in range(5))
    inside = ~np.isnat(start) & (start <= day)
    if not inside.any():
        return current
    ratio = np.select(
        [sh | sz, chinext & (start < _d(CHINEXT_REFORM)), chinext | star, bse],
        [MAIN_RATIO, MAIN_RATIO, GROWTH_RATIO, BSE_RATIO],
        np.nan,
    )
    since = np.select(
        [sh, sz | chinext, star, bse],
        [_d(SSE_DELISTING_SINCE), _d(SZSE_DELISTING_SINCE), _d(STAR_OPENS), _d(BSE_OPENS)],
        np.datetime64("NaT", "D"),
    )
    first = inside & (listing_ages(day, np.where(inside, start, np.datetime64("NaT"))) == 1)
    no_rule = inside & (np.isnat(since) | (start < since) | np.isnan(ratio))
    up = np.where(inside, ratio, up)
    down = np.where(inside, ratio, down)
    state = np.where(inside, State.LIMITED, state).astype(np.int8)
    opened = first & ((day >= _d(DELISTING_FIRST_DAY_FREE)) | bse) & ~no_rule
    return state, up, down, (free & ~inside) | opened, (unknown & ~inside) | no_rule


# ---------------------------------------------------------------- prices


def round_price(base: np.ndarray, ratio: np.ndarray, sign: int) -> np.ndarray:
    """round-half-up(base × (1 + sign × ratio), 2) in integer cents × basis points: exact
    for every price in cents and ratio in basis points (NaN where either is missing)."""
    with np.errstate(invalid="ignore"):
        cents = np.round(np.asarray(base, dtype="float64") * 100)
        bp = np.round(np.asarray(ratio, dtype="float64") * 10_000)
        return np.floor((cents * (10_000 + sign * bp) + 5_000) / 10_000) / 100


def prices(base: np.ndarray, regime: Regimes) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) limit prices per row: round_price on `base` by the row's ratios, and where
    the rule has the one-tick floor (`min_tick`) and a limit is less than a tick from the
    base, the base ± 0.01 (SZSE's own example: 0.04 at ±10 % trades 0.03..0.05)."""
    up, down = round_price(base, regime.up, 1), round_price(base, regime.down, -1)
    if regime.min_tick is None:
        return up, down
    base = np.asarray(base, dtype="float64")
    with np.errstate(invalid="ignore"):  # only a base under ¥0.31 can round onto itself
        rows = np.flatnonzero(regime.min_tick & (base < FLOOR_BELOW) & ~regime.on_issue)
    if not len(rows):
        return up, down
    cents = np.round(base[rows] * 100)
    up, down = up.copy(), down.copy()
    up[rows] = np.where(np.round(up[rows] * 100) <= cents, (cents + 1) / 100, up[rows])
    down[rows] = np.where(np.round(down[rows] * 100) >= cents, (cents - 1) / 100, down[rows])
    return up, down


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
    min_tick: bool = False  # a limit less than a tick off the base moves to one tick

    def prices(self, pre_close: float, issue_price: float | None = None) -> tuple | None:
        """(up, down) limit prices, or None when no limit applies or a fact is missing."""
        base = issue_price if self.on_issue else pre_close
        if self.state is not State.LIMITED or base is None or not base > 0:
            return None
        assert self.up_ratio is not None and self.down_ratio is not None
        one = Regimes(
            np.array([self.state], np.int8),
            np.array([self.up_ratio]),
            np.array([self.down_ratio]),
            np.array([self.on_issue]),
            np.array([self.min_tick]),
        )
        up, down = prices(np.array([base]), one)
        return float(up[0]), float(down[0])


def limit_on(
    code: str,
    day: date,
    *,
    first_day: date | None = None,
    is_st: bool = False,
    delisting_from: date | None = None,
) -> Limit:
    """The limit that applied to `code` on `day` (first_day: its first trading day, None for a
    code listed long before; delisting_from: the first day of the delisting period `day` is
    in, None outside one). The same table as `regimes`, for one row."""
    r = regimes(
        board_codes([code]),
        np.array([day], dtype=_D),
        np.array([first_day if first_day else "NaT"], dtype=_D),
        np.array([is_st]),
        np.array([delisting_from if delisting_from else "NaT"], dtype=_D),
    )
    state = State(int(r.state[0]))
    if state is not State.LIMITED:
        return Limit(state, None, None, False)
    tick = bool(r.min_tick[0]) if r.min_tick is not None else False
    return Limit(state, float(r.up[0]), float(r.down[0]), bool(r.on_issue[0]), tick)


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
