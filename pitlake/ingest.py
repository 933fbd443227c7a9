"""One unit of ingest work, end to end: fetch → gate → write or quarantine → ledger.

Plain Python, no Prefect: `tasks/` wraps these functions one-to-one and `flows/` orders them.
A *unit* is what one ledger entry is about: a dataset on one session (or a window), for the
whole market or for named symbols. Every unit ends with a ledger status, so an empty answer
is never mistaken for a failed or not-yet-published one.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import uuid
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd

from pitlake import progress, schemas
from pitlake.calendar import now_beijing, sessions_between
from pitlake.errors import (
    InvalidArgumentsError,
    PitlakeError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
)
from pitlake.lake.catalog import WHOLE_MARKET, Catalog
from pitlake.lake.fs import local_docs_dir, require_catalog_url
from pitlake.lake.lease import coordinator_for
from pitlake.lake.store import LakeStore
from pitlake.pit import iso_beijing
from pitlake.read.stored_calendar import extend_calendar_from_lake
from pitlake.statuses import RUN_DONE, SUCCESSFUL_FETCH, LedgerStatus
from pitlake.symbols import canonical_many
from pitlake.vendors.base import FetchRequest, RawResponse
from pitlake.vendors.registry import build_router, parse_source
from pitlake.vendors.router import Router, RouteResult

log = logging.getLogger(__name__)

NIGHTLY_DATASETS = schemas.NIGHTLY_DATASETS  # what a nightly run ingests, in order
BACKFILL_DATASETS: tuple[str, ...] = (*NIGHTLY_DATASETS, "calendar")
# Datasets fetched per symbol for the lake's universe (after the trade-dated ones).
UNIVERSE_DATASETS: frozenset[str] = frozenset({"news"})
# A whole market never has zero bars, factors or valuations on a session: an empty answer
# means the vendor has not published the date yet.
MARKET_NEVER_EMPTY: frozenset[str] = frozenset({"quotes", "adj_factors", "valuation"})


def new_run_id(flow: str, at: datetime | None = None) -> str:
    at = at or now_beijing()
    return f"{flow}-{at.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"


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


@dataclass(frozen=True)
class Unit:
    """What one fetch is about. `date_key` is the session (trade-dated datasets, nightly) or
    the window's last day; `symbols` None means the whole market."""

    dataset: str
    date_key: date
    trade_date: date | None = None
    start: date | None = None
    end: date | None = None
    symbols: tuple[str, ...] | None = None
    # Symbols to ask the vendor about when they differ from the ledger scope (news for the
    # universe is still one whole-market ledger entry).
    fetch_symbols: tuple[str, ...] | None = None

    @property
    def label(self) -> str:
        scope = ",".join(self.symbols) if self.symbols else "market"
        if len(scope) > 40:
            scope = f"{len(self.symbols or ())} symbols"
        when = (
            self.trade_date.isoformat()
            if self.trade_date
            else f"{self.start}..{self.end}"
            if self.start
            else self.date_key.isoformat()
        )
        return f"{self.dataset} {when} {scope}"


@dataclass
class Batch:
    """A unit's fetch: the router's answer and when we asked."""

    unit: Unit
    route: RouteResult
    fetched_at: datetime

    @property
    def frame(self) -> pd.DataFrame:
        return self.route.frame


@dataclass
class UnitOutcome:
    """How a unit ended: what the ledger now says, what was written, and why (JSON-safe)."""

    dataset: str
    date_key: str
    status: str
    rows: int = 0
    rows_added: int = 0
    vendor: str | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""
    gate: str | None = None  # pass | warn | reject | None (nothing to validate)
    failed_expectations: list[str] = field(default_factory=list)
    symbols: list[str] | None = None
    quarantine: str | None = None

    @property
    def succeeded(self) -> bool:
        return LedgerStatus(self.status) in RUN_DONE

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "date": self.date_key,
            "status": self.status,
            "rows": self.rows,
            "rows_added": self.rows_added,
            "vendor": self.vendor,
            "trace": self.trace,
            "message": self.message,
            "gate": self.gate,
            "failed_expectations": self.failed_expectations,
            "symbols": self.symbols,
            "quarantine": self.quarantine,
        }


