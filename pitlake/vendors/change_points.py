"""Factors answered as change points (one row per ex-date) → the factor in force on each
session of a window: the latest change point ≤ the session. Vendors that answer factors this
way (Sina through AkShare, Baostock) share the rule, so a factor is spread the same whichever
vendor served it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import pandas as pd

from pitlake.calendar import sessions_between
from pitlake.vendors.base import FetchRequest, RawResponse
from pitlake.vendors.fetching import concat, window
from pitlake.vendors.parsing import garbled, parse_numbers, parse_required_dates, require_columns


def session_factors(
    req: FetchRequest,
    raws: Sequence[RawResponse],
    *,
    date_column: str,
    factor_column: str,
    vendor: str,
) -> pd.DataFrame:
    """Each symbol's answer of change points → its factor on each session of the request's
    window, in one frame; an answer without the two columns is schema drift."""
    parts = []
    for raw in raws:
        endpoint = raw.query.endpoint
        frame = require_columns(
            raw.frame, (date_column, factor_column), vendor=vendor, endpoint=endpoint
        )
        first, last = window(req)
        parts.append(
            factors_by_session(
                frame,
                date_column=date_column,
                factor_column=factor_column,
                first=first,
                last=last,
                symbol=raw.query.symbol,
                vendor=vendor,
                endpoint=endpoint,
            )
        )
    return concat(parts)


def factors_by_session(
    frame: pd.DataFrame,
    *,
    date_column: str,
    factor_column: str,
    first: date,
    last: date,
    symbol: str,
    vendor: str,
    endpoint: str,
) -> pd.DataFrame:
    """One row per session in [first, last] with the factor in force; sessions before the
    first change point are left out (unknown, not assumed 1). A missing or non-positive
    factor is a garbled answer."""
    kw = {"vendor": vendor, "endpoint": endpoint}
    points = pd.DataFrame(
        {
            "date": parse_required_dates(frame[date_column], column=date_column, **kw),
            "factor": parse_numbers(frame[factor_column], column=factor_column, **kw),
        }
    )
    bad = points["factor"].isna() | (points["factor"] <= 0)
    if bad.any():
        raise garbled(f"unusable {factor_column} {frame[factor_column][bad].iloc[0]!r}", **kw)
    points = points.sort_values("date", kind="stable").drop_duplicates("date", keep="last")
    sessions = sessions_between(first, last)
    if not sessions or points.empty:
        return pd.DataFrame()
    days = pd.DataFrame({"day": pd.to_datetime(pd.Series(sessions))})
    points["day"] = pd.to_datetime(points["date"])
    joined = pd.merge_asof(days, points[["day", "factor"]], on="day", direction="backward")
    joined = joined[joined["factor"].notna()]  # before the first known change point: unknown
    return pd.DataFrame(
        {
            "symbol": symbol,
            "trade_date": joined["day"].dt.date.to_numpy(),
            "adj_factor": joined["factor"].to_numpy(dtype="float64"),
        }
    )
