"""Daily bars of the main A-share indices: points, volume in shares, amount in 元, percent.

Index symbols are the Tushare form `000300.SH` (six digits, the publishing exchange). They
collide with stock codes (`000001.SH` is the SSE Composite, `000001.SZ` Ping An Bank), so they
are never parsed as stocks: `pitlake.symbols` refuses every one of them (000xxx trades on SZ,
399xxx is no A-share code), and the query surfaces check them against `INDICES` (the spec's
`instruments`) instead.
"""

from typing import Annotated

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_unit, by_year
from pitlake.schemas.query import TradeDatedQuery, query_model
from pydantic import Field

from pitlake import units
from pitlake.calendar import SESSION_CLOSE
from pitlake.pit import rule_session_close

# The indices served, canonical symbol → name.
INDICES: dict[str, str] = {
    "000001.SH": "SSE Composite",
    "399001.SZ": "SZSE Component",
    "399006.SZ": "ChiNext",
    "000688.SH": "STAR 50",
    "000300.SH": "CSI 300",
    "000905.SH": "CSI 500",
    "000852.SH": "CSI 1000",
    "000016.SH": "SSE 50",
}

SCHEMA = Dataset(
    name="index_quotes",
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
    ),
    column_docs={
        "symbol": "index code, e.g. 000300.SH",
    },
    key=("symbol", "trade_date"),
    units=by_unit(
        {
            units.INDEX_POINTS: (
                "open",
                "high",
                "low",
                "close",
                "pre_close",
            ),
            units.SHARES: ("volume",),
            units.CNY: ("amount",),
            units.PERCENT: ("pct_chg",),
        }
    ),
    partitioning=by_year("trade_date"),
    date_column="trade_date",
    kind=Kind.TRADE_DATED,
    # One fetch unit per session covers the whole index set (a call per index inside it).
    scope=Scope.MARKET_BY_DATE,
    known_at=rule_session_close,  # session close, 15:00 +08:00, as quotes
    event_time=SESSION_CLOSE,
    default_chain=("tushare", "akshare"),
    never_empty=True,
    row_count_floor=0.8,
    quality=("ohlc",),  # indices have no price limit
    instruments=tuple(INDICES),
    description="Daily bars of the main indices (SSE Composite, SZSE Component, ChiNext, "
    "STAR 50, CSI 300/500/1000, SSE 50).",
    query=query_model(
        "IndexQuotesQuery",
        TradeDatedQuery,
        "Daily index bars as known at the as-of.\n\nOne session (`date`, default: the latest "
        "session at the as-of) or a range (`start`/`end`) of the main indices' bars, in index "
        "points; volume in shares, amount in CNY.",
        symbols=(
            Annotated[
                list[str] | str | None,
                Field(
                    description="Index code(s), exchange suffix required: "
                    + ", ".join(f"'{s}' {n}" for s, n in INDICES.items())
                    + "; omitted: all of them."
                ),
            ],
            None,
        ),
    ),
)


def asked(symbols: tuple[str, ...] | list[str] | None) -> list[str]:
    """The indices a fetch asks about: the requested ones among `INDICES`, else all of them
    (a run naming stock symbols still gets the index set)."""
    chosen = [s for s in symbols or () if s in INDICES]
    return chosen or list(INDICES)