class RunEnv:
    """Everything a run touches: the store, the catalog and the vendor router."""

    def __init__(
        self,
        lake_root: str | Path,
        *,
        source: str | None = None,
        run_id: str,
        catalog_url: str | None = None,
        chains: dict[str, Sequence[str]] | None = None,
        capture_raw: bool | None = None,
        router: Router | None = None,
    ) -> None:
        self.store = LakeStore(lake_root)
        self.lake_root = self.store.root  # a Path, or an ObjectPath for an s3:// lake
        if self.store.remote:
            # No SQLite file or Data Docs beside objects: the catalog needs a URL, the docs a
            # local directory.
            catalog_url = require_catalog_url(catalog_url, self.lake_root)
            self.docs_root: Path = local_docs_dir(str(self.lake_root))
        else:
            self.lake_root.mkdir(parents=True, exist_ok=True)
            self.docs_root = self.lake_root
        self.source = source
        self.run_id = run_id
        self.catalog = Catalog(catalog_url, lake_root=None if self.store.remote else self.lake_root)
        # Each partition's read-merge-write-record also holds the partition in the catalog, so
        # ingest hosts sharing it cannot lose each other's rows (pitlake.lake.lease).
        self.store.coordinator = coordinator_for(self.catalog)
        extend_calendar_from_lake(self.store)  # sessions past the offline calendar, if stored
        self.store.sweep_orphans()  # temp files of writers killed mid-write (logged)
        # Raw capture keeps live answers so the lake can be rebuilt without refetching; a
        # replay source is already raw.
        spec = parse_source(source)
        self.capture_raw = spec.kind == "live" if capture_raw is None else capture_raw
        self._factor_owner: dict[str, str] | None = None
        self._universe: tuple[str, ...] | None = None
        self.router = router or build_router(
            source, chains=chains, factor_vendor_of=self.factor_owner
        )
        self._raw_seq = itertools.count(1)

    # ------------------------------------------------------------ lake-derived context
    def _query(self, sql: str, dataset: str) -> list[tuple[Any, ...]]:
        files = [str(p) for p in self.store.files(dataset)]
        if not files:
            return []
        import duckdb

        con = duckdb.connect()
        self.store.fs.register(con)  # s3:// files: read through the store's filesystem
        try:
            return con.execute(sql, [files]).fetchall()
        finally:
            con.close()

    def factor_owner(self, symbol: str) -> str | None:
        """The vendor that owns a symbol's stored factor series (one series, one vendor)."""
        if self._factor_owner is None:
            rows = self._query(
                "SELECT symbol, arg_max(source, known_at) FROM read_parquet(?) GROUP BY symbol",
                "adj_factors",
            )
            self._factor_owner = {s: v for s, v in rows}
        return self._factor_owner.get(symbol)

    def note_factor_owners(self, frame: pd.DataFrame) -> None:
        if self._factor_owner is None:
            self.factor_owner("")
        assert self._factor_owner is not None
        for sym, src in zip(frame["symbol"], frame["source"], strict=True):
            self._factor_owner.setdefault(str(sym), str(src))

    def universe(self) -> tuple[str, ...] | None:
        """Symbols the lake already holds bars for: per-symbol vendors fetch these when a run
        names no symbols."""
        if self._universe is None:
            rows = self._query(
                "SELECT DISTINCT symbol FROM read_parquet(?) ORDER BY symbol", "quotes"
            )
            self._universe = tuple(r[0] for r in rows)
        return self._universe or None

    def forget_universe(self) -> None:
        self._universe = None

    def previous_row_count(self, dataset: str, session: date) -> int | None:
        """Rows of the last OK whole-market fetch before `session` (row-count warning)."""
        lo = session - timedelta(days=30)
        entries = [
            e
            for e in self.catalog.ledger_entries(dataset, lo, session - timedelta(days=1))
            if e.symbol == WHOLE_MARKET and e.status is LedgerStatus.OK
        ]
        return max(entries, key=lambda e: e.date_key).rows if entries else None

    def close(self) -> None:
        self.catalog.close()


@dataclass(frozen=True)
class EnvSpec:
    """How to open a run's environment: picklable, so it can travel to a Dask worker, which
    then opens its own store, catalog and router (`env_for`)."""

    lake: str
    run_id: str
    source: str | None = None
    catalog_url: str | None = None


