"""Generate pitlake's bundled offline sample: a replay directory in the vendors' native shapes.

Everything here is SYNTHETIC. One "truth" per issuer (a random walk inside the board's price
limit, volumes, share counts, three quarters of statements) is rendered into each vendor's own
format (docs/replay-format.md, docs/vendor-reference.md), so the vendors agree with each other
the way real ones do, units and quirks included. The edge cases the tests and the README demo rely
on are planted on fixed dates (sample/README.md lists them).

Deterministic: a fixed seed, no clock, no host-dependent ordering. Regenerating gives the same
bytes. Run from the project root:

    .venv/bin/python sample/generate.py            # rewrites sample/tushare and sample/akshare
    .venv/bin/python sample/generate.py --out DIR  # writes DIR/tushare and DIR/akshare
"""

from __future__ import annotations

import argparse
import json
import random
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import announcements_tables
import disclosure_schedule_tables
import securities_tables
import index_members_tables
from pitlake.schemas.index_quotes import INDICES

from pitlake.calendar import is_session, previous_session, sessions_between
from pitlake.schemas.index_quotes import INDICES
from pitlake.symbols import parse

import limit_pools_tables  # noqa: E402  (sample/ is this script's own directory)
import new_shares_tables  # noqa: E402

SEED = 20250630
WINDOW_START = date(2025, 4, 1)
WINDOW_END = date(2025, 6, 30)
WARMUP_START = date(2025, 3, 17)  # truth starts here so pre_close and volume_ratio are real
TRADE_CAL_YEAR = 2025
SINA_CAL_START, SINA_CAL_END = date(2024, 1, 1), date(2025, 12, 31)

Q3_2024, FY_2024, Q1_2025 = date(2024, 9, 30), date(2024, 12, 31), date(2025, 3, 31)
PERIODS = (FY_2024, Q3_2024, Q1_2025)
PERIODS_NEWEST_FIRST = (Q1_2025, FY_2024, Q3_2024)


# --------------------------------------------------------------------------- issuers


@dataclass(frozen=True)
class Issuer:
    """The fixed facts of one synthetic issuer (names of real codes are kept; numbers are not)."""

    ts_code: str
    name: str
    org_code: str  # East Money ORG_CODE (synthetic)
    price: float  # close before the warm-up
    total_share: float  # shares
    float_share: float  # tradable (无限售) A shares
    free_share: float  # free float
    turnover: float  # typical daily turnover, percent of float
    sigma: float  # daily return volatility
    revenue: float  # 2024 operating revenue, 元
    net_margin: float  # negative = loss-making
    gross_margin: float
    assets: float  # total assets at 2024-12-31, 元
    leverage: float  # liabilities / assets
    ann: dict[date, date | None]  # period → announcement date (None = never dated)
    dps: float = 0.0  # 2024 dividend per share (for dv_ratio), 元
    dividends: dict[date, float] = field(default_factory=dict)  # in-window ex-date → cash/share
    sina_history: tuple[tuple[str, float], ...] = ()  # past Sina change points: (date, step)
    is_st: bool = False

    @property
    def code(self) -> str:
        return self.ts_code[:6]

    @property
    def exchange(self) -> str:
        return self.ts_code[7:]

    @property
    def sina(self) -> str:  # sh600519 (Sina and Tencent)
        return self.exchange.lower() + self.code

    @property
    def em_f10(self) -> str:
        return self.exchange + self.code


def d(s: str) -> date:
    return date.fromisoformat(s)


ISSUERS: tuple[Issuer, ...] = (
    Issuer(
        "600519.SH",
        "贵州茅台",
        "10002602",
        1560.00,
        1_256_197_800,
        1_256_197_800,
        544_000_000,
        0.28,
        0.012,
        174.1e9,
        0.495,
        0.918,
        298.9e9,
        0.18,
        {Q3_2024: d("2024-10-25"), FY_2024: d("2025-04-02"), Q1_2025: d("2025-04-29")},
        dps=51.555,
        dividends={d("2025-06-26"): 27.673},
        sina_history=(
            ("2001-08-27", 1.0),
            ("2023-06-30", 1.0171),
            ("2023-12-20", 1.0119),
            ("2024-06-19", 1.0210),
            ("2024-12-20", 1.0157),
        ),
    ),
    Issuer(
        "601318.SH",
        "中国平安",
        "10002186",
        52.30,
        18_210_234_607,
        10_762_657_767,
        6_150_000_000,
        0.55,
        0.016,
        1028.9e9,
        0.123,
        0.30,
        12_965.4e9,
        0.89,
        {Q3_2024: d("2024-10-17"), FY_2024: d("2025-03-20"), Q1_2025: d("2025-04-22")},
        dps=2.55,
        sina_history=(
            ("2007-03-01", 1.0),
            ("2023-07-20", 1.0311),
            ("2024-07-22", 1.0339),
            ("2024-10-21", 1.0201),
        ),
    ),
    Issuer(
        "000001.SZ",
        "平安银行",
        "10000009",
        11.25,
        19_405_918_198,
        19_405_546_950,
        8_950_000_000,
        0.62,
        0.013,
        146.7e9,
        0.303,
        0.60,
        5_769.3e9,
        0.91,
        {Q3_2024: d("2024-10-18"), FY_2024: d("2025-03-14"), Q1_2025: d("2025-04-18")},
        dps=0.608,
        dividends={d("2025-06-12"): 0.362},
        sina_history=(
            ("1991-04-03", 1.0),
            ("2023-06-14", 1.0252),
            ("2024-06-14", 1.0681),
            ("2024-10-10", 1.0232),
        ),
    ),
    Issuer(
        "000002.SZ",
        "万科A",
        "10000016",
        7.05,
        11_930_709_471,
        9_716_161_683,
        5_600_000_000,
        1.10,
        0.022,
        343.2e9,
        -0.144,
        0.10,
        1_285.6e9,
        0.73,
        {Q3_2024: d("2024-10-30"), FY_2024: d("2025-03-31"), Q1_2025: d("2025-04-29")},
        sina_history=(("1991-01-29", 1.0), ("2022-08-25", 1.0624), ("2023-08-11", 1.0689)),
    ),
    Issuer(
        "688981.SH",
        "中芯国际",
        "10299813",
        88.50,
        7_982_812_400,
        1_992_642_070,
        1_120_000_000,
        2.10,
        0.030,
        57.8e9,
        0.064,
        0.18,
        353.2e9,
        0.33,
        {Q3_2024: d("2024-10-30"), FY_2024: d("2025-03-27"), Q1_2025: d("2025-04-25")},
        sina_history=(("2020-07-16", 1.0),),
    ),
    Issuer(
        "300750.SZ",
        "宁德时代",
        "10243385",
        252.00,
        4_403_466_458,
        3_900_254_016,
        1_950_000_000,
        0.45,
        0.020,
        362.0e9,
        0.140,
        0.24,
        786.6e9,
        0.65,
        {Q3_2024: d("2024-10-18"), FY_2024: d("2025-03-14"), Q1_2025: d("2025-04-14")},
        dps=4.554,
        sina_history=(("2018-06-11", 1.0), ("2023-04-25", 1.0121), ("2024-04-30", 1.0264)),
    ),
    Issuer(
        "002594.SZ",
        "比亚迪",
        "10064542",
        362.00,
        3_039_065_800,
        1_162_883_600,
        560_000_000,
        0.95,
        0.020,
        777.1e9,
        0.052,
        0.19,
        783.4e9,
        0.75,
        {Q3_2024: d("2024-10-30"), FY_2024: d("2025-03-24"), Q1_2025: d("2025-04-25")},
        dps=3.974,
        sina_history=(("2011-06-30", 1.0), ("2023-07-26", 1.0044), ("2024-07-31", 1.0114)),
    ),
    Issuer(
        "430047.BJ",
        "诺思兰德",
        "10142036",
        14.20,
        274_980_000,
        201_440_000,
        128_000_000,
        2.40,
        0.035,
        0.082e9,
        -1.25,
        0.55,
        0.93e9,
        0.28,
        {Q3_2024: d("2024-10-29"), FY_2024: d("2025-04-18"), Q1_2025: d("2025-04-18")},
        sina_history=(("2014-01-24", 1.0),),
    ),
    Issuer(
        "920099.BJ",
        "北证样本",
        "10999099",
        25.40,
        80_000_000,
        52_000_000,
        30_000_000,
        3.20,
        0.040,
        0.61e9,
        0.085,
        0.31,
        1.12e9,
        0.35,
        {Q3_2024: d("2024-10-28"), FY_2024: d("2025-04-25"), Q1_2025: None},
        dps=0.30,
        sina_history=(("2022-12-15", 1.0), ("2024-06-06", 1.0118)),
    ),
    Issuer(
        "600234.SH",
        "ST样本",
        "10999234",
        4.06,
        231_124_000,
        231_124_000,
        150_000_000,
        2.00,
        0.022,
        0.39e9,
        -0.31,
        0.08,
        0.70e9,
        0.62,
        {Q3_2024: d("2024-10-30"), FY_2024: d("2025-04-30"), Q1_2025: d("2025-04-30")},
        sina_history=(("1996-07-19", 1.0), ("2011-05-31", 1.0035)),
        is_st=True,
    ),
    # securities_tables.py: goes *ST 2025-04-25, last session 2025-06-20, delisted 06-23
    Issuer(
        "000666.SZ",
        "甲乙科技",
        "10999666",
        6.20,
        400_000_000,
        380_000_000,
        200_000_000,
        1.20,
        0.020,
        1.1e9,
        -0.25,
        0.10,
        2.0e9,
        0.70,
        {Q3_2024: d("2024-10-30"), FY_2024: d("2025-04-24"), Q1_2025: d("2025-04-29")},
        sina_history=(("2010-03-19", 1.0),),
    ),
    # securities_tables.py: lists 2025-06-10 (no price limit that day)
    Issuer(
        "603398.SH",
        "新股样本",
        "10999398",
        18.00,
        160_000_000,
        40_000_000,
        40_000_000,
        8.00,
        0.030,
        0.9e9,
        0.12,
        0.30,
        1.5e9,
        0.40,
        {Q3_2024: d("2024-10-30"), FY_2024: d("2025-04-28"), Q1_2025: d("2025-04-28")},
        sina_history=(("2025-06-10", 1.0),),
    ),
)
BY_CODE = {i.ts_code: i for i in ISSUERS}

