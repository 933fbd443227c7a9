"""Sina's KLC encoding, written so recorded Sina replies can be made from plain rows.

Sina sends its bar history (`hisdata_klc2/klc_kl.js`) and the trade calendar
(`klc_td_sh.txt`) as a bit stream in a base64 alphabet that akshare decodes by running Sina's
own JavaScript (`akshare.stock.cons.hk_js_decode`, function `d`) in py_mini_racer
(stock_zh_a_sina.py:182-188, trade_date_hist.py:27-30). This module writes the two branches
that decoder dispatches to for them — `_139` (a list of sessions) and `_3466` (daily bars with
amount) — read from that JavaScript: a 12-bit branch id and a 6-bit mode, then fields of
fixed width written least-significant bit first, six bits per character. The wire tests check
every body made here by decoding it with akshare's decoder; nothing here is trusted blindly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
EPOCH = date(1970, 1, 1) + timedelta(days=7657)  # the decoder's day 0 (`u = 7657`)
CALENDAR_BRANCH = 139  # `_139: R`
BARS_BRANCH = 3466  # `_3466: O`
MODE = 63  # `s = 63 ^ u[1]` must be 0


class _Bits:
    def __init__(self) -> None:
        self.bits: list[int] = []

    def put(self, value: int, width: int, *, signed: bool = False) -> None:
        if width == 0:
            return
        if width > 30:  # `w([30, t - 30], [0, signed])`: low 30 bits, then the rest
            low = value % (1 << 30)
            self.put(low, 30)
            self.put((value - low) >> 30, width - 30, signed=signed)
            return
        if signed and value < 0:
            value += 1 << width
        if not 0 <= value < (1 << width):
            raise ValueError(f"{value} does not fit {width} bits")
        self.bits += [(value >> b) & 1 for b in range(width)]

    def flag(self, on: bool) -> None:
        self.bits.append(1 if on else 0)

    def step(self, delta: int) -> None:
        """`N()`: a sign bit, then |delta| - 1 ones and a zero."""
        if delta == 0:
            raise ValueError("N() cannot encode 0")
        self.flag(delta > 0)
        self.bits += [1] * (abs(delta) - 1) + [0]

    def text(self) -> str:
        bits = self.bits + [0] * ((-len(self.bits)) % 6) + [0] * 12  # padding the decoder ignores
        return "".join(
            ALPHABET[sum(bits[i + j] << j for j in range(6))] for i in range(0, len(bits), 6)
        )


def _day(d: date) -> int:
    return (d - EPOCH).days


def encode_calendar(sessions: Sequence[date]) -> str:
    """Branch `_139`: first and last day, then runs of consecutive weekday sessions, each run
    after the first preceded by one skipped weekday (a run of 0 = another skipped weekday)."""
    days = sorted(sessions)
    if any(d.weekday() >= 5 for d in days):
        raise ValueError("the calendar branch only lists weekdays")
    b = _Bits()
    b.put(CALENDAR_BRANCH, 12)
    b.put(MODE, 6)
    b.put(_day(days[0]), 18)
    b.put(_day(days[-1]), 18)
    wanted = set(days)
    weekdays = []
    d = days[0]
    while d <= days[-1]:
        if d.weekday() < 5:
            weekdays.append(d in wanted)
        d += timedelta(days=1)
    runs, i = [], 0
    while True:
        n = 0
        while i < len(weekdays) and weekdays[i]:
            n, i = n + 1, i + 1
        runs.append(n)
        if i >= len(weekdays):
            break
        i += 1  # the skipped weekday
    width = max(1, (max(runs).bit_length() + 2) // 3)
    b.flag(True)
    b.step(width)  # r.l: run counts are 3 * r.l bits wide
    b.put(runs[0], 3 * width)
    for n in runs[1:]:
        b.flag(False)
        b.put(n, 3 * width)
    return b.text()


@dataclass(frozen=True)
class Bar:
    day: date
    open: float
    high: float
    low: float
    close: float
    volume: int  # shares
    amount: int  # 元, whole


# Field widths set on the first bar (in units of 3 bits, `l_*`): prices to ±10,485.75 元,
# volume and amount deltas to ±2^29.
_PRICE_L, _VOLUME_L, _AMOUNT_L = 7, 10, 10
_DEFAULT_L = {"o": 3, "h": 3, "l": 3, "c": 3, "v": 5, "a": 5}  # the decoder's start values


def _cents(x: float) -> int:
    return round(x * 100)


def _jsround_hundredths(x: int) -> int:
    """`P(X, [2, 2], 0)`: X / 100 rounded half to even on its decimal digits."""
    digits = str(x).rjust(3, "0")
    r, first, rest = int(digits[:-2]), int(digits[-2]), int(digits[-1])
    if first > 5 or (first == 5 and (rest > 0 or r & 1)):
        r += 1
    return r


def encode_bars(bars: Sequence[Bar], prev_close: float | None = None) -> str:
    """Branch `_3466` with Sina's defaults (prices in 0.01, volume in shares, amount = the
    decoder's VWAP estimate plus a correction, so any whole-元 amount round-trips)."""
    b = _Bits()
    b.put(BARS_BRANCH, 12)
    b.put(MODE, 6)
    u_p = 0  # the previous close, in cents
    u_v = 0  # the previous volume
    for n, bar in enumerate(bars):
        b.flag(True)
        b.flag(True)
        b.flag(False)  # no mode changes
        b.flag(True)  # field widths and the date follow
        for field in "ohlcva":
            if n == 0:
                target = _VOLUME_L if field == "v" else _AMOUNT_L if field == "a" else _PRICE_L
                b.flag(True)
                b.step(target - _DEFAULT_L[field])
            else:
                b.flag(False)
        b.flag(True)  # the date: jump to it (`x()`: 1, then 18 signed bits)
        b.put(1, 3)
        b.put(_day(bar.day), 18, signed=True)
        if n == 0:
            b.flag(True)  # the reference price u_p (prevclose)
            b.flag(False)
            start = _cents(prev_close if prev_close is not None else bar.open)
            b.put(start - u_p, 3 * _PRICE_L, signed=True)
            u_p = start
        else:
            b.flag(False)
        o, h, lo, c = _cents(bar.open), _cents(bar.high), _cents(bar.low), _cents(bar.close)
        v_o, v_h, v_l, v_c, v_v = o - u_p, h - o, o - lo, c - o, bar.volume - u_v
        avg = o + (v_h - v_l + v_c) / 4
        estimate = _jsround_hundredths(int(avg * bar.volume + 0.5))
        v_a = bar.amount - estimate
        b.put(v_o, 3 * _PRICE_L, signed=True)
        b.put(v_h, 3 * _PRICE_L)
        b.put(v_l, 3 * _PRICE_L)
        b.put(v_c, 3 * _PRICE_L, signed=True)
        b.put(v_v, 3 * _VOLUME_L, signed=True)
        b.put(v_a, 3 * _AMOUNT_L, signed=True)
        u_p, u_v = c, bar.volume
    b.flag(True)  # the end: a control word with nothing in it
    b.flag(True)
    b.flag(False)
    b.flag(False)
    b.flag(False)
    return b.text()