_ENVS: dict[EnvSpec, RunEnv] = {}
_ENVS_LOCK = threading.Lock()
RAW_WRITERS = 4  # threads writing one unit's raw answers


def env_for(spec: EnvSpec) -> RunEnv:
    """One RunEnv per spec per process (threads of a run share it)."""
    with _ENVS_LOCK:
        env = _ENVS.get(spec)
        if env is None:
            env = RunEnv(
                spec.lake, source=spec.source, run_id=spec.run_id, catalog_url=spec.catalog_url
            )
            _ENVS[spec] = env
        return env


def release(spec: EnvSpec) -> None:
    with _ENVS_LOCK:
        env = _ENVS.pop(spec, None)
    if env is not None:
        env.close()


# ---------------------------------------------------------------- fetch


def fetch(env: RunEnv, unit: Unit) -> Batch:
    """Route one unit through the vendor chain; keep raw answers for live sources."""
    symbols = unit.fetch_symbols or unit.symbols
    universe = None if symbols else env.universe()
    req = FetchRequest(
        dataset=unit.dataset,
        trade_date=unit.trade_date,
        start=unit.start,
        end=unit.end,
        symbols=symbols,
        universe=universe,
    )
    fetched_at = now_beijing()
    route = env.router.route(req, fetched_at)
    if env.capture_raw and route.raws:
        _keep_raw(env, route.raws)
    route.raws = []  # kept in the raw zone (or replayable); don't carry them further
    return Batch(unit, route, fetched_at)


def _keep_raw(env: RunEnv, raws: list[RawResponse]) -> None:
    """One raw-zone file per answer, written by a few threads: a reporting night's 700
    statement answers are 700 small files, each fsynced, and one at a time that was seconds
    of waiting on the disk (Arrow's encoding and fsync release the GIL)."""

    def keep(job: tuple[RawResponse, int]) -> None:
        raw, seq = job
        env.store.write_raw(
            raw.vendor,
            raw.query.endpoint,
            raw.query.params,
            raw.frame,
            fetched_at=raw.fetched_at,
            run_id=env.run_id,
            seq=seq,
        )

    jobs = [(raw, next(env._raw_seq)) for raw in raws]  # names fixed in answer order
    if len(jobs) == 1:
        keep(jobs[0])
        return
    with ThreadPoolExecutor(min(RAW_WRITERS, len(jobs)), thread_name_prefix="raw") as pool:
        list(pool.map(keep, jobs))  # re-raises the first failure


# ---------------------------------------------------------------- gate


def _trade_days(frame: pd.DataFrame) -> set[date]:
    if "trade_date" not in frame.columns or frame.empty:
        return set()
    return set(pd.to_datetime(frame["trade_date"]).dt.date)


def _context(
    env: RunEnv,
    batch: Batch,
    *,
    expected: date | None,
    window: tuple[date, date] | None,
) -> Any:
    from pitlake.expectations.gate import RunContext

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
            and ds in schemas.TRADE_DATE_DATASETS
            and not batch.unit.symbols
            else None
        ),
    )


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
    from pitlake.expectations.gate import check_alignment, validate

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
            for i in live:
                v = aligned.get(batches[i].unit.dataset)
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
    return verdicts


# ---------------------------------------------------------------- failures

MAX_FAILURE_MESSAGE = 500


def retryable(exc: BaseException) -> bool:
    """Can a second try succeed? A transient vendor or storage failure can; invalid arguments,
    a missing configuration, a permission denial or a bug cannot. Prefect's task retries and
    the unit guards below both ask this."""
    if isinstance(exc, InvalidArgumentsError | VendorNotConfiguredError | VendorPermissionError):
        return False
    if isinstance(exc, VendorError):
        return bool(exc.retryable)
    if isinstance(exc, PitlakeError):
        return False
    if isinstance(exc, OSError):
        return True
    # a locked SQLite catalog, a dropped PostgreSQL connection
    return type(exc).__name__ in {"OperationalError", "InterfaceError"}


def failure_status(exc: BaseException) -> LedgerStatus:
    """The ledger status an exception ends a unit with: the one a pitlake error names (rate
    limited, permission denied, ...), else UPSTREAM_ERROR; never a success."""
    try:
        status = LedgerStatus(str(getattr(exc, "status", "")))
    except ValueError:
        return LedgerStatus.UPSTREAM_ERROR
    return LedgerStatus.UPSTREAM_ERROR if status in SUCCESSFUL_FETCH else status


