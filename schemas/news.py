"""News items. news_id = hash of the normalised title + publish time, so the same item from two
feeds is one row whose `sources` lists both."""

import pyarrow as pa
from pitlake.schemas.base import BY_KNOWN_AT_MONTH, Dataset, Kind, Scope

from pitlake.pit import rule_news

SCHEMA = Dataset(
    name="news",
    fields=(
        pa.field("news_id", pa.string(), nullable=False),
        pa.field("symbols", pa.list_(pa.string())),  # canonical codes the item is about
        pa.field("title", pa.string(), nullable=False),
        pa.field("content", pa.string()),
        pa.field("url", pa.string()),
        pa.field("published_at", pa.timestamp("us", tz="UTC")),  # null when the feed gives none
        pa.field("sources", pa.list_(pa.string())),  # feeds that carried it, e.g. akshare:em
    ),
    key=("news_id",),
    partitioning=BY_KNOWN_AT_MONTH,
    date_column=None,
    kind=Kind.PUBLISHED,
    scope=Scope.UNIVERSE,
    known_at=rule_news,  # publish time, else first_seen
    default_chain=("akshare", "tushare"),
    quality=("publication",),
    ignore_on_compare=("content", "url", "sources", "symbols"),
)
