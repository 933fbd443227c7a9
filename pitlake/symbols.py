"""Canonical A-share codes (`600519.SH`), their board and price limit, and each vendor's form.

Every vendor form is parsed here and nowhere else; adapters render with `to_vendor`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from functools import lru_cache

from pitlake.errors import InvalidArgumentsError


class Exchange(StrEnum):
    SH = "SH"
    SZ = "SZ"
    BJ = "BJ"


class Board(StrEnum):
    MAIN = "main"
    STAR = "STAR"
    CHINEXT = "ChiNext"
    BSE = "BSE"
    B = "B"


# (prefix, exchange, board); the longest matching prefix wins.
_PREFIXES: tuple[tuple[str, Exchange, Board], ...] = (
    ("600", Exchange.SH, Board.MAIN),
    ("601", Exchange.SH, Board.MAIN),
    ("603", Exchange.SH, Board.MAIN),
    ("605", Exchange.SH, Board.MAIN),
    ("688", Exchange.SH, Board.STAR),
    ("689", Exchange.SH, Board.STAR),
    ("900", Exchange.SH, Board.B),
    ("000", Exchange.SZ, Board.MAIN),
    ("001", Exchange.SZ, Board.MAIN),
    ("002", Exchange.SZ, Board.MAIN),
    ("003", Exchange.SZ, Board.MAIN),
    ("004", Exchange.SZ, Board.MAIN),
    ("300", Exchange.SZ, Board.CHINEXT),
    ("301", Exchange.SZ, Board.CHINEXT),
    ("302", Exchange.SZ, Board.CHINEXT),
    ("200", Exchange.SZ, Board.B),
    ("201", Exchange.SZ, Board.B),
    ("430", Exchange.BJ, Board.BSE),
    ("82", Exchange.BJ, Board.BSE),
    ("83", Exchange.BJ, Board.BSE),
    ("87", Exchange.BJ, Board.BSE),
    ("88", Exchange.BJ, Board.BSE),
    ("920", Exchange.BJ, Board.BSE),
)

PRICE_LIMIT: dict[Board, float] = {
    Board.MAIN: 0.10,
    Board.STAR: 0.20,
    Board.CHINEXT: 0.20,
    Board.BSE: 0.30,
    Board.B: 0.10,
}
ST_PRICE_LIMIT = 0.05
# Main-board ST stocks move to ±10 % from this date (rule change); before it, ±5 %.
ST_LIMIT_ENDS = date(2026, 7, 6)

_SUFFIX = {
    "SH": Exchange.SH,
    "SZ": Exchange.SZ,
    "BJ": Exchange.BJ,
    "XSHG": Exchange.SH,
    "XSHE": Exchange.SZ,
    "BSE": Exchange.BJ,
    "BJSE": Exchange.BJ,
    "SS": Exchange.SH,
}
_RE_BARE = re.compile(r"^\d{6}$")
_RE_PREFIXED = re.compile(r"^(SH|SZ|BJ)(\d{6})$", re.IGNORECASE)
_RE_SUFFIXED = re.compile(r"^(\d{6})\.(SH|SZ|BJ|XSHG|XSHE|BSE|BJSE|SS)$", re.IGNORECASE)
_MAX_ECHO = 40


def _echo(raw: object) -> str:
    s = repr(raw)
    return s if len(s) <= _MAX_ECHO else s[:_MAX_ECHO] + "…"


# A pure function of the six digits, asked for every board, limit and parse (three times a
# code for a limit table): cached, a dict lookup instead of a scan of every prefix.
@lru_cache(maxsize=1 << 16)
def _lookup(code: str) -> tuple[Exchange, Board] | None:
    best: tuple[str, Exchange, Board] | None = None
    for prefix, ex, board in _PREFIXES:
        if code.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, ex, board)
    return (best[1], best[2]) if best else None


@dataclass(frozen=True, slots=True)
class Symbol:
    code: str  # 6 digits
    exchange: Exchange

    @property
    def canonical(self) -> str:
        return f"{self.code}.{self.exchange}"

    @property
    def board(self) -> Board:
        found = _lookup(self.code)
        assert found is not None
        return found[1]

    def price_limit(self, on: date | None = None, *, is_st: bool = False) -> float:
        """The board's ordinary daily ratio today; ST main-board stocks ±5 % before
        ST_LIMIT_ENDS. A board fact, not the dated rule: what applied to a code on a session
        (board openings and reforms, new listings) is pitlake.limit_rules.limit_on."""
        if is_st and self.board is Board.MAIN and (on is None or on < ST_LIMIT_ENDS):
            return ST_PRICE_LIMIT
        return PRICE_LIMIT[self.board]

    def to_vendor(self, form: str) -> str:
        return to_vendor(self.canonical, form)

    def __str__(self) -> str:
        return self.canonical


def parse(raw: object) -> Symbol:
    """Any vendor form → Symbol. Garbage raises InvalidArgumentsError naming the input."""
    if not isinstance(raw, str):
        raise InvalidArgumentsError(f"symbol must be a string, got {_echo(raw)}")
    return _parse_text(raw)


# A pure function of the text, asked once per row of every whole-market answer (5,300 codes a
# session): cached, it costs a dict lookup. Errors are not cached; they re-raise each time.
@lru_cache(maxsize=1 << 16)
def _parse_text(raw: str) -> Symbol:
    s = raw.strip()
    code: str
    ex: Exchange | None = None
    if m := _RE_BARE.match(s):
        code = s
    elif m := _RE_PREFIXED.match(s):
        ex, code = Exchange(m.group(1).upper()), m.group(2)
    elif m := _RE_SUFFIXED.match(s):
        code, ex = m.group(1), _SUFFIX[m.group(2).upper()]
    else:
        raise InvalidArgumentsError(
            f"invalid symbol {_echo(raw)}: expected a form like 600519, sh600519, 600519.SH "
            "or 600519.XSHG"
        )
    found = _lookup(code)
    if found is None:
        raise InvalidArgumentsError(f"invalid symbol {_echo(raw)}: {code} is not an A-share code")
    if ex is not None and ex is not found[0]:
        raise InvalidArgumentsError(
            f"invalid symbol {_echo(raw)}: {code} trades on {found[0]}, not {ex}"
        )
    return Symbol(code=code, exchange=found[0])


def canonical(raw: object) -> str:
    """Any vendor form → `600519.SH`."""
    return parse(raw).canonical


def canonical_many(raws: object) -> list[str]:
    """Parse a list (or a comma-separated string) of symbols; de-duplicate, keep order."""
    if isinstance(raws, str):
        raws = [p for p in raws.split(",") if p.strip()]
    if raws is None:
        return []
    # dict keeps first-seen order; a list membership test made 5,000 symbols quadratic
    return list(dict.fromkeys(canonical(r) for r in raws))  # type: ignore[union-attr]


def instrument_members(raws: object, instruments: tuple[str, ...]) -> list[str]:
    """Each value (a list or a comma-separated string; case and blanks forgiven) must be one
    of `instruments` (a closed set such as index codes, written as there); never parsed as an
    A-share code, because 000001.SH, the SSE Composite, is not 000001.SZ."""
    if raws is None:
        return []
    items = raws.split(",") if isinstance(raws, str) else list(raws)  # type: ignore[call-overload]
    known = {i.upper(): i for i in instruments}
    out = []
    for raw in items:
        text = raw.strip().upper() if isinstance(raw, str) else None
        if text == "":
            continue
        if text not in known:
            raise InvalidArgumentsError(
                f"unknown symbol {raw!r}: expected one of {', '.join(instruments)}"
            )
        out.append(known[text])
    return list(dict.fromkeys(out))


def board(raw: object) -> Board:
    return parse(raw).board


# Vendor forms: name → renderer from a Symbol.
VENDOR_FORMS = {
    "tushare": lambda s: s.canonical,  # 600519.SH
    "bare": lambda s: s.code,  # 600519 (EM kline, LHB, news)
    "sina": lambda s: f"{s.exchange.lower()}{s.code}",  # sh600519
    "tencent": lambda s: f"{s.exchange.lower()}{s.code}",  # sz000001
    "em_f10": lambda s: f"{s.exchange}{s.code}",  # SH600519
    "qlib": lambda s: f"{s.exchange}{s.code}",  # SH600519 (qlib's instruments; pitlake.export)
    "mic": lambda s: f"{s.code}.{ {'SH': 'XSHG', 'SZ': 'XSHE', 'BJ': 'BJSE'}[s.exchange] }",
}


def to_vendor(raw: object, form: str) -> str:
    try:
        render = VENDOR_FORMS[form]
    except KeyError:
        raise InvalidArgumentsError(f"unknown vendor symbol form {form!r}") from None
    return render(parse(raw))
