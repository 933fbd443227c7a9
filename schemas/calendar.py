"""Vendor trading calendars, stored to cross-check and extend the offline XSHG calendar."""

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_year
from pitlake.schemas.query import CalendarQuery, query_model

from pitlake.pit import rule_first_seen

SCHEMA = Dataset(
    name="calendar",
    fields=(
        pa.field("exchange", pa.string(), nullable=False),
        pa.field("date", pa.date32(), nullable=False),
        pa.field("is_open", pa.bool_(), nullable=False),
    ),
    column_docs={
        "exchange": "XSHG",
    },
    key=("exchange", "date"),
    partitioning=by_year("date"),
    date_column="date",
    kind=Kind.CALENDAR,
    scope=Scope.RANGE,
    known_at=rule_first_seen,  # first time we saw the vendor's answer
    default_chain=("tushare", "akshare"),
    nightly=False,  # written by backfills; the offline calendar covers the nightly run
    query=query_model("CalendarQuery", CalendarQuery, "XSHG trading days (is_open) in a range."),
)
