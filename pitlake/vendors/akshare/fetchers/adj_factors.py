"""AkShare (Sina) hfq factors → adj_factors, per symbol (docs/vendor-reference.md §2.2).

Sina answers the change points (newest first, a 1900-01-01 sentinel = the base factor); the
factor in force on session t is the latest change point ≤ t, one row per session of the window.
"""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from pitlake.calendar import sessions_between
from pitlake.symbols import to_vendor
from pitlake.vendors.akshare.fetch import (
    VENDOR,
    AkshareFetcher,
    concat,
    per_symbol,
    require,
    window,
)
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.parsing import garbled, parse_numbers, parse_required_dates

SINA_BARS = "stock_zh_a_daily"
SINA_FACTORS_ADJUST = "hfq-factor"


def factors(req: FetchRequest, raw: RawResponse) -> pd.DataFrame:
    frame, endpoint = raw.frame, raw.query.endpoint
    require(frame, ("date", "hfq_factor"), endpoint)
    kw = {"vendor": VENDOR, "endpoint": endpoint}
    points = pd.DataFrame(
        {
            "date": parse_required_dates(frame["date"], column="date", **kw),
            "factor": parse_numbers(frame["hfq_factor"], column="hfq_factor", **kw),
        }
    )
    bad = points["factor"].isna() | (points["factor"] <= 0)
    if bad.any():
        raise garbled(f"unparseable hfq factor {frame['hfq_factor'][bad].iloc[0]!r}", **kw)
    points = points.sort_values("date", kind="stable").drop_duplicates("date", keep="last")
    first, last = window(req)
    sessions = sessions_between(first, last)
    if not sessions or points.empty:
        return pd.DataFrame()
    days = pd.DataFrame({"day": pd.to_datetime(pd.Series(sessions))})
    points["day"] = pd.to_datetime(points["date"])
    joined = pd.merge_asof(days, points[["day", "factor"]], on="day", direction="backward")
    joined = joined[joined["factor"].notna()]  # before the first known change point: unknown
    return pd.DataFrame(
        {
            "symbol": raw.query.symbol,
            "trade_date": joined["day"].dt.date.to_numpy(),
            "adj_factor": joined["factor"].to_numpy(dtype="float64"),
        }
    )


class AdjFactorsFetcher(AkshareFetcher):
    dataset = "adj_factors"
    required: ClassVar[dict[str, tuple[str, ...]]] = {SINA_BARS: ("date", "hfq_factor")}

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        return [
            VendorQuery(
                SINA_BARS,
                {"symbol": to_vendor(s, "sina"), "adjust": SINA_FACTORS_ADJUST},
                symbol=s,
            )
            for s in per_symbol(req)
        ]

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return concat([factors(req, r) for r in raws])


FETCHER = AdjFactorsFetcher
