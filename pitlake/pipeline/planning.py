"""Planning: which units a nightly session or a backfill chunk consists of, minus what the
ledger already holds as done."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import date, timedelta

from pitlake import schemas
from pitlake.calendar import previous_session, sessions_between
from pitlake.errors import InvalidArgumentsError
from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Unit
from pitlake.symbols import canonical_many

NIGHTLY_DATASETS = schemas.NIGHTLY_DATASETS  # what a nightly run ingests, in order
BACKFILL_DATASETS: tuple[str, ...] = (*NIGHTLY_DATASETS, "calendar")
# Datasets fetched per symbol for the lake's universe (after the trade-dated ones).
UNIVERSE_DATASETS: frozenset[str] = frozenset({"news"})


def check_datasets(datasets: Iterable[str] | str | None, default: Sequence[str]) -> list[str]:
    if datasets is None:
        return list(default)
    if isinstance(datasets, str):
        datasets = [d for d in datasets.split(",") if d.strip()]
    out = []
    for d in datasets:
        name = schemas.get(d.strip()).name
        if name not in default:
            raise InvalidArgumentsError(
                f"dataset {name!r} is not ingested by this flow; choose from {', '.join(default)}"
            )
        if name not in out:
            out.append(name)
    if not out:
        raise InvalidArgumentsError("no datasets given")
    return out


def session_waves(datasets: Sequence[str]) -> list[list[str]]:
    """A nightly session's datasets in waves: per-symbol datasets ask about the universe,
    which tonight's quotes extend, so they go in a second wave."""
    first = [d for d in datasets if d not in UNIVERSE_DATASETS]
    later = [d for d in datasets if d in UNIVERSE_DATASETS]
    return [wave for wave in (first, later) if wave]


def news_symbols(env: RunEnv, symbols: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """Symbols whose per-symbol news feeds are asked: the run's symbols, else
    PITLAKE_NEWS_SYMBOLS (comma-separated), else every symbol the lake holds bars for."""
    if symbols:
        return symbols
    configured = os.environ.get("PITLAKE_NEWS_SYMBOLS", "").strip()
    if configured:
        return tuple(canonical_many(configured))
    return env.universe()


def news_window(day: date) -> tuple[date, date]:
    """A nightly news window: the calendar days since the previous session, through `day`,
    so a Monday run also covers the weekend's items."""
    return previous_session(day) + timedelta(days=1), day


def nightly_units(
    env: RunEnv, day: date, datasets: Sequence[str], symbols: tuple[str, ...] | None
) -> list[Unit]:
    units = []
    for ds in datasets:
        if ds == "news":
            lo, hi = news_window(day)
            units.append(
                Unit(
                    ds,
                    day,
                    start=lo,
                    end=hi,
                    symbols=symbols,
                    fetch_symbols=news_symbols(env, symbols),
                )
            )
        else:
            units.append(Unit(ds, day, trade_date=day, symbols=symbols))
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
    """Month chunks, except statements: each symbol's whole history is one fetch, so the
    window is one chunk (its ledger entry is dated at the window's end)."""
    if dataset == "financials":
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
    """The units of one dataset over one chunk, minus those the ledger holds as done."""
    scopes = list(symbols) if symbols else [WHOLE_MARKET]
    if dataset in schemas.TRADE_DATE_DATASETS:
        return [
            Unit(dataset, d, trade_date=d, symbols=symbols)
            for d in sessions_between(start, end)
            if force or not _done(env, dataset, d, scopes)
        ]
    if dataset == "financials":
        # Each symbol's whole statement history: versions announced before `start` and
        # corrections inside the window to old periods are then all present.
        names = symbols or env.universe()
        if not names:
            whole = Unit(dataset, end, start=start, end=end)
            return [] if not force and _done(env, dataset, end, scopes) else [whole]
        return [
            Unit(dataset, end, start=start, end=end, symbols=(s,))
            for s in names
            if force or not _done(env, dataset, end, [s])
        ]
    if dataset == "news":
        if not force and _done(env, dataset, end, scopes):
            return []
        return [
            Unit(
                dataset,
                end,
                start=start,
                end=end,
                symbols=symbols,
                fetch_symbols=news_symbols(env, symbols),
            )
        ]
    if dataset == "calendar":
        if not force and _done(env, dataset, end, [WHOLE_MARKET]):
            return []
        return [Unit(dataset, end, start=start, end=end)]
    raise InvalidArgumentsError(f"backfill does not ingest {dataset!r}")
