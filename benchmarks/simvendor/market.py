"""A synthetic A-share market whose every value is a pure function of (seed, symbol, date).

Why pure functions rather than a stored random walk: the simulated vendor answers any
(endpoint, date) or (endpoint, symbol) call on the fly, in any order, from any process, and a
rerun must see identical data. Values come from a 64-bit mix of (seed, symbol index, day
ordinal, field); prices follow slow sine waves so day-to-day moves stay inside the price limit.
Frames are Tushare-native (field names and units as the vendor sends them: vol in lots,
amount in 千元, shares in 万股, market values in 万元, dates 'YYYYMMDD' text).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from functools import cached_property

import numpy as np
import pandas as pd

from benchmarks.synth import make_symbols
from pitlake.calendar import previous_session, sessions_between
from pitlake.pit import statutory_deadline
from pitlake.vendors.tushare.fetch import required_columns
from pitlake.vendors.tushare.fetchers.dragon_tiger import TOP_LIST
from pitlake.vendors.tushare.fetchers.valuation import SPEC as VALUATION_SPEC

EPOCH = date(1990, 1, 1)
HISTORY_START = date(2000, 1, 1)  # symbols listed after this get a list date inside it
QUARTER_ENDS = ((3, 31), (6, 30), (9, 30), (12, 31))
_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(*parts: np.ndarray | int) -> np.ndarray:
    """splitmix64 over the parts → uniform floats in [0, 1) (vectorised, deterministic)."""
    x = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        for p in parts:
            x = (x ^ np.asarray(p, dtype=np.uint64)) * np.uint64(0xBF58476D1CE4E5B9)
            x = x ^ (x >> np.uint64(31))
            x = x * np.uint64(0x94D049BB133111EB)
            x = x ^ (x >> np.uint64(29))
    return (x >> np.uint64(11)).astype(np.float64) / float(2**53)


def ymd(d: date) -> str:
    return d.strftime("%Y%m%d")


def parse_ymd(text: str) -> date:
    return date(int(text[:4]), int(text[4:6]), int(text[6:8]))


def quarter_ends(lo: date, hi: date) -> list[date]:
    out = []
    for y in range(lo.year, hi.year + 1):
        out += [date(y, m, d) for m, d in QUARTER_ENDS if lo <= date(y, m, d) <= hi]
    return out


@dataclass(frozen=True)
class SimMarket:
    """`n_symbols` symbols across the boards; data for any session from HISTORY_START on."""

    n_symbols: int = 5300
    seed: int = 20250601
    top_list_per_day: int = 60

    @cached_property
    def symbols(self) -> list[str]:
        return make_symbols(self.n_symbols, np.random.default_rng(self.seed))

    @cached_property
    def _idx(self) -> np.ndarray:
        return np.arange(self.n_symbols, dtype=np.uint64)

    @cached_property
    def _code_of(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.symbols)}

    @cached_property
    def list_ord(self) -> np.ndarray:
        """Listing day ordinal per symbol: 60 % listed before 2000, the rest spread to 2025."""
        u = _mix(self.seed, self._idx, 1)
        span = (date(2025, 6, 30) - HISTORY_START).days
        late = HISTORY_START.toordinal() + ((u - 0.6) / 0.4 * span).astype(np.int64)
        return np.where(u < 0.6, EPOCH.toordinal(), late)

    def listed_mask(self, d: date) -> np.ndarray:
        return self.list_ord <= d.toordinal()

    # ------------------------------------------------------------ prices

    def _close(self, idx: np.ndarray, d: date) -> np.ndarray:
        base = 3.0 + 60.0 * _mix(self.seed, idx, 2)
        period = 250.0 + 500.0 * _mix(self.seed, idx, 3)
        phase = 6.283 * _mix(self.seed, idx, 4)
        t = float(d.toordinal())
        drift = 0.35 * np.sin(6.283 * t / period + phase)
        noise = 0.01 * (_mix(self.seed, idx, d.toordinal(), 5) - 0.5)
        return np.round(base * np.exp(drift) * (1 + noise), 2)

    def daily(self, d: date) -> pd.DataFrame:
        idx = self._idx[self.listed_mask(d)]
        close = self._close(idx, d)
        pre = self._close(idx, previous_session(d))
        k = d.toordinal()
        open_ = np.round(pre * (1 + 0.01 * (_mix(self.seed, idx, k, 6) - 0.5)), 2)
        high = np.round(np.maximum(open_, close) * (1 + 0.005 * _mix(self.seed, idx, k, 7)), 2)
        low = np.round(np.minimum(open_, close) * (1 - 0.005 * _mix(self.seed, idx, k, 8)), 2)
        low = np.maximum(low, 0.01)
        vol = np.round(1_000 + 100_000 * _mix(self.seed, idx, k, 9), 0)  # lots
        amount = np.round(vol * 100 * (open_ + close) / 2 / 1000, 3)  # 千元
        return pd.DataFrame(
            {
                "ts_code": [self.symbols[i] for i in idx],
                "trade_date": ymd(d),
                "open": open_,
                "high": high,
                "low": low,
                "close": close,
                "pre_close": pre,
                "change": np.round(close - pre, 2),
                "pct_chg": np.round((close / pre - 1) * 100, 4),
                "vol": vol,
                "amount": amount,
            }
        )

    def adj_factor(self, d: date) -> pd.DataFrame:
        """Cumulative factor: ×1.02 on one ex-date a year per symbol (day-of-year fixed)."""
        idx = self._idx[self.listed_mask(d)]
        doy = 120 + (120 * _mix(self.seed, idx, 10)).astype(np.int64)
        steps = (d.year - 1990) + (d.timetuple().tm_yday >= doy)
        return pd.DataFrame(
            {
                "ts_code": [self.symbols[i] for i in idx],
                "trade_date": ymd(d),
                "adj_factor": np.round(1.02**steps, 4),
            }
        )

    def daily_basic(self, d: date) -> pd.DataFrame:
        idx = self._idx[self.listed_mask(d)]
        close = self._close(idx, d)
        k = d.toordinal()
        total_share = np.round(10_000 + 500_000 * _mix(self.seed, idx, 11), 2)  # 万股
        float_share = np.round(total_share * (0.3 + 0.7 * _mix(self.seed, idx, 12)), 2)
        out = pd.DataFrame({"ts_code": [self.symbols[i] for i in idx], "trade_date": ymd(d)})
        out["close"] = close
        for j, col in enumerate(VALUATION_SPEC.vendor_columns):
            if col not in out.columns:
                out[col] = np.round(50 * _mix(self.seed, idx, k, 20 + j), 4)
        out["total_share"] = total_share
        out["float_share"] = float_share
        out["free_share"] = np.round(float_share * 0.8, 2)
        out["total_mv"] = np.round(close * total_share, 2)  # 万元
        out["circ_mv"] = np.round(close * float_share, 2)
        return out

    def top_list(self, d: date) -> pd.DataFrame:
        quotes = self.daily(d)
        pick = _mix(self.seed, np.arange(len(quotes), dtype=np.uint64), d.toordinal(), 13)
        rows = quotes[pick < self.top_list_per_day / max(len(quotes), 1)]
        amount_wan = rows["amount"].to_numpy() / 10  # 千元 → 万元
        return pd.DataFrame(
            {
                "ts_code": rows["ts_code"].to_numpy(),
                "trade_date": ymd(d),
                "name": "SIM" + rows["ts_code"].str[:6].to_numpy(),
                "close": rows["close"].to_numpy(),
                "pct_change": rows["pct_chg"].to_numpy(),
                "turnover_rate": 5.0,
                "amount": np.round(amount_wan * 1e4, 2),  # 元
                "l_sell": np.round(amount_wan * 2e3, 2),
                "l_buy": np.round(amount_wan * 3e3, 2),
                "l_amount": np.round(amount_wan * 5e3, 2),
                "net_amount": np.round(amount_wan * 1e3, 2),
                "net_rate": 1.0,
                "amount_rate": 10.0,
                "float_values": np.round(amount_wan * 1e6, 2),
                "reason": "日涨幅偏离值达到7%的前5只证券",
            }
        )[[*required_columns()[TOP_LIST], "net_rate", "amount_rate"]]

    def top_inst(self, d: date) -> pd.DataFrame:
        tl = self.top_list(d)
        parts = []
        for side in ("0", "1"):
            for seat in range(2):
                parts.append(
                    pd.DataFrame(
                        {
                            "trade_date": tl["trade_date"],
                            "ts_code": tl["ts_code"],
                            "exalter": f"模拟证券营业部{side}{seat}",
                            "side": side,
                            "buy": tl["l_buy"] / 10,
                            "sell": tl["l_sell"] / 10,
                            "net_buy": (tl["l_buy"] - tl["l_sell"]) / 10,
                            "reason": tl["reason"],
                        }
                    )
                )
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    # ------------------------------------------------------------ statements

    def ann_date(self, idx: np.ndarray, period: date) -> np.ndarray:
        """Announcement day ordinals for (symbol, period): inside the 60 days before the
        statutory deadline (annual reports in the 90 days before 04-30)."""
        deadline = statutory_deadline(period)
        window = min(90 if period.month == 12 else 60, (deadline - period).days - 1)
        u = _mix(self.seed, idx, period.toordinal(), 14)
        return deadline.toordinal() - (u * window).astype(np.int64)

    def announcers(self, d: date) -> list[str]:
        """Symbols announcing any report on day `d` (disclosure_date actual_date=d)."""
        out: set[int] = set()
        for p in quarter_ends(d - timedelta(days=130), d):
            idx = self._idx[self.list_ord <= p.toordinal()]
            hit = idx[self.ann_date(idx, p) == d.toordinal()]
            out.update(int(i) for i in hit)
        return [self.symbols[i] for i in sorted(out)]

    def disclosure_date(self, d: date) -> pd.DataFrame:
        rows = []
        for p in quarter_ends(d - timedelta(days=130), d):
            idx = self._idx[self.list_ord <= p.toordinal()]
            for i in idx[self.ann_date(idx, p) == d.toordinal()]:
                rows.append((self.symbols[int(i)], ymd(d), ymd(p), ymd(d), ymd(d)))
        cols = ["ts_code", "ann_date", "end_date", "pre_date", "actual_date"]
        return pd.DataFrame(rows, columns=cols)

    def disclosure_schedule(self, period: date, today: date) -> pd.DataFrame:
        """Every listed symbol's date for `period`'s report; actual_date once it is past."""
        idx = self._idx[self.list_ord <= period.toordinal()]
        ann = [date.fromordinal(int(a)) for a in self.ann_date(idx, period)]
        return pd.DataFrame(
            {
                "ts_code": [self.symbols[int(i)] for i in idx],
                "ann_date": [ymd(min(a, today)) for a in ann],
                "end_date": ymd(period),
                "pre_date": [ymd(a) for a in ann],
                "actual_date": [ymd(a) if a <= today else None for a in ann],
            }
        )

    def statement(
        self, endpoint: str, ts_code: str, fields: list[str], today: date, since: date
    ) -> pd.DataFrame:
        """Every report of one symbol announced by `today` for periods from `since` on."""
        i = self._code_of.get(ts_code)
        if i is None:
            return pd.DataFrame(columns=fields)
        listed = date.fromordinal(int(self.list_ord[i]))
        periods = quarter_ends(max(since, listed), today)
        if not periods:
            return pd.DataFrame(columns=fields)
        ords = np.array([p.toordinal() for p in periods], dtype=np.int64)
        ann = np.array([int(self.ann_date(np.array([i], dtype=np.uint64), p)[0]) for p in periods])
        keep = ann <= today.toordinal()
        ords, ann = ords[keep], ann[keep]
        ann_text = [ymd(date.fromordinal(int(a))) for a in ann]
        meta: dict[str, object] = {
            "ts_code": ts_code,
            "ann_date": ann_text,
            "f_ann_date": ann_text,
            "end_date": [ymd(date.fromordinal(int(o))) for o in ords],
            "report_type": "1",
            "comp_type": "1",
            "end_type": [str((date.fromordinal(int(o)).month - 1) // 3 + 1) for o in ords],
            "update_flag": "1",
        }
        out = pd.DataFrame(index=range(len(ords)))
        for j, f in enumerate(fields):
            if f in meta:
                out[f] = meta[f]
            else:
                out[f] = np.round(
                    1e6 + 1e9 * _mix(self.seed, i, ords.astype(np.uint64), 100 + j), 2
                )
        return out

    # ------------------------------------------------------------ the master, notices

    def stock_basic(self, list_status: str, today: date) -> pd.DataFrame:
        """The listed symbols known by `today` (none delisted or paused in this market)."""
        idx = self._idx[self.listed_mask(today)] if list_status == "L" else self._idx[:0]
        return pd.DataFrame(
            {
                "ts_code": [self.symbols[i] for i in idx],
                "name": [f"SIM{int(i):04d}" for i in idx],
                "list_status": list_status,
                "list_date": [ymd(date.fromordinal(int(self.list_ord[i]))) for i in idx],
                "delist_date": None,
            }
        )

    def anns_d(self, d: date) -> pd.DataFrame:
        """One periodic-report notice per symbol announcing on `d`."""
        codes = self.announcers(d)
        return pd.DataFrame(
            {
                "ann_date": ymd(d),
                "ts_code": codes,
                "name": [f"SIM{self._code_of[c]:04d}" for c in codes],
                "title": "定期报告",
                "url": [f"http://sim.invalid/{c}/{ymd(d)}.pdf" for c in codes],
                "rec_time": f"{d.isoformat()} 18:00:00",
            }
        )

    def trade_cal(self, start: date, end: date) -> pd.DataFrame:
        days = [start + timedelta(days=k) for k in range((end - start).days + 1)]
        open_days = set(sessions_between(start, end))
        return pd.DataFrame(
            {
                "exchange": "SSE",
                "cal_date": [ymd(x) for x in days],
                "is_open": ["1" if x in open_days else "0" for x in days],
            }
        )
