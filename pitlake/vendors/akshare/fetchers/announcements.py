"""East Money's notice list (AkShare `stock_notice_report(symbol="全部", date=D)`) →
announcements (docs/vendor-reference.md §4.6).

One call per Beijing day (pitlake/vendors/akshare/notices.py); a day with no notices is no
rows for that day only. 公告日期 is a date only (akshare drops the time), so every row is
known at the end of its Beijing day. A notice whose code is not an A-share (a fund, a bond)
is skipped.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import ClassVar

import pandas as pd

from pitlake.pit import KNOWN_AT_DTYPE
from pitlake.schemas import get as get_schema
from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, require
from pitlake.vendors.akshare.notices import (
    NOTICE_COLUMNS,
    NOTICE_KIND_ALL,
    NOTICE_LIST,
    notice_queries,
)
from pitlake.vendors.announcement_id import announcement_id
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.parsing import parse_required_dates, symbol_or_none, text_or_none

log = logging.getLogger(__name__)

SOURCE = f"{VENDOR}:{NOTICE_LIST}"


def notice_rows(raw: RawResponse) -> list[dict]:
    frame = require(raw.frame, NOTICE_COLUMNS, NOTICE_LIST)
    if frame.empty:
        return []
    days = parse_required_dates(
        frame["公告日期"], vendor=VENDOR, endpoint=NOTICE_LIST, column="公告日期"
    )
    rows = []
    for rec, day in zip(frame[list(NOTICE_COLUMNS)].to_dict("records"), days, strict=True):
        symbol = symbol_or_none(rec["代码"])
        title = text_or_none(rec["公告标题"])
        if symbol is None or title is None:
            log.debug("akshare %s: skipping %r %r", NOTICE_LIST, rec["代码"], title)
            continue
        name = text_or_none(rec["名称"])
        rows.append(
            {
                "ann_id": announcement_id(symbol, day, title, name),
                "symbols": [symbol],
                "name": name,
                "title": title,
                "ann_type": text_or_none(rec["公告类型"]),
                "ann_date": day,
                "url": text_or_none(rec["网址"]),
                "published_at": None,  # East Money's list gives the day only
                "sources": [SOURCE],
            }
        )
    return rows


class AnnouncementsFetcher(AkshareFetcher):
    dataset = "announcements"
    required: ClassVar[dict[str, tuple[str, ...]]] = {NOTICE_LIST: NOTICE_COLUMNS}
    optional_endpoints = frozenset({NOTICE_LIST})  # one day's "no notices" is that day's

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        return notice_queries(req, NOTICE_KIND_ALL)

    def transform_data(self, req: FetchRequest, raws: Sequence[RawResponse]) -> pd.DataFrame:
        """Every day's notices → one row per ann_id (the first copy kept)."""
        rows: dict[str, dict] = {}
        for raw in raws:
            if raw.query.endpoint == NOTICE_LIST:
                for row in notice_rows(raw):
                    rows.setdefault(row["ann_id"], row)
        if not rows:
            return pd.DataFrame()
        out = pd.DataFrame(list(rows.values())).reindex(columns=get_schema(self.dataset).columns)
        out["published_at"] = pd.to_datetime(out["published_at"], utc=True).astype(KNOWN_AT_DTYPE)
        return out


FETCHER = AnnouncementsFetcher
