"""A synthetic A-share market, written through the real store and catalog: the benchmark lake.

    .venv/bin/python -m benchmarks.synth --out benchmarks/out/synth-lake \
        --symbols 5000 --years 5 --fin-years 20

Why synthetic: the benchmark needs a full-market lake (5,000 symbols, years of sessions, decades
of statements with restatements) on a machine with no vendor access. Every row goes through the
same path as vendor data: canonical columns from `schemas/<dataset>.SCHEMA.columns`, `known_at`
stamped by `pitlake.pit.apply_known_at` (as `pitlake.vendors.base.Adapter.fetch` does), source
'tushare', then `LakeStore.write` and `Catalog.record_ledger`. So the lake has the production
layout, sort order, row groups and version rules.

What is in it (fixed seed, so a run is reproducible):
- symbols across the boards (SH main/STAR, SZ main/ChiNext, BJ), a few ST (±5 %);
- `quotes`: one bar per symbol per XSHG session, a fat-tailed random walk inside the board's
  limit (prices on 0.01 ticks), volume in shares (whole lots), amount in 元, pct_chg against the
  vendor's pre_close (ex-rights reference on ex-dates), turnover in percent;
- `adj_factors`: Tushare-style cumulative factors on every session, stepping up on a few ex-dates
  per symbol per year (dividends, occasional bonus shares), consistent with the raw prices;
- `financials`: income/balance/cashflow, consolidated (report_type '1'), YTD-cumulative flows,
  announcement dates before the statutory deadline (a few late, a few missing), some corrected
  later (a later f_ann_date: basis `revision`) and some restated with no date of their own
  (update_flag '0'/'1' pairs: basis `first_seen`).
The lake is written as one backfill run ingested after the last statutory deadline, a year (or
a report year) per write so memory stays bounded.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from datetime import time as dtime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pitlake.schemas import get as get_schema
from pitlake.schemas.financials import LINE_ITEMS, STATEMENTS, items_for

from pitlake.calendar import XSHG, at_beijing, sessions_between
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore, WriteResult
from pitlake.pit import apply_known_at, statutory_deadline
from pitlake.statuses import LedgerStatus
from pitlake.symbols import ST_LIMIT_ENDS, Board, canonical, parse

DEFAULT_OUT = Path(__file__).resolve().parent / "out" / "synth-lake"
SUMMARY_FILE = "synth.json"
SOURCE = "tushare"
DEFAULT_END = date(2025, 12, 31)
DEFAULT_SEED = 20250601

Log = Callable[[str], None]


# ---------------------------------------------------------------- configuration


@dataclass(frozen=True)
class SynthConfig:
    """Sizes, seed and the rates of the awkward cases (tests raise them to see each case)."""

    out: Path = DEFAULT_OUT
    symbols: int = 5000
    years: int = 5  # calendar years of sessions, ending at `end`
    sessions: int | None = None  # if set: the last N sessions up to `end` (overrides years)
    fin_years: int = 20  # report years of statements, ending at end.year
    end: date = DEFAULT_END
    seed: int = DEFAULT_SEED
    st_rate: float = 0.03  # main-board symbols under ST (±5 %)
    ex_dates_per_year: float = 1.5  # ex-dates per symbol per year
    late_rate: float = 0.005  # reports announced after the statutory deadline
    undated_ann_rate: float = 0.003  # reports with no announcement date at all
    revision_rate: float = 0.02  # statement rows corrected later (f_ann_date > ann_date)
    restatement_rate: float = 0.005  # restated with the same dates (update_flag 0/1 pair)

    @property
    def ingest_at(self) -> datetime:
        """The backfill's instant: after the last statutory deadline of the statements and the
        last session, so every fact is in the past when it is stored."""
        last_deadline = statutory_deadline(last_quarter_end(self.end))
        day = max(last_deadline, self.end) + timedelta(days=8)
        return at_beijing(day, dtime(18, 0))


def last_quarter_end(d: date) -> date:
    for month, day in ((12, 31), (9, 30), (6, 30), (3, 31)):
        if (d.month, d.day) >= (month, day):
            return date(d.year, month, day)
    return date(d.year - 1, 12, 31)


def trading_sessions(cfg: SynthConfig) -> list[date]:
    if cfg.sessions is not None:
        if cfg.sessions < 1:
            raise ValueError("sessions must be >= 1")
        days = sessions_between(cfg.end - timedelta(days=cfg.sessions * 2 + 30), cfg.end)
        return days[-cfg.sessions :]
    if cfg.years < 1:
        raise ValueError("years must be >= 1")
    return sessions_between(date(cfg.end.year - cfg.years + 1, 1, 1), cfg.end)


def report_periods(cfg: SynthConfig) -> list[date]:
    """Quarter ends of the last `fin_years` report years, up to the last one at `end`."""
    if cfg.fin_years < 1:
        raise ValueError("fin_years must be >= 1")
    last = last_quarter_end(cfg.end)
    out = []
    for year in range(last.year - cfg.fin_years + 1, last.year + 1):
        for month, day in ((3, 31), (6, 30), (9, 30), (12, 31)):
            p = date(year, month, day)
            if p <= last:
                out.append(p)
    return out


# ---------------------------------------------------------------- symbols

# (first code, capacity, exchange suffix, weight): roughly the market's mix of boards.
CODE_BLOCKS: tuple[tuple[int, int, str, int], ...] = (
    (600000, 1000, "SH", 700),
    (601000, 1000, "SH", 300),
    (603000, 1000, "SH", 700),
    (688000, 1000, "SH", 580),
    (1, 999, "SZ", 450),  # 000001…000999
    (2001, 999, "SZ", 900),  # 002001…002999
    (300001, 999, "SZ", 950),
    (430000, 1000, "BJ", 40),
    (830000, 10000, "BJ", 150),
    (920000, 1000, "BJ", 100),
)


def _allocate(n: int) -> list[int]:
    """n codes over the blocks by weight, capped at each block's capacity (largest remainder)."""
    capacity = np.array([b[1] for b in CODE_BLOCKS])
    if n > capacity.sum():
        raise ValueError(f"at most {capacity.sum()} symbols")
    counts = np.zeros(len(CODE_BLOCKS), dtype=int)
    open_ = np.ones(len(CODE_BLOCKS), dtype=bool)
    while counts.sum() < n:
        left = n - counts.sum()
        weights = np.array([b[3] for b in CODE_BLOCKS], dtype=float) * open_
        share = weights / weights.sum() * left
        add = np.floor(share).astype(int)
        order = np.argsort(-(share - add), kind="stable")
        add[order[: left - add.sum()]] += 1
        counts = np.minimum(counts + add, capacity)
        open_ = counts < capacity
    return counts.tolist()


