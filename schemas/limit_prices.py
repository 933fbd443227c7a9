"""Each session's limit-up and limit-down price per code (Tushare `stk_limit`), in 元.

Tushare publishes the day's limit prices at about 08:40 Beijing, before the call auction
(tushare.pro document 183: 每个交易日8点40左右更新当日股票涨跌停价格), so a row is known at 08:40
of its own session (basis `pre_open`). Where stored, it is the authority for the limit price:
the gate warns on any derived limit price that differs (pitlake.expectations).
"""

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_unit, by_year
from pitlake.schemas.query import OptionalSymbols, TradeDatedQuery, query_model

from pitlake import units
from pitlake.calendar import LIMITS_PUBLISHED
from pitlake.pit import rule_pre_open

SCHEMA = Dataset(
    name="limit_prices",
    fields=(
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("trade_date", pa.date32(), nullable=False),
        pa.field("pre_close", pa.float64()),
        pa.field("up_limit", pa.float64()),
        pa.field("down_limit", pa.float64()),
    ),
    column_docs={
        "pre_close": "the reference price the limits are set from",
    },
    key=("symbol", "trade_date"),
    units=by_unit(
        {
            units.CNY_PER_SHARE: (
                "pre_close",
                "up_limit",
                "down_limit",
            )
        }
    ),
    partitioning=by_year("trade_date"),
    date_column="trade_date",
    kind=Kind.TRADE_DATED,
    scope=Scope.MARKET_BY_DATE,
    known_at=rule_pre_open,  # 08:40 +08:00 of the session
    event_time=LIMITS_PUBLISHED,
    default_chain=("tushare",),
    never_empty=True,
    bars_check="prices",  # the gate warns on every code whose price is not the rule's
    row_count_floor=0.8,
    description="Each session's limit-up / limit-down prices, published before the open.",
    query=query_model(
        "LimitPricesQuery",
        TradeDatedQuery,
        "Limit-up and limit-down prices as known at the as-of.\n\nOne session or a range; "
        "prices in CNY, published about 08:40 Beijing before the session's open; the whole "
        "market unless symbols are given.",
        symbols=(OptionalSymbols, None),
    ),
)
