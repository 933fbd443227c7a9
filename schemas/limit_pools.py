"""The vendors' own limit lists (涨停池 / 跌停池 / 炸板池): one row per (symbol, session, pool).

`pool` is `up` (closed sealed at the limit-up price), `down` (closed at the limit-down price) or
`broken` (touched the limit-up price during the session and closed below it, 炸板). Prices in
元, amounts in 元, percent units. The seal times are attributes of the row (instants of that
session, UTC in storage, Beijing wall times in the vendor's answer), never its known_at: the
lists are published after the close and each row is known at the end of its session's day.

Neither vendor lists every stock: Tushare `limit_list_d` leaves ST stocks out, and East Money's
pools leave ST stocks out too (akshare stock_feature/stock_ztb_em.py:13: 不包含ST股票). A
session whose pools are all empty is a legal answer (NO_DATA in the ledger, a successful fetch);
a failed fetch is a failure status (UPSTREAM_ERROR, RATE_LIMITED …), never an empty pool.
"""

import pyarrow as pa
from pitlake.schemas.base import TS, Dataset, Kind, Scope, by_unit, by_year
from pitlake.schemas.query import OptionalSymbols, TradeDatedQuery, query_model

from pitlake import units
from pitlake.calendar import SESSION_CLOSE
from pitlake.limits import BROKEN, DOWN, POOLS, UP  # the pools, named once with the rule
from pitlake.pit import rule_day_end

__all__ = ["BROKEN", "DOWN", "POOLS", "SCHEMA", "UP"]

SCHEMA = Dataset(
    name="limit_pools",
    fields=(
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("trade_date", pa.date32(), nullable=False),
        pa.field("pool", pa.string(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("close", pa.float64()),
        pa.field("pct_chg", pa.float64()),
        pa.field("amount", pa.float64()),
        pa.field("float_mv", pa.float64()),
        pa.field("total_mv", pa.float64()),
        pa.field("turnover_rate", pa.float64()),
        pa.field("seal_amount", pa.float64()),
        pa.field("limit_price", pa.float64()),
        pa.field("first_sealed_at", TS),
        pa.field("last_sealed_at", TS),
        pa.field("breaks", pa.int64()),
        pa.field("consecutive", pa.int64()),
        pa.field("limit_stat", pa.string()),
        pa.field("industry", pa.string()),
    ),
    column_docs={
        "pool": "up | down | broken",
        "close": "the list's latest price: the close",
        "amount": "the session's turnover",
        "seal_amount": "orders resting at the limit at the close",
        "limit_price": "where the vendor gives it (broken pool)",
        "first_sealed_at": "instant of the session; null where not given",
        "breaks": "times the seal opened (炸板次数 / 开板次数)",
        "consecutive": "consecutive limit sessions (连板数 / 连续跌停)",
        "limit_stat": '"N/T": N limit-ups in the last T sessions',
    },
    key=("symbol", "trade_date", "pool"),
    units=by_unit(
        {
            units.CNY_PER_SHARE: (
                "close",
                "limit_price",
            ),
            units.PERCENT: (
                "pct_chg",
                "turnover_rate",
            ),
            units.CNY: (
                "amount",
                "float_mv",
                "total_mv",
                "seal_amount",
            ),
        }
    ),
    partitioning=by_year("trade_date"),
    date_column="trade_date",
    kind=Kind.TRADE_DATED,
    scope=Scope.MARKET_BY_DATE,  # one whole-market unit per session (all three pools)
    known_at=rule_day_end,  # published after the close: the end of the session's Beijing day
    event_time=SESSION_CLOSE,
    default_chain=("tushare", "akshare"),
    ignore_on_compare=("name", "industry"),
    # the MCP tool `limit_pools` is the derived pools with the ladder (Lake.limits)
    tool="vendor_limit_pools",
    bars_check="pools",  # the gate warns on every code the bars put elsewhere
    description="The vendors' limit-up, limit-down and broken-board lists (ST stocks left "
    "out by both vendors).",
    query=query_model(
        "LimitPoolsQuery",
        TradeDatedQuery,
        "The vendors' own limit pools (涨停池/跌停池/炸板池) as known at the as-of.\n\nOne "
        "session or a range; `pool` is up, down or broken; the whole market unless symbols "
        "are given. ST stocks are not on the vendors' lists. An empty pool on a fetched "
        "session is NO_DATA, not an error.",
        symbols=(OptionalSymbols, None),
    ),
)
