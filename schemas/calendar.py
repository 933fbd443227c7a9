"""Vendor trading calendars, stored to cross-check and extend the offline XSHG calendar."""

import pyarrow as pa
from pitlake.schemas.base import DatasetSchema, by_year

SCHEMA = DatasetSchema(
    name="calendar",
    fields=(
        pa.field("exchange", pa.string(), nullable=False),  # XSHG
        pa.field("date", pa.date32(), nullable=False),
        pa.field("is_open", pa.bool_(), nullable=False),
    ),
    key=("exchange", "date"),
    partitioning=by_year("date"),
    date_column="date",
    known_at_rule="calendar",  # first time we saw the vendor's answer
)
