"""Tushare `news` (per source) and `major_news` → news (docs/vendor-reference.md §5.3).

One call per source and day for `news`, one per day for `major_news`; an answer at its row cap
may be truncated and is asked again for each half of its window (`follow_up`). Items from
several feeds with the same title and time are one item listing every feed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from pitlake.errors import InvalidArgumentsError
from pitlake.pit import KNOWN_AT_DTYPE, parse_vendor_time
from pitlake.schemas import get as get_schema
from pitlake.symbols import canonical
from pitlake.vendors import fetching
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.news_id import headline, news_id
from pitlake.vendors.parsing import is_missing
from pitlake.vendors.tushare.fetch import VENDOR, TushareFetcher, every_day

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

ENDPOINT = "news"  # per source
MAJOR = "major_news"
NEWS_SOURCES: tuple[str, ...] = tuple(
    "sina wallstreetcn 10jqka eastmoney yuncaijing fenghuang jinrongjie cls yicai".split()
)
NEWS_ROWS_PER_CALL = 1500  # `news` cap per call; a full answer may be truncated → split
MAJOR_NEWS_ROWS_PER_CALL = 400  # `major_news` cap per call (docs/vendor-reference.md §7a)
# major_news leaves `content` out unless `fields` names it ("默认不显示，需要在fields里指定").
MAJOR_NEWS_FIELDS = "title,content,pub_time,src"
NEWS_MIN_WINDOW = timedelta(minutes=1)  # never split a window below this
NEWS_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
MAJOR_NEWS_SOURCE = MAJOR  # label when a major_news row names no src
_TS_CODE_IN_TEXT = re.compile(r"(?<!\d)(\d{6}\.(?:SH|SZ|BJ))(?![A-Za-z])")
NEWS_CAPS = frozenset({ENDPOINT, MAJOR})  # endpoints whose full answers are split


class NewsFetcher(TushareFetcher):
    dataset = "news"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        ENDPOINT: ("datetime", "title", "content"),
        MAJOR: ("pub_time", "title", "content"),
    }
    row_endpoints = (ENDPOINT, MAJOR)

    def __init__(
        self, client: Any, *, news_sources: Sequence[str] | None = None, **options: Any
    ) -> None:
        super().__init__(client, **options)
        self.news_sources = tuple(NEWS_SOURCES if news_sources is None else news_sources)

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        days = every_day(*fetching.window(req, VENDOR))  # a session alone: that one day
        out = []
        for d in days:
            lo = datetime.combine(d, datetime.min.time())
            hi = lo + timedelta(days=1, seconds=-1)
            window = {
                "start_date": lo.strftime(NEWS_TIME_FORMAT),
                "end_date": hi.strftime(NEWS_TIME_FORMAT),
            }
            out += [VendorQuery(ENDPOINT, {"src": src, **window}) for src in self.news_sources]
            out.append(VendorQuery(MAJOR, {**window, "fields": MAJOR_NEWS_FIELDS}))
        return out

    def follow_up(self, req: FetchRequest, stage: list[RawResponse]) -> list[VendorQuery]:
        return [q for r in stage if r.query.endpoint in NEWS_CAPS for q in _split_if_capped(r)]

    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return news_rows(req, raws)


def _news_cap(endpoint: str) -> int:
    """Rows per call of a news endpoint (read at call time, so tests can lower it)."""
    return MAJOR_NEWS_ROWS_PER_CALL if endpoint == MAJOR else NEWS_ROWS_PER_CALL


def _split_if_capped(raw: RawResponse) -> list[VendorQuery]:
    """A `news` or `major_news` answer at its row cap may be truncated: ask again for each
    half window."""
    if len(raw.frame) < _news_cap(raw.query.endpoint):
        return []
    params = raw.query.params
    lo = datetime.strptime(params["start_date"], NEWS_TIME_FORMAT)
    hi = datetime.strptime(params["end_date"], NEWS_TIME_FORMAT)
    if hi - lo < NEWS_MIN_WINDOW:
        log.warning(
            "tushare %s %s: %d rows in %s..%s, possibly truncated",
            raw.query.endpoint,
            params.get("src", ""),
            len(raw.frame),
            lo,
            hi,
        )
        return []
    mid = lo + (hi - lo) / 2
    mid = mid.replace(microsecond=0)
    halves = ((lo, mid), (mid + timedelta(seconds=1), hi))
    return [
        VendorQuery(
            raw.query.endpoint,
            {
                **params,
                "start_date": a.strftime(NEWS_TIME_FORMAT),
                "end_date": b.strftime(NEWS_TIME_FORMAT),
            },
        )
        for a, b in halves
    ]


def symbols_named_in(*texts: object) -> list[str]:
    """Canonical codes written out as ts_codes (600519.SH) in the item's text."""
    found: set[str] = set()
    for text in texts:
        if isinstance(text, str):
            for m in _TS_CODE_IN_TEXT.finditer(text):
                try:
                    found.add(canonical(m.group(1)))
                except InvalidArgumentsError:
                    continue
    return sorted(found)


def news_rows(req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
    import pandas as pd

    items: dict[str, dict[str, Any]] = {}
    for raw in raws:
        is_major = raw.query.endpoint == MAJOR
        time_col = "pub_time" if is_major else "datetime"
        frame = raw.frame
        for row in frame.to_dict("records"):
            title = headline(row.get("title"), row.get("content"))
            if title is None:
                continue
            published = parse_vendor_time(row.get(time_col))
            src = row.get("src") if is_major else raw.query.params.get("src")
            src = src if isinstance(src, str) and src.strip() else MAJOR_NEWS_SOURCE
            content = row.get("content")
            key = news_id(title, published)
            item = items.setdefault(
                key,
                {
                    "news_id": key,
                    "symbols": set(),
                    "title": title,
                    "content": None if is_missing(content) else content,
                    "url": None,
                    "published_at": published,
                    "sources": set(),
                },
            )
            item["sources"].add(f"{VENDOR}:{src.strip()}")
            item["symbols"].update(symbols_named_in(title, content))
    columns = get_schema(req.dataset).columns
    if not items:
        return pd.DataFrame(columns=columns)
    out = pd.DataFrame(list(items.values()))
    out["symbols"] = out["symbols"].map(sorted)
    out["sources"] = out["sources"].map(sorted)
    out["published_at"] = pd.to_datetime(out["published_at"], utc=True).astype(KNOWN_AT_DTYPE)
    return out.reindex(columns=columns)


FETCHER = NewsFetcher
