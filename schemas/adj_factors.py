"""Cumulative back-adjustment (hfq-type) factors: hfq = raw × factor; qfq = hfq ÷ anchor."""

import pyarrow as pa
from pitlake.schemas.base import DatasetSchema, by_year

SCHEMA = DatasetSchema(
    name="adj_factors",
    fields=(
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("trade_date", pa.date32(), nullable=False),
        pa.field("adj_factor", pa.float64(), nullable=False),
    ),
    key=("symbol", "trade_date"),
    partitioning=by_year("trade_date"),
    date_column="trade_date",
    known_at_rule="adj_factors",  # ex-date open, 09:15 +08:00
    description="One vendor's factor series per symbol (bases differ between vendors).",
)
