"""The limit lists of the offline sample, rendered from the bar truth of sample/generate.py:
Tushare `limit_list_d` and `stk_limit`, East Money's three pools (akshare stock_zt_pool_em,
stock_zt_pool_dtgc_em, stock_zt_pool_zbgc_em) in the frames akshare returns, each row tagged
with the `_date` it was asked for (the pools carry no date column).

A stock is in a pool by the exchange rule the lake derives (pitlake.read.market): the limit
price is the previous close × (1 ± the board's ratio) rounded to 0.01 (ST ±5 %); up = closed
at the limit-up price, down = at the limit-down price, broken = the high touched the limit-up
price and the close is below it. Both vendors leave ST stocks out. One planted disagreement:
Tushare's list of 2025-06-18 names 688981.SH as a limit-up (it closed +16.12 %, under its
20 % limit), which the gate's cross-check must name.
"""

from __future__ import annotations

import random
import zlib
from decimal import ROUND_HALF_UP, Decimal
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from pitlake.symbols import parse

import securities_tables  # noqa: E402  (sample/ is this script's own directory)

SEED = 20250630
# Tushare lists a code that the bars do not put in the pool (a vendor error the gate names).
VENDOR_ERROR = ("688981.SH", date(2025, 6, 18), "U")
INDUSTRY = {
    "600519.SH": "酿酒行业",
    "601318.SH": "保险",
    "000001.SZ": "银行",
    "000002.SZ": "房地产开发",
    "688981.SH": "半导体",
    "300750.SZ": "电池",
    "002594.SZ": "汽车整车",
    "430047.BJ": "生物制品",
    "920099.BJ": "专用设备",
    "600234.SH": "综合行业",
}


class BarLike(Protocol):
    day: date
    open: float
    high: float
    low: float
    close: float
    pre_close: float
    volume: int
    amount: float


class IssuerLike(Protocol):
    ts_code: str
    name: str
    total_share: float
    float_share: float
    is_st: bool


def r2(x: float) -> float:
    return round(x, 2) + 0.0


def limit_price(pre: float, ratio: float, sign: int) -> float:
    """The exchange's rounding: pre × (1 ± ratio), half up to 0.01 in exact decimal (the
    bars' own clamp in generate.py rounds binary floats; no planted move sits on a half)."""
    exact = Decimal(str(pre)) * (1 + sign * Decimal(str(ratio)))
    return float(exact.quantize(Decimal("0.01"), ROUND_HALF_UP))


def rng_for(*parts: object) -> random.Random:
    key = ":".join(str(p) for p in (SEED, "limits", *parts))
    return random.Random(zlib.crc32(key.encode()))


def ymd(d: date) -> str:
    return d.strftime("%Y%m%d")


@dataclass(frozen=True)
class Entry:
    """One stock in one pool on one session, with the attributes the lists carry."""

    iss: Any
    bar: Any
    pool: str  # U | D | Z
    consecutive: int  # limit-ups (U, Z: before today) or limit-downs (D) in a row
    up_limit: float

    @property
    def key(self) -> tuple[str, date, str]:
        return (self.iss.ts_code, self.bar.day, self.pool)


def st_on(iss: IssuerLike, day: date) -> bool:
    """ST that day, as the bars are drawn (generate.py: the issuer's flag or its name history)."""
    return iss.is_st or securities_tables.is_st_on(iss.ts_code, day)


def limits(iss: IssuerLike, bar: BarLike) -> tuple[float, float]:
    ratio = parse(iss.ts_code).price_limit(bar.day, is_st=st_on(iss, bar.day))
    return limit_price(bar.pre_close, ratio, 1), limit_price(bar.pre_close, ratio, -1)


def entries(issuers: Iterable[IssuerLike], bars: dict[str, list[Any]], window: tuple[date, date]):
    """Every (stock, session, pool) of the window by the exchange rule, ST included."""
    out: list[Entry] = []
    issuers = list(issuers)
    opened = min(bars[i.ts_code][0].day for i in issuers if bars[i.ts_code])
    for iss in issuers:
        ups = downs = 0
        for bar in bars[iss.ts_code]:  # the warm-up too, so a run can start before the window
            if bar.day > opened and bar is bars[iss.ts_code][0]:
                continue  # a new listing's first day: no limit
            up, down = limits(iss, bar)
            if abs(bar.close - up) < 1e-9:
                ups, downs, pool, run = ups + 1, 0, "U", ups + 1
            elif abs(bar.close - down) < 1e-9:
                ups, downs, pool, run = 0, downs + 1, "D", downs + 1
            else:
                pool = "Z" if abs(bar.high - up) < 1e-9 else None
                ups, downs, run = 0, 0, ups  # a broken board ends the run it carries
            if pool and window[0] <= bar.day <= window[1]:
                out.append(Entry(iss, bar, pool, run, up))
    return sorted(out, key=lambda e: (e.bar.day, e.pool, e.iss.ts_code))


