"""Cumulative back-adjustment (hfq-type) factors: hfq = raw × factor; qfq = hfq ÷ anchor."""

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_year

from pitlake.calendar import EX_DATE_OPEN
from pitlake.pit import rule_ex_date_open

SCHEMA = Dataset(
    name="adj_factors",
    fields=(
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("trade_date", pa.date32(), nullable=False),
        pa.field("adj_factor", pa.float64(), nullable=False),
    ),
    key=("symbol", "trade_date"),
    partitioning=by_year("trade_date"),
    date_column="trade_date",
    kind=Kind.TRADE_DATED,
    scope=Scope.MARKET_BY_DATE,
    known_at=rule_ex_date_open,  # ex-date open, 09:15 +08:00
    event_time=EX_DATE_OPEN,
    default_chain=("tushare", "akshare", "baostock"),
    never_empty=True,
    one_vendor_per_symbol=True,
    row_count_floor=0.8,
    queryable=False,  # read through quotes' qfq/hfq
    quality=("positive_factor",),
    description="One vendor's factor series per symbol (bases differ between vendors).",
)
