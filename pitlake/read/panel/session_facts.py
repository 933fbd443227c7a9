"""The panel's fields that the single-instant reads derive in Python, for every session at
once with the cells those derivations give at each session's cutoff: security states
(`Lake.universe`: `state.rows_by` + the master's state view; `master_facts.states`) and the
limit state (`Lake.limits`: `market.session_pools`; `limit_facts`, that derivation per
session where one pass cannot match it). Plus the factor fetches `ret_1d`'s coverage rests
on (`adjust.adjusted`'s rule)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.limit_rules import STATE_NAMES, State
from pitlake.read.adjust import FACTORS
from pitlake.read.cutoff import Ask
from pitlake.read.panel import limit_facts, master_facts
from pitlake.read.panel.fields import LIMIT_STATES, NO_LIMIT, STATE_FIELDS, WITHIN

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

DAYS_LISTED = "days_listed"
_STATE_SCHEMA = pa.schema(
    [
        pa.field("session", pa.date32()),
        pa.field("symbol", pa.string()),
        *(pa.field(n, pa.bool_()) for n in STATE_FIELDS if n != DAYS_LISTED),
        pa.field(DAYS_LISTED, pa.int64()),
    ]
)
_LIMIT_SCHEMA = pa.schema(
    [
        pa.field("session", pa.date32()),
        pa.field("symbol", pa.string()),
        pa.field("limit_state", pa.string()),
    ]
)


def states(
    lake: Lake,
    days: list[date],
    cutoff_of: Callable[[date], datetime],
    as_ingested: datetime | None = None,
) -> pa.Table:
    """(session, symbol, is_st, is_suspended, days_listed) of every code `Lake.universe`
    lists at each session's cutoff (its day: the cutoff's, as that read answers; rows
    stored after `as_ingested` hidden), from the
    master's versions in one pass (`master_facts.states`, the cells `state.rows_by` + the
    state view give per session). days_listed: the XSHG sessions from the code's first
    trading day to the session (1 on that day)."""
    tables = []
    for year in sorted({d.year for d in days}):  # one year's join at a time: bounded memory
        chosen = [d for d in days if d.year == year]
        cutoffs = [cutoff_of(d) for d in chosen]
        found = master_facts.states(
            lake,
            master_facts.days_table(chosen, [c.date() for c in cutoffs], cutoffs),
            as_ingested,
        )
        if not found.num_rows:
            continue
        out = found.to_pandas(date_as_object=False)
        out[DAYS_LISTED] = _sessions_since(lake, out["list_date"], out["session"])
        tables.append(
            pa.Table.from_pandas(
                out[_STATE_SCHEMA.names], schema=_STATE_SCHEMA, preserve_index=False
            )
        )
    return pa.concat_tables(tables) if tables else _STATE_SCHEMA.empty_table()


def _sessions_since(
    lake: Lake, first: pd.Series, day: pd.Series
) -> pd.api.extensions.ExtensionArray:
    """Per row, the sessions in [first, day] (null where `first` is unknown)."""
    cal = lake.trading_calendar
    starts = pd.to_datetime(first).to_numpy().astype("datetime64[D]")
    ends = pd.to_datetime(day).to_numpy().astype("datetime64[D]")
    known = ~np.isnat(starts)
    if not known.any():
        return pd.array([None] * len(first), dtype="Int64")
    lo = max(starts[known].min().astype(object), cal.first)
    sessions = np.array(cal.sessions_between(lo, ends.max().astype(object)), dtype="datetime64[D]")
    starts = np.where(known, starts, np.datetime64(lo, "D"))
    count = np.searchsorted(sessions, ends, "right") - np.searchsorted(sessions, starts, "left")
    return pd.arrays.IntegerArray(count.astype("int64"), ~known)


def limits(
    lake: Lake,
    days: list[date],
    cutoff_of: Callable[[date], datetime],
    as_ingested: datetime | None = None,
) -> pa.Table:
    """(session, symbol, limit_state) of every bar `Lake.limits` classifies at each session's
    cutoff (rows stored after `as_ingested` hidden): its pool (up, down, broken), WITHIN its limits, NO_LIMIT on a session without
    one, null where its limit is unknown (classify's limit_state). One pass over the
    sessions (`limit_facts`), the per-session derivation where it cannot give the same
    cells (`session_limits`)."""
    if not days:
        return _LIMIT_SCHEMA.empty_table()
    tables, left = [], []
    for found, more in limit_facts.classified(lake, days, cutoff_of, as_ingested):
        if len(found):
            tables.append(_limit_cells(found))
        left += more
    tables += [_limit_cells(f) for f in session_limits(lake, left, cutoff_of, as_ingested)]
    if not tables:
        return _LIMIT_SCHEMA.empty_table()
    out = pa.concat_tables(tables)
    assert set(pc.unique(out.column("limit_state")).drop_null().to_pylist()) <= set(LIMIT_STATES)
    return out


def _limit_cells(pools: pd.DataFrame) -> pa.Table:
    """(session, symbol, limit_state) of classified bars: the pool, else the regime's state
    (limited: WITHIN, none: NO_LIMIT, unknown: null)."""
    pool = pools["pool"].astype(object).to_numpy()
    state = pools["limit_state"].astype(object).to_numpy()
    by_state = np.where(
        state == STATE_NAMES[State.LIMITED],
        WITHIN,
        np.where(state == STATE_NAMES[State.NO_LIMIT], NO_LIMIT, None),
    )
    value = np.where(pd.isna(pool), by_state, pool)
    session = pools["session"]
    days = (
        session.to_numpy().astype("datetime64[D]")
        if session.dtype.kind == "M"
        else session.to_numpy(object)
    )
    return pa.table(
        [
            pa.array(days, pa.date32()),
            pa.array(pools["symbol"].astype(str).to_numpy(object), pa.string()),
            pa.array(value, pa.string()),
        ],
        schema=_LIMIT_SCHEMA,
    )


def session_limits(
    lake: Lake,
    days: list[date],
    cutoff_of: Callable[[date], datetime],
    as_ingested: datetime | None = None,
) -> list[pd.DataFrame]:
    """`market.session_pools` at each session's cutoff, with its session: the derivation
    `Lake.limits` uses, once per session (the one pass's fallback, and its oracle)."""
    from pitlake.read import market  # the market's derivations: imported when asked

    out = []
    for d in days:
        pools = market.session_pools(lake, d, Ask(cutoff_of(d), as_ingested, False))
        if not pools.empty:
            out.append(pools.assign(session=d))
    return out


def factor_fetched(lake: Lake, lo: date, hi: date) -> pa.Table:
    """(symbol or '*', day) of the successful factor fetches dated lo…hi: a session they
    cover is served with factors dated before it (a change-point series)."""
    entries = lake.catalog.ledger_entries(FACTORS.name, lo, hi)
    pairs = sorted({(e.symbol or WHOLE_MARKET, e.date_key) for e in entries if e.successful})
    return pa.table(
        {
            "symbol": pa.array([s for s, _ in pairs], pa.string()),
            "d": pa.array([d for _, d in pairs], pa.date32()),
        }
    )