def seal_times(e: Entry) -> tuple[str, str]:
    """First and last seal, HHMMSS Beijing: a one-price board seals at the call auction."""
    if e.bar.open == e.bar.high == e.bar.low == e.bar.close:
        return "092500", "092500"
    rng = rng_for("seal", *e.key)
    first = rng.randint(0, 3 * 3600)  # seconds after 09:30 (lunch ignored)
    last = min(first + rng.randint(0, 2 * 3600), 5 * 3600 - 180)

    def clock(sec: int) -> str:
        t = 9 * 3600 + 30 * 60 + sec
        if t >= 11 * 3600 + 30 * 60:
            t += 90 * 60  # the lunch break
        return f"{t // 3600:02d}{t // 60 % 60:02d}{t % 60:02d}"

    return clock(first), clock(last)


def numbers(e: Entry) -> dict[str, float]:
    rng = rng_for("numbers", *e.key)
    b, iss = e.bar, e.iss
    return {
        "pct": round((b.close - b.pre_close) / b.pre_close * 100, 2),
        "amount": float(round(b.amount)),
        "float_mv": float(round(b.close * iss.float_share)),
        "total_mv": float(round(b.close * iss.total_share)),
        "turnover": round(b.volume / iss.float_share * 100, 4),
        "seal": float(round(b.close * rng.randint(2_000, 400_000) * 100)),
        "breaks": 0 if e.pool == "U" and rng.random() < 0.6 else rng.randint(1, 4),
    }


def stat(e: Entry) -> tuple[int, int]:
    """(N limit-ups, in T sessions): the current run, or the run the broken board ended."""
    return (e.consecutive, e.consecutive) if e.pool == "U" else (e.consecutive, e.consecutive + 1)


def vendor_entries(all_entries: list[Entry]) -> list[Entry]:
    return [e for e in all_entries if not st_on(e.iss, e.bar.day)]  # both leave ST out


# --------------------------------------------------------------------------- Tushare


def tushare_limit_list(all_entries: list[Entry], by_code: dict[str, Any], bars: dict) -> list[dict]:
    listed = vendor_entries(all_entries)
    code, day, kind = VENDOR_ERROR
    bar = next(b for b in bars[code] if b.day == day)
    listed.append(Entry(by_code[code], bar, kind, 1, r2(bar.pre_close * 1.2)))
    rows = []
    for e in listed:
        n = numbers(e)
        first, last = seal_times(e)
        count, sessions = stat(e)
        rows.append(
            {
                "trade_date": ymd(e.bar.day),
                "ts_code": e.iss.ts_code,
                "industry": INDUSTRY.get(e.iss.ts_code, "综合行业"),
                "name": e.iss.name,
                "close": e.bar.close,
                "pct_chg": n["pct"],
                "amount": n["amount"],
                "limit_amount": None if e.pool != "D" else float(round(n["amount"] * 0.3)),
                "float_mv": n["float_mv"],
                "total_mv": n["total_mv"],
                "turnover_ratio": n["turnover"],
                "fd_amount": n["seal"] if e.pool != "Z" else None,
                "first_time": None if e.pool == "D" else first,
                "last_time": last,
                "open_times": n["breaks"],
                "up_stat": f"{count}/{sessions}" if e.pool != "D" else "0/1",
                "limit_times": e.consecutive if e.pool != "Z" else 0,
                "limit": e.pool,
            }
        )
    return sorted(rows, key=lambda r: (r["trade_date"], r["limit"], r["ts_code"]), reverse=True)


def tushare_stk_limit(issuers: Iterable[IssuerLike], bars: dict, sessions: list[date]) -> list[dict]:
    """Every code's limits for every session, suspended ones too (from the last close); none
    for a new listing's first day (no limit)."""
    rows = []
    issuers = list(issuers)
    opened = min(bars[i.ts_code][0].day for i in issuers if bars[i.ts_code])
    for iss in issuers:
        first = bars[iss.ts_code][0].day if bars[iss.ts_code] else None
        ratio_of = parse(iss.ts_code).price_limit
        by_day = {b.day: b for b in bars[iss.ts_code]}
        last_close = None
        for b in bars[iss.ts_code]:
            if b.day < sessions[0]:
                last_close = b.close
        for day in sessions:
            bar = by_day.get(day)
            pre = bar.pre_close if bar is not None else last_close
            if pre is None or (first is not None and first > opened and day == first):
                continue  # not listed yet, or its first day (no limit)
            ratio = ratio_of(day, is_st=st_on(iss, day))
            rows.append(
                {
                    "trade_date": ymd(day),
                    "ts_code": iss.ts_code,
                    "pre_close": pre,
                    "up_limit": limit_price(pre, ratio, 1),
                    "down_limit": limit_price(pre, ratio, -1),
                }
            )
            if bar is not None:
                last_close = bar.close
    return sorted(rows, key=lambda r: (r["trade_date"], r["ts_code"]), reverse=True)


