"""Company announcements as events: one row per announcement, whichever feed carried it.

`ann_id` hashes the company, the Beijing announcement day and the normalised title (without
the "名称:" prefix East Money puts before it), so the same announcement from Tushare `anns_d`
and from East Money's notice list (AkShare `stock_notice_report`) is one row. Known at its
publication instant when the vendor gives one (Tushare `rec_time`, basis `published`), else
at the end of its Beijing day (basis `announcement`). A copy from the other feed with equal
id adds no version: ids, not feed details, make an announcement (`ignore_on_compare`).
"""

from typing import Annotated

import pyarrow as pa
from pitlake.schemas.base import BY_KNOWN_AT_MONTH, Dataset, Kind, Scope
from pitlake.schemas.query import PublishedQuery, query_model
from pydantic import Field

from pitlake.pit import rule_published_else_day_end

SCHEMA = Dataset(
    name="announcements",
    fields=(
        pa.field("ann_id", pa.string(), nullable=False),
        pa.field("symbols", pa.list_(pa.string())),
        pa.field("name", pa.string()),
        pa.field("title", pa.string(), nullable=False),
        pa.field("ann_type", pa.string()),
        pa.field("ann_date", pa.date32(), nullable=False),
        pa.field("url", pa.string()),
        pa.field("published_at", pa.timestamp("us", tz="UTC")),
        pa.field("sources", pa.list_(pa.string())),
    ),
    column_docs={
        "symbols": "the company (canonical code)",
        "name": "its short name as the feed gave it",
        "ann_type": "East Money's column_name; Tushare gives none",
        "ann_date": "the vendor's Beijing day",
        "published_at": "rec_time; null: date only",
        "sources": "feeds that carried it, e.g. tushare:anns_d",
    },
    key=("ann_id",),
    partitioning=BY_KNOWN_AT_MONTH,
    date_column=None,
    kind=Kind.PUBLISHED,
    scope=Scope.RANGE,  # one whole-market call per announcement day
    known_at=rule_published_else_day_end,
    default_chain=("tushare", "akshare"),  # Tushare first: it gives the publication instant
    quality=("publication",),
    ignore_on_compare=(
        "symbols",
        "name",
        "title",
        "ann_type",
        "url",
        "published_at",
        "sources",
    ),
    query=query_model(
        "AnnouncementsQuery",
        PublishedQuery,
        "Company announcements public in a Beijing-day window.\n\nNewest first (default: the "
        "last 7 days). An announcement is known at its publication time when the vendor gives "
        "one, else at the end of its Beijing day.",
        lookback_days=(
            Annotated[
                int | None,
                Field(ge=1, le=366, description="Calendar days back from end (default 7)."),
            ],
            None,
        ),
        limit=(
            Annotated[int | None, Field(ge=1, le=5000, description="The newest N announcements.")],
            None,
        ),
    ),
)
