"""Index constituents as of a date: which A-shares an index held at each of its snapshots, and
with what weight (percent of the index).

A row is one member of one index in one snapshot, keyed (index_code, trade_date, symbol). The
list in force on a day D is the newest snapshot dated on or before D among those public by the
cutoff (`Kind.SNAPSHOT_LIST`): a member leaves by being absent from a newer snapshot, so a
rebalance shows at the first snapshot after it, and a query before that snapshot was public
still sees the old list.

- Tushare `index_weight` gives monthly snapshots dated by `trade_date`: a date-only fact,
  known at the end of that Beijing day (`day_end`).
- AkShare's csindex lists (`index_stock_cons_weight_csindex`, `index_stock_cons_csindex`) are
  the *current* list only: dated by the Beijing day we fetched it and known from the fetch
  (`first_seen`, `current_list`), never back-dated to the 日期 the file states (kept as
  `vendor_date`).

Index codes are the Tushare form of `index_quotes` (`000300.SH`); they collide with stock
codes, so they are checked against `MEMBER_INDICES`, never parsed as stocks. Members are
canonical A-share symbols. The indices are those of `index_quotes` whose constituents both
vendors publish (CSI and SSE indices; SZSE's 399001/399006 and the all-share SSE Composite
are not among them).
"""

from datetime import time
from typing import Annotated

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_unit, by_year
from pitlake.schemas.index_quotes import INDICES
from pitlake.schemas.query import AsOf, Day, SnapshotListQuery, query_model
from pydantic import Field

from pitlake import units
from pitlake.pit import rule_snapshot

# The indices served, canonical code → name (a subset of index_quotes' INDICES).
MEMBER_INDICES: dict[str, str] = {
    code: INDICES[code]
    for code in ("000300.SH", "000905.SH", "000852.SH", "000016.SH", "000688.SH")
}

SCHEMA = Dataset(
    name="index_members",
    fields=(
        pa.field("index_code", pa.string(), nullable=False),
        pa.field("trade_date", pa.date32(), nullable=False),
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("weight", pa.float64()),
        pa.field("current_list", pa.bool_(), nullable=False),
        pa.field("vendor_date", pa.date32()),
    ),
    column_docs={
        "index_code": "e.g. 000300.SH",
        "trade_date": "the snapshot's date",
        "symbol": "the member, canonical A-share code",
        "weight": "percent of the index; null when not given",
        "current_list": "True: the vendor's current list, dated by the day we saw it (first_seen)",
        "vendor_date": "the date a current list states (AkShare 日期)",
    },
    key=("index_code", "trade_date", "symbol"),
    units=by_unit({units.PERCENT: ("weight",)}),
    partitioning=by_year("trade_date"),
    date_column="trade_date",
    kind=Kind.SNAPSHOT_LIST,
    # One fetch unit covers every index over a window (a call per index and month inside it);
    # a nightly unit asks for its session, which is rarely a snapshot day: a clean NO_DATA.
    scope=Scope.RANGE,
    known_at=rule_snapshot,
    # A list is not known before the day it is dated has begun (Beijing midnight).
    event_time=time(0),
    quality=("dated_event",),
    default_chain=("tushare", "akshare"),
    instruments=tuple(MEMBER_INDICES),
    ignore_on_compare=("vendor_date",),
    description="Index constituents with weights (CSI 300/500/1000, SSE 50, STAR 50) as of a "
    "date: the newest snapshot public by the as-of.",
    query=query_model(
        "IndexMembersQuery",
        SnapshotListQuery,
        "Index constituents in force on a date, as known at the as-of.\n\nThe members (and "
        "weights, in percent, when the snapshot has them) of one index per the newest snapshot "
        "dated on or before `date` (default: the as-of's day) that was public by the as-of; "
        "`effective_trade_date` names the snapshot used.",
        index=(
            Annotated[
                str,
                Field(
                    description="Index code, exchange suffix required: "
                    + ", ".join(f"'{s}' {n}" for s, n in MEMBER_INDICES.items())
                    + "."
                ),
            ],
            ...,
        ),
        date=(Day, None),
        as_of=(AsOf, None),
    ),
)


def asked(symbols: tuple[str, ...] | list[str] | None) -> list[str]:
    """The indices a fetch asks about: the requested ones among `MEMBER_INDICES`, else all of
    them (a run naming stock symbols still gets the index set)."""
    chosen = [s for s in symbols or () if s in MEMBER_INDICES]
    return chosen or list(MEMBER_INDICES)
