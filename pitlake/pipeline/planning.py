"""Planning: which units a nightly session or a backfill chunk consists of, minus what the
ledger already holds as done."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import date, timedelta

from pitlake import schemas
from pitlake.calendar import previous_session, sessions_between
from pitlake.errors import InvalidArgumentsError
from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Unit
from pitlake.schemas import Kind, Scope
from pitlake.symbols import canonical_many


def check_datasets(
    datasets: Iterable[str] | str | None,
    default: Sequence[str],
    symbols: Sequence[str] | None = None,
) -> list[str]:
    """The run's datasets. With `symbols` (schemas.run_symbols), only datasets those symbols
    are about: by default the others are left out (`--symbols 000300.SH` ingests the index's
    bars, not the whole market's quotes); a dataset named explicitly that none of them is
    about is an InvalidArgumentsError."""
    if datasets is None:
        return [d for d in default if _about(d, symbols)]
    if isinstance(datasets, str):
        datasets = [d for d in datasets.split(",") if d.strip()]
    out = []
    for d in datasets:
        name = schemas.get(d.strip()).name
        if name not in default:
            raise InvalidArgumentsError(
                f"dataset {name!r} is not ingested by this flow; choose from {', '.join(default)}"
            )
        if not _about(name, symbols):
            raise InvalidArgumentsError(
                f"none of the symbols {', '.join(symbols or ())} is one {name!r} holds"
                + (
                    f" (it holds {', '.join(schemas.get(name).instruments)})"
                    if schemas.get(name).instruments
                    else " (it holds A-share codes)"
                )
            )
        if name not in out:
            out.append(name)
    if not out:
        raise InvalidArgumentsError("no datasets given")
    return out


def _about(dataset: str, symbols: Sequence[str] | None) -> bool:
    """Is a run restricted to `symbols` about this dataset? Always, for one without symbols
    (the calendar) or a run without a restriction."""
    return not symbols or own_symbols(dataset, tuple(symbols)) is not None


def own_symbols(dataset: str, symbols: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The run's symbols this dataset's units ask about (index codes for the index datasets,
    A-share codes for the others); None: no restriction."""
    spec = schemas.get(dataset)
    if not symbols or not spec.per_symbol:
        return symbols
    return spec.own_symbols(symbols) or None


def session_waves(datasets: Sequence[str]) -> list[list[str]]:
    """A nightly session's datasets in waves: the gate's fact datasets (the security master,
    the issue prices) first, as the gate judges tonight's bars with their ST flags, new
    listings and issue prices; per-symbol datasets
    over the universe ask about the master's symbols, which tonight's states extend, and
    go last; so do datasets the gate checks against tonight's bars
    (`bars_check`: pitlake.expectations.limit_checks)."""
    states = [d for d in datasets if d in schemas.GATE_FACT_DATASETS]
    first = [
        d
        for d in datasets
        if schemas.get(d).scope is not Scope.UNIVERSE and d not in schemas.GATE_FACT_DATASETS
    ]
    later = [
        d for d in datasets if schemas.get(d).scope is Scope.UNIVERSE or schemas.get(d).bars_check
    ]
    first = [d for d in first if d not in later]
    return [wave for wave in (states, first, later) if wave]


def session_stages(datasets: Sequence[str]) -> list[tuple[list[str], list[str]]]:
    """Each wave of `session_waves` with the datasets of earlier waves it waits for: tonight's
    gate facts (every later gate reads them, and the universe is the master's), and tonight's
    bars for a wave the gate checks against them. Nothing else an earlier wave writes is read
    by a later one, so a reporting night's statements (minutes of quota) hold up no other
    dataset (decision 62)."""
    stages: list[tuple[list[str], list[str]]] = []
    earlier: list[str] = []
    for wave in session_waves(datasets):
        checks_bars = any(schemas.get(d).bars_check for d in wave)
        needs = [
            d
            for d in earlier
            if d in schemas.GATE_FACT_DATASETS or (checks_bars and d == schemas.UNIVERSE_SOURCE)
        ]
        stages.append((wave, needs))
        earlier += wave
    return stages


def universe_symbols(
    env: RunEnv, dataset: str, symbols: tuple[str, ...] | None
) -> tuple[str, ...] | None:
    """Symbols whose per-symbol feeds are asked: the run's symbols, else
    PITLAKE_<DATASET>_SYMBOLS (comma-separated; PITLAKE_NEWS_SYMBOLS for news), else every
    symbol of the stored security master (RunEnv.universe; never another dataset's rows)."""
    if symbols:
        return symbols
    configured = os.environ.get(f"PITLAKE_{dataset.upper()}_SYMBOLS", "").strip()
    if configured:
        return tuple(canonical_many(configured))
    return env.universe()


def published_window(day: date) -> tuple[date, date]:
    """A nightly window of published items: the calendar days since the previous session,
    through `day`, so a Monday run also covers the weekend's items."""
    return previous_session(day) + timedelta(days=1), day


def _universe_unit(
    env: RunEnv, dataset: str, day: date, lo: date, hi: date, symbols: tuple[str, ...] | None
) -> Unit:
    """One ledger entry for the window, the vendor asked symbol by symbol over the universe."""
    return Unit(
        dataset,
        day,
        start=lo,
        end=hi,
        symbols=symbols,
        fetch_symbols=universe_symbols(env, dataset, symbols),
    )


def universe_pending(env: RunEnv, dataset: str, start: date, end: date) -> list[Unit]:
    """A universe window's unit, unless its entry already asked every symbol of the master
    known now: a successful entry that recorded its symbols gets a top-up asking only the
    ones stored since (a listing ingested after the window was fetched), which on success
    records the union. An entry without them (failed, or recorded before the column
    existed: which symbols it asked is unknowable) is asked over the whole universe again."""
    e = env.catalog.ledger_entry(dataset, end, WHOLE_MARKET)
    whole = _universe_unit(env, dataset, end, start, end, None)
    if e is None or not e.successful or e.symbols_asked is None or whole.fetch_symbols is None:
        return [whole]
    missing = tuple(s for s in whole.fetch_symbols if s not in e.symbols_asked)
    if not missing:
        return []
    return [replace(whole, fetch_symbols=missing, covered=e.symbols_asked, covered_rows=e.rows)]


def nightly_units(
    env: RunEnv, day: date, datasets: Sequence[str], symbols: tuple[str, ...] | None
) -> list[Unit]:
    """One unit per dataset: a universe-scope dataset over its published window, every other
    one for the session (statements: those announced on it)."""
    units = []
    for ds in datasets:
        mine = own_symbols(ds, symbols)
        if schemas.get(ds).scope is Scope.UNIVERSE:
            lo, hi = published_window(day)
            units.append(_universe_unit(env, ds, day, lo, hi, mine))
        else:
            units.append(Unit(ds, day, trade_date=day, symbols=mine))
    return units


def month_chunks(start: date, end: date) -> list[tuple[date, date]]:
    """[start, end] cut at calendar-month boundaries."""
    if start > end:
        raise InvalidArgumentsError(f"start {start} is after end {end}")
    out = []
    lo = start
    while lo <= end:
        nxt = (lo.replace(day=1) + timedelta(days=32)).replace(day=1)
        hi = min(end, nxt - timedelta(days=1))
        out.append((lo, hi))
        lo = nxt
    return out


def chunks_for(dataset: str, start: date, end: date) -> list[tuple[date, date]]:
    """Month chunks, except report-period datasets (statements): each symbol's whole history
    is one fetch, so the window is one chunk (its ledger entry is dated at the window's end)."""
    if schemas.get(dataset).kind is Kind.REPORT_PERIOD:
        return [(start, end)]
    return month_chunks(start, end)


def _done(env: RunEnv, dataset: str, day: date, scopes: Sequence[str]) -> bool:
    """Does the ledger already hold a successful fetch for every scope of this unit?"""
    for scope in scopes:
        e = env.catalog.ledger_entry(dataset, day, scope)
        if e is None or not e.successful:
            return False
    return True


def backfill_units(
    env: RunEnv,
    dataset: str,
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    *,
    force: bool = False,
) -> list[Unit]:
    """The units of one dataset over one chunk, minus those the ledger holds as done: by the
    dataset's kind and scope."""
    spec = schemas.get(dataset)
    symbols = own_symbols(dataset, symbols)
    scopes = list(symbols) if symbols else [WHOLE_MARKET]
    if spec.kind is Kind.TRADE_DATED:  # one unit per session
        return [
            Unit(dataset, d, trade_date=d, symbols=symbols)
            for d in sessions_between(start, end)
            if force or not _done(env, dataset, d, scopes)
        ]
    if spec.kind is Kind.REPORT_PERIOD:
        # Each symbol's whole history: versions announced before `start` and corrections
        # inside the window to old periods are then all present.
        names = symbols or env.universe()
        if not names:
            whole = Unit(dataset, end, start=start, end=end)
            return [] if not force and _done(env, dataset, end, scopes) else [whole]
        return [
            Unit(dataset, end, start=start, end=end, symbols=(s,))
            for s in names
            if force or not _done(env, dataset, end, [s])
        ]
    if spec.scope is Scope.UNIVERSE:  # one window, asked symbol by symbol
        if symbols or force:
            done = not force and _done(env, dataset, end, scopes)
            return [] if done else [_universe_unit(env, dataset, end, start, end, symbols)]
        return universe_pending(env, dataset, start, end)
    if spec.scope is Scope.RANGE:  # one whole-market call over the window (the calendar)
        if not force and _done(env, dataset, end, [WHOLE_MARKET]):
            return []
        return [Unit(dataset, end, start=start, end=end)]
    raise InvalidArgumentsError(f"backfill does not ingest {dataset!r}")
