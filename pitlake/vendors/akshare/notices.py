"""East Money's notice list (AkShare `stock_notice_report(symbol=category, date=D)`): the
calls every fetcher that reads it makes (docs/vendor-reference.md §4.6, §7a).

One call per Beijing day and category; akshare pages through the answer itself (100 notices
a page) and returns 公告日期 as a date only. Zero hits raise KeyError('代码') inside akshare,
which the reply check reads as "no notices that day" (pitlake/vendors/akshare/replies.py).
"""

from __future__ import annotations

from datetime import date, timedelta

from pitlake.calendar import previous_session
from pitlake.vendors.akshare.fetch import yyyymmdd
from pitlake.vendors.base import FetchRequest, VendorQuery
from pitlake.vendors.fetching import window

NOTICE_LIST = "stock_notice_report"
NOTICE_KIND_ALL = "全部"
NOTICE_KIND_FINANCIAL = "财务报告"
NOTICE_COLUMNS = ("代码", "名称", "公告标题", "公告类型", "公告日期", "网址")


def notice_days(req: FetchRequest) -> list[date]:
    """Announcement days to scan. For a trade date: from the previous session through it,
    so weekend/holiday filings and the previous evening's late filings are not missed
    (re-ingesting an unchanged row adds nothing)."""
    first, last = window(req)
    if req.trade_date is not None:
        first = previous_session(req.trade_date)
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


def notice_queries(req: FetchRequest, kind: str = NOTICE_KIND_FINANCIAL) -> list[VendorQuery]:
    """One notice-list call per day of the request, for one East Money category."""
    return [
        VendorQuery(NOTICE_LIST, {"symbol": kind, "date": yyyymmdd(d)}, tag="notice")
        for d in notice_days(req)
    ]
