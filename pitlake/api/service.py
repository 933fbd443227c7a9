"""Task-shaped questions → `Lake` reads → envelopes: the one implementation behind the HTTP API,
the `pitlake query` CLI and the MCP server (so the three give the same envelope).

What this layer adds to `Lake`:
- **Pins.** The operator's start-up as-of (`as_of_pin`) and named pins (`allowed_pins`, chosen
  per request by name, e.g. the `X-Pitlake-Pin` header). The stricter of the two applies; every
  answer under a pin says so in `meta.pinned` and `meta.pin` ({name, as_of, clamped}).
- **Snapshot.** Several datasets for the same symbols at once, each section its own envelope
  with its own `effective_trade_date`; `meta.aligned` says whether the trade-dated sections
  answer about the same session. Misaligned sections are reported side by side, never merged.
- **Freshness** (`status`): per dataset, the latest successful fetch in the ledger as known at
  the cutoff versus the latest closed session, and the lag in sessions.
- **Faults.** Nothing raises out of here. Bad input → INVALID_ARGUMENTS; an unreadable Parquet
  file or catalog, or any unexpected error → an UPSTREAM_ERROR envelope with a generic message
  and `meta.fault` ('storage' | 'catalog' | 'internal'), the traceback going to the log only.
- **Redaction.** Answers leave through `Answer.json_bytes()` / `Answer.public()`, which mask any
  vendor or API token value found in the environment.

No FastAPI here: the CLI imports this module and must stay fast.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from enum import StrEnum
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from pitlake.api.formats import rows_for
from pitlake.api.params import dataset_list, pin_table, repair_as_of, split_list
from pitlake.api.redact import redact_bytes, redact_obj
from pitlake.calendar import to_date
from pitlake.envelope import Result
from pitlake.errors import InvalidArgumentsError, LakeCorruptError, LakeError, NotALakeError
from pitlake.lake.catalog import (
    WHOLE_MARKET,
    Catalog,
    from_storage,
    ledger_table,
)
from pitlake.lake.fs import is_url
from pitlake.pit import iso_beijing, parse_cutoff
from pitlake.read.lake import Lake
from pitlake.read.status import BENIGN_ANSWER, combine
from pitlake.schemas import NIGHTLY_DATASETS, SCHEMAS, Dataset, Kind
from pitlake.statuses import DateStatus, LedgerStatus, ResultStatus
from pitlake.symbols import canonical_many

try:  # orjson is ~5× faster on 250-row answers; plain json gives the same document
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson ships with the environment
    _orjson = None

log = logging.getLogger("pitlake.api")

# A snapshot's sections: every queryable dataset asked about symbols (not the calendar), the
# trade-dated ones first — their answers are about one session, so they can be (mis)aligned.
SNAPSHOT_DATASETS: tuple[str, ...] = tuple(
    sorted(
        (d for d, s in SCHEMAS.items() if s.query and "symbols" in s.query.model_fields),
        key=lambda d: SCHEMAS[d].kind is not Kind.TRADE_DATED,
    )
)
ALIGNED_DATASETS: frozenset[str] = frozenset(
    d for d in SNAPSHOT_DATASETS if SCHEMAS[d].kind is Kind.TRADE_DATED
)
# Query parameters that take several values (a list, or a comma-separated string).
LIST_FIELDS = ("symbols", "periods")
FRESHNESS_DATASETS: tuple[str, ...] = NIGHTLY_DATASETS
MAX_SNAPSHOT_SYMBOLS = 200
SNAPSHOT_NEWS_LIMIT = 50


def lake_missing(root: str | os.PathLike[str]) -> bool:
    """A local lake directory that does not exist (an s3:// lake is checked by its reads)."""
    return not is_url(str(root)) and not Path(root).is_dir()


class Fault(StrEnum):
    """Why an answer vouches for nothing (meta.fault): not a statement about the market."""

    NOT_A_LAKE = "not_a_lake"  # the path holds no pitlake catalog (nothing was created)
    STORAGE = "storage"  # a Parquet file in the lake could not be read (corrupt, truncated, …)
    CATALOG = "catalog"  # the catalog database could not be read
    INTERNAL = "internal"  # a bug: logged with its traceback


FAULT_MESSAGES: dict[Fault, str] = {
    Fault.NOT_A_LAKE: (
        "The path holds no pitlake catalog, and nothing was created there: point --lake or "
        "$PITLAKE_HOME at a lake, or ingest into this one first."
    ),
    Fault.STORAGE: (
        "The lake could not read its stored data for this request (a Parquet file is "
        "unreadable or corrupt). This says nothing about the market: the operator must repair "
        "or re-ingest the affected partition. Details: the server's log, or `pitlake --debug`."
    ),
    Fault.CATALOG: (
        "The lake's catalog (the fetch ledger) could not be read, so no status can be vouched "
        "for. Retry later. Details: the server's log, or `pitlake --debug`."
    ),
    Fault.INTERNAL: (
        "Internal error while answering; nothing is vouched for. Retry later. Details: the "
        "server's log, or `pitlake --debug`."
    ),
}
FAULT_RETRYABLE: dict[Fault, bool] = {
    Fault.NOT_A_LAKE: False,
    Fault.STORAGE: False,
    Fault.CATALOG: True,
    Fault.INTERNAL: True,
}
STORAGE_ERRORS: tuple[type[BaseException], ...] = (duckdb.Error, pa.ArrowException, OSError)


@dataclass
class Answer:
    """One envelope (docs/design.md §8) plus, when nothing could be vouched for, why."""

    envelope: dict[str, Any]
    fault: Fault | None = None
    result: Result | None = None  # the read's Result (its Arrow table), for columnar formats

    @property
    def status(self) -> ResultStatus:
        return ResultStatus(self.envelope["status"])

    @property
    def ok(self) -> bool:
        return self.status in BENIGN_ANSWER

    def public(self) -> dict[str, Any]:
        """The envelope as it may leave the process (secrets masked)."""
        return redact_obj(self.envelope)

    def json_bytes(self) -> bytes:
        """Compact UTF-8 JSON of the envelope, secrets masked."""
        if _orjson is not None:
            body = _orjson.dumps(self.envelope)
        else:  # pragma: no cover
            body = json.dumps(
                self.envelope, ensure_ascii=False, allow_nan=False, separators=(",", ":")
            ).encode()
        return redact_bytes(body)


Read = Callable[[Lake, Any], Result]


def _kept(kept: list[Result], result: Result) -> Result:
    kept.append(result)
    return result


def envelope_of(result: Result) -> dict[str, Any]:
    """`Result.to_dict()` without `dataclasses.asdict`'s deep copy of every row (half the time
    of a one-year quotes answer): the rows are plain JSON values the Result owns already."""
    return {
        "status": str(result.status),
        "requested_date": result.requested_date,
        "effective_trade_date": result.effective_trade_date,
        "date_status": str(result.date_status),
        "as_of": result.as_of,
        "source": result.source,
        "retryable": bool(result.retryable),
        "message": result.message,
        "data": rows_for(result),  # all rows, one page, or none (pitlake.api.formats)
        "meta": dict(result.meta),
    }


def _classify(exc: BaseException) -> Fault:
    if isinstance(exc, NotALakeError):
        return Fault.NOT_A_LAKE
    if isinstance(exc, LakeCorruptError):
        return Fault.STORAGE
    if isinstance(exc, LakeError):
        return Fault.CATALOG
    if isinstance(exc, STORAGE_ERRORS):
        return Fault.STORAGE
    if isinstance(exc, SQLAlchemyError):
        return Fault.CATALOG
    return Fault.INTERNAL


def _shown_path(path: str, root: object) -> str:
    """A fault's path as an answer may show it: relative to the lake when inside it (an HTTP
    client learns the lake's layout, not the server's directories)."""
    base = str(root).rstrip("/") + "/"
    return path[len(base) :] if path.startswith(base) else path


def fault_envelope(
    fault: Fault, exc: BaseException | None = None, root: object = None
) -> dict[str, Any]:
    """The UPSTREAM_ERROR envelope of a fault. A `LakeError` names what failed (its `path`,
    relative to the lake) in the message and in `meta.fault_path`: a user can act on it."""
    message = FAULT_MESSAGES[fault]
    path = None
    if isinstance(exc, LakeError):
        said = exc.message.rstrip(".")
        if root is not None:  # paths inside the lake, relative to it
            said = said.replace(str(root).rstrip("/") + "/", "")
        message = f"{said}. {message}"
        if exc.path:
            path = _shown_path(str(exc.path), root) if root is not None else str(exc.path)
    env = Result(
        status=ResultStatus.UPSTREAM_ERROR,
        message=message,
        retryable=FAULT_RETRYABLE[fault],
    ).to_dict()
    env["meta"]["fault"] = str(fault)
    if path is not None:
        env["meta"]["fault_path"] = path
    return env


class QueryService:
    """Answers for one lake directory, optionally pinned (see the module docstring)."""

    def __init__(
        self,
        lake_path: str | os.PathLike[str],
        *,
        as_of_pin: str | date | datetime | None = None,
        allowed_pins: dict[str, Any] | Iterable[str] | None = None,
        catalog_url: str | None = None,
        catalog: Catalog | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.root = lake_path  # a directory, or an s3:// URL (see pitlake.lake.fs)
        self.base_pin = parse_cutoff(as_of_pin) if as_of_pin is not None else None
        self.allowed_pins = pin_table(allowed_pins)
        self._catalog_url = catalog_url
        self._catalog = catalog
        self._owns_catalog = catalog is None
        self._clock = clock
        self._lakes: dict[datetime | None, Lake] = {}
        self._lock = threading.RLock()

    # ------------------------------------------------------------ plumbing

    @property
    def catalog(self) -> Catalog:
        """One catalog (one connection pool) shared by every pinned Lake: the one the
        unpinned Lake opens by its own rules (`<lake>/catalog.db`, $PITLAKE_CATALOG_URL, or the
        URL an object-storage lake requires)."""
        if self._catalog is None:
            with self._lock:
                if self._catalog is None:
                    self._catalog = self.lake(None).catalog
        return self._catalog

    def require_lake(self) -> None:
        """Raise NotALakeError now when the path holds no pitlake catalog, or (object storage)
        no catalog URL says where it is (the surfaces check at start-up; without this the first
        read raises it). Opens nothing for writing."""
        try:
            _ = self.catalog
        except ValueError as e:  # require_catalog_url: an s3:// lake without a catalog URL
            raise NotALakeError(str(e), path=str(self.root)) from e

    def now(self) -> datetime:
        now = self._clock() if self._clock else datetime.now(timezone.utc)
        return now if now.tzinfo else now.replace(tzinfo=timezone.utc)

    def close(self) -> None:
        for lake in self._lakes.values():
            lake.close()
        self._lakes.clear()
        if self._catalog is not None and self._owns_catalog:
            self._catalog.close()
        self._catalog = None

    def resolve_pin(self, name: str | None) -> tuple[datetime | None, str | None]:
        """The cutoff ceiling for a request naming pin `name` (None: the server's own pin).
        A named pin never lifts the operator's start-up pin: the earlier of the two wins."""
        if name is None or not name.strip():
            return self.base_pin, None
        name = name.strip()
        if name not in self.allowed_pins:
            allowed = ", ".join(sorted(self.allowed_pins)) or "none"
            shown = name if len(name) <= 64 else name[:64] + "…"
            raise InvalidArgumentsError(f"unknown pin {shown!r}; this server allows: {allowed}")
        at = self.allowed_pins[name]
        if self.base_pin is not None and self.base_pin < at:
            at = self.base_pin
        return at, name

    def lake(self, pin_at: datetime | None = None) -> Lake:
        """The Lake for one pin (cached: each holds its own DuckDB connection)."""
        lake = self._lakes.get(pin_at)
        if lake is None:
            with self._lock:
                lake = self._lakes.get(pin_at)
                if lake is None:
                    lake = Lake(
                        self.root,
                        catalog_url=self._catalog_url,
                        catalog=self._catalog if pin_at is None else self.catalog,
                        pin_as_of=pin_at,
                        clock=self._clock,
                    )
                    self._lakes[pin_at] = lake
        return lake

    def _guard(self, what: str, read: Callable[[], Result]) -> tuple[dict[str, Any], Fault | None]:
        """Run one read; turn every failure into an envelope (never raise)."""
        try:
            return envelope_of(read()), None
        except InvalidArgumentsError as e:
            return Result.invalid(str(e)).to_dict(), None
        except Exception as e:
            fault = _classify(e)
            if isinstance(e, LakeError):  # named and expected: one line, no traceback
                log.error("query %s failed (%s): %s", what, fault, e)
            else:
                log.exception("query %s failed (%s)", what, fault)
            return fault_envelope(fault, e, self.root), fault

    def _stamp_pin(
        self, env: dict[str, Any], pin_at: datetime | None, pin_name: str | None, as_of: Any
    ) -> None:
        """meta.pinned / meta.pin on every answer given under a pin (invalid ones included)."""
        if pin_at is None:
            return
        try:
            requested = parse_cutoff(as_of, now=parse_cutoff(self.now()))
        except (InvalidArgumentsError, TypeError):
            requested = None
        meta = env["meta"]
        meta["pinned"] = True
        meta["pin"] = {
            "name": pin_name,
            "as_of": iso_beijing(pin_at),
            "clamped": requested is not None and requested > pin_at,
        }

    def _run(self, what: str, pin: str | None, as_of: Any, read: Read) -> Answer:
        """Resolve the pin, read through the pinned Lake, stamp the pin."""
        as_of = repair_as_of(as_of) if isinstance(as_of, str) else as_of
        try:
            pin_at, pin_name = self.resolve_pin(pin)
        except InvalidArgumentsError as e:
            return Answer(Result.invalid(str(e)).to_dict())
        kept: list[Result] = []
        env, fault = self._guard(what, lambda: _kept(kept, read(self.lake(pin_at), as_of)))
        self._stamp_pin(env, pin_at, pin_name, as_of)
        return Answer(env, fault, kept[0] if kept else None)

    def sql(self, query: str, *, as_of: str | None = None, pin: str | None = None) -> Answer:
        """Point-in-time SQL (`Lake.sql`) through the pinned Lake: a pin clamps it too."""
        return self._run("sql", pin, as_of, lambda lake, a: lake.sql(query, as_of=a))

    # ------------------------------------------------------------ datasets

    def read(self, dataset: Dataset, *, pin: str | None = None, **params: Any) -> Answer:
        """One dataset's answer through the pinned Lake (`Lake.read`, the parameters of the
        spec's query model); list parameters may also come comma-separated."""
        as_of = params.pop("as_of", None)

        def read(lake: Lake, as_of: Any) -> Result:
            for name in LIST_FIELDS:
                if params.get(name) is not None:
                    params[name] = split_list(params[name])
            return lake.read(dataset, as_of=as_of, **params)

        return self._run(dataset.name, pin, as_of, read)

    # ------------------------------------------------------------ snapshot

    def snapshot(
        self,
        symbols: str | Sequence[str] | None = None,
        *,
        datasets: str | Sequence[str] | None = None,
        date: str | None = None,
        as_of: str | None = None,
        pin: str | None = None,
    ) -> Answer:
        """Several datasets for the same symbols, one section each (see the module doc).

        A trade-dated section whose session is not available (NOT_READY, a failed fetch)
        carries that status and, when an older session is known, that session's rows flagged
        `date_status: STALE` with its own `effective_trade_date` and `meta.fallback` — so an
        agent sees yesterday's valuation *as* yesterday's, beside today's quotes."""
        as_of = repair_as_of(as_of) if isinstance(as_of, str) else as_of
        try:
            pin_at, pin_name = self.resolve_pin(pin)
        except InvalidArgumentsError as e:
            return Answer(Result.invalid(str(e)).to_dict())
        try:
            names = dataset_list(datasets) or list(SNAPSHOT_DATASETS)
            unknown = [n for n in names if n not in SNAPSHOT_DATASETS]
            if unknown:
                raise InvalidArgumentsError(
                    f"snapshot datasets must be among {', '.join(SNAPSHOT_DATASETS)}; "
                    f"got {', '.join(unknown)}"
                )
            raw = split_list(symbols)
            if not raw:
                raise InvalidArgumentsError("give at least one symbol, e.g. 600519.SH")
            syms = canonical_many(raw)
            if len(syms) > MAX_SNAPSHOT_SYMBOLS:
                raise InvalidArgumentsError(
                    f"too many symbols for a snapshot ({len(syms)} > {MAX_SNAPSHOT_SYMBOLS})"
                )
            day = to_date(date) if date is not None else None
            self.require_lake()  # one not-a-lake answer, not one per section
            lake = self.lake(pin_at)
            ask = lake.ask(as_of)  # the Lake's own cutoff rules (pin, future, now)
            requested = day or ask.cutoff.date()
            target = lake.trading_calendar.session_on_or_before(min(requested, ask.cutoff.date()))
        except InvalidArgumentsError as e:
            env = Result.invalid(str(e)).to_dict()
            self._stamp_pin(env, pin_at, pin_name, as_of)
            return Answer(env)
        except Exception as e:  # the catalog failing to open, say
            fault = _classify(e)
            log.exception("snapshot failed before reading (%s)", fault)
            return Answer(fault_envelope(fault, e, self.root), fault)

        sections: list[dict[str, Any]] = []
        faults: list[Fault] = []
        for name in names:
            env, fault = self._guard(
                f"snapshot.{name}", lambda n=name: self._section(lake, SCHEMAS[n], syms, day, as_of)
            )
            if fault is None and name in ALIGNED_DATASETS:
                env = self._with_fallback(lake, name, syms, as_of, env)
                env = self._no_data_is_current(env, requested, target)
            if fault is not None:
                faults.append(fault)
            sections.append({"dataset": name, **env})

        invalid = [s for s in sections if s["status"] == ResultStatus.INVALID_ARGUMENTS]
        if invalid:
            env = {k: v for k, v in invalid[0].items() if k != "dataset"}
            self._stamp_pin(env, pin_at, pin_name, as_of)
            return Answer(env)
        env = self._snapshot_envelope(sections, requested, target, ask.as_of, ask.pinned)
        self._stamp_pin(env, pin_at, pin_name, as_of)
        return Answer(env, faults[0] if faults else None)

    @staticmethod
    def _section(
        lake: Lake, spec: Dataset, syms: list[str], day: date | None, as_of: Any
    ) -> Result:
        """The snapshot's question of this dataset's kind, about `day`."""
        return lake.read(spec, as_of=as_of, **spec.query.snapshot(syms, day))  # type: ignore[union-attr]

    def _with_fallback(
        self, lake: Lake, name: str, syms: list[str], as_of: Any, env: dict[str, Any]
    ) -> dict[str, Any]:
        """A section without its session's rows shows the latest older session's, flagged."""
        older = env.get("effective_trade_date")
        if (
            env["status"] in BENIGN_ANSWER
            or env["data"]
            or env["date_status"] != DateStatus.STALE
            or not older
        ):
            return env
        fb, fault = self._guard(
            f"snapshot.{name}.fallback",
            lambda: self._section(lake, SCHEMAS[name], syms, to_date(older), as_of),
        )
        if fault is not None or fb["status"] != ResultStatus.OK or not fb["data"]:
            return env
        env = dict(env)
        env["data"] = fb["data"]
        env["source"] = fb["source"]
        env["meta"] = {
            **env["meta"],
            "rows": len(fb["data"]),
            "known_at_max": fb["meta"].get("known_at_max"),
            "fallback": {"effective_trade_date": older, "status": fb["status"]},
        }
        env["message"] = (
            f"{env['message']} The rows shown are {name} for {older}, the latest session "
            "known at the as-of — flagged STALE, not the requested session's."
        ).strip()
        return env

    @staticmethod
    def _no_data_is_current(env: dict[str, Any], requested: date, target: date) -> dict[str, Any]:
        """A NO_DATA section is a successful fetch of the target session with nothing for these
        symbols (not on the dragon-tiger list, say): its answer *is* about the target session,
        whatever older session last had rows."""
        if env["status"] != ResultStatus.NO_DATA:
            return env
        return {
            **env,
            "effective_trade_date": target.isoformat(),
            "date_status": str(
                DateStatus.CURRENT if requested == target else DateStatus.LATEST_TRADING_DAY
            ),
        }

    @staticmethod
    def _answered_session(section: dict[str, Any], target: date) -> str | None:
        """The session a trade-dated section's answer is about: its rows' session, or the
        target when the fetch for it succeeded with nothing for these symbols (NO_DATA)."""
        if section["status"] == ResultStatus.NO_DATA:
            return target.isoformat()
        return section.get("effective_trade_date")

    def _snapshot_envelope(
        self,
        sections: list[dict[str, Any]],
        requested: date,
        target: date,
        as_of: str,
        pinned: bool,
    ) -> dict[str, Any]:
        sessions = {
            s["dataset"]: self._answered_session(s, target)
            for s in sections
            if s["dataset"] in ALIGNED_DATASETS
        }
        distinct = set(sessions.values())
        aligned = len(distinct) <= 1 and None not in distinct
        common = next(iter(distinct)) if aligned and distinct else None
        statuses = [ResultStatus(s["status"]) for s in sections]
        status = combine(statuses, any(s["data"] for s in sections))
        if not sessions:
            date_status = DateStatus.NOT_APPLICABLE
        elif aligned and common is not None and common < target.isoformat():
            date_status = DateStatus.STALE  # every section fell back to one older session
        elif aligned:
            date_status = (
                DateStatus.CURRENT if requested == target else DateStatus.LATEST_TRADING_DAY
            )
        elif any(s["date_status"] == DateStatus.STALE for s in sections):
            date_status = DateStatus.STALE
        else:
            date_status = DateStatus.UNKNOWN
        if aligned and common:
            message = f"Sections aligned on the session {common}."
        elif aligned:
            message = "No trade-dated sections requested."
        else:
            shown = ", ".join(f"{k} {v or 'none'}" for k, v in sessions.items())
            message = (
                f"Sections are NOT aligned ({shown}): each section carries its own "
                "effective_trade_date; they are not merged into one session."
            )
        failing = [
            f"{s['dataset']}: {s['status']}" for s in sections if s["status"] not in BENIGN_ANSWER
        ]
        if failing:
            message += " Not OK: " + "; ".join(failing) + "."
        known = [s["meta"].get("known_at_max") for s in sections if s["meta"].get("known_at_max")]
        sources = sorted({p for s in sections if s["source"] for p in s["source"].split(",")})
        return {
            "status": str(status),
            "requested_date": requested.isoformat(),
            "effective_trade_date": common,
            "date_status": str(date_status),
            "as_of": as_of,
            "source": ",".join(sources) or None,
            "retryable": any(bool(s["retryable"]) for s in sections),
            "message": message,
            "data": sections,
            "meta": {
                "rows": len(sections),
                "known_at_max": max(known) if known else None,
                "vendor_trace": [],
                "pinned": pinned,
                "aligned": aligned,
                "sessions": sessions,
                "target_session": target.isoformat(),
            },
        }

    # ------------------------------------------------------------ freshness

    def status(self, *, as_of: str | None = None, pin: str | None = None) -> Answer:
        """Freshness per dataset at the cutoff: the latest session the ledger holds a
        successful fetch for, against the latest session closed at the cutoff. A dataset more
        than $PITLAKE_STALE_SESSIONS (default 1) sessions behind, or never fetched, is `stale`
        (listed in meta.stale; `pitlake query status` then exits 3)."""

        from pitlake.dashboard_data import stale_threshold

        threshold, threshold_note = stale_threshold()

        def read(lake: Lake, as_of: Any) -> Result:
            ask = lake.ask(as_of)
            latest = lake.trading_calendar.latest_closed_session(ask.cutoff)
            rows = self._freshness(latest, lake)
            for r in rows:
                r["stale"] = r["lag_sessions"] is None or r["lag_sessions"] > threshold
            stale = [r["dataset"] for r in rows if r["stale"]]
            behind = [
                f"{r['dataset']} ({r['lag_sessions']} behind)"
                if r["lag_sessions"] is not None
                else f"{r['dataset']} (no successful fetch)"
                for r in rows
                if not r["fresh"]
            ]
            message = (
                f"Latest closed session {latest}: "
                + ("every dataset is current." if not behind else "behind: " + ", ".join(behind))
                + "."
            ).replace("..", ".")
            message += (
                f" Stale (more than {threshold} session(s) behind, or never fetched): "
                + ", ".join(stale)
                + "."
                if stale
                else f" None is past the staleness threshold ({threshold} session(s))."
            )
            if threshold_note:
                message += f" {threshold_note}."
            return Result(
                status=ResultStatus.OK,
                requested_date=ask.cutoff.date().isoformat(),
                effective_trade_date=latest.isoformat(),
                date_status=DateStatus.NOT_APPLICABLE,
                as_of=ask.as_of,
                source="catalog",
                message=" ".join([*ask.notes, message]),
                data=rows,
                meta={"pinned": ask.pinned, "stale_threshold": threshold, "stale": stale},
            )

        return self._run("status", pin, as_of, read)

    def _freshness(self, latest: date, lake: Lake) -> list[dict[str, Any]]:
        """Per dataset: the latest session ≤ `latest` with a successful fetch in the ledger
        (any scope), and the whole-market ledger status of `latest` itself.

        The ledger as it stands now, like every data answer: a backfill run later counts for
        earlier as-ofs, because the data endpoints serve its rows for them too (docs/design.md §10:
        a backfill queried as of D equals what a nightly run on D would have served)."""
        t = ledger_table.c
        latest_ok = self.catalog.latest_ok_dates(latest)
        with self.catalog.engine.connect() as conn:
            on_latest = conn.execute(
                select(t.dataset, t.status, t.recorded_at, t.message).where(
                    t.date_key == latest, t.symbol == WHOLE_MARKET
                )
            ).all()
        last_on_latest = {r.dataset: r for r in on_latest}
        rows = []
        for dataset in FRESHNESS_DATASETS:
            ok_date = latest_ok.get(dataset)
            lag = (
                lake.trading_calendar.sessions_count_between(ok_date, latest)
                if ok_date is not None
                else None
            )
            last = last_on_latest.get(dataset)
            rows.append(
                {
                    "dataset": dataset,
                    "latest_ok_date": ok_date.isoformat() if ok_date else None,
                    "latest_session": latest.isoformat(),
                    "lag_sessions": lag,
                    "fresh": lag == 0,
                    "latest_session_status": str(LedgerStatus(last.status)) if last else None,
                    "latest_session_recorded_at": (
                        iso_beijing(from_storage(last.recorded_at)) if last else None
                    ),
                    "latest_session_message": last.message if last else None,
                }
            )
        return rows