def make_symbols(n: int, rng: np.random.Generator) -> list[str]:
    """n distinct canonical codes across the boards, validated by pitlake.symbols."""
    out: list[str] = []
    for (first, cap, suffix, _), count in zip(CODE_BLOCKS, _allocate(n), strict=True):
        picks = np.sort(rng.choice(cap, size=count, replace=False)) + first
        out += [canonical(f"{code:06d}.{suffix}") for code in picks]
    return sorted(out)


# ---------------------------------------------------------------- quotes and factors

QUOTE_COLUMNS = get_schema("quotes").columns
FACTOR_COLUMNS = get_schema("adj_factors").columns
BOARD_VOL = {Board.MAIN: 1.0, Board.STAR: 1.3, Board.CHINEXT: 1.3, Board.BSE: 1.5, Board.B: 1.0}


def _stamp(dataset: str, frame: pd.DataFrame, fetched_at: datetime) -> pd.DataFrame:
    """What an adapter hands the store: canonical columns, known_at by the dataset's rule,
    the serving vendor (pitlake.vendors.base.Adapter.fetch)."""
    schema = get_schema(dataset)
    frame = frame.reindex(columns=schema.columns)
    frame = apply_known_at(schema.known_at, frame, fetched_at)
    frame["source"] = SOURCE
    return frame


