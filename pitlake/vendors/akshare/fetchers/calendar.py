"""Sina's trade-date list (`tool_trade_date_hist_sina`) → calendar (docs/vendor-reference.md
§3.2).

Listed dates are sessions; every other day of the window is closed (a full calendar). Only
inside the listed range: past Sina's last listed day a date is unknown, not closed, so the
window is clipped to it.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import ClassVar

import pandas as pd

from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, require
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.parsing import parse_required_dates

CALENDAR = "tool_trade_date_hist_sina"
CALENDAR_EXCHANGE = "XSHG"


class CalendarFetcher(AkshareFetcher):
    dataset = "calendar"
    required: ClassVar[dict[str, tuple[str, ...]]] = {CALENDAR: ("trade_date",)}

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        return [VendorQuery(CALENDAR, {})]

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        listed: set[date] = set()
        for raw in raws:
            require(raw.frame, ("trade_date",), CALENDAR)
            listed.update(
                parse_required_dates(
                    raw.frame["trade_date"], vendor=VENDOR, endpoint=CALENDAR, column="trade_date"
                )
            )
        if not listed:
            return pd.DataFrame()
        first = max(req.first_day or date.min, min(listed))
        last = min(req.last_day or date.max, max(listed))
        if first > last:
            return pd.DataFrame()
        days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
        return pd.DataFrame(
            {"exchange": CALENDAR_EXCHANGE, "date": days, "is_open": [d in listed for d in days]}
        )


FETCHER = CalendarFetcher
