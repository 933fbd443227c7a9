"""Gate batching: which fetched batches the data-quality gate judges together, and against
what (the run's session, or a backfill window)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import pandas as pd

from pitlake import schemas
from pitlake.calendar import now_beijing, sessions_between
from pitlake.expectations.warm import ready
from pitlake.lake.fs import ObjectFS
from pitlake.limit_rules import Period, with_lookback
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Batch
from pitlake.read.engine import DuckReader
from pitlake.read.issue_prices import issue_prices
from pitlake.read.readers.state import rows_by
from pitlake.schemas import Kind


def _trade_days(frame: pd.DataFrame) -> set[date]:
    if "trade_date" not in frame.columns or frame.empty:
        return set()
    return set(pd.to_datetime(frame["trade_date"]).dt.date)


Periods = dict[str, list[Period]]


def day_states(
    env: RunEnv, days: Sequence[date]
) -> tuple[dict[str, frozenset[date]], dict[str, date]]:
    """From the stored state datasets (everything stored: the best knowledge of those days):
    symbol → the days among `days` it was ST, and symbol → its first trading day when that
    is one of `days` (no price limit then)."""
    st, listed, _ = day_facts(env, days)
    return st, listed


def day_facts(
    env: RunEnv, days: Sequence[date]
) -> tuple[dict[str, frozenset[date]], dict[str, date], Periods]:
    """`day_states` and, where the master's names tell them, each symbol's delisting-
    arrangement periods touching `days` (symbol → [(first day, last day or None)])."""
    st: dict[str, set[date]] = {}
    listed: dict[str, date] = {}
    periods: Periods = {}
    if not days:
        return {}, {}, {}
    wanted = set(days)
    for name in schemas.STATE_DATASETS:
        spec = schemas.get(name)
        if spec.state is None or not env.store.files(name):
            continue
        reader = DuckReader(env.store.fs.fs if isinstance(env.store.fs, ObjectFS) else None)
        try:
            partitions = spec.state.gate_partitions if spec.state.gate_days else None
            rows = rows_by(env.store, reader, spec, max(days), None, None, partitions)
        finally:
            reader.close()
        if spec.state.gate_delisting is not None:
            for s, found in spec.state.gate_delisting(rows, days).items():
                periods.setdefault(s, []).extend(found)
        if spec.state.gate_days is not None:  # the whole window at once
            st_days, first_days = spec.state.gate_days(rows, days)
            for s, on in st_days.items():
                st.setdefault(s, set()).update(on)
            listed.update(first_days)
            continue
        for d in days:
            view = spec.state.view(rows, d, None)
            for s in view.loc[view["is_st"], "symbol"]:
                st.setdefault(s, set()).add(d)
            for s, first in zip(view["symbol"], view["list_date"], strict=True):
                if first in wanted:
                    listed[s] = first
    return {s: frozenset(v) for s, v in st.items()}, listed, periods


def _states_for(
    env: RunEnv, dataset: str, expected: date | None, window: tuple[date, date] | None
) -> dict[str, Any]:
    """RunContext's st_symbols and new_listings, for a dataset whose hooks judge rows by them."""
    from pitlake.expectations.hooks import STATE_HOOKS

    if not STATE_HOOKS & set(schemas.get(dataset).quality):
        return {}
    days = [expected] if expected else sessions_between(*window) if window else []
    st, listed, periods = day_facts(env, with_lookback(days))  # ages count from before
    return {
        "st_symbols": st,
        "new_listings": listed,
        "delisting": periods,
        "listing_ages_known": master_stored(env),
        "issue_prices": stored_issue_prices(env, listed),
    }


def stored_issue_prices(env: RunEnv, listed: dict[str, date]) -> dict[str, float]:
    """The stored issue prices of the codes listed in the window (everything stored: the
    gate's best knowledge, as for the master's states)."""
    if not listed:
        return {}
    reader = DuckReader(env.store.fs.fs if isinstance(env.store.fs, ObjectFS) else None)
    try:
        return issue_prices(env.store, reader, listed, None)
    finally:
        reader.close()


def master_stored(env: RunEnv) -> bool:
    """Whether the lake holds a security master: without one no code's listing age is
    known, and the gate must not judge a bar by a limit its new-listing window may lift."""
    return any(env.store.files(name) for name in schemas.STATE_DATASETS)


def _context(
    env: RunEnv,
    batch: Batch,
    *,
    expected: date | None,
    window: tuple[date, date] | None,
) -> Any:
    from pitlake.expectations.run_context import RunContext

    ds = batch.unit.dataset
    return RunContext(
        run_id=env.run_id,
        fetched_at=batch.fetched_at,
        expected_trade_date=expected if window is None else None,
        window_start=window[0] if window else None,
        window_end=window[1] if window else None,
        ingested_at=now_beijing(),
        previous_row_count=(
            env.previous_row_count(ds, expected)
            if expected
            and window is None
            and schemas.get(ds).kind is Kind.TRADE_DATED
            and not batch.unit.symbols
            else None
        ),
        **_states_for(env, ds, expected if window is None else None, window),
    )


def _stored_bars(
    env: RunEnv, frames: dict[str, pd.DataFrame], day: date
) -> dict[str, pd.DataFrame]:
    """The session's stored bars (newest version per key), when a batch the gate checks
    against the bars is judged without tonight's bars batch (units are gated one by one;
    the bars land in an earlier wave: planning.session_waves)."""
    bars = schemas.UNIVERSE_SOURCE
    if bars in frames or not any(schemas.get(d).bars_check for d in frames):
        return {}
    stored = env.store.read_partition(bars, str(day.year))
    if stored is None or stored.empty:
        return {}
    on = stored[pd.to_datetime(stored["trade_date"]).dt.date == day]
    spec = schemas.get(bars)
    on = on.sort_values("known_at", kind="stable").drop_duplicates(list(spec.key), keep="last")
    return {bars: on.reset_index(drop=True)}