# --------------------------------------------------------------------------- East Money


def _em_common(e: Entry, i: int) -> dict[str, Any]:
    n = numbers(e)
    return {
        "序号": i,
        "代码": e.iss.ts_code[:6],
        "名称": e.iss.name,
        "涨跌幅": n["pct"],
        "最新价": e.bar.close,
        "成交额": n["amount"],
        "流通市值": n["float_mv"],
        "总市值": n["total_mv"],
        "换手率": n["turnover"],
    }


def em_pools(all_entries: list[Entry]) -> dict[str, list[dict]]:
    """The three pools, each row tagged `_date` (YYYY-MM-DD), sorted as East Money sorts."""
    out: dict[str, list[dict]] = {
        "stock_zt_pool_em": [],
        "stock_zt_pool_dtgc_em": [],
        "stock_zt_pool_zbgc_em": [],
    }
    listed = vendor_entries(all_entries)
    days = sorted({e.bar.day for e in listed})
    for day in days:
        today = [e for e in listed if e.bar.day == day]
        ups = sorted((e for e in today if e.pool == "U"), key=lambda e: seal_times(e)[0])
        for i, e in enumerate(ups, 1):
            first, last = seal_times(e)
            count, sessions = stat(e)
            n = numbers(e)
            out["stock_zt_pool_em"].append(
                {
                    **_em_common(e, i),
                    "封板资金": n["seal"],
                    "首次封板时间": first,
                    "最后封板时间": last,
                    "炸板次数": n["breaks"],
                    "涨停统计": f"{sessions}/{count}",  # akshare writes days/ct
                    "连板数": e.consecutive,
                    "所属行业": INDUSTRY.get(e.iss.ts_code, "综合行业"),
                    "_date": day.isoformat(),
                }
            )
        downs = sorted((e for e in today if e.pool == "D"), key=lambda e: numbers(e)["seal"])
        for i, e in enumerate(downs, 1):
            n = numbers(e)
            out["stock_zt_pool_dtgc_em"].append(
                {
                    **_em_common(e, i),
                    "动态市盈率": -12.5,
                    "封单资金": n["seal"],
                    "最后封板时间": seal_times(e)[1],
                    "板上成交额": float(round(n["amount"] * 0.3)),
                    "连续跌停": e.consecutive,
                    "开板次数": n["breaks"],
                    "所属行业": INDUSTRY.get(e.iss.ts_code, "综合行业"),
                    "_date": day.isoformat(),
                }
            )
        broken = sorted((e for e in today if e.pool == "Z"), key=lambda e: seal_times(e)[0])
        for i, e in enumerate(broken, 1):
            n = numbers(e)
            count, sessions = stat(e)
            b = e.bar
            common = _em_common(e, i)
            out["stock_zt_pool_zbgc_em"].append(
                {
                    **{k: common[k] for k in ("序号", "代码", "名称", "涨跌幅", "最新价")},
                    "涨停价": e.up_limit,
                    **{k: common[k] for k in ("成交额", "流通市值", "总市值", "换手率")},
                    "涨速": 0.0,
                    "首次封板时间": seal_times(e)[0],
                    "炸板次数": n["breaks"],
                    "涨停统计": f"{sessions}/{count}",
                    "振幅": round((b.high - b.low) / b.pre_close * 100, 2),
                    "所属行业": INDUSTRY.get(e.iss.ts_code, "综合行业"),
                    "_date": day.isoformat(),
                }
            )
    return out


def render(out: Any, issuers: tuple[Any, ...], bars: dict, window: tuple[date, date]) -> None:
    """Write the limit tables through generate.py's `Out`."""
    from pitlake.calendar import sessions_between

    found = entries(issuers, bars, window)
    by_code = {i.ts_code: i for i in issuers}
    out.rows("tushare", "limit_list_d", tushare_limit_list(found, by_code, bars))
    out.rows("tushare", "stk_limit", tushare_stk_limit(issuers, bars, sessions_between(*window)))
    for endpoint, rows in em_pools(found).items():
        out.rows("akshare", endpoint, rows)