@dataclass
class MarketWalk:
    """Per-symbol price state carried from one chunk of sessions to the next."""

    symbols: np.ndarray
    rng: np.random.Generator
    ex_dates_per_year: float = 1.5
    st_rate: float = 0.03
    close: np.ndarray = field(init=False)
    factor: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n, rng = len(self.symbols), self.rng
        parsed = [parse(s) for s in self.symbols]
        main = np.array([p.board is Board.MAIN for p in parsed])
        self.is_st = main & (rng.random(n) < self.st_rate)
        self._limits = {
            flag: np.array(
                [
                    p.price_limit(on, is_st=bool(st))
                    for p, st in zip(parsed, self.is_st, strict=True)
                ]
            )
            for flag, on in ((False, date(2000, 1, 1)), (True, date(2100, 1, 1)))
        }
        board_vol = np.array([BOARD_VOL[p.board] for p in parsed])
        self.sigma = rng.uniform(0.012, 0.03, n) * board_vol
        self.close = np.round(np.exp(rng.normal(np.log(14.0), 0.75, n)).clip(2.0, 600.0), 2)
        self.factor = np.round(np.exp(rng.uniform(0.0, 1.6, n)), 3)
        self.anchor = np.log(self.close * self.factor)
        self.float_shares = np.exp(rng.normal(np.log(4e8), 1.0, n)).clip(2e7, 3e10)
        self.turnover = np.exp(rng.normal(np.log(0.012), 0.6, n))  # daily fraction of float

    def _limit(self, d: date) -> np.ndarray:
        return self._limits[d >= ST_LIMIT_ENDS]

    def chunk(self, sessions: Sequence[date]) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Bars and factors for consecutive sessions: arrays shaped (sessions, symbols)."""
        n, rng = len(self.symbols), self.rng
        shape = (len(sessions), n)
        cols = {c: np.empty(shape) for c in ("open", "high", "low", "close", "pre_close")}
        cols.update({c: np.empty(shape) for c in ("volume", "amount", "pct_chg", "turnover_rate")})
        factors = np.empty(shape)
        p_ex = self.ex_dates_per_year / 242.0
        for i, d in enumerate(sessions):
            prev = self.close
            pre = prev.copy()
            ex = rng.random(n) < p_ex
            if ex.any():
                k = int(ex.sum())
                dividend = prev[ex] * rng.uniform(0.002, 0.03, k)
                bonus = np.where(rng.random(k) < 0.12, rng.choice([0.2, 0.3, 0.5, 1.0], k), 0.0)
                pre[ex] = np.maximum(np.round((prev[ex] - dividend) / (1.0 + bonus), 2), 0.01)
                self.factor[ex] = np.round(self.factor[ex] * prev[ex] / pre[ex], 3)
            lim = self._limit(d)
            up = np.round(pre * (1.0 + lim), 2)
            dn = np.maximum(np.round(pre * (1.0 - lim), 2), 0.01)
            drift = -0.004 * (np.log(pre * self.factor) - self.anchor)
            ret = drift + self.sigma * rng.standard_t(4, n) / np.sqrt(2.0)
            close = np.clip(np.round(pre * (1.0 + ret), 2), dn, up)
            open_ = np.clip(np.round(pre * (1.0 + rng.normal(0, 0.4, n) * self.sigma), 2), dn, up)
            hi_body, lo_body = np.maximum(open_, close), np.minimum(open_, close)
            high = np.clip(
                np.round(hi_body * (1 + np.abs(rng.normal(0, 0.5, n)) * self.sigma), 2), hi_body, up
            )
            low = np.clip(
                np.round(lo_body * (1 - np.abs(rng.normal(0, 0.5, n)) * self.sigma), 2), dn, lo_body
            )
            move = np.abs(close / pre - 1.0)
            lots = (
                self.turnover * self.float_shares * np.exp(rng.normal(0, 0.4, n)) * (1 + 8 * move)
            )
            volume = np.maximum(np.round(lots / 100.0), 1.0) * 100.0
            vwap = low + (high - low) * rng.uniform(0.3, 0.7, n)
            cols["open"][i], cols["high"][i], cols["low"][i], cols["close"][i] = (
                open_,
                high,
                low,
                close,
            )
            cols["pre_close"][i] = pre
            cols["volume"][i] = volume
            cols["amount"][i] = np.round(volume * vwap, 0)
            cols["pct_chg"][i] = np.round((close / pre - 1.0) * 100.0, 4)
            cols["turnover_rate"][i] = np.round(volume / self.float_shares * 100.0, 4)
            factors[i] = self.factor
            self.close = close
        return cols, factors


def quote_frames(
    walk: MarketWalk, sessions: Sequence[date], fetched_at: datetime
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Canonical, stamped quotes and adj_factors for consecutive sessions."""
    cols, factors = walk.chunk(sessions)
    n = len(walk.symbols)
    symbol = np.tile(walk.symbols, len(sessions))
    trade_date = np.repeat(np.array(list(sessions), dtype=object), n)
    quotes = pd.DataFrame({"symbol": symbol, "trade_date": trade_date})
    for c in QUOTE_COLUMNS[2:]:
        quotes[c] = cols[c].ravel()
    adj = pd.DataFrame({"symbol": symbol, "trade_date": trade_date, "adj_factor": factors.ravel()})
    return _stamp("quotes", quotes, fetched_at), _stamp("adj_factors", adj, fetched_at)