def failure_message(exc: BaseException, step: str) -> str:
    """One line for the ledger and the summary (the whole text is in the log)."""
    lines = str(exc).strip().splitlines()
    text = f"{step} failed: {type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    return text if len(text) <= MAX_FAILURE_MESSAGE else text[: MAX_FAILURE_MESSAGE - 1] + "…"


def fail_units(
    env: RunEnv, units: Sequence[Unit], exc: BaseException, *, step: str
) -> list[UnitOutcome]:
    """End units with the exception's ledger status and message (the traceback goes to the
    log): one broken unit must not take the other datasets of its run, or the run's summary,
    down with it."""
    status, message = failure_status(exc), failure_message(exc, step)
    log.error("%s: %s", "; ".join(u.label for u in units), message, exc_info=exc)
    outcomes = []
    for u in units:
        out = UnitOutcome(
            dataset=u.dataset,
            date_key=u.date_key.isoformat(),
            status=str(status),
            message=message,
            symbols=list(u.symbols) if u.symbols else None,
        )
        try:
            _record_ledger(env, u, status, counts=None, vendor=None, trace=[], message=message)
        except Exception as e:  # the catalog itself is failing: the summary still says why
            log.error("%s: its ledger entry was not recorded", u.label, exc_info=e)
            out.message = f"{message}; ledger not recorded: {type(e).__name__}: {e}"
        outcomes.append(out)
    return outcomes


def _unless_retryable(
    env: RunEnv, units: Sequence[Unit], exc: BaseException, *, step: str
) -> list[UnitOutcome]:
    """A transient failure goes up to the task's retries (which end, at worst, in
    `fail_chunk`); anything else ends these units here."""
    if retryable(exc):
        raise exc
    return fail_units(env, units, exc, step=step)


# ---------------------------------------------------------------- commit


def _scopes(unit: Unit) -> list[str]:
    return list(unit.symbols) if unit.symbols else [WHOLE_MARKET]


def _session_keys(unit: Unit) -> list[date]:
    """The dates a unit's ledger entries are about."""
    if unit.trade_date is not None or unit.dataset not in schemas.TRADE_DATE_DATASETS:
        return [unit.date_key]
    assert unit.start is not None and unit.end is not None
    return sessions_between(unit.start, unit.end)


def _rows_by_scope(unit: Unit, frame: pd.DataFrame) -> dict[tuple[date, str], int]:
    """Row counts per (ledger date, scope) for the rows a unit brought."""
    counts: dict[tuple[date, str], int] = {}
    date_col = schemas.get(unit.dataset).date_column
    by_date = unit.dataset in schemas.TRADE_DATE_DATASETS and unit.trade_date is None
    for d in _session_keys(unit):
        part = frame
        if by_date and date_col is not None and not frame.empty:
            part = frame[pd.to_datetime(frame[date_col]).dt.date == d]
        for scope in _scopes(unit):
            counts[(d, scope)] = len(part) if scope == WHOLE_MARKET else _rows_about(part, scope)
    return counts


def _rows_about(frame: pd.DataFrame, symbol: str) -> int:
    """Rows about one symbol: its `symbol` rows, or (news) the items whose `symbols` list
    names it. A frame with neither column is all about the symbols the unit asked for."""
    if frame.empty:
        return 0
    if "symbol" in frame.columns:
        return int((frame["symbol"] == symbol).sum())
    if "symbols" in frame.columns:
        return sum(
            1
            for cell in frame["symbols"]
            if hasattr(cell, "__iter__") and not isinstance(cell, str) and symbol in list(cell)
        )
    return len(frame)


