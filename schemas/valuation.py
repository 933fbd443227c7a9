"""Daily valuation (Tushare daily_basic): caps in 元, share counts in shares, percent units."""

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_unit, by_year
from pitlake.schemas.query import TradeDatedQuery, query_model

from pitlake import units
from pitlake.calendar import SESSION_CLOSE
from pitlake.pit import rule_session_close

SCHEMA = Dataset(
    name="valuation",
    fields=(
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("trade_date", pa.date32(), nullable=False),
        pa.field("close", pa.float64()),
        pa.field("turnover_rate", pa.float64()),
        pa.field("turnover_rate_f", pa.float64()),
        pa.field("volume_ratio", pa.float64()),
        pa.field("pe", pa.float64()),
        pa.field("pe_ttm", pa.float64()),
        pa.field("pb", pa.float64()),
        pa.field("ps", pa.float64()),
        pa.field("ps_ttm", pa.float64()),
        pa.field("dv_ratio", pa.float64()),
        pa.field("dv_ttm", pa.float64()),
        pa.field("total_share", pa.float64()),
        pa.field("float_share", pa.float64()),
        pa.field("free_share", pa.float64()),
        pa.field("total_mv", pa.float64()),
        pa.field("circ_mv", pa.float64()),
    ),
    key=("symbol", "trade_date"),
    units=by_unit(
        {
            units.CNY_PER_SHARE: ("close",),
            units.PERCENT: (
                "turnover_rate",
                "turnover_rate_f",
                "dv_ratio",
                "dv_ttm",
            ),
            units.SHARES: (
                "total_share",
                "float_share",
                "free_share",
            ),
            units.CNY: (
                "total_mv",
                "circ_mv",
            ),
        }
    ),
    partitioning=by_year("trade_date"),
    date_column="trade_date",
    kind=Kind.TRADE_DATED,
    scope=Scope.MARKET_BY_DATE,
    known_at=rule_session_close,
    event_time=SESSION_CLOSE,
    default_chain=("tushare",),
    never_empty=True,
    row_count_floor=0.8,
    query=query_model(
        "ValuationQuery",
        TradeDatedQuery,
        "Daily valuation (PE, PB, market cap) as known at the as-of.\n\nMarket caps in CNY, "
        "turnover in percent; one session or a range.",
    ),
)