# ---------------------------------------------------------------- financials

# Cumulative share of the year's flows by quarter (YTD statements).
YTD_SHARE = np.array([0.22, 0.47, 0.72, 1.0])
# Days before the statutory deadline over which a quarter's reports spread.
ANNOUNCE_SPREAD = np.array([24, 50, 24, 105])
EXTRA_JSON = [f'{{"comp_type": "1", "end_type": "{q}"}}' for q in range(1, 5)]


@dataclass
class Companies:
    """Per-symbol business profile: scale, growth, margins, leverage; fixed for the run."""

    symbols: np.ndarray
    periods: list[date]
    rng: np.random.Generator

    def __post_init__(self) -> None:
        n, rng = len(self.symbols), self.rng
        years = sorted({p.year for p in self.periods})
        self.first_year = years[0]
        growth = rng.normal(0.08, 0.06, n)[:, None] + rng.normal(0, 0.12, (n, len(years)))
        base = np.exp(rng.normal(np.log(2.5e9), 1.3, n))
        self.revenue = base[:, None] * np.exp(np.cumsum(growth, axis=1))  # annual, by year
        self.gross_margin = rng.uniform(0.1, 0.6, n)
        self.opex = rng.uniform(0.04, 0.3, n)
        self.parent_share = rng.uniform(0.85, 1.0, n)
        self.shares = np.exp(rng.normal(np.log(8e8), 1.0, n))
        self.asset_turnover = rng.uniform(0.3, 2.5, n)
        self.leverage = rng.uniform(0.15, 0.85, n)
        self.cash_share = rng.uniform(0.04, 0.25, n)
        self.current_share = rng.uniform(0.3, 0.75, n)
        self.no_current_split = rng.random(n) < 0.02  # banks and insurers
        # Listing: most have the whole history, the rest start later (newer boards later still).
        floor = np.array([_board_floor(s) for s in self.symbols])
        start = np.where(
            rng.random(n) < 0.6, self.first_year, rng.integers(self.first_year, years[-1] + 1, n)
        )
        self.first_report_year = np.maximum(start, floor)


def _board_floor(symbol: str) -> int:
    board = parse(symbol).board
    return {Board.STAR: 2017, Board.BSE: 2013}.get(board, 0)


def _session_index(cfg: SynthConfig) -> np.ndarray:
    first = date(report_periods(cfg)[0].year, 1, 1)
    last = min(cfg.ingest_at.date(), XSHG.last)
    return np.array(sessions_between(first, last), dtype="datetime64[D]")


def _last_public_day(cfg: SynthConfig) -> np.datetime64:
    """The last announcement day the backfill can hold: the day before it ran."""
    return np.datetime64(cfg.ingest_at.date() - timedelta(days=1), "D")


def _on_or_before(days: np.ndarray, sessions: np.ndarray) -> np.ndarray:
    """Each day moved back to the latest session on or before it."""
    i = np.searchsorted(sessions, days, side="right") - 1
    return sessions[np.clip(i, 0, len(sessions) - 1)]


