"""The panel's fields that the single-instant reads derive in Python, answered by those very
derivations at each session's cutoff (one call per session, so each row equals the read):
security states (`Lake.universe`: `state.rows_by` + the master's state view) and the limit
state (`Lake.limits`: `market.session_pools`). Plus the factor fetches `ret_1d`'s coverage
rests on (`adjust.adjusted`'s rule)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.limit_rules import STATE_NAMES, State
from pitlake.read.adjust import FACTORS
from pitlake.read.cutoff import Ask
from pitlake.read.panel.fields import LIMIT_STATES, NO_LIMIT, STATE_FIELDS, WITHIN
from pitlake.read.readers import state
from pitlake.schemas import securities

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


def states(lake: Lake, days: list[date], cutoff_of: Callable[[date], datetime]) -> pa.Table:
    """(session, symbol, is_st, is_suspended, days_listed) of every code `Lake.universe`
    lists at each session's cutoff (its day: the cutoff's, as that read answers).
    days_listed: the XSHG sessions from the code's first trading day to the session (1 on
    that day)."""
    spec = securities.SCHEMA
    assert spec.state is not None
    frames = []
    for d in days:
        cutoff = cutoff_of(d)
        day = cutoff.date()
        rows = state.rows_by(lake.store, lake.reader, spec, day, cutoff)
        view = spec.state.view(rows, day, None)
        if view.empty:
            continue
        frames.append(view.assign(session=d))
    if not frames:
        return _STATE_SCHEMA.empty_table()
    out = pd.concat(frames, ignore_index=True)
    out[DAYS_LISTED] = _sessions_since(lake, out["list_date"], out["session"])
    return pa.Table.from_pandas(
        out[_STATE_SCHEMA.names], schema=_STATE_SCHEMA, preserve_index=False
    )


def _sessions_since(lake: Lake, first: pd.Series, day: pd.Series) -> np.ndarray:
    """Per row, the sessions in [first, day] (null where `first` is unknown)."""
    cal = lake.trading_calendar
    known = first.notna()
    if not known.any():
        return pd.array([None] * len(first), dtype="Int64")
    lo = max(min(first[known]), cal.first)
    sessions = np.array(cal.sessions_between(lo, max(day)), dtype="datetime64[D]")
    starts = pd.to_datetime(first.where(known, pd.Timestamp(lo))).to_numpy().astype("datetime64[D]")
    ends = pd.to_datetime(day).to_numpy().astype("datetime64[D]")
    count = np.searchsorted(sessions, ends, "right") - np.searchsorted(sessions, starts, "left")
    return pd.array(np.where(known.to_numpy(), count, None), dtype="Int64")


def limits(lake: Lake, days: list[date], cutoff_of: Callable[[date], datetime]) -> pa.Table:
    """(session, symbol, limit_state) of every bar `Lake.limits` classifies at each session's
    cutoff: its pool (up, down, broken), WITHIN its limits, NO_LIMIT on a session without
    one, null where its limit is unknown (classify's limit_state)."""
    by_state = {STATE_NAMES[State.LIMITED]: WITHIN, STATE_NAMES[State.NO_LIMIT]: NO_LIMIT}
    from pitlake.read import market  # the market's derivations: imported when asked

    frames = []
    for d in days:
        pools = market.session_pools(lake, d, Ask(cutoff_of(d), None, False))
        if pools.empty:
            continue
        pool = pools["pool"].astype(object)
        value = pool.where(pool.notna(), pools["limit_state"].astype(object).map(by_state))
        frames.append(
            pd.DataFrame(
                {"session": d, "symbol": pools["symbol"].astype(str), "limit_state": value}
            )
        )
    if not frames:
        return _LIMIT_SCHEMA.empty_table()
    out = pd.concat(frames, ignore_index=True)
    assert set(out["limit_state"].dropna()) <= set(LIMIT_STATES)
    return pa.Table.from_pandas(out, schema=_LIMIT_SCHEMA, preserve_index=False)


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
