"""Tushare `anns_d` → announcements (docs/vendor-reference.md §5.3).

One call per Beijing day (`ann_date`); an answer at the row cap (2000) may be truncated and is
asked again from the next offset (`follow_up`) until a short page comes. `rec_time`, hidden
unless `fields` names it, is the publication instant (naive Beijing time): such a row is known
then; one without it at the end of its day. A garbled `rec_time` rejects the answer (the
parsing policy: read as "no time", it could date a next-day notice at the previous day's end).
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

import pandas as pd

from pitlake.calendar import previous_session
from pitlake.errors import InvalidArgumentsError
from pitlake.pit import KNOWN_AT_DTYPE, parse_vendor_time
from pitlake.schemas import get as get_schema
from pitlake.vendors.announcement_id import announcement_id
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.parsing import (
    garbled,
    is_missing,
    parse_required_dates,
    symbol_or_none,
    text_or_none,
)
from pitlake.vendors.tushare.fetch import VENDOR, TushareFetcher, every_day, ymd
from pitlake.vendors.tushare.pages import next_pages

ENDPOINT = "anns_d"
FIELDS = "ann_date,ts_code,name,title,url,rec_time"
ANNS_ROWS_PER_CALL = 2000  # the vendor's cap per call (docs/vendor-reference.md §5.3)
SOURCE = f"{VENDOR}:{ENDPOINT}"


def _rows_cap() -> int:
    """Rows per call (read at call time, so tests can lower it)."""
    return ANNS_ROWS_PER_CALL


def publication_times(values: pd.Series) -> list[datetime | None]:
    """rec_time cells → aware instants (naive = Beijing); missing → None; garbled rejects."""
    out: list[datetime | None] = []
    for v in values:
        if is_missing(v):
            out.append(None)
            continue
        at = parse_vendor_time(v)
        if at is None:
            raise garbled(f"rec_time {v!r} is not a time", vendor=VENDOR, endpoint=ENDPOINT)
        out.append(at)
    return out


class AnnouncementsFetcher(TushareFetcher):
    dataset = "announcements"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        ENDPOINT: ("ann_date", "ts_code", "name", "title", "url")
    }
    row_endpoints = (ENDPOINT,)

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        """Each day of the request; a nightly session also re-reads the days since the
        previous session (weekend filings, the previous evening's late ones)."""
        if req.trade_date is not None:
            days = every_day(previous_session(req.trade_date), req.trade_date)
        elif req.start is not None and req.end is not None:
            days = every_day(req.start, req.end)
        else:
            raise InvalidArgumentsError(
                "announcements from tushare: give a trade_date, or start and end"
            )
        return [VendorQuery(ENDPOINT, {"ann_date": ymd(d), "fields": FIELDS}) for d in days]

    def follow_up(self, req: FetchRequest, stage: list[RawResponse]) -> list[VendorQuery]:
        """A full page may be truncated: ask for the next one."""
        return next_pages(stage, ENDPOINT, _rows_cap)

    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        columns = get_schema(self.dataset).columns
        rows: dict[str, dict] = {}
        for raw in raws:
            frame = raw.frame
            if raw.query.endpoint != ENDPOINT or frame.empty:
                continue
            kw = {"vendor": VENDOR, "endpoint": ENDPOINT}
            days = parse_required_dates(frame["ann_date"], column="ann_date", **kw)
            times = (
                publication_times(frame["rec_time"])
                if "rec_time" in frame.columns
                else [None] * len(frame)
            )
            records = frame.to_dict("records")
            for rec, day, at in zip(records, days, times, strict=True):
                symbol = symbol_or_none(rec["ts_code"])
                title = text_or_none(rec["title"])
                if symbol is None or title is None:
                    continue
                name = text_or_none(rec["name"])
                ann_id = announcement_id(symbol, day, title, name)
                rows.setdefault(
                    ann_id,
                    {
                        "ann_id": ann_id,
                        "symbols": [symbol],
                        "name": name,
                        "title": title,
                        "ann_type": None,  # anns_d gives no category
                        "ann_date": day,
                        "url": text_or_none(rec["url"]),
                        "published_at": at,
                        "sources": [SOURCE],
                    },
                )
        if not rows:
            return pd.DataFrame(columns=columns)
        out = pd.DataFrame(list(rows.values())).reindex(columns=columns)
        out["published_at"] = pd.to_datetime(out["published_at"], utc=True).astype(KNOWN_AT_DTYPE)
        return out


FETCHER = AnnouncementsFetcher