# Planted market events --------------------------------------------------------------------
SUSPENDED = {"000002.SZ": (d("2025-05-12"), d("2025-05-14"))}
# (ts_code, day) → (return, turnover percent); return "up"/"down" = to the limit price,
# "broken" = the high touches the limit-up price and the close is below it
FORCED: dict[tuple[str, date], tuple[float | str, float]] = {
    ("600234.SH", d("2025-04-08")): ("up", 6.5),
    ("600234.SH", d("2025-04-09")): ("up", 11.0),
    ("600234.SH", d("2025-04-10")): ("up", 22.4),
    ("000002.SZ", d("2025-05-15")): ("down", 3.4),
    ("688981.SH", d("2025-06-18")): (0.1612, 7.8),
    ("603398.SH", d("2025-06-10")): (0.8561, 61.0),  # its first trading day: no limit
    # limit pools: a three-board ladder, then a broken board (high at the limit, close below)
    ("002594.SZ", d("2025-06-09")): ("up", 1.6),
    ("002594.SZ", d("2025-06-10")): ("up", 2.9),
    ("002594.SZ", d("2025-06-11")): ("up", 4.4),
    ("002594.SZ", d("2025-06-12")): ("broken", 6.1),
}
LHB_EVENTS: tuple[tuple[str, date, tuple[str, ...]], ...] = (
    (
        "600234.SH",
        d("2025-04-10"),
        (
            "连续三个交易日内，涨幅偏离值累计达到15%的ST证券、*ST证券和未完成股改证券",
            "日换手率达到20%的前5只证券",
        ),
    ),
    ("000002.SZ", d("2025-05-15"), ("日跌幅偏离值达到7%的前5只证券",)),
    ("688981.SH", d("2025-06-18"), ("有价格涨跌幅限制的日收盘价格涨幅达到15%的前五只证券",)),
)
# Statements: Tushare update_flag pair with identical dates (restated, undatable)
RESTATED_SAME_DATES = ("601318.SH", FY_2024)
# Correction with a later date: Tushare f_ann_date / East Money UPDATE_DATE
CORRECTION = ("688981.SH", Q1_2025, d("2025-06-10"))
# A schedule change (planned 2025-03-28, moved on 2025-03-15) → disclosure_date.modify_date
RESCHEDULED = ("002594.SZ", FY_2024, d("2025-03-15"))


def rng_for(*parts: object) -> random.Random:
    """A stream per purpose, so adding one draw somewhere never shifts every other number."""
    key = ":".join(str(p) for p in (SEED, *parts))
    return random.Random(zlib.crc32(key.encode()))


def r2(x: float) -> float:
    return round(x, 2) + 0.0  # + 0.0 turns -0.0 into 0.0


# --------------------------------------------------------------------------- bar truth


@dataclass
class Bar:
    day: date
    open: float
    high: float
    low: float
    close: float
    pre_close: float  # ex-rights reference price on ex-dates
    volume: int  # shares, a multiple of 100
    amount: float  # 元, whole yuan

    @property
    def change(self) -> float:
        return r2(self.close - self.pre_close)

    @property
    def pct_chg(self) -> float:
        return (self.close - self.pre_close) / self.pre_close * 100