def _record_ledger(
    env: RunEnv,
    unit: Unit,
    status: LedgerStatus,
    *,
    counts: dict[tuple[date, str], int] | None,
    vendor: str | None,
    trace: list[dict[str, Any]],
    message: str,
) -> tuple[LedgerStatus, str]:
    """One ledger entry per (date, scope). On success a scope without rows is NO_DATA — or
    NOT_READY for a whole-market dataset that is never empty on a session."""
    worst, worst_msg = status, message
    for d in _session_keys(unit):
        for scope in _scopes(unit):
            s, rows, msg = status, 0, message
            if counts is not None:
                rows = counts.get((d, scope), 0)
                if status in SUCCESSFUL_FETCH:
                    s = LedgerStatus.OK if rows else LedgerStatus.NO_DATA
                    if not rows and scope == WHOLE_MARKET and unit.dataset in MARKET_NEVER_EMPTY:
                        s = LedgerStatus.NOT_READY
                        msg = f"no {unit.dataset} rows for session {d}: not published yet"
            if s not in RUN_DONE:
                worst, worst_msg = s, msg
            env.catalog.record_ledger(
                unit.dataset,
                d,
                s,
                symbol=scope,
                rows=rows,
                vendor=vendor,
                trace=trace,
                message=msg,
                run_id=env.run_id,
            )
    return worst, worst_msg


def _outcome(batch: Batch) -> UnitOutcome:
    unit, route = batch.unit, batch.route
    return UnitOutcome(
        dataset=unit.dataset,
        date_key=unit.date_key.isoformat(),
        status=str(route.status),
        rows=len(route.frame),
        vendor=route.vendor,
        trace=list(route.trace),
        message=route.message,
        symbols=list(unit.symbols) if unit.symbols else None,
    )


def _close(
    env: RunEnv,
    out: UnitOutcome,
    batch: Batch,
    status: LedgerStatus,
    *,
    counts: dict[tuple[date, str], int] | None,
    message: str,
) -> None:
    """Record a unit's ledger entries and carry the resulting status into its outcome."""
    final, final_message = _record_ledger(
        env,
        batch.unit,
        status,
        counts=counts,
        vendor=batch.route.vendor,
        trace=out.trace,
        message=message,
    )
    out.status, out.message = str(final), final_message


def commit(
    env: RunEnv, batches: Sequence[Batch], verdicts: Sequence[Any | None]
) -> list[UnitOutcome]:
    """Write passing batches (one store write per dataset), quarantine rejected ones, and
    record the ledger and validation results for every unit. An unexpected exception ends
    only the unit it came from (`fail_units`); a group whose write fails is written again one
    unit at a time, so the failure names exactly the bad unit."""
    outcomes = [_outcome(b) for b in batches]
    recorded: set[int] = set()
    docs: list[Any] = []
    to_write: dict[str, list[int]] = {}
    for i, (b, v) in enumerate(zip(batches, verdicts, strict=True)):
        try:
            if _settle(env, outcomes[i], b, v, i, recorded, docs):
                to_write.setdefault(b.unit.dataset, []).append(i)
        except Exception as e:
            outcomes[i] = _unless_retryable(env, [b.unit], e, step="commit")[0]
    if docs:
        # Before the writes and their ledger entries: a run killed after the ledger would
        # never validate those units again, so their Data Docs page would be lost for good;
        # killed before it, the rerun validates and publishes again.
        from pitlake.expectations.datadocs import build_data_docs

        try:
            build_data_docs(env.docs_root, docs)
        except Exception as e:  # unpublished: leave these units to be validated again
            pending = [i for idx in to_write.values() for i in idx]
            failed = _unless_retryable(env, [batches[i].unit for i in pending], e, step="data docs")
            for i, out in zip(pending, failed, strict=True):
                outcomes[i] = out
            to_write = {}
    for ds, idx in to_write.items():
        try:
            _write_group(env, ds, batches, verdicts, outcomes, idx)
        except Exception as e:
            if retryable(e) or len(idx) == 1:
                outcomes[idx[0]] = _unless_retryable(env, [batches[idx[0]].unit], e, step="write")[
                    0
                ]
                continue
            for i in idx:
                try:
                    _write_group(env, ds, batches, verdicts, outcomes, [i])
                except Exception as e1:
                    outcomes[i] = _unless_retryable(env, [batches[i].unit], e1, step="write")[0]
    return outcomes


