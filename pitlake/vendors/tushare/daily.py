"""Tushare's by-trade-date endpoints (daily, adj_factor, daily_basic, index_daily): one shape,
one spec each.

By trade date: one call for the whole market (or the listed symbols). By range: each symbol's
history in windows under the row cap, or the whole market one session at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, ClassVar

import pandas as pd

from pitlake.calendar import sessions_between
from pitlake.schemas import get as get_schema
from pitlake.symbols import canonical, to_vendor
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.parsing import parse_dates, parse_numbers, parse_symbols
from pitlake.vendors.tushare.fetch import SYMBOL_FORM, VENDOR, TushareFetcher, ymd

# Longest date window of one per-symbol range call. Tushare caps rows per call (daily and
# daily_basic: 6000; adj_factor: undocumented) and does not paginate; 2000 calendar days hold
# at most ~1400 sessions, under any cap seen in the docs.
RANGE_CALL_MAX_DAYS = 2000


@dataclass(frozen=True)
class DailySpec:
    """A trade-date endpoint: plain columns (vendor → canonical) and unit conversions
    (canonical ← vendor column through a pitlake.units function)."""

    endpoint: str
    plain: dict[str, str]
    converted: dict[str, tuple[str, Callable[[pd.Series], pd.Series]]]

    @property
    def vendor_columns(self) -> tuple[str, ...]:
        return ("ts_code", "trade_date", *self.plain, *(v for v, _ in self.converted.values()))


def range_windows(start: date, end: date) -> list[tuple[date, date]]:
    out = []
    lo = start
    while lo <= end:
        hi = min(end, lo + timedelta(days=RANGE_CALL_MAX_DAYS - 1))
        out.append((lo, hi))
        lo = hi + timedelta(days=1)
    return out


def vendor_symbols(req: FetchRequest) -> list[str]:
    return [to_vendor(s, SYMBOL_FORM) for s in req.symbols or ()]


class DailyFetcher(TushareFetcher):
    """A dataset served by one by-trade-date endpoint (`spec`)."""

    spec: ClassVar[DailySpec]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "spec" in cls.__dict__:
            cls.required = {cls.spec.endpoint: cls.spec.vendor_columns}
            cls.endpoints = frozenset(cls.required)
            cls.row_endpoints = (cls.spec.endpoint,)

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        endpoint = self.spec.endpoint
        codes = vendor_symbols(req)
        if req.trade_date is not None:  # one call: the whole market, or the listed symbols
            params: dict[str, Any] = {"trade_date": ymd(req.trade_date)}
            if codes:
                params["ts_code"] = ",".join(codes)
            return [VendorQuery(endpoint, params)]
        assert req.start is not None and req.end is not None
        if codes:  # each symbol's history, in windows under the row cap
            return [
                VendorQuery(
                    endpoint,
                    {"ts_code": code, "start_date": ymd(lo), "end_date": ymd(hi)},
                    symbol=canonical(code),
                )
                for code in codes
                for lo, hi in range_windows(req.start, req.end)
            ]
        return [  # the whole market, one session at a time
            VendorQuery(endpoint, {"trade_date": ymd(d)})
            for d in sessions_between(req.start, req.end)
        ]

    def check_units(self, rows: pd.DataFrame) -> None:
        """The dataset's unit check over its canonical rows (none by default)."""

    def symbols_of(self, codes: pd.Series) -> pd.Series:
        """The answer's `ts_code`s → canonical symbols (A-share codes by default; None for a
        code that is not one, and the row is dropped)."""
        return parse_symbols(codes, vendor=VENDOR)

    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        spec = self.spec
        frames = [r.frame for r in raws if not r.frame.empty]
        columns = get_schema(req.dataset).columns
        if not frames:
            return pd.DataFrame(columns=columns)
        raw = pd.concat(frames, ignore_index=True)
        kw = {"vendor": VENDOR, "endpoint": spec.endpoint}
        out = pd.DataFrame(index=raw.index)
        out["symbol"] = self.symbols_of(raw["ts_code"])
        out["trade_date"] = parse_dates(raw["trade_date"], column="trade_date", **kw)
        for vendor_col, col in spec.plain.items():
            out[col] = parse_numbers(raw[vendor_col], column=vendor_col, **kw)
        for col, (vendor_col, convert) in spec.converted.items():
            out[col] = convert(parse_numbers(raw[vendor_col], column=vendor_col, **kw))
        out = out[out["symbol"].notna()]
        self.check_units(out)
        return out.reindex(columns=columns)
