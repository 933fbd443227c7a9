"""AkShare news feeds → news: East Money per-symbol news and its global fast news
(docs/vendor-reference.md §5).

Both feeds answer their latest items (no date filter); items outside the request's Beijing
days are dropped. An item seen in several feeds is one item listing them all. Feeds that stamp
times with the host's local zone (`stock_info_global_ths`, `..._futu`) are deliberately not
used: their times cannot be trusted on a UTC host.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar

import pandas as pd

from pitlake.pit import beijing_day_window, parse_vendor_time
from pitlake.symbols import to_vendor
from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, require
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.fetching import canonical_symbols
from pitlake.vendors.news_id import headline, news_id
from pitlake.vendors.parsing import text_or_none

log = logging.getLogger(__name__)

STOCK_NEWS = "stock_news_em"
GLOBAL_NEWS = "stock_info_global_em"
STOCK_NEWS_COLUMNS = ("新闻标题", "新闻内容", "发布时间", "新闻链接")
GLOBAL_NEWS_COLUMNS = ("标题", "摘要", "发布时间", "链接")


def news_source(endpoint: str) -> str:
    """The `sources` tag of a feed, e.g. 'akshare:stock_news_em'."""
    return f"{VENDOR}:{endpoint}"


@dataclass
class NewsItem:
    title: str
    content: str | None
    url: str | None
    published_at: datetime | None
    symbols: set[str] = field(default_factory=set)
    sources: list[str] = field(default_factory=list)

    def merge(self, other: NewsItem) -> None:
        """The same item from another feed: union of symbols and sources; keep what we have."""
        self.symbols |= other.symbols
        self.sources += [s for s in other.sources if s not in self.sources]
        self.content = self.content or other.content
        self.url = self.url or other.url


def news_items(raw: RawResponse) -> list[NewsItem]:
    endpoint, frame = raw.query.endpoint, raw.frame
    if endpoint == STOCK_NEWS:
        cols, symbols = STOCK_NEWS_COLUMNS, {raw.query.symbol} if raw.query.symbol else set()
    elif endpoint == GLOBAL_NEWS:
        cols, symbols = GLOBAL_NEWS_COLUMNS, set()
    else:
        return []
    require(frame, cols, endpoint)
    title_col, content_col, time_col, url_col = cols
    items = []
    for rec in frame[list(cols)].to_dict("records"):
        title = headline(rec[title_col], rec[content_col])
        if title is None:
            log.debug("akshare %s: skipping an item with neither title nor text", endpoint)
            continue
        items.append(
            NewsItem(
                title=title,
                content=text_or_none(rec[content_col]),
                url=text_or_none(rec[url_col]),
                # naive vendor strings are Beijing; date-only → end of that Beijing day;
                # missing or garbage → None (dated first_seen by the known-at rule, never
                # before it was public)
                published_at=parse_vendor_time(rec[time_col]),
                symbols=set(symbols),
                sources=[news_source(endpoint)],
            )
        )
    return items


class NewsFetcher(AkshareFetcher):
    dataset = "news"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        STOCK_NEWS: STOCK_NEWS_COLUMNS,
        GLOBAL_NEWS: GLOBAL_NEWS_COLUMNS,
    }
    optional_endpoints = frozenset({GLOBAL_NEWS})

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        per_symbol = [
            VendorQuery(STOCK_NEWS, {"symbol": to_vendor(s, "bare")}, symbol=s)
            for s in canonical_symbols(req.symbols or ())
        ]
        return [*per_symbol, VendorQuery(GLOBAL_NEWS, {})]

    def transform_data(self, req: FetchRequest, raws: Sequence[RawResponse]) -> pd.DataFrame:
        """Both feeds → one row per news_id; an item seen in several feeds lists them all."""
        window = None
        if req.first_day is not None and req.last_day is not None:
            window = beijing_day_window(req.first_day, req.last_day)
        items: dict[str, NewsItem] = {}
        for raw in raws:
            for item in news_items(raw):
                if (
                    window
                    and item.published_at
                    and not (window[0] <= item.published_at < window[1])
                ):
                    continue
                nid = news_id(item.title, item.published_at)
                if nid in items:
                    items[nid].merge(item)
                else:
                    items[nid] = item
        rows = [
            {
                "news_id": nid,
                "symbols": sorted(it.symbols),
                "title": it.title,
                "content": it.content,
                "url": it.url,
                "published_at": it.published_at,
                "sources": list(it.sources),
            }
            for nid, it in items.items()
        ]
        if not rows:
            return pd.DataFrame()
        out = pd.DataFrame(rows)
        out["published_at"] = pd.to_datetime(out["published_at"], utc=True).astype(
            "datetime64[us, UTC]"
        )
        return out


FETCHER = NewsFetcher