def simulate_bars(iss: Issuer) -> list[Bar]:
    """Daily bars from the warm-up through the window, skipping suspensions."""
    rng = rng_for("bars", iss.ts_code)
    sym = parse(iss.ts_code)
    stop = SUSPENDED.get(iss.ts_code)
    bars: list[Bar] = []
    prev_close = iss.price
    for day in sessions_between(WARMUP_START, WINDOW_END):
        # Draw every day, suspended or not, so a suspension never reshuffles later days.
        noise = [rng.gauss(0, 1) for _ in range(5)]
        tnoise = rng.lognormvariate(0, 0.35)
        if stop and stop[0] <= day <= stop[1]:
            continue
        if day < securities_tables.LIST_DATES[iss.ts_code]:
            continue  # not listed yet: the issue price is its first pre_close
        if day > securities_tables.LAST_SESSION.get(iss.ts_code, day):
            continue  # delisted
        pre = r2(prev_close - iss.dividends[day]) if day in iss.dividends else prev_close
        is_st = iss.is_st or securities_tables.is_st_on(iss.ts_code, day)
        limit = sym.price_limit(day, is_st=is_st)
        if day == securities_tables.LIST_DATES[iss.ts_code]:
            limit = 3.0  # a first trading day has no price limit
        up, down = r2(pre * (1 + limit)), r2(pre * (1 - limit))
        forced_ret, forced_turn = FORCED.get((iss.ts_code, day), (None, None))
        if forced_ret == "up":
            close = up
        elif forced_ret == "down":
            close = down
        elif forced_ret == "broken":
            close = r2(pre * (1 + 0.4 * limit))
        elif forced_ret is not None:
            close = r2(pre * (1 + float(forced_ret)))
        else:
            ret = max(-0.95 * limit, min(0.95 * limit, noise[0] * iss.sigma))
            close = r2(pre * (1 + ret))
        close = min(up, max(down, close))
        open_ = min(up, max(down, r2(pre * (1 + noise[1] * iss.sigma / 2))))
        high = min(
            up, max(open_, close, r2(max(open_, close) * (1 + abs(noise[2]) * iss.sigma / 2)))
        )
        low = max(
            down, min(open_, close, r2(min(open_, close) * (1 - abs(noise[3]) * iss.sigma / 2)))
        )
        if forced_ret == "broken":
            high = up
        turnover = forced_turn if forced_turn is not None else iss.turnover * tnoise
        volume = max(1, round(iss.float_share * turnover / 100 / 100)) * 100
        vwap = min(high, max(low, (open_ + high + low + close) / 4 * (1 + noise[4] * 0.002)))
        bars.append(Bar(day, open_, high, low, close, pre, volume, float(round(volume * vwap))))
        prev_close = close
    return bars


def in_window(bars: Iterable[Bar]) -> list[Bar]:
    return [b for b in bars if WINDOW_START <= b.day <= WINDOW_END]


def tushare_factors(iss: Issuer, bars: list[Bar]) -> dict[date, float]:
    """Cumulative Tushare adj_factor per session (suspended sessions carry the last value)."""
    base = 1.0
    for _, step in iss.sina_history:
        base *= step
    base *= rng_for("tushare-base", iss.ts_code).uniform(1.01, 1.3)  # vendors' bases differ
    by_day = {b.day: b for b in bars}
    out: dict[date, float] = {}
    prev: Bar | None = None
    listed = securities_tables.LIST_DATES[iss.ts_code]
    last = securities_tables.LAST_SESSION.get(iss.ts_code, WINDOW_END)
    for day in sessions_between(max(WINDOW_START, listed), min(WINDOW_END, last)):
        bar = by_day.get(day)
        if bar is not None and prev is not None and bar.day in iss.dividends:
            base *= prev.close / bar.pre_close
        out[day] = round(base, 3)
        if bar is not None:
            prev = bar
    return out


def sina_change_points(iss: Issuer, bars: list[Bar]) -> list[tuple[str, float]]:
    """Sina hfq-factor change points, oldest first (first = listing, factor 1)."""
    points: list[tuple[str, float]] = []
    f = 1.0
    for day, step in iss.sina_history:
        f *= step
        points.append((day, f))
    prev: Bar | None = None
    for bar in bars:
        if prev is not None and bar.day in iss.dividends:
            f *= prev.close / bar.pre_close
            points.append((bar.day.isoformat(), f))
        prev = bar
    return points


# --------------------------------------------------------------------------- statements


@dataclass
class Statement:
    """One version of one period's three statements, in East Money + Tushare names."""

    period: date
    income: dict[str, float]  # canonical item or extra → value
    balance: dict[str, float]
    cashflow: dict[str, float]
    yoy: dict[str, float]


def build_statement(iss: Issuer, period: date) -> Statement:
    rng = rng_for("fin", iss.ts_code, period)
    flow = {Q3_2024: rng.uniform(0.72, 0.76), FY_2024: 1.0, Q1_2025: rng.uniform(0.22, 0.28)}[
        period
    ]
    revenue = iss.revenue * flow
    total_revenue = revenue * (1 + rng.uniform(0, 0.02))
    net = revenue * iss.net_margin * rng.uniform(0.9, 1.1)
    if net > 0:
        total_profit = net / 0.8
        income_tax = total_profit - net
    else:
        income_tax = abs(net) * rng.uniform(0, 0.02)
        total_profit = net + income_tax
    parent_share = rng.uniform(0.9, 1.0)
    income = {
        "total_revenue": total_revenue,
        "revenue": revenue,
        "operating_cost": revenue * (1 - iss.gross_margin),
        "operating_profit": total_profit - revenue * rng.uniform(-0.004, 0.004),
        "total_profit": total_profit,
        "income_tax": income_tax,
        "net_profit": net,
        "net_profit_parent": net * parent_share,
        "sell_exp": revenue * rng.uniform(0.02, 0.06),
        "admin_exp": revenue * rng.uniform(0.03, 0.08),
        "rd_exp": revenue * rng.uniform(0.0, 0.12),
        "minority_gain": net * (1 - parent_share),
    }
    income = {k: r2(v) for k, v in income.items()}
    eps = round(income["net_profit_parent"] / iss.total_share, 4)
    income["eps_basic"] = eps
    income["eps_diluted"] = eps
    drift = {Q3_2024: 0.97, FY_2024: 1.0, Q1_2025: 1.02}[period] * rng.uniform(0.995, 1.005)
    assets = iss.assets * drift
    liab = assets * iss.leverage * rng.uniform(0.98, 1.02)
    equity = assets - liab
    minority = equity * rng.uniform(0.0, 0.08)
    balance = {
        "total_assets": assets,
        "total_liabilities": liab,
        "equity_parent": equity - minority,
        "total_equity": equity,
        "cash": assets * rng.uniform(0.05, 0.25),
        "current_assets": assets * rng.uniform(0.30, 0.60),
        "current_liabilities": liab * rng.uniform(0.50, 0.90),
        "accounts_receiv": assets * rng.uniform(0.01, 0.08),
        "inventories": assets * rng.uniform(0.0, 0.15),
        "minority_int": minority,
        "fix_assets": assets * rng.uniform(0.05, 0.25),
    }
    balance = {k: r2(v) for k, v in balance.items()}
    op = net * rng.uniform(0.8, 1.4) if net > 0 else net * rng.uniform(0.3, 0.9)
    inv = -assets * rng.uniform(0.005, 0.03) * flow
    fin = assets * rng.uniform(-0.02, 0.02) * flow
    cashflow = {
        "net_cash_operating": op,
        "net_cash_investing": inv,
        "net_cash_financing": fin,
        "net_cash_change": op + inv + fin + assets * rng.uniform(-0.0005, 0.0005),
        "c_fr_sale_sg": revenue * rng.uniform(1.0, 1.13),
        "c_paid_to_for_empl": revenue * rng.uniform(0.05, 0.15),
        "free_cashflow": op + inv,
    }
    cashflow = {k: r2(v) for k, v in cashflow.items()}
    np_yoy = rng.uniform(-40, 40)
    yoy = {
        "revenue": round(rng.uniform(-15, 25), 4),
        "net_profit_parent": round(np_yoy, 4),
        "net_profit": round(np_yoy + rng.uniform(-2, 2), 4),
        "total_assets": round(rng.uniform(-5, 12), 4),
        "total_liabilities": round(rng.uniform(-5, 12), 4),
        "net_cash_operating": round(rng.uniform(-60, 60), 4),
    }
    return Statement(period, income, balance, cashflow, yoy)


