"""Forward/backward price adjustment at read time (docs/design.md §1 rule 5).

The lake stores raw prices and one vendor's cumulative (hfq-type) factor series per symbol:
  hfq(t) = raw(t) × factor(t)
  qfq(t) = raw(t) × factor(t) ÷ factor(anchor), anchor = the latest factor known at the cutoff.
So a cutoff before an ex-date gives the qfq prices a user saw then. Factor series may hold only
change points (Sina) or every session (Tushare): factor(t) is the last factor on or before t.
A row the factors do not cover is never served unadjusted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.read import scans
from pitlake.read.cutoff import Ask
from pitlake.read.status import Gap, LedgerView
from pitlake.schemas import adj_factors
from pitlake.statuses import ResultStatus
from pitlake.units import ADJUSTED_PRICE_DECIMALS

if TYPE_CHECKING:
    import pandas as pd

    from pitlake.read.lake import Lake

FACTORS = adj_factors.SCHEMA  # the factors adjusted prices are computed from

ADJUST_MODES = ("none", "qfq", "hfq")
PRICE_COLUMNS = ("open", "high", "low", "close", "pre_close")


@dataclass(frozen=True)
class Anchor:
    source: str
    anchor_date: date
    anchor_factor: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "factor_source": self.source,
            "anchor_date": self.anchor_date.isoformat(),
            "anchor_factor": self.anchor_factor,
        }


@dataclass
class Adjusted:
    frame: pd.DataFrame  # adjusted rows of the covered symbols, plus an adj_factor column
    uncovered: dict[str, list[date]]  # symbol → dates without a usable factor
    anchors: dict[str, Anchor]


def anchors_of(factors: pd.DataFrame) -> dict[str, Anchor]:
    """The latest factor of each symbol's series."""
    if factors.empty:
        return {}
    last = factors.sort_values(["symbol", "trade_date"]).groupby("symbol", sort=True).tail(1)
    return {
        r.symbol: Anchor(str(r.source), r.trade_date, float(r.adj_factor))
        for r in last.itertuples(index=False)
    }


def adjust_prices(
    quotes: pd.DataFrame,
    factors: pd.DataFrame,
    coverage_end: dict[str, date],
    mode: str,
) -> Adjusted:
    """Adjust `quotes` (symbol, trade_date, prices) with `factors` (symbol, trade_date,
    adj_factor, source: one vendor per symbol). `coverage_end[symbol]` is the last date through
    which the factor series is known complete; rows after it, or before the first factor, are
    uncovered and their symbol is left out of the frame."""
    import pandas as pd

    if mode not in ("qfq", "hfq"):
        raise ValueError(f"adjust mode must be qfq or hfq, got {mode!r}")
    anchors = anchors_of(factors)
    if quotes.empty:
        return Adjusted(quotes.assign(adj_factor=pd.Series(dtype="float64")), {}, anchors)
    q = quotes.reset_index(drop=True).copy()
    q["__order"] = range(len(q))
    q["__d"] = pd.to_datetime(q["trade_date"]).astype("datetime64[us]")
    f = factors[["symbol", "trade_date", "adj_factor"]].copy()
    f["__d"] = pd.to_datetime(f["trade_date"]).astype("datetime64[us]")
    f = f.drop(columns=["trade_date"]).rename(columns={"adj_factor": "__f"})
    f["symbol"] = f["symbol"].astype(q["symbol"].dtype)
    merged = pd.merge_asof(
        q.sort_values("__d"), f.sort_values("__d"), on="__d", by="symbol", direction="backward"
    ).sort_values("__order")
    ends = merged["symbol"].map(lambda s: coverage_end.get(s))
    after_end = [e is None or d > e for d, e in zip(merged["trade_date"], ends, strict=True)]
    bad = merged["__f"].isna().to_numpy() | pd.Series(after_end).to_numpy()
    uncovered: dict[str, list[date]] = {}
    for sym, d in zip(merged.loc[bad, "symbol"], merged.loc[bad, "trade_date"], strict=True):
        uncovered.setdefault(sym, []).append(d)
    good = merged[~merged["symbol"].isin(list(uncovered))].copy()
    scale = good["__f"].astype("float64")
    if mode == "qfq":
        scale = scale / good["symbol"].map(lambda s: anchors[s].anchor_factor).astype("float64")
    for col in PRICE_COLUMNS:
        if col in good.columns:
            good[col] = (good[col].astype("float64") * scale).round(ADJUSTED_PRICE_DECIMALS)
    good["adj_factor"] = good["__f"].astype("float64")
    out = good.drop(columns=["__order", "__d", "__f"]).reset_index(drop=True)
    return Adjusted(out, uncovered, anchors)


def adjusted(
    lake: Lake, frame: pd.DataFrame, symbols: list[str], ask: Ask, mode: str
) -> tuple[pd.DataFrame, list[Gap], dict[str, Any]]:
    """`frame`'s prices adjusted by the factors known at the cutoff; a symbol whose factors
    do not cover its rows is a NOT_READY gap, its rows left out."""
    factors = scans.factor_series(lake, FACTORS, symbols, ask)
    coverage: dict[str, date] = {}
    if not factors.empty:
        coverage = factors.groupby("symbol")["trade_date"].max().to_dict()
    if not frame.empty:
        lo, hi = min(frame["trade_date"]), max(frame["trade_date"])
        view = LedgerView(
            lake.catalog.ledger_entries(
                FACTORS.name, lo, hi, symbol=sorted({*symbols, WHOLE_MARKET})
            )
        )
        for sym in symbols:
            fetched = [e.date_key for e in view.for_symbol(sym) if e.successful]
            if fetched:
                coverage[sym] = max(coverage.get(sym, date.min), *fetched)
    result = adjust_prices(frame, factors, coverage, mode)
    gaps = []
    for sym, dates in sorted(result.uncovered.items()):
        gaps.append(
            Gap(
                sym,
                max(dates),
                ResultStatus.NOT_READY,
                f"no adjustment factor known as of {ask.as_of} for {len(dates)} requested "
                f"row(s) ({min(dates)}…{max(dates)}); {mode} prices are not served unadjusted",
            )
        )
    meta = {
        "mode": mode,
        "anchors": {s: a.to_dict() for s, a in sorted(result.anchors.items())},
    }
    return result.frame, gaps, meta
