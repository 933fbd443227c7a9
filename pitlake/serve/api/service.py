"""Task-shaped questions → `Lake` reads → envelopes: the one implementation behind the HTTP API,
the `pitlake query` CLI and the MCP server (so the three give the same envelope).

What this layer adds to `Lake`:
- **Pins.** The operator's start-up as-of (`as_of_pin`) and named pins (`allowed_pins`, chosen
  per request by name, e.g. the `X-Pitlake-Pin` header). The stricter of the two applies; every
  answer under a pin says so in `meta.pinned` and `meta.pin` ({name, as_of, clamped}).
- **Reads.** `read(spec, **params)`: any dataset by its query model's parameters (every
  surface's dataset routes, tools and options are generated from those models).
- **Compositions.** `snapshot` (snapshot.py) and `status`, the freshness (freshness.py).
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
from pathlib import Path
from typing import Any

from pitlake.envelope import Result
from pitlake.errors import InvalidArgumentsError, LakeError, NotALakeError
from pitlake.lake.catalog import (
    Catalog,
)
from pitlake.lake.fs import is_url
from pitlake.pit import iso_beijing, parse_cutoff
from pitlake.read.lake import Lake
from pitlake.read.status import BENIGN_ANSWER
from pitlake.schemas import Dataset
from pitlake.serve.api import surfaces
from pitlake.serve.api.faults import Fault, classify, fault_envelope
from pitlake.serve.api.formats import rows_for
from pitlake.serve.api.params import MAX_REQUEST_SYMBOLS, pin_table, repair_as_of, split_list
from pitlake.serve.api.redact import redact_bytes, redact_obj
from pitlake.statuses import ResultStatus

try:  # orjson is ~5× faster on 250-row answers; plain json gives the same document
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson ships with the environment
    _orjson = None

log = logging.getLogger("pitlake.api")


def lake_missing(root: str | os.PathLike[str]) -> bool:
    """A local lake directory that does not exist (an s3:// lake is checked by its reads)."""
    return not is_url(str(root)) and not Path(root).is_dir()


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
        "data": rows_for(result),  # all rows, one page, or none (pitlake.serve.api.formats)
        "meta": dict(result.meta),
    }


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

    def guard(self, what: str, read: Callable[[], Result]) -> tuple[dict[str, Any], Fault | None]:
        """Run one read; turn every failure into an envelope (never raise)."""
        try:
            return envelope_of(read()), None
        except InvalidArgumentsError as e:
            return Result.invalid(str(e)).to_dict(), None
        except Exception as e:
            fault = classify(e)
            if isinstance(e, LakeError):  # named and expected: one line, no traceback
                log.error("query %s failed (%s): %s", what, fault, e)
            else:
                log.exception("query %s failed (%s)", what, fault)
            return fault_envelope(fault, e, self.root), fault

    def stamp_pin(
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

    def run(self, what: str, pin: str | None, as_of: Any, read: Read) -> Answer:
        """Resolve the pin, read through the pinned Lake, stamp the pin."""
        as_of = repair_as_of(as_of) if isinstance(as_of, str) else as_of
        try:
            pin_at, pin_name = self.resolve_pin(pin)
        except InvalidArgumentsError as e:
            return Answer(Result.invalid(str(e)).to_dict())
        kept: list[Result] = []
        env, fault = self.guard(what, lambda: _kept(kept, read(self.lake(pin_at), as_of)))
        self.stamp_pin(env, pin_at, pin_name, as_of)
        return Answer(env, fault, kept[0] if kept else None)

    def sql(
        self,
        query: str,
        *,
        as_of: str | None = None,
        pin: str | None = None,
        cancel: threading.Event | None = None,
    ) -> Answer:
        """Point-in-time SQL (`Lake.sql`) through the pinned Lake: a pin clamps it too;
        `cancel` set (the client went away) interrupts the statement."""
        return self.run("sql", pin, as_of, lambda lake, a: lake.sql(query, as_of=a, cancel=cancel))

    # ------------------------------------------------------------ datasets

    def read(
        self,
        dataset: Dataset,
        *,
        pin: str | None = None,
        max_symbols: int = MAX_REQUEST_SYMBOLS,
        **params: Any,
    ) -> Answer:
        """One dataset's answer through the pinned Lake (`Lake.read`, the parameters of the
        spec's query model); list parameters may also come comma-separated, `max_symbols`
        items at most each (a POST body's question may name more than a query string's)."""
        as_of = params.pop("as_of", None)

        def read(lake: Lake, as_of: Any) -> Result:
            for name in surfaces.list_fields(dataset):
                if params.get(name) is not None:
                    params[name] = split_list(params[name], most=max_symbols)
            return lake.read(dataset, as_of=as_of, **params)

        return self.run(dataset.name, pin, as_of, read)

    # ------------------------------------------------------------ compositions

    def market(self, *, date: Any = None, as_of: Any = None, pin: str | None = None) -> Answer:
        """The derived market overview of one session (`Lake.market`)."""
        return self.run("market", pin, as_of, lambda lake, a: lake.market(date, as_of=a))

    def limits(
        self, *, date: Any = None, kind: Any = "up", as_of: Any = None, pin: str | None = None
    ) -> Answer:
        """One derived limit pool with its ladder (`Lake.limits`)."""
        return self.run("limits", pin, as_of, lambda lake, a: lake.limits(date, kind=kind, as_of=a))

    def snapshot(self, symbols: str | Sequence[str] | None = None, **kw: Any) -> Answer:
        """Several datasets for the same symbols (pitlake.serve.api.snapshot)."""
        from pitlake.serve.api.snapshot import snapshot

        return snapshot(self, symbols, **kw)

    def status(self, *, as_of: str | None = None, pin: str | None = None) -> Answer:
        """Freshness per dataset (pitlake.serve.api.freshness)."""
        from pitlake.serve.api.freshness import status

        return status(self, as_of=as_of, pin=pin)

    def catalogue(self, *, as_of: Any = None, pin: str | None = None) -> Answer:
        """What is in the lake as of the cutoff (`Lake.datasets`, pitlake.read.catalogue)."""
        return self.run("catalog", pin, as_of, lambda lake, a: lake.datasets(a))

    def runs(
        self, *, as_of: str | None = None, pin: str | None = None, limit: int | None = None
    ) -> Answer:
        """The ingest runs as known at the cutoff (`Lake.runs`, pitlake.read.runs)."""
        from pitlake.read.runs import DEFAULT_LIMIT

        n = DEFAULT_LIMIT if limit is None else limit
        return self.run("runs", pin, as_of, lambda lake, a: lake.runs(a, limit=n))