def _settle(
    env: RunEnv,
    out: UnitOutcome,
    b: Batch,
    v: Any | None,
    i: int,
    recorded: set[int],
    docs: list[Any],
) -> bool:
    """Everything a unit needs before the write: a failed or empty fetch is recorded, a
    verdict's results are recorded (a group verdict once), a rejected batch is quarantined.
    True if the unit's rows are to be written."""
    if not b.route.ok or b.frame.empty or v is None:
        # Nothing to validate: the fetch failed, or succeeded with no rows (NO_DATA, which
        # _record_ledger turns into NOT_READY for a whole market that is never empty).
        counts = {} if b.route.status in SUCCESSFUL_FETCH else None
        _close(env, out, b, b.route.status, counts=counts, message=b.route.message)
        return False
    out.gate = str(v.outcome)
    out.failed_expectations = v.failed_names()
    if id(v) not in recorded:
        recorded.add(id(v))
        docs.append(v)
        for rec in v.to_catalog_records():
            env.catalog.record_validation(**rec)
    if v.writable:
        return True
    label = f"{b.unit.dataset}-{b.unit.date_key.isoformat()}-{i}"
    path = env.store.quarantine(b.unit.dataset, env.run_id, b.frame, v.to_dict(), label=label)
    env.catalog.record_quarantine(**v.quarantine_record(str(path)))
    out.quarantine = str(path)
    _close(env, out, b, v.ledger_status, counts=None, message=v.message)
    return False


def _write_group(
    env: RunEnv,
    ds: str,
    batches: Sequence[Batch],
    verdicts: Sequence[Any | None],
    outcomes: list[UnitOutcome],
    idx: list[int],
) -> None:
    """One store write for a dataset's passing units, then each unit's ledger entries."""
    frame = pd.concat([batches[i].frame for i in idx], ignore_index=True)
    result = env.store.write(ds, frame, run_id=env.run_id, ingested_at=now_beijing())
    for p in result.partitions:
        if p.value in result.written and not result.recorded:  # recorded inside the hold
            env.catalog.record_partition_file(
                ds, p.value, p.path, p.rows, p.sha256, run_id=env.run_id
            )
    if ds == "adj_factors":
        env.note_factor_owners(frame)
    if ds == "quotes":
        env.forget_universe()
    for i in idx:
        b, out, v = batches[i], outcomes[i], verdicts[i]
        try:
            message = out.message
            if v.warnings:
                message = "; ".join(m for m in (b.route.message, v.message) if m)
            counts = _rows_by_scope(b.unit, b.frame)
            _close(env, out, b, LedgerStatus.OK, counts=counts, message=message)
        except Exception as e:  # written, but its ledger entry failed: fetched again later
            outcomes[i] = _unless_retryable(env, [b.unit], e, step="commit")[0]
    # One store write per dataset: its rows added are reported once, on the first unit.
    outcomes[idx[0]].rows_added = result.rows_added


def not_a_session(day: date) -> str:
    """Why a date has nothing to ingest, as the summary shows it: '2025-06-07 is not an XSHG
    session (Saturday)'; a weekday names the holiday closure."""
    weekday = day.strftime("%A")
    why = weekday if day.weekday() >= 5 else f"{weekday}, an exchange holiday"
    return f"{day} is not an XSHG session ({why})"


def skip(env: RunEnv, dataset: str, day: date, reason: str) -> UnitOutcome:
    """A non-session date: nothing to fetch, recorded so the ledger says why."""
    env.catalog.record_ledger(dataset, day, LedgerStatus.SKIPPED, message=reason, run_id=env.run_id)
    return UnitOutcome(
        dataset=dataset, date_key=day.isoformat(), status=LedgerStatus.SKIPPED, message=reason
    )


def summarize(outcomes: Sequence[UnitOutcome]) -> dict[str, Any]:
    """Run summary, one entry per dataset: its worst failure if any unit failed, else OK if
    any unit brought rows, else the benign status (NO_DATA, NOT_CONFIGURED, SKIPPED). The run
    is Completed iff no dataset failed."""
    per: dict[str, dict[str, Any]] = {}
    first_message: dict[tuple[str, str], str] = {}  # (dataset, status) → a unit's message
    for o in outcomes:
        if o.message:
            first_message.setdefault((o.dataset, o.status), o.message)
        s = per.setdefault(
            o.dataset,
            {
                "dataset": o.dataset,
                "status": None,
                "units": 0,
                "rows": 0,
                "rows_added": 0,
                "vendors": [],
                "failed_units": [],
                "expectations": [],
                "message": "",
                "statuses": {},
            },
        )
        s["units"] += 1
        s["rows"] += o.rows
        s["rows_added"] += o.rows_added
        s["statuses"][o.status] = s["statuses"].get(o.status, 0) + 1
        if o.vendor and o.vendor not in s["vendors"]:
            s["vendors"].append(o.vendor)
        for name in o.failed_expectations:
            if name not in s["expectations"]:
                s["expectations"].append(name)
        if not o.succeeded:
            s["failed_units"].append(o.to_dict())
            if s["status"] is None or LedgerStatus(s["status"]) in RUN_DONE:
                s["status"], s["message"] = o.status, o.message
    for s in per.values():
        if s["status"] is None:  # nothing failed
            counts = s["statuses"]
            s["status"] = (
                LedgerStatus.OK if LedgerStatus.OK in counts else max(counts, key=counts.get)
            )
            if s["status"] != LedgerStatus.OK:  # why it is benign: SKIPPED says which non-session
                s["message"] = first_message.get((s["dataset"], s["status"]), "")
    completed = all(LedgerStatus(s["status"]) in RUN_DONE for s in per.values())
    return {
        "completed": completed,
        "datasets": list(per.values()),
        "finished_at": iso_beijing(now_beijing()),
    }