def _statement_values(
    co: Companies, sym: np.ndarray, period: np.ndarray, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Every canonical line item for (symbol index, period index) rows, in 元."""
    m = len(sym)
    periods = np.array(co.periods, dtype="datetime64[D]")[period]
    year = periods.astype("datetime64[Y]").astype(int) + 1970
    quarter = (periods.astype("datetime64[M]").astype(int) % 12) // 3
    annual = co.revenue[sym, year - co.first_year]
    ytd = annual * YTD_SHARE[quarter] * np.where(quarter < 3, 1 + rng.normal(0, 0.03, m), 1.0)
    v: dict[str, np.ndarray] = {}
    v["total_revenue"] = ytd
    v["revenue"] = ytd * np.where(rng.random(m) < 0.8, 1.0, rng.uniform(0.95, 1.0, m))
    gm = np.clip(co.gross_margin[sym] + rng.normal(0, 0.02, m), 0.0, 0.95)
    v["operating_cost"] = v["revenue"] * (1.0 - gm)
    v["operating_profit"] = v["revenue"] * (gm - co.opex[sym] + rng.normal(0, 0.03, m))
    v["total_profit"] = v["operating_profit"] + v["revenue"] * rng.normal(0, 0.005, m)
    v["income_tax"] = np.maximum(v["total_profit"], 0.0) * rng.uniform(0.12, 0.25, m)
    v["net_profit"] = v["total_profit"] - v["income_tax"]
    v["net_profit_parent"] = v["net_profit"] * co.parent_share[sym]
    eps = v["net_profit_parent"] / co.shares[sym]
    v["eps_basic"] = np.round(eps, 4)
    v["eps_diluted"] = np.round(eps * rng.uniform(0.97, 1.0, m), 4)
    assets = annual * co.asset_turnover[sym] * (1 + rng.normal(0, 0.03, m))
    v["total_assets"] = assets
    v["total_liabilities"] = assets * np.clip(co.leverage[sym] + rng.normal(0, 0.02, m), 0.05, 0.95)
    v["total_equity"] = assets - v["total_liabilities"]
    v["equity_parent"] = v["total_equity"] * co.parent_share[sym]
    v["cash"] = assets * co.cash_share[sym] * rng.uniform(0.8, 1.2, m)
    split = ~co.no_current_split[sym]
    v["current_assets"] = np.where(split, assets * co.current_share[sym], np.nan)
    v["current_liabilities"] = np.where(split, v["total_liabilities"] * 0.7, np.nan)
    v["operating_cost"] = np.where(split, v["operating_cost"], np.nan)
    v["net_cash_operating"] = v["net_profit"] * rng.uniform(0.3, 1.6, m)
    v["net_cash_investing"] = -ytd * rng.uniform(0.02, 0.15, m)
    v["net_cash_financing"] = ytd * rng.normal(0, 0.05, m)
    v["net_cash_change"] = (
        v["net_cash_operating"] + v["net_cash_investing"] + v["net_cash_financing"]
    ) + ytd * rng.normal(0, 0.001, m)
    return {k: (x if k.startswith("eps") else np.round(x, 2)) for k, x in v.items()}


def financial_frame(
    cfg: SynthConfig,
    co: Companies,
    year: int,
    sessions: np.ndarray,
    rng: np.random.Generator,
    fetched_at: datetime,
) -> pd.DataFrame:
    """Canonical, stamped statement versions for the report periods of one year."""
    pidx = np.array([i for i, p in enumerate(co.periods) if p.year == year])
    active = co.first_report_year <= year
    sym = np.repeat(np.flatnonzero(active), len(pidx))
    period = np.tile(pidx, int(active.sum()))
    m = len(sym)
    if m == 0:
        columns = [*get_schema("financials").columns, "known_at", "known_at_basis", "source"]
        return pd.DataFrame(columns=columns)
    periods = np.array(co.periods, dtype="datetime64[D]")[period]
    quarter = (periods.astype("datetime64[M]").astype(int) % 12) // 3
    deadline = np.array([statutory_deadline(p) for p in co.periods], dtype="datetime64[D]")[period]
    early = np.minimum(rng.exponential(ANNOUNCE_SPREAD[quarter] / 3.0), ANNOUNCE_SPREAD[quarter])
    ann = deadline - early.astype("timedelta64[D]")
    late = rng.random(m) < cfg.late_rate
    ann = np.where(late, deadline + rng.integers(1, 60, m).astype("timedelta64[D]"), ann)
    ann = _on_or_before(ann, sessions)
    ann = np.minimum(ann, _last_public_day(cfg))
    dated = rng.random(m) >= cfg.undated_ann_rate
    values = _statement_values(co, sym, period, rng)
    frames = [
        _statement_rows(cfg, st, co, sym, periods, quarter, ann, dated, values, sessions, rng)
        for st in STATEMENTS
    ]
    frame = pd.concat(frames, ignore_index=True)
    return _stamp("financials", frame, fetched_at)


def _statement_rows(
    cfg: SynthConfig,
    statement: str,
    co: Companies,
    sym: np.ndarray,
    periods: np.ndarray,
    quarter: np.ndarray,
    ann: np.ndarray,
    dated: np.ndarray,
    values: dict[str, np.ndarray],
    sessions: np.ndarray,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """One statement's rows: the original versions, plus later corrections (a later
    f_ann_date) and undated restatements (same dates, update_flag '0' → '1')."""
    m = len(sym)
    items = items_for(statement)
    draw = rng.random(m)
    revised = dated & (draw < cfg.revision_rate)
    restated = dated & ~revised & (draw < cfg.revision_rate + cfg.restatement_rate)
    rev_day = _on_or_before(ann + rng.integers(15, 400, m).astype("timedelta64[D]"), sessions)
    revised &= (rev_day > ann) & (rev_day <= _last_public_day(cfg))

    def rows(mask: np.ndarray, rev: np.ndarray, flag: str, perturb: bool) -> pd.DataFrame:
        k = int(mask.sum())
        nat = np.datetime64("NaT", "D")
        f = pd.DataFrame(
            {
                "symbol": co.symbols[sym[mask]],
                "statement": statement,
                "report_period": periods[mask].astype(object),
                "report_type": "1",
                "ann_date": np.where(dated[mask], ann[mask], nat).astype(object),
                "revision_date": np.where(dated[mask], rev[mask], nat).astype(object),
                "update_flag": flag,
                "undated_revision": False,
            }
        )
        for item in LINE_ITEMS:
            if item in items:
                x = values[item][mask]
                if perturb:
                    x = np.round(
                        x * (1 + rng.normal(0, 0.02, k)), 4 if item.startswith("eps") else 2
                    )
                f[item] = x
            else:
                f[item] = np.nan
        f["extra"] = np.array(EXTRA_JSON, dtype=object)[quarter[mask]]
        return f

    base = rows(np.ones(m, dtype=bool), ann, "1", perturb=False)
    base.loc[revised | restated, "update_flag"] = "0"
    corrected = rows(revised, rev_day, "1", perturb=True)
    again = rows(restated, ann, "1", perturb=True)
    again["undated_revision"] = True
    return pd.concat([base, corrected, again], ignore_index=True)


# ---------------------------------------------------------------- the run


@dataclass
class Summary:
    config: dict[str, Any]
    run_id: str
    symbols: list[str]
    first_session: str
    last_session: str
    sessions: int
    report_periods: int
    rows: dict[str, int] = field(default_factory=dict)
    timings_s: dict[str, float] = field(default_factory=dict)
    ledger_entries: int = 0
    peak_rss_mib: float = 0.0
    size_bytes: dict[str, int] = field(default_factory=dict)


def lake_size(root: Path) -> dict[str, int]:
    """Bytes on disk per curated dataset, plus the catalog."""
    out: dict[str, int] = {}
    curated = root / "curated"
    if curated.is_dir():
        for d in sorted(curated.iterdir()):
            out[d.name] = sum(p.stat().st_size for p in d.rglob("*.parquet"))
    out["catalog"] = sum(p.stat().st_size for p in root.glob("catalog.db*"))
    return out


def _prepare_out(out: Path, force: bool) -> None:
    if out.exists() and any(out.iterdir()):
        looks_like_lake = (out / SUMMARY_FILE).exists() or (out / "curated").is_dir()
        if not force:
            raise SystemExit(f"{out} is not empty; pass --force to replace it")
        if not looks_like_lake:
            raise SystemExit(f"{out} does not look like a synthetic lake; refusing to delete it")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


def _chunks_by_year(days: Sequence[date]) -> Iterator[list[date]]:
    chunk: list[date] = []
    for d in days:
        if chunk and d.year != chunk[0].year:
            yield chunk
            chunk = []
        chunk.append(d)
    if chunk:
        yield chunk


class _Clock:
    """Ingestion instants for successive writes of the backfill: distinct and increasing."""

    def __init__(self, start: datetime) -> None:
        self.at = start

    def tick(self) -> datetime:
        self.at = self.at + timedelta(seconds=1)
        return self.at


def _trace(rows: int) -> list[dict[str, Any]]:
    from pitlake.vendors.router import VendorAttempt

    return [VendorAttempt(SOURCE, LedgerStatus.OK, attempts=1, rows=rows).to_dict()]


def _record_files(catalog: Catalog, result: WriteResult, run_id: str, at: datetime) -> None:
    for p in result.partitions:
        if p.value in result.written:
            catalog.record_partition_file(
                result.dataset, p.value, p.path, p.rows, p.sha256, run_id=run_id, at=at
            )


def generate(cfg: SynthConfig, *, force: bool = False, log: Log = print) -> Summary:
    """Build the lake under cfg.out; returns what was written and how long each phase took."""
    t_all = time.perf_counter()
    out = Path(cfg.out)
    _prepare_out(out, force)
    days = trading_sessions(cfg)
    periods = report_periods(cfg)
    symbols = np.array(
        make_symbols(cfg.symbols, np.random.default_rng([cfg.seed, 1])), dtype=object
    )
    run_id = f"synth-{cfg.seed}"
    store = LakeStore(out)
    catalog = Catalog(f"sqlite:///{out.resolve() / 'catalog.db'}")
    clock = _Clock(cfg.ingest_at)
    summary = Summary(
        config={k: (str(v) if isinstance(v, Path | date) else v) for k, v in asdict(cfg).items()},
        run_id=run_id,
        symbols=symbols.tolist(),
        first_session=days[0].isoformat(),
        last_session=days[-1].isoformat(),
        sessions=len(days),
        report_periods=len(periods),
    )
    t = summary.timings_s
    for k in ("generate_quotes", "write_quotes", "write_adj_factors", "generate_financials"):
        t[k] = 0.0
    t.update(write_financials=0.0, ledger=0.0)
    catalog.start_run(run_id, "synth", summary.config, started_at=cfg.ingest_at)
    log(
        f"synth: {len(symbols):,} symbols × {len(days):,} sessions ({days[0]}…{days[-1]}), "
        f"{len(periods)} report periods, ingested {cfg.ingest_at.isoformat()} → {out}"
    )

    walk = MarketWalk(
        symbols,
        np.random.default_rng([cfg.seed, 2]),
        ex_dates_per_year=cfg.ex_dates_per_year,
        st_rate=cfg.st_rate,
    )
    for chunk in _chunks_by_year(days):
        at = clock.tick()
        t0 = time.perf_counter()
        quotes, factors = quote_frames(walk, chunk, at)
        t1 = time.perf_counter()
        rq = store.write("quotes", quotes, run_id=run_id, ingested_at=at)
        t2 = time.perf_counter()
        at_f = clock.tick()
        rf = store.write("adj_factors", factors, run_id=run_id, ingested_at=at_f)
        t3 = time.perf_counter()
        _record_files(catalog, rq, run_id, at)
        _record_files(catalog, rf, run_id, at_f)
        for d in chunk:
            for dataset, stamp in (("quotes", at), ("adj_factors", at_f)):
                catalog.record_ledger(
                    dataset,
                    d,
                    LedgerStatus.OK,
                    rows=len(symbols),
                    vendor=SOURCE,
                    trace=_trace(len(symbols)),
                    run_id=run_id,
                    at=stamp,
                )
                summary.ledger_entries += 1
        t4 = time.perf_counter()
        t["generate_quotes"] += t1 - t0
        t["write_quotes"] += t2 - t1
        t["write_adj_factors"] += t3 - t2
        t["ledger"] += t4 - t3
        summary.rows["quotes"] = summary.rows.get("quotes", 0) + rq.rows_added
        summary.rows["adj_factors"] = summary.rows.get("adj_factors", 0) + rf.rows_added
        log(
            f"  {chunk[0].year} quotes+factors: {len(quotes):,} rows each; generate "
            f"{t1 - t0:.1f}s, write quotes {t2 - t1:.1f}s, factors {t3 - t2:.1f}s, "
            f"ledger ({2 * len(chunk)} entries) {t4 - t3:.1f}s"
        )
        del quotes, factors

    companies = Companies(symbols, periods, np.random.default_rng([cfg.seed, 4]))
    sessions_ix = _session_index(cfg)
    for year in sorted({p.year for p in periods}):
        at = clock.tick()
        t0 = time.perf_counter()
        # One stream per report year: a change in one year leaves the others' draws alone.
        year_rng = np.random.default_rng([cfg.seed, 3, year])
        frame = financial_frame(cfg, companies, year, sessions_ix, year_rng, at)
        t1 = time.perf_counter()
        result = store.write("financials", frame, run_id=run_id, ingested_at=at)
        t2 = time.perf_counter()
        _record_files(catalog, result, run_id, at)
        for p in (p for p in periods if p.year == year):
            count = int((frame["report_period"] == p).sum())
            catalog.record_ledger(
                "financials",
                p,
                LedgerStatus.OK if count else LedgerStatus.NO_DATA,
                rows=count,
                vendor=SOURCE,
                trace=_trace(count),
                run_id=run_id,
                at=at,
            )
            summary.ledger_entries += 1
        t3 = time.perf_counter()
        t["generate_financials"] += t1 - t0
        t["write_financials"] += t2 - t1
        t["ledger"] += t3 - t2
        summary.rows["financials"] = summary.rows.get("financials", 0) + result.rows_added
        bases = frame["known_at_basis"].value_counts().to_dict()
        log(
            f"  {year} financials: {len(frame):,} rows ({', '.join(f'{k} {v}' for k, v in sorted(bases.items()))}); "
            f"generate {t1 - t0:.1f}s, write {t2 - t1:.1f}s"
        )
        del frame

    t["total"] = time.perf_counter() - t_all
    summary.peak_rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    summary.size_bytes = lake_size(out)
    catalog.finish_run(
        run_id,
        "COMPLETED",
        {"rows": summary.rows, "timings_s": t},
        ended_at=clock.tick(),
    )
    catalog.close()
    (out / SUMMARY_FILE).write_text(json.dumps(asdict(summary), indent=2) + "\n")
    log(
        f"synth: done in {t['total']:.1f}s (peak RSS {summary.peak_rss_mib:,.0f} MiB); rows "
        + ", ".join(f"{k} {v:,}" for k, v in summary.rows.items())
        + f"; {sum(summary.size_bytes.values()) / 2**20:,.1f} MiB on disk"
    )
    return summary


def read_summary(root: Path) -> dict[str, Any]:
    return json.loads((Path(root) / SUMMARY_FILE).read_text())


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--symbols", type=int, default=5000)
    ap.add_argument("--years", type=int, default=5, help="calendar years of sessions")
    ap.add_argument("--sessions", type=int, default=None, help="the last N sessions instead")
    ap.add_argument("--fin-years", type=int, default=20, help="report years of statements")
    ap.add_argument("--end", type=date.fromisoformat, default=DEFAULT_END)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--force", action="store_true", help="replace an existing synthetic lake")
    args = ap.parse_args(argv)
    cfg = SynthConfig(
        out=args.out,
        symbols=args.symbols,
        years=args.years,
        sessions=args.sessions,
        fin_years=args.fin_years,
        end=args.end,
        seed=args.seed,
    )
    generate(cfg, force=args.force, log=lambda s: print(s, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
