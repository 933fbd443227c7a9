"""Daily bars: raw (unadjusted) prices in 元, volume in shares, amount in 元, percent units."""

from typing import Annotated, Literal

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_unit, by_year
from pitlake.schemas.query import TradeDatedQuery, query_model
from pydantic import Field

from pitlake import units
from pitlake.calendar import SESSION_CLOSE
from pitlake.pit import rule_session_close

SCHEMA = Dataset(
    name="quotes",
    fields=(
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("trade_date", pa.date32(), nullable=False),
        pa.field("open", pa.float64()),
        pa.field("high", pa.float64()),
        pa.field("low", pa.float64()),
        pa.field("close", pa.float64()),
        pa.field("pre_close", pa.float64()),
        pa.field("volume", pa.float64()),
        pa.field("amount", pa.float64()),
        pa.field("pct_chg", pa.float64()),
        pa.field("turnover_rate", pa.float64()),
    ),
    column_docs={
        "pre_close": "vendor's ex-rights reference price, if given",
    },
    key=("symbol", "trade_date"),
    units=by_unit(
        {
            units.CNY_PER_SHARE: (
                "open",
                "high",
                "low",
                "close",
                "pre_close",
            ),
            units.SHARES: ("volume",),
            units.CNY: ("amount",),
            units.PERCENT: (
                "pct_chg",
                "turnover_rate",
            ),
        }
    ),
    partitioning=by_year("trade_date"),
    date_column="trade_date",
    kind=Kind.TRADE_DATED,
    scope=Scope.MARKET_BY_DATE,
    known_at=rule_session_close,  # session close, 15:00 +08:00
    event_time=SESSION_CLOSE,
    default_chain=("tushare", "akshare", "baostock"),
    never_empty=True,
    defines_universe=True,
    row_count_floor=0.8,
    quality=("ohlc", "price_limit_close"),
    description="Unadjusted daily OHLCV; qfq/hfq are computed at read time from adj_factors.",
    query=query_model(
        "QuotesQuery",
        TradeDatedQuery,
        "Daily bars as known at the as-of.\n\nOne session (`date`, default: the latest session at "
        "the as-of) or a range (`start`/`end`) of unadjusted bars, or qfq/hfq from the factors "
        "known at the as-of. Prices in CNY per share, volume in shares, amount in CNY.",
        adjust=(
            Annotated[
                Literal["none", "qfq", "hfq"],
                Field(
                    description="'none' raw CNY prices; 'qfq' forward-adjusted to the latest "
                    "factor known at the as-of; 'hfq' backward-adjusted."
                ),
            ],
            "none",
        ),
    ),
)