# ---------------------------------------------------------------- planning


def run_units(
    env: RunEnv,
    units: Sequence[Unit],
    *,
    align_on: date | None = None,
    window: tuple[date, date] | None = None,
) -> list[UnitOutcome]:
    """Fetch, gate and commit a group of units (the body of a backfill chunk). A unit whose
    step raises ends there with a typed ledger status; the others go on."""
    batches: list[Batch] = []
    failed: list[UnitOutcome] = []
    for u in units:
        try:
            batches.append(fetch(env, u))
        except Exception as e:
            failed += _unless_retryable(env, [u], e, step="fetch")
    progress.advance(len(units))
    try:
        verdicts = gate(env, batches, align_on=align_on, window=window)
    except Exception as e:
        if retryable(e) or len(batches) == 1:
            return failed + _unless_retryable(env, [b.unit for b in batches], e, step="gate")
        # Validated one at a time: the failure names exactly the bad unit.
        kept: list[Batch] = []
        verdicts = []
        for b in batches:
            try:
                verdicts.append(gate(env, [b], align_on=align_on, window=window)[0])
                kept.append(b)
            except Exception as e1:
                failed += _unless_retryable(env, [b.unit], e1, step="gate")
        batches = kept
    return failed + commit(env, batches, verdicts)


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
    from pitlake.calendar import previous_session

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


def backfill_chunk(
    env: RunEnv,
    dataset: str,
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    *,
    force: bool = False,
    group: int = 200,
) -> list[UnitOutcome]:
    """One dataset over one chunk: its pending units in groups (one gate run and one write
    per group), each unit ending with its own ledger entry."""
    try:
        units = backfill_units(env, dataset, start, end, symbols, force=force)
    except Exception as e:
        if retryable(e):
            raise
        return [chunk_failed(dataset, start, end, symbols, e, step="planning")]
    progress.plan(len(units))
    outcomes: list[UnitOutcome] = []
    for i in range(0, len(units), group):
        outcomes += run_units(env, units[i : i + group], window=(start, end))
    return outcomes


def chunk_failed(
    dataset: str,
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    exc: BaseException,
    *,
    step: str,
) -> UnitOutcome:
    """A chunk that failed before its units were known: the summary says so (there is no
    unit to give a ledger entry; the ledger keeps what it had, so a rerun tries again)."""
    log.error("%s %s..%s: %s", dataset, start, end, failure_message(exc, step), exc_info=exc)
    return UnitOutcome(
        dataset=dataset,
        date_key=end.isoformat(),
        status=str(failure_status(exc)),
        message=f"{start if start == end else f'{start}..{end}'}: {failure_message(exc, step)}",
        symbols=list(symbols) if symbols else None,
    )


def fail_chunk(
    env: RunEnv,
    dataset: str,
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    exc: BaseException,
    *,
    force: bool = False,
) -> list[UnitOutcome]:
    """A chunk whose task failed for good (retries exhausted): its pending units end with the
    exception's status in the ledger, so the run's other chunks and its summary stand."""
    try:
        units = backfill_units(env, dataset, start, end, symbols, force=force)
    except Exception:
        units = []
    if not units:
        return [chunk_failed(dataset, start, end, symbols, exc, step="chunk")]
    return fail_units(env, units, exc, step="chunk")
