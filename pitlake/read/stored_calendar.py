"""Extend the trading calendar past the offline one with the stored calendar dataset.

exchange-calendars stops where the exchanges have published holidays (2026-12-31 today); the
vendors' calendars (Tushare trade_cal, Sina) reach further. Sessions past the offline end come
only from what the lake holds — never guessed.

A `Lake` gets its own extended calendar (`lake_calendar`): opening a lake for reading changes
nothing in the process. `extend_calendar_from_lake` extends the process's calendar, for the
ingest run, whose planning and gate share it."""

from __future__ import annotations

import logging
from datetime import date
from typing import TYPE_CHECKING

import pyarrow.compute as pc

from pitlake.calendar import XSHG, TradingCalendar
from pitlake.lake.store import LakeStore
from pitlake.schemas.calendar import SCHEMA

if TYPE_CHECKING:
    import pandas as pd

    from pitlake.read.engine import DuckReader

log = logging.getLogger(__name__)


def stored_sessions(
    store: LakeStore, reader: DuckReader | None = None
) -> tuple[list[date], date] | None:
    """The stored XSHG sessions past the offline calendar and the last date they are known
    through; None when the lake holds nothing past it. An unreadable calendar file leaves the
    offline calendar in force (dates past it keep raising) rather than breaking every read."""
    try:
        frame = _rows_past_offline(store, reader)
    except Exception as e:  # a corrupt partition: warn, never guess sessions
        log.warning("stored calendar unreadable, offline calendar only: %s", e)
        return None
    if frame is None:
        return None
    import pandas as pd

    # the latest stored version of each date decides
    latest = frame.sort_values("known_at").drop_duplicates(["exchange", "date"], keep="last")
    through = max(pd.to_datetime(latest["date"]).dt.date)
    sessions = [
        d
        for d, is_open in zip(
            pd.to_datetime(latest["date"]).dt.date, latest["is_open"], strict=True
        )
        if bool(is_open)
    ]
    return sessions, through


def _rows_past_offline(store: LakeStore, reader: DuckReader | None) -> pd.DataFrame | None:
    """Every stored version of an XSHG date past the offline calendar, or None when there is
    none. A file whose dates all lie within the offline calendar is skipped by its greatest
    date: until the offline calendar ends, opening a lake needs no pandas (no Python value
    turned into Arrow either: that is what makes pyarrow import pandas). A `Lake` asks its
    DuckDB reader for that date (the database its read opens anyway), which needs no
    `pyarrow.parquet` (with `pyarrow.fs` and `ssl`, ~25 ms of a CLI read: decision 54)."""
    past = XSHG.offline_last
    frames = []
    for part in store.list_partitions(SCHEMA.name):
        if reader is not None:
            from pitlake.read.engine import Params

            params = Params()
            sql = f'SELECT max("date") FROM {reader.source([part.path], params)}'
            latest = reader.rows(sql, params, point=True)[0][0]
            if latest is None or latest <= past:
                continue
        table = store.fs.parquet(part.path).read()
        latest = pc.max(table["date"]).as_py() if table.num_rows else None
        if latest is None or latest <= past:
            continue
        import pandas as pd

        frame = table.to_pandas()
        frame = frame[frame["exchange"] == "XSHG"]
        frames.append(frame[pd.to_datetime(frame["date"]).dt.date > past])
    frames = [f for f in frames if not f.empty]
    if not frames:
        return None
    import pandas as pd

    return pd.concat(frames, ignore_index=True)


def lake_calendar(store: LakeStore, reader: DuckReader | None = None) -> TradingCalendar:
    """The offline calendar, extended by what this lake stores (the process's is untouched)."""
    found = stored_sessions(store, reader)
    if found is None:
        return XSHG
    return XSHG.extended(*found)


def extend_calendar_from_lake(store: LakeStore) -> date | None:
    """Register stored XSHG sessions past the offline calendar in the process's calendar;
    returns the new last known date, or None when the lake holds nothing past it."""
    found = stored_sessions(store)
    if found is None:
        return None
    sessions, through = found
    XSHG.register_extension(sessions, through=through)
    return through