def restate(st: Statement, factor: float) -> Statement:
    """A restated version: income lines scaled, EPS recomputed from the parent net profit."""
    income = {k: (r2(v * factor) if not k.startswith("eps") else v) for k, v in st.income.items()}
    ratio = income["net_profit_parent"] / st.income["net_profit_parent"]
    income["eps_basic"] = round(st.income["eps_basic"] * ratio, 4)
    income["eps_diluted"] = income["eps_basic"]
    return Statement(st.period, income, dict(st.balance), dict(st.cashflow), dict(st.yoy))


@dataclass
class Version:
    """A Tushare row group: which values, which dates, which update_flag."""

    statement: Statement
    ann_date: date | None
    f_ann_date: date | None
    update_flag: str
    em_latest: bool  # the version East Money shows
    em_update: date | None = None


def statement_versions(iss: Issuer) -> dict[str, list[Version]]:
    """Per statement kind ('income', 'balance', 'cashflow'), all versions, newest period first."""
    out: dict[str, list[Version]] = {"income": [], "balance": [], "cashflow": []}
    for period in PERIODS_NEWEST_FIRST:
        base = build_statement(iss, period)
        ann = iss.ann[period]
        for kind in out:
            versions = [Version(base, ann, ann, "1", True, ann)]
            if kind == "income" and (iss.ts_code, period) == RESTATED_SAME_DATES:
                restated = restate(base, 0.97)
                versions = [
                    Version(restated, ann, ann, "1", True, ann),
                    Version(base, ann, ann, "0", False),
                ]
            if kind == "income" and (iss.ts_code, period) == CORRECTION[:2]:
                corrected = restate(base, 1.06)
                versions = [
                    Version(corrected, ann, CORRECTION[2], "1", True, CORRECTION[2]),
                    Version(base, ann, ann, "0", False),
                ]
            out[kind].extend(versions)
    return out


# Field names: canonical → (Tushare, East Money); the canonical items come from schemas/, each
# vendor's field for them from its package (pitlake/vendors/<vendor>/fields.py).
def _line_item_names() -> dict[str, tuple[str, str]]:
    from pitlake.schemas.financials import LINE_ITEMS

    from pitlake.vendors.akshare.fields import LINE_ITEM_FIELDS as EM
    from pitlake.vendors.tushare.fields import LINE_ITEM_FIELDS as TS

    return {k: (TS[k], EM[k]) for k in LINE_ITEMS}


EXTRA_NAMES = {
    "sell_exp": ("sell_exp", "SALE_EXPENSE"),
    "admin_exp": ("admin_exp", "MANAGE_EXPENSE"),
    "rd_exp": ("rd_exp", "RESEARCH_EXPENSE"),
    "minority_gain": ("minority_gain", "MINORITY_INTEREST"),
    "accounts_receiv": ("accounts_receiv", "ACCOUNTS_RECE"),
    "inventories": ("inventories", "INVENTORY"),
    "minority_int": ("minority_int", "MINORITY_EQUITY"),
    "fix_assets": ("fix_assets", "FIXED_ASSET"),
    "c_fr_sale_sg": ("c_fr_sale_sg", "SALES_SERVICES"),
    "c_paid_to_for_empl": ("c_paid_to_for_empl", "PAY_STAFF_CASH"),
    "free_cashflow": ("free_cashflow", None),  # Tushare only
}
YOY_NAMES = {  # statement → canonical item → East Money *_YOY column
    "income": {
        "revenue": "OPERATE_INCOME_YOY",
        "net_profit": "NETPROFIT_YOY",
        "net_profit_parent": "PARENT_NETPROFIT_YOY",
    },
    "balance": {"total_assets": "TOTAL_ASSETS_YOY", "total_liabilities": "TOTAL_LIABILITIES_YOY"},
    "cashflow": {"net_cash_operating": "NETCASH_OPERATE_YOY"},
}
END_TYPE = {Q1_2025: "1", Q3_2024: "3", FY_2024: "4"}
EM_REPORT_TYPE = {Q1_2025: "一季报", Q3_2024: "三季报", FY_2024: "年报"}
EM_REPORT_NAME = {Q1_2025: "2025一季报", Q3_2024: "2024三季报", FY_2024: "2024年报"}


def values_of(st: Statement, kind: str) -> dict[str, float]:
    return {"income": st.income, "balance": st.balance, "cashflow": st.cashflow}[kind]


# --------------------------------------------------------------------------- formats


def ymd(x: date | None) -> str | None:
    return None if x is None else x.strftime("%Y%m%d")


def iso(x: date | None) -> str | None:
    return None if x is None else x.isoformat()


def em_dt(x: date | None) -> str | None:
    return None if x is None else f"{x.isoformat()} 00:00:00"


