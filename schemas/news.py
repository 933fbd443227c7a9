"""News items. news_id = hash of the normalised title + publish time, so the same item from two
feeds is one row whose `sources` lists both."""

from typing import Annotated

import pyarrow as pa
from pitlake.schemas.base import BY_KNOWN_AT_MONTH, Dataset, Kind, Scope
from pitlake.schemas.query import PublishedQuery, query_model
from pydantic import Field

from pitlake.pit import rule_news

SCHEMA = Dataset(
    name="news",
    fields=(
        pa.field("news_id", pa.string(), nullable=False),
        pa.field("symbols", pa.list_(pa.string())),
        pa.field("title", pa.string(), nullable=False),
        pa.field("content", pa.string()),
        pa.field("url", pa.string()),
        pa.field("published_at", pa.timestamp("us", tz="UTC")),
        pa.field("sources", pa.list_(pa.string())),
    ),
    column_docs={
        "symbols": "canonical codes the item is about",
        "published_at": "null when the feed gives none",
        "sources": "feeds that carried it, e.g. akshare:em",
    },
    key=("news_id",),
    partitioning=BY_KNOWN_AT_MONTH,
    date_column=None,
    kind=Kind.PUBLISHED,
    scope=Scope.UNIVERSE,
    known_at=rule_news,  # publish time, else first_seen
    default_chain=("akshare", "tushare"),
    quality=("publication",),
    ignore_on_compare=("content", "url", "sources", "symbols"),
    query=query_model(
        "NewsQuery",
        PublishedQuery,
        "News public in a Beijing-day window.\n\nNewest first (default: the last 7 days). An "
        "item with no publish time is known from when the lake first saw it, so it never "
        "appears in an answer about an earlier time.",
        lookback_days=(
            Annotated[
                int | None,
                Field(ge=1, le=366, description="Calendar days back from end (default 7)."),
            ],
            None,
        ),
        limit=(
            Annotated[int | None, Field(ge=1, le=1000, description="The newest N items.")],
            None,
        ),
    ),
)
