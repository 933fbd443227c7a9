"""Dragon-tiger list (龙虎榜): one row per (symbol, trade_date, reason). Amounts in 元.

Never stores the vendor's 上榜后N日 columns: they are returns *after* the listing (future data).
"""

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_unit, by_year
from pitlake.schemas.query import OptionalSymbols, TradeDatedQuery, query_model

from pitlake import units
from pitlake.calendar import SESSION_CLOSE
from pitlake.pit import rule_day_end

SCHEMA = Dataset(
    name="dragon_tiger",
    fields=(
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("trade_date", pa.date32(), nullable=False),
        pa.field("reason", pa.string(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("close", pa.float64()),
        pa.field("pct_chg", pa.float64()),
        pa.field("turnover_rate", pa.float64()),
        pa.field("buy_amount", pa.float64()),
        pa.field("sell_amount", pa.float64()),
        pa.field("net_buy", pa.float64()),
        pa.field("billboard_amount", pa.float64()),
        pa.field("market_amount", pa.float64()),
        pa.field("float_mv", pa.float64()),
        pa.field("seats", pa.string()),
    ),
    column_docs={
        "buy_amount": "billboard buys",
        "billboard_amount": "buys + sells on the list",
        "market_amount": "the stock's total turnover that day",
        "seats": (
            'JSON list of seats: [{"side": "buy"|"sell", "branch", "buy", "sell", "net"}], or null.'
        ),
    },
    key=("symbol", "trade_date", "reason"),
    units=by_unit(
        {
            units.CNY_PER_SHARE: ("close",),
            units.PERCENT: (
                "pct_chg",
                "turnover_rate",
            ),
            units.CNY: (
                "buy_amount",
                "sell_amount",
                "net_buy",
                "billboard_amount",
                "market_amount",
                "float_mv",
            ),
        }
    ),
    partitioning=by_year("trade_date"),
    date_column="trade_date",
    kind=Kind.TRADE_DATED,
    scope=Scope.MARKET_BY_DATE,
    known_at=rule_day_end,  # end of the trade date's Beijing day
    event_time=SESSION_CLOSE,  # the list is published after the close
    default_chain=("tushare", "akshare"),
    row_count_floor=0.25,
    quality=("price_limit_pct",),
    ignore_on_compare=("name",),
    query=query_model(
        "DragonTigerQuery",
        TradeDatedQuery,
        "Dragon-tiger (龙虎榜) entries.\n\nOne session or a range (amounts in CNY); the whole "
        "market unless symbols are given. A symbol not on the list of a successfully fetched "
        "session is NO_DATA, not an error.",
        symbols=(OptionalSymbols, None),
    ),
)

FUTURE_COLUMN_MARKERS = ("上榜后",)  # any vendor column containing these is dropped