class Out:
    """Collects rows per vendor/endpoint and writes them as JSON lines, byte-stable."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def rows(self, vendor: str, endpoint: str, rows: list[dict]) -> None:
        path = self.root / vendor / f"{endpoint}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in rows)
        path.write_text(text, encoding="utf-8")

    def error(self, vendor: str, endpoint: str, payload: dict) -> None:
        path = self.root / vendor / f"{endpoint}.error.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(payload, ensure_ascii=False) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- Tushare


def tushare_daily(bars: dict[str, list[Bar]]) -> list[dict]:
    rows = []
    for iss in ISSUERS:
        for b in in_window(bars[iss.ts_code]):
            rows.append(
                {
                    "ts_code": iss.ts_code,
                    "trade_date": ymd(b.day),
                    "open": b.open,
                    "high": b.high,
                    "low": b.low,
                    "close": b.close,
                    "pre_close": b.pre_close,
                    "change": b.change,
                    "pct_chg": round(b.pct_chg, 4),
                    "vol": float(b.volume // 100),
                    "amount": round(b.amount / 1000, 3),
                }
            )
    return newest_first(rows)


def newest_first(rows: list[dict], key: str = "trade_date") -> list[dict]:
    order = {iss.ts_code: n for n, iss in enumerate(ISSUERS)}
    return sorted(rows, key=lambda r: (-int(r[key]), order[r["ts_code"]]))


def tushare_adj_factor(bars: dict[str, list[Bar]]) -> list[dict]:
    rows = []
    for iss in ISSUERS:
        for day, f in tushare_factors(iss, bars[iss.ts_code]).items():
            rows.append({"ts_code": iss.ts_code, "trade_date": ymd(day), "adj_factor": f})
    return newest_first(rows)


def known_statement(iss: Issuer, on: date) -> tuple[Statement | None, Statement]:
    """(latest annual, latest balance-bearing report) announced by `on` (PIT for daily_basic)."""
    annual = build_statement(iss, FY_2024) if (iss.ann[FY_2024] or date.max) <= on else None
    latest = build_statement(iss, Q3_2024)
    for period in (FY_2024, Q1_2025):
        ann = iss.ann[period]
        if ann is not None and ann <= on:
            latest = build_statement(iss, period)
    return annual, latest


def tushare_daily_basic(bars: dict[str, list[Bar]]) -> list[dict]:
    rows = []
    for iss in ISSUERS:
        history = bars[iss.ts_code]
        prior_fy = build_statement(iss, FY_2024)
        for n, b in enumerate(history):
            if b.day < WINDOW_START:
                continue
            annual, latest = known_statement(iss, b.day)
            fy = annual or prior_fy
            growth = 1 + (fy.yoy["net_profit_parent"] / 100 if annual is None else 0)
            lyr_np = fy.income["net_profit_parent"] / growth
            lyr_rev = fy.income["revenue"] / (
                1 + (fy.yoy["revenue"] / 100 if annual is None else 0)
            )
            ttm_np = lyr_np * (1.03 if latest.period == Q1_2025 else 1.0)
            ttm_rev = lyr_rev * (1.02 if latest.period == Q1_2025 else 1.0)
            total_mv = b.close * iss.total_share
            prev5 = [x.volume for x in history[max(0, n - 5) : n]]
            dv = iss.dps / b.close * 100 if iss.dps else None
            rows.append(
                {
                    "ts_code": iss.ts_code,
                    "trade_date": ymd(b.day),
                    "close": b.close,
                    "turnover_rate": round(b.volume / iss.float_share * 100, 4),
                    "turnover_rate_f": round(b.volume / iss.free_share * 100, 4),
                    # none on a first trading day (no earlier volume)
                    "volume_ratio": round(b.volume / (sum(prev5) / len(prev5)), 2)
                    if prev5
                    else None,
                    "pe": round(total_mv / lyr_np, 4) if lyr_np > 0 else None,
                    "pe_ttm": round(total_mv / ttm_np, 4) if ttm_np > 0 else None,
                    "pb": round(total_mv / latest.balance["equity_parent"], 4),
                    "ps": round(total_mv / lyr_rev, 4),
                    "ps_ttm": round(total_mv / ttm_rev, 4),
                    "dv_ratio": None if dv is None else round(dv, 4),
                    "dv_ttm": None if dv is None else round(dv, 4),
                    "total_share": round(iss.total_share / 1e4, 4),
                    "float_share": round(iss.float_share / 1e4, 4),
                    "free_share": round(iss.free_share / 1e4, 4),
                    "total_mv": round(total_mv / 1e4, 4),
                    "circ_mv": round(b.close * iss.float_share / 1e4, 4),
                }
            )
    return newest_first(rows)


def tushare_statement(kind: str, versions: dict[str, dict[str, list[Version]]]) -> list[dict]:
    names = _line_item_names()
    rows = []
    for iss in ISSUERS:
        for v in versions[iss.ts_code][kind]:
            st = v.statement
            row: dict = {
                "ts_code": iss.ts_code,
                "ann_date": ymd(v.ann_date),
                "f_ann_date": ymd(v.f_ann_date),
                "end_date": ymd(st.period),
                "report_type": "1",
                "comp_type": "1",
                "end_type": END_TYPE[st.period],
            }
            for item, value in values_of(st, kind).items():
                row[names[item][0] if item in names else EXTRA_NAMES[item][0]] = value
            row["update_flag"] = v.update_flag
            rows.append(row)
    return rows


def tushare_disclosure_date() -> list[dict]:
    rows = []
    for period in PERIODS_NEWEST_FIRST:
        for iss in ISSUERS:
            actual = iss.ann[period]
            planned = actual or {Q1_2025: d("2025-04-25")}.get(period, period)
            schedule_ann = {
                Q3_2024: d("2024-09-27"),
                FY_2024: d("2024-12-31"),
                Q1_2025: d("2025-03-28"),
            }[period]
            modify = None
            if (iss.ts_code, period) == RESCHEDULED[:2]:
                modify = ymd(RESCHEDULED[2])
                schedule_ann = RESCHEDULED[2]
            rows.append(
                {
                    "ts_code": iss.ts_code,
                    "ann_date": ymd(schedule_ann),
                    "end_date": ymd(period),
                    "pre_date": ymd(planned),
                    "actual_date": ymd(actual),
                    "modify_date": modify,
                }
            )
    return rows


def tushare_trade_cal() -> list[dict]:
    rows = []
    day = date(TRADE_CAL_YEAR, 12, 31)
    while day >= date(TRADE_CAL_YEAR, 1, 1):
        rows.append(
            {
                "exchange": "SSE",
                "cal_date": ymd(day),
                "is_open": int(is_session(day)),
                "pretrade_date": ymd(previous_session(day)),
            }
        )
        day -= timedelta(days=1)
    return rows


# --------------------------------------------------------------------------- dragon-tiger

BRANCHES = (
    "机构专用",
    "沪股通专用",
    "深股通专用",
    "中信证券股份有限公司上海分公司",
    "华泰证券股份有限公司总部",
    "国泰君安证券股份有限公司南京太平南路证券营业部",
    "东方财富证券股份有限公司拉萨团结路第一证券营业部",
    "东方财富证券股份有限公司拉萨东环路第二证券营业部",
    "财通证券股份有限公司杭州上塘路证券营业部",
    "招商证券股份有限公司深圳蛇口工业三路证券营业部",
    "中国银河证券股份有限公司绍兴证券营业部",
    "开源证券股份有限公司西安西大街证券营业部",
    "国信证券股份有限公司浙江互联网分公司",
)


@dataclass
class Seat:
    branch: str
    buy: float
    sell: float

    @property
    def net(self) -> float:
        return r2(self.buy - self.sell)


@dataclass
class Listing:
    """One (symbol, day, reason) billboard entry with its top-5 buy and sell seats."""

    iss: Issuer
    bar: Bar
    reason: str
    buyers: list[Seat]
    sellers: list[Seat]

    @property
    def seats(self) -> list[Seat]:  # unique seats (one branch sits on both sides)
        seen: dict[str, Seat] = {}
        for s in self.buyers + self.sellers:
            seen.setdefault(s.branch, s)
        return list(seen.values())

    @property
    def l_buy(self) -> float:
        return r2(sum(s.buy for s in self.seats))

    @property
    def l_sell(self) -> float:
        return r2(sum(s.sell for s in self.seats))


def build_listings(bars: dict[str, list[Bar]]) -> list[Listing]:
    out = []
    for code, day, reasons in LHB_EVENTS:
        iss = BY_CODE[code]
        bar = next(b for b in bars[code] if b.day == day)
        for reason in reasons:
            rng = rng_for("lhb", code, day, reason)
            names = rng.sample(BRANCHES, 9)
            up = bar.close >= bar.pre_close
            lead, side, minor = (0.012, 0.045), (0.004, 0.012), (0.0, 0.002)
            total = bar.amount
            buy_range, sell_range = (lead, side) if up else (side, lead)

            def amt(span: tuple[float, float]) -> float:
                return r2(total * rng.uniform(*span))  # noqa: B023 (used in this iteration)

            # names[0] sits among both the top-5 buyers and the top-5 sellers
            buyers = [Seat(n, amt(buy_range), amt(minor)) for n in names[:5]]
            buyers[0] = Seat(names[0], buyers[0].buy, amt(sell_range))
            sellers = [buyers[0]] + [Seat(n, amt(minor), amt(sell_range)) for n in names[5:]]
            buyers.sort(key=lambda s: -s.buy)
            sellers.sort(key=lambda s: -s.sell)
            out.append(Listing(iss, bar, reason, buyers, sellers))
    return out


def tushare_top_list(listings: list[Listing]) -> list[dict]:
    rows = []
    for li in listings:
        b, iss = li.bar, li.iss
        rows.append(
            {
                "trade_date": ymd(b.day),
                "ts_code": iss.ts_code,
                "name": iss.name,
                "close": b.close,
                "pct_change": round(b.pct_chg, 4) + 0.0,
                "turnover_rate": round(b.volume / iss.float_share * 100, 4),
                "amount": b.amount,
                "l_sell": li.l_sell,
                "l_buy": li.l_buy,
                "l_amount": r2(li.l_buy + li.l_sell),
                "net_amount": r2(li.l_buy - li.l_sell),
                "net_rate": round((li.l_buy - li.l_sell) / b.amount * 100, 4),
                "amount_rate": round((li.l_buy + li.l_sell) / b.amount * 100, 4),
                "float_values": r2(b.close * iss.float_share),
                "reason": li.reason,
            }
        )
    return newest_first(rows)


def tushare_top_inst(listings: list[Listing]) -> list[dict]:
    rows = []
    for li in listings:
        amt = li.bar.amount
        for side, seats in (("0", li.buyers), ("1", li.sellers)):
            for s in seats:
                rows.append(
                    {
                        "trade_date": ymd(li.bar.day),
                        "ts_code": li.iss.ts_code,
                        "exalter": s.branch,
                        "side": side,
                        "buy": s.buy,
                        "buy_rate": round(s.buy / amt * 100, 4),
                        "sell": s.sell,
                        "sell_rate": round(s.sell / amt * 100, 4),
                        "net_buy": s.net,
                        "reason": li.reason,
                    }
                )
    return newest_first(rows)


# --------------------------------------------------------------------------- AkShare bars


def em_hist(bars: dict[str, list[Bar]]) -> list[dict]:
    rows = []
    for iss in ISSUERS:
        for b in in_window(bars[iss.ts_code]):
            rows.append(
                {
                    "日期": iso(b.day),
                    "股票代码": iss.code,
                    "开盘": b.open,
                    "收盘": b.close,
                    "最高": b.high,
                    "最低": b.low,
                    "成交量": b.volume // 100,
                    "成交额": b.amount,
                    "振幅": r2((b.high - b.low) / b.pre_close * 100),
                    "涨跌幅": r2(b.pct_chg),
                    "涨跌额": b.change,
                    "换手率": r2(b.volume / iss.float_share * 100),
                }
            )
    return rows


def sina_daily(bars: dict[str, list[Bar]]) -> list[dict]:
    rows = []
    for iss in ISSUERS:
        for b in in_window(bars[iss.ts_code]):
            rows.append(
                {
                    "_symbol": iss.sina,
                    "date": iso(b.day),
                    "open": b.open,
                    "high": b.high,
                    "low": b.low,
                    "close": b.close,
                    "volume": float(b.volume),
                    "amount": b.amount,
                    "outstanding_share": float(iss.float_share),
                    "turnover": b.volume / iss.float_share,
                }
            )
    return rows


def sina_hfq_factor(bars: dict[str, list[Bar]]) -> list[dict]:
    rows = []
    for iss in ISSUERS:
        points = sina_change_points(iss, bars[iss.ts_code])
        for day, f in reversed(points):
            rows.append({"_symbol": iss.sina, "date": day, "hfq_factor": f"{f:.16f}"})
        rows.append({"_symbol": iss.sina, "date": "1900-01-01", "hfq_factor": f"{1.0:.16f}"})
    return rows


def tencent_volume_in_lots(iss: Issuer) -> bool:
    """The AkShare bug: sz000xxx volumes are left in 手 (docs/vendor-reference.md §2.3)."""
    return iss.sina.startswith("sz000")


def tencent_hist(bars: dict[str, list[Bar]]) -> list[dict]:
    rows = []
    for iss in ISSUERS:
        for b in in_window(bars[iss.ts_code]):
            volume = b.volume // 100 if tencent_volume_in_lots(iss) else b.volume
            rows.append(
                {
                    "_symbol": iss.sina,
                    "date": iso(b.day),
                    "open": b.open,
                    "close": b.close,
                    "high": b.high,
                    "low": b.low,
                    "volume": float(volume),
                    "turnover": round(round(b.volume / iss.float_share * 100, 2) / 100, 6),
                    "amount": r2(round(b.amount / 1e4, 2) * 1e4),
                }
            )
    return rows


# --------------------------------------------------------------------------- AkShare statements


def em_statement(kind: str, versions: dict[str, dict[str, list[Version]]]) -> list[dict]:
    names = _line_item_names()
    rows = []
    for iss in ISSUERS:
        for v in versions[iss.ts_code][kind]:
            if not v.em_latest:
                continue  # East Money keeps only its latest version of a period
            st = v.statement
            row: dict = {
                "SECUCODE": iss.ts_code,
                "SECURITY_CODE": iss.code,
                "SECURITY_NAME_ABBR": iss.name,
                "ORG_CODE": iss.org_code,
                "ORG_TYPE": "通用",
                "REPORT_DATE": em_dt(st.period),
                "REPORT_TYPE": EM_REPORT_TYPE[st.period],
                "REPORT_DATE_NAME": EM_REPORT_NAME[st.period],
                "SECURITY_TYPE_CODE": "058001001",
                "NOTICE_DATE": em_dt(v.ann_date),
                "UPDATE_DATE": em_dt(v.em_update),
                "CURRENCY": "CNY",
            }
            for item, value in values_of(st, kind).items():
                em_name = names[item][1] if item in names else EXTRA_NAMES[item][1]
                if em_name is not None:
                    row[em_name] = value
            if kind == "income":
                row["TOTAL_OPERATE_INCOME_YOY"] = st.yoy["revenue"]
            for item, col in YOY_NAMES[kind].items():
                row[col] = st.yoy[item]
            row["OPINION_TYPE"] = "标准无保留意见" if st.period == FY_2024 else None
            row["OSOPINION_TYPE"] = None
            row["LISTING_STATE"] = "0"
            rows.append(row)
    return rows


# --------------------------------------------------------------------------- notices, news


def notice_url(code: str, day: date, n: int) -> str:
    return f"https://data.eastmoney.com/notices/detail/{code}/AN{ymd(day)}{n:08d}.html"


def em_notices() -> list[dict]:
    """Rows as akshare returns them: 公告类型 is East Money's column_name (一季度报告全文, …),
    never the category asked for; the category is the `_symbol` request tag, as the live
    recorder writes it (docs/replay-format.md, "Notice categories")."""
    items: list[tuple[date, Issuer, str, str, str]] = []  # (day, issuer, title, column, category)
    for iss in ISSUERS:
        for period, title, column in (
            (FY_2024, "2024年年度报告", "年度报告全文"),
            (Q1_2025, "2025年第一季度报告", "一季度报告全文"),
        ):
            ann = iss.ann[period]
            if ann is not None and WINDOW_START <= ann <= WINDOW_END:
                items.append((ann, iss, f"{iss.name}{title}", column, "财务报告"))
    code, _, day = CORRECTION
    items.append(
        (day, BY_CODE[code], "关于2025年第一季度报告的更正公告", "定期报告更正", "财务报告")
    )
    items += [
        (
            d("2025-04-10"),
            BY_CODE["600234.SH"],
            "股票交易异常波动公告",
            "股票交易异常波动",
            "风险提示",
        ),
        (
            d("2025-05-11"),
            BY_CODE["000002.SZ"],
            "关于筹划重大事项的停牌公告",
            "停牌公告",
            "重大事项",
        ),
        (
            d("2025-05-14"),
            BY_CODE["000002.SZ"],
            "关于重大事项进展暨股票复牌的公告",
            "复牌公告",
            "重大事项",
        ),
        (
            d("2025-06-05"),
            BY_CODE["000001.SZ"],
            "2024年年度权益分派实施公告",
            "权益分派实施",
            "重大事项",
        ),
        (
            d("2025-06-19"),
            BY_CODE["600519.SH"],
            "2024年年度权益分派实施公告",
            "权益分派实施",
            "重大事项",
        ),
        (
            d("2025-05-29"),
            BY_CODE["601318.SH"],
            "2024年年度股东大会决议公告",
            "股东大会决议",
            "重大事项",
        ),
        (
            d("2025-06-18"),
            BY_CODE["688981.SH"],
            "股票交易异常波动公告",
            "股票交易异常波动",
            "风险提示",
        ),
    ]
    items.sort(key=lambda t: (t[0], ISSUERS.index(t[1]), t[2]), reverse=True)
    return [
        {
            "代码": iss.code,
            "名称": iss.name,
            "公告标题": f"{iss.name}:{title}",
            "公告类型": column,
            "公告日期": iso(day),
            "网址": notice_url(iss.code, day, n),
            "_symbol": category,
        }
        for n, (day, iss, title, column, category) in enumerate(items, start=1)
    ]


SYNTHETIC_MARK = "【合成样本数据，非真实新闻】"
NEWS_SOURCES = ("证券时报网", "中国证券报", "上海证券报", "财联社", "东方财富Choice数据")
# The item carried by both stock_news_em and stock_info_global_em (same title, same time)
DUPLICATE_NEWS = ("300750.SZ", "宁德时代H股今日在港交所挂牌上市", "2025-05-20 09:30:00")
MIDNIGHT_NEWS = (
    ("600519.SH", "贵州茅台：关于2024年年度权益分派相关事项的说明", "2025-06-03 23:59:00"),
    ("600519.SH", "贵州茅台盘后公告汇总", "2025-06-04 00:01:00"),
)
# East Money's search has no hits for this code: stock_news_em raises KeyError('code') for it
# (news_stock.py:72), which is "no news for that symbol", never a failure of the others.
NO_NEWS = "920099.BJ"
UNDATED_NEWS = ("000002.SZ", "万科A：关于公司债务重组进展的投资者问答（无发布时间）", "")


def news_url(stamp: str, n: int) -> str:
    day = stamp[:10].replace("-", "") or "00000000"
    return f"http://finance.eastmoney.com/a/{day}{3400000000 + n}.html"


def em_stock_news() -> list[dict]:
    templates = (  # (title, a day around which the item is stamped)
        ("{name}获融资资金净买入", date(2025, 4, 16)),
        ("{name}：近期经营情况正常，内外部经营环境未发生重大变化", date(2025, 5, 22)),
        ("机构调研：{name}接待投资者调研", date(2025, 6, 12)),
    )
    planted = [DUPLICATE_NEWS, *MIDNIGHT_NEWS, UNDATED_NEWS]
    rows: list[dict] = []
    n = 0
    for iss in ISSUERS:
        if iss.ts_code == NO_NEWS:
            continue
        rng = rng_for("news", iss.ts_code)
        items = []
        for title, around in templates:
            day = around + timedelta(days=rng.randint(-3, 3))
            clock = f"{rng.randint(7, 21):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
            items.append((iss.ts_code, title.format(name=iss.name), f"{day} {clock}"))
        items += [p for p in planted if p[0] == iss.ts_code]
        items.sort(key=lambda it: it[2] or "0", reverse=True)  # newest first, undated last
        for _, title, stamp in items:
            n += 1
            rows.append(
                {
                    "关键词": iss.code,
                    "新闻标题": title,
                    "新闻内容": f"{SYNTHETIC_MARK}{title}。本条为 pitlake 样本数据生成器生成的示例文本。",
                    "发布时间": stamp,
                    "文章来源": rng.choice(NEWS_SOURCES),
                    "新闻链接": news_url(stamp, n),
                }
            )
    return rows


def em_global_news() -> list[dict]:
    items = [
        ("沪深两市成交额连续第三日突破1.2万亿元", "2025-04-03 15:05:00"),
        ("A股三大指数集体低开，上证指数跌逾3%", "2025-04-07 09:25:30"),
        ("多家上市公司发布回购增持计划", "2025-04-08 19:30:00"),
        ("央行：下调存款准备金率0.5个百分点", "2025-05-07 09:00:00"),
        ("北交所：优化新三板挂牌公司转板上市机制", "2025-05-16 17:40:00"),
        (DUPLICATE_NEWS[1], DUPLICATE_NEWS[2]),
        ("一季报收官：A股上市公司营业收入同比小幅增长", "2025-05-02 10:12:00"),
        ("端午假期前最后一个交易日，两市窄幅震荡", "2025-05-30 15:01:00"),
        ("沪指收复3400点", "2025-06-03 15:02:10"),
        ("科创板芯片股午后走强", "2025-06-18 13:45:00"),
        ("上半年最后一个交易日，两市成交额超1.4万亿元", "2025-06-30 15:03:00"),
    ]
    items.sort(key=lambda it: it[1], reverse=True)
    return [
        {
            "标题": title,
            "摘要": f"{SYNTHETIC_MARK}{title}。",
            "发布时间": stamp,
            "链接": f"https://finance.eastmoney.com/a/{stamp[:10].replace('-', '')}{7700000000 + n}.html",
        }
        for n, (title, stamp) in enumerate(items, start=1)
    ]


def em_lhb_detail(listings: list[Listing], bars: dict[str, list[Bar]]) -> list[dict]:
    def after(iss: Issuer, day: date, n: int) -> float | None:
        hist = bars[iss.ts_code]
        i = next(k for k, b in enumerate(hist) if b.day == day)
        if i + n >= len(hist):
            return None  # not yet known when the sample was "recorded" (after 2025-06-30)
        return round((hist[i + n].close / hist[i].close - 1) * 100, 4)

    ordered = sorted(listings, key=lambda li: li.bar.day, reverse=True)
    rows = []
    for n, li in enumerate(ordered, start=1):
        b, iss = li.bar, li.iss
        net = r2(li.l_buy - li.l_sell)
        rows.append(
            {
                "序号": n,
                "代码": iss.code,
                "名称": iss.name,
                "上榜日": iso(b.day),
                "解读": ("1家机构买入，成功率41.38%" if net > 0 else "1家机构卖出，成功率38.12%"),
                "收盘价": b.close,
                "涨跌幅": round(b.pct_chg, 4),
                "龙虎榜净买额": net,
                "龙虎榜买入额": li.l_buy,
                "龙虎榜卖出额": li.l_sell,
                "龙虎榜成交额": r2(li.l_buy + li.l_sell),
                "市场总成交额": b.amount,
                "净买额占总成交比": round(net / b.amount * 100, 4),
                "成交额占总成交比": round((li.l_buy + li.l_sell) / b.amount * 100, 4),
                "换手率": round(b.volume / iss.float_share * 100, 4),
                "流通市值": r2(b.close * iss.float_share),
                "上榜原因": li.reason,
                "上榜后1日": after(iss, b.day, 1),
                "上榜后2日": after(iss, b.day, 2),
                "上榜后5日": after(iss, b.day, 5),
                "上榜后10日": after(iss, b.day, 10),
            }
        )
    return rows


def em_lhb_stock_detail(listings: list[Listing]) -> list[dict]:
    rows = []
    groups: dict[tuple[str, date], list[Listing]] = {}
    for li in listings:
        groups.setdefault((li.iss.code, li.bar.day), []).append(li)
    for (code, day), lis in groups.items():
        for flag in ("买入", "卖出"):
            n = 0
            for li in lis:
                amt = li.bar.amount
                for s in li.buyers if flag == "买入" else li.sellers:
                    n += 1
                    rows.append(
                        {
                            "_symbol": code,
                            "_date": ymd(day),
                            "_flag": flag,
                            "序号": n,
                            "交易营业部名称": s.branch,
                            "买入金额": s.buy,
                            "买入金额-占总成交比例": round(s.buy / amt * 100, 4),
                            "卖出金额": s.sell,
                            "卖出金额-占总成交比例": round(s.sell / amt * 100, 4),
                            "净额": s.net,
                            "类型": li.reason,
                        }
                    )
    return rows


def sina_trade_dates() -> list[dict]:
    return [{"trade_date": iso(x)} for x in sessions_between(SINA_CAL_START, SINA_CAL_END)]


# --------------------------------------------------------------------------- index bars

# Index → (level before the warm-up, typical daily volume in shares, daily volatility).
INDEX_TRUTH: dict[str, tuple[float, float, float]] = {
    "000001.SH": (3300.0, 4.0e10, 0.010),
    "399001.SZ": (10200.0, 5.0e10, 0.013),
    "399006.SZ": (2050.0, 1.6e10, 0.017),
    "000688.SH": (1000.0, 2.5e9, 0.018),
    "000300.SH": (3850.0, 1.4e10, 0.011),
    "000905.SH": (5750.0, 1.1e10, 0.013),
    "000852.SH": (6150.0, 1.5e10, 0.015),
    "000016.SH": (2700.0, 3.5e9, 0.010),
}


def simulate_index(code: str) -> list[Bar]:
    """An index's daily bars over the warm-up and the window (no price limit, no suspension)."""
    assert set(INDEX_TRUTH) == set(INDICES)
    level, typical_volume, sigma = INDEX_TRUTH[code]
    rng = rng_for("index", code)
    out: list[Bar] = []
    prev = level
    for day in sessions_between(WARMUP_START, WINDOW_END):
        noise = [rng.gauss(0, 1) for _ in range(5)]
        close = r2(prev * (1 + noise[0] * sigma))
        open_ = r2(prev * (1 + noise[1] * sigma / 2))
        high = r2(max(open_, close) * (1 + abs(noise[2]) * sigma / 2))
        low = r2(min(open_, close) * (1 - abs(noise[3]) * sigma / 2))
        volume = round(typical_volume * rng.lognormvariate(0, 0.3) / 100) * 100
        amount = float(round(volume * 12.0 * (1 + noise[4] * 0.05)))  # ~12 元 a share
        out.append(Bar(day, open_, high, low, close, prev, volume, amount))
        prev = close
    return out