def gate(
    env: RunEnv,
    batches: Sequence[Batch],
    *,
    align_on: date | None = None,
    window: tuple[date, date] | None = None,
) -> list[Any | None]:
    """Validate fetched batches; returns a verdict per batch (None: nothing to validate).

    Nightly (`align_on` = the run's session): each batch against that session, then the
    run-level alignment of all trade-date datasets. Backfill (`window`): batches of one
    dataset are validated together in one suite run, which is what makes a 20-year backfill
    affordable; a batch whose rows are not its own session (stale), or a group that fails,
    is validated on its own so the verdict — and the ledger — name exactly the bad unit."""
    ready()  # the warm-up imports GX too (and so do the helpers below, called from here)
    from pitlake.expectations.alignment import check_alignment
    from pitlake.expectations.gate import validate
    from pitlake.expectations.limit_checks import check_limits

    verdicts: list[Any | None] = [None] * len(batches)
    live = [i for i, b in enumerate(batches) if b.route.ok and not b.frame.empty]
    if window is None:
        frames: dict[str, pd.DataFrame] = {}
        for i in live:
            b = batches[i]
            verdicts[i] = validate(
                b.unit.dataset, b.frame, _context(env, b, expected=align_on, window=None)
            )
            frames[b.unit.dataset] = b.frame
        if align_on is not None:
            aligned = check_alignment(frames, align_on, run_id=env.run_id)
            checked = {**_stored_bars(env, frames, align_on), **frames}
            crossing = _crossed(frames)
            states = day_facts(env, with_lookback([align_on])) if crossing else ({}, {}, {})
            issue = stored_issue_prices(env, states[1])
            crossed = check_limits(checked, run_id=env.run_id, states=states, issue_prices=issue)
            for i in live:
                for found in (aligned, crossed):
                    v = found.get(batches[i].unit.dataset)
                    if v is not None:
                        verdicts[i] = verdicts[i].combine(v)
        return verdicts

    def alone(i: int) -> Any:
        b = batches[i]
        expected = b.unit.trade_date
        return validate(
            b.unit.dataset,
            b.frame,
            _context(env, b, expected=expected, window=None if expected else window),
        )

    by_dataset: dict[str, list[int]] = {}
    for i in live:
        b = batches[i]
        if b.unit.trade_date is not None and _trade_days(b.frame) != {b.unit.trade_date}:
            verdicts[i] = alone(i)  # stale or misdated: judged against its own session
        else:
            by_dataset.setdefault(b.unit.dataset, []).append(i)
    for ds, idx in by_dataset.items():
        if len(idx) == 1:
            verdicts[idx[0]] = alone(idx[0])
            continue
        combined = pd.concat([batches[i].frame for i in idx], ignore_index=True)
        v = validate(ds, combined, _context(env, batches[idx[0]], expected=None, window=window))
        if v.writable:
            for i in idx:
                verdicts[i] = v
        else:
            for i in idx:
                verdicts[i] = alone(i)
    _cross_check_window(env, batches, live, window, verdicts)
    return verdicts


def _crossed(frames: dict[str, Any]) -> bool:
    return any(schemas.get(d).bars_check for d in frames)


def _cross_check_window(
    env: RunEnv,
    batches: Sequence[Batch],
    live: list[int],
    window: tuple[date, date],
    verdicts: list[Any | None],
) -> None:
    """The vendor lists ⇄ bars cross-check of a backfill, as on a single night: each list
    batch against the bars of its sessions (the run's, else the stored ones)."""
    from pitlake.expectations.limit_checks import check_window

    lists: dict[str, list[int]] = {}
    for i in live:
        if schemas.get(batches[i].unit.dataset).bars_check:
            lists.setdefault(batches[i].unit.dataset, []).append(i)
    if not lists:
        return
    source = schemas.UNIVERSE_SOURCE
    run_bars = [batches[i].frame for i in live if batches[i].unit.dataset == source]
    days = set().union(*(_trade_days(batches[i].frame) for idx in lists.values() for i in idx))
    have = set().union(*(_trade_days(f) for f in run_bars)) if run_bars else set()
    stored = _stored_days(env, sorted(days - have))
    bars = pd.concat([*run_bars, *stored], ignore_index=True) if run_bars or stored else None
    if bars is None or bars.empty:
        return
    states = day_facts(env, with_lookback(sessions_between(*window)))
    frames = {ds: [batches[i].frame for i in idx] for ds, idx in lists.items()}
    issue = stored_issue_prices(env, states[1])
    found = check_window(frames, bars, run_id=env.run_id, states=states, issue_prices=issue)
    for ds, idx in lists.items():
        for i, v in zip(idx, found.get(ds, [None] * len(idx)), strict=True):
            if v is not None and verdicts[i] is not None:
                verdicts[i] = verdicts[i].combine(v)


def _stored_days(env: RunEnv, days: list[date]) -> list[pd.DataFrame]:
    """The stored bars of `days` (newest version per key), each year's partition read once."""
    source = schemas.UNIVERSE_SOURCE
    spec = schemas.get(source)
    out = []
    for year in sorted({d.year for d in days}):
        stored = env.store.read_partition(source, str(year))
        if stored is None or stored.empty:
            continue
        on = stored[pd.to_datetime(stored["trade_date"]).dt.date.isin(set(days))]
        on = on.sort_values("known_at", kind="stable").drop_duplicates(list(spec.key), keep="last")
        out.append(on.reset_index(drop=True))
    return out
