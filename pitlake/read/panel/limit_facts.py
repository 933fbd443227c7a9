"""The panel's `limit_state` for many sessions in one pass: each bar's facts as
`market.session_pools` gathers them at its session's cutoff (the bar's newest version known
then, the published limit prices known then, the master's ST state, first trading day and
delisting-arrangement period known then: `master_facts.limit_facts`), classified by the
same code (`limit_rows.fact_regimes` → `limit_rules.regimes`, `limits.classified`).

Two cases keep the per-session derivation, where one pass could not give its very cells: a
session with a bar lacking the vendor's previous close (its reference is the code's previous
bar in the pools' window, as known at the cutoff, adjusted by the factors known then), and a
session whose cutoff sees no security master (the pools then read ST from the names the lake
holds, `market.st_symbols`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pitlake import limit_rows, limits
from pitlake.limit_rules import LISTING_LOOKBACK
from pitlake.read.engine import Params, stored_by
from pitlake.read.issue_prices import issue_prices
from pitlake.read.panel import master_facts
from pitlake.schemas import limit_prices, quotes

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

BAR_COLUMNS = ("symbol", "high", "close", "pre_close", "volume")


def classified(
    lake: Lake,
    days: list[date],
    cutoff_of: Callable[[date], datetime],
    as_ingested: datetime | None = None,
) -> Iterator[tuple[pd.DataFrame, list[date]]]:
    """Per year of `days` (one year's join at a time: bounded memory), (session, symbol,
    pool, limit_state) of every bar public at its session's cutoff (and stored by
    `as_ingested`: every scan's rows), and the sessions left to the per-session
    derivation."""
    from pitlake.read.market import LADDER_SESSIONS

    back = LADDER_SESSIONS + LISTING_LOOKBACK
    calendar = lake.trading_calendar
    for year in sorted({d.year for d in days}):
        chosen = [d for d in days if d.year == year]
        first = chosen[0]
        for _ in range(back):
            if first <= calendar.first:
                break
            first = calendar.previous_session(first)
        cal = calendar.sessions_between(first, chosen[-1])
        index = {d: i for i, d in enumerate(cal)}
        lookback = [cal[max(index[d] - back, 0)] for d in chosen]
        cutoffs = [cutoff_of(d) for d in chosen]
        table = master_facts.days_table(chosen, chosen, cutoffs, lookback)
        yield _year(lake, table, pa.table({"day": pa.array(cal, pa.date32())}), as_ingested)


def _bars(lake: Lake, table: pa.Table, as_ingested: datetime | None) -> pa.Table:
    """Each session's bars (the newest version known by its cutoff) with the published
    limit prices known then, in one query."""
    p = Params()
    lo, hi = table.column("session")[0].as_py(), table.column("session")[-1].as_py()
    sources = []
    for spec in (quotes.SCHEMA, limit_prices.SCHEMA):
        files = lake.store.files(spec.name, [str(lo.year), str(hi.year)])
        sources.append(lake.reader.source(files, p) if files else None)
    cols = ", ".join(f"q.{c}" for c in BAR_COLUMNS)
    if sources[0] is None:
        return pa.table({"session": pa.array([], pa.date32())})
    stored = stored_by(p, as_ingested, "x")
    newest = (
        f"AND {stored} QUALIFY row_number() OVER (PARTITION BY x.symbol, x.trade_date "
        "ORDER BY x.known_at DESC, x.ingested_at DESC) = 1"
    )
    published = (
        f"""SELECT x.symbol, x.trade_date, x.up_limit, x.down_limit FROM (SELECT * FROM {sources[1]}) x
            JOIN panel_days s ON x.trade_date = s.session AND x.known_at <= s.cutoff {newest}"""
        if sources[1]
        else "SELECT NULL::VARCHAR AS symbol, NULL::DATE AS trade_date, "
        "NULL::DOUBLE AS up_limit, NULL::DOUBLE AS down_limit"
    )
    return lake.reader.table(
        f"""WITH q AS (
          SELECT x.* FROM (SELECT * FROM {sources[0]}) x
          JOIN panel_days s ON x.trade_date = s.session AND x.known_at <= s.cutoff {newest}),
        a AS ({published})
        SELECT q.trade_date AS session, {cols}, a.up_limit, a.down_limit
        FROM q LEFT JOIN a ON a.symbol = q.symbol AND a.trade_date = q.trade_date""",
        p,
        tables={"panel_days": table.select(["session", "cutoff"])},
    )


def _year(
    lake: Lake, table: pa.Table, calendar: pa.Table, as_ingested: datetime | None
) -> tuple[pd.DataFrame, list[date]]:
    sessions = table.column("session").to_pylist()
    found = master_facts.has_master(lake, table, as_ingested)
    if not any(found):
        return pd.DataFrame(), sessions
    bars = _bars(lake, table, as_ingested)
    if not bars.num_rows:
        return pd.DataFrame(), []
    has_pre = pc.fill_null(pc.greater(bars.column("pre_close"), 0.0), False)
    left = set(pc.unique(bars.filter(pc.invert(has_pre)).column("session")).to_pylist())
    left |= {d for d, ok in zip(sessions, found, strict=True) if not ok}
    facts = master_facts.limit_facts(lake, table, calendar, as_ingested)
    if facts is None:
        return pd.DataFrame(), sessions
    if left:
        gone = pc.is_in(bars.column("session"), pa.array(sorted(left), pa.date32()))
        bars = bars.filter(pc.invert(gone))
    frame = _joined(lake, bars, facts)
    cutoffs = dict(zip(sessions, table.column("cutoff").to_pylist(), strict=True))
    return _classify(lake, frame, cutoffs, as_ingested), sorted(left)


def _joined(lake: Lake, bars: pa.Table, facts: pa.Table) -> pd.DataFrame:
    p = Params()
    return lake.reader.table(
        """SELECT b.*, coalesce(f.is_st, false) AS is_st, f.first_day, f.delisting,
             coalesce(f.unsure, false) AS unsure
           FROM panel_bars b LEFT JOIN panel_facts f
             ON f.session = b.session AND f.symbol = b.symbol""",
        p,
        tables={"panel_bars": bars, "panel_facts": facts},
    ).to_pandas(date_as_object=False)


def _day(values: pd.Series) -> np.ndarray:
    return pd.to_datetime(values).to_numpy().astype("datetime64[D]")


def _classify(
    lake: Lake, frame: pd.DataFrame, cutoffs: dict[date, datetime], as_ingested: datetime | None
) -> pd.DataFrame:
    """The rows' regimes from their facts, then `limits.classified` (pool, limit_state)."""
    if frame.empty:
        return pd.DataFrame(columns=["session", "symbol", "pool", "limit_state"])
    codes, uniques = pd.factorize(frame["symbol"], use_na_sentinel=True)
    day = _day(frame["session"])
    regime = limit_rows.fact_regimes(
        codes,
        pd.Index(uniques, dtype=object),
        day,
        _day(frame["first_day"]),
        frame["is_st"].to_numpy(dtype=bool),
        _day(frame["delisting"]),
        frame["unsure"].to_numpy(dtype=bool),
    )
    issue = _issue_prices(lake, frame, regime.on_issue, cutoffs, as_ingested)
    given = (
        frame["up_limit"].to_numpy(dtype="float64", na_value=np.nan),
        frame["down_limit"].to_numpy(dtype="float64", na_value=np.nan),
    )
    pre = frame["pre_close"].to_numpy(dtype="float64", na_value=np.nan)
    out = limits.classified(frame, regime, pre, issue, given)
    return pd.DataFrame(
        {
            "session": frame["session"],
            "symbol": frame["symbol"].astype(str),
            "pool": out["pool"],
            "limit_state": out["limit_state"],
        }
    )


def _issue_prices(
    lake: Lake,
    frame: pd.DataFrame,
    on_issue: np.ndarray,
    cutoffs: dict[date, datetime],
    as_ingested: datetime | None,
) -> np.ndarray | None:
    """Per row on an approval-regime first day, its issue price as known at its session's
    cutoff (`issue_prices`, asked per session: such rows are a handful); None when none is."""
    if not on_issue.any():
        return None
    price = np.full(len(frame), np.nan)
    rows = np.flatnonzero(on_issue)
    sessions = pd.to_datetime(frame["session"].iloc[rows]).dt.date.to_numpy()
    for d in sorted(set(sessions)):
        at = rows[sessions == d]
        firsts = dict(
            zip(
                frame["symbol"].iloc[at],
                pd.to_datetime(frame["first_day"].iloc[at]).dt.date,
                strict=True,
            )
        )
        cutoff = cutoffs[d].astimezone(timezone.utc)
        known = issue_prices(lake.store, lake.reader, firsts, cutoff, as_ingested)
        price[at] = [known.get(s, np.nan) for s in frame["symbol"].iloc[at]]
    return np.where(on_issue, price, np.nan)