def tushare_index_daily(index_bars: dict[str, list[Bar]]) -> list[dict]:
    order = {code: n for n, code in enumerate(INDICES)}
    rows = [
        {
            "ts_code": code,
            "trade_date": ymd(b.day),
            "close": b.close,
            "open": b.open,
            "high": b.high,
            "low": b.low,
            "pre_close": b.pre_close,
            "change": b.change,
            "pct_chg": round(b.pct_chg, 4),
            "vol": float(b.volume // 100),
            "amount": round(b.amount / 1000, 3),
        }
        for code in INDICES
        for b in in_window(index_bars[code])
    ]
    return sorted(rows, key=lambda r: (-int(r["trade_date"]), order[r["ts_code"]]))


def sina_index_daily(index_bars: dict[str, list[Bar]]) -> list[dict]:
    rows = []
    for code in INDICES:
        number, exchange = code.split(".")
        for b in in_window(index_bars[code]):
            rows.append(
                {
                    "_symbol": exchange.lower() + number,
                    "date": iso(b.day),
                    "open": b.open,
                    "high": b.high,
                    "low": b.low,
                    "close": b.close,
                    "volume": float(b.volume),
                }
            )
    return rows


# --------------------------------------------------------------------------- main


def generate(root: Path) -> list[Path]:
    """Write DIR/tushare and DIR/akshare; returns the files written."""
    for vendor in ("tushare", "akshare"):
        folder = root / vendor
        if folder.exists():
            for old in [*folder.glob("*.jsonl"), *folder.glob("*.error.json")]:
                old.unlink()
    bars = {iss.ts_code: simulate_bars(iss) for iss in ISSUERS}
    versions = {iss.ts_code: statement_versions(iss) for iss in ISSUERS}
    listings = build_listings(bars)
    index_bars = {code: simulate_index(code) for code in INDICES}
    out = Out(root)

    out.rows("tushare", "daily", tushare_daily(bars))
    out.rows("tushare", "adj_factor", tushare_adj_factor(bars))
    out.rows("tushare", "daily_basic", tushare_daily_basic(bars))
    out.rows("tushare", "income", tushare_statement("income", versions))
    out.rows("tushare", "balancesheet", tushare_statement("balance", versions))
    out.rows("tushare", "cashflow", tushare_statement("cashflow", versions))
    out.rows("tushare", "disclosure_date", tushare_disclosure_date())
    disclosure_schedule_tables.write(out, tushare_disclosure_date(), {i.ts_code: i.name for i in ISSUERS})
    out.rows("tushare", "top_list", tushare_top_list(listings))
    out.rows("tushare", "top_inst", tushare_top_inst(listings))
    out.rows("tushare", "trade_cal", tushare_trade_cal())
    out.rows("tushare", "index_daily", tushare_index_daily(index_bars))
    out.error("tushare", "news", {"error": "permission_denied"})
    out.error("tushare", "major_news", {"error": "permission_denied"})

    out.rows("akshare", "stock_zh_a_hist", em_hist(bars))
    out.rows("akshare", "stock_zh_a_daily", sina_daily(bars))
    out.rows("akshare", "stock_zh_a_daily@hfq-factor", sina_hfq_factor(bars))
    out.rows("akshare", "stock_zh_a_hist_tx", tencent_hist(bars))
    out.rows("akshare", "stock_profit_sheet_by_report_em", em_statement("income", versions))
    out.rows("akshare", "stock_balance_sheet_by_report_em", em_statement("balance", versions))
    out.rows("akshare", "stock_cash_flow_sheet_by_report_em", em_statement("cashflow", versions))
    announcements_tables.write(out, em_notices())  # stock_notice_report and anns_d
    out.rows("akshare", "stock_news_em", em_stock_news())
    out.rows("akshare", "stock_info_global_em", em_global_news())
    out.rows("akshare", "stock_lhb_detail_em", em_lhb_detail(listings, bars))
    out.rows("akshare", "stock_lhb_stock_detail_em", em_lhb_stock_detail(listings))
    out.rows("akshare", "tool_trade_date_hist_sina", sina_trade_dates())
    out.rows("akshare", "stock_zh_index_daily", sina_index_daily(index_bars))
    securities_tables.render(
        out, [(i.ts_code, i.name, parse(i.ts_code).board.value) for i in ISSUERS]
    )
    index_members_tables.render(out)
    limit_pools_tables.render(out, ISSUERS, bars, (WINDOW_START, WINDOW_END))
    new_shares_tables.render(out, securities_tables.LIST_DATES)
    return sorted(p for v in ("tushare", "akshare") for p in (root / v).iterdir())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent,
        help="replay directory to write (default: this sample/ directory)",
    )
    args = ap.parse_args(argv)
    files = generate(args.out)
    total = sum(p.stat().st_size for p in files)
    print(f"wrote {len(files)} files, {total / 1024:.0f} KiB, under {args.out}")


if __name__ == "__main__":
    main()
