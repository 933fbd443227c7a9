"""The router: try each vendor of a dataset's chain in order, and say exactly what happened.

Rules (docs/design.md §4):
- A bad request (unknown dataset, unparseable symbol) raises InvalidArgumentsError before any
  vendor call. An adapter that rejects the request as invalid without calling anything is
  skipped; if every vendor rejects it so, the InvalidArgumentsError is raised.
- A vendor with no adapter for the dataset, or whose client is not configured, is skipped
  (NOT_CONFIGURED, no call made).
- Permission denied, no data, a rate limit that outlasted the retry budget, and failures fall
  through to the next vendor. The first vendor that returns rows serves the request.
- Nobody served: all vendors that answered said "no rows" → NO_DATA; if any vendor *failed*, the
  status is a failure, never NO_DATA, chosen by `ROUTE_FAILURE_ORDER`; nothing configured →
  NOT_CONFIGURED.
- One vendor per symbol (the spec's `one_vendor_per_symbol`: adj_factors, whose factor bases
  differ between vendors). With `factor_owners` (the stored owners, asked once per answer), rows
  for symbols whose series another vendor owns are dropped and reported (`RouteResult.dropped`),
  never mixed; the caller can fetch those with `chain=[owner]`.
The router never raises on vendor errors: every outcome is in the result and its trace.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

import pandas as pd

from pitlake import schemas
from pitlake.errors import InvalidArgumentsError, VendorError
from pitlake.statuses import ROUTE_FAILURE_ORDER, LedgerStatus
from pitlake.vendors.base import Adapter, FetchOutcome, FetchRequest, RawResponse
from pitlake.vendors.plugins import known_vendors
from pitlake.vendors.retry import AttemptLog, recording

log = logging.getLogger(__name__)

KNOWN_VENDORS: tuple[str, ...] = known_vendors()

DEFAULT_CHAINS: dict[str, tuple[str, ...]] = schemas.DEFAULT_CHAINS  # from the specs

_LOG_LEVEL = {
    LedgerStatus.NOT_CONFIGURED: logging.DEBUG,
    LedgerStatus.NO_DATA: logging.INFO,
    LedgerStatus.NOT_READY: logging.INFO,
    LedgerStatus.PERMISSION_DENIED: logging.WARNING,
    LedgerStatus.RATE_LIMITED: logging.WARNING,
    LedgerStatus.UPSTREAM_ERROR: logging.WARNING,
}

# symbol → the vendor owning its stored series, read once per answer (not per symbol: the
# stored owners are a catalog look-up)
FactorOwners = Callable[[], Mapping[str, str]]


@dataclass(frozen=True)
class VendorAttempt:
    """One vendor's part in a route: what it did and how many calls it took."""

    vendor: str
    outcome: LedgerStatus
    error_type: str | None = None
    attempts: int = 0
    message: str = ""
    rows: int = 0
    # Endpoints this token may not call, skipped while the others served the dataset
    # (e.g. major_news beside news); shown in the trace only when there are some.
    denied: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["outcome"] = str(self.outcome)
        if self.denied:
            d["denied"] = list(self.denied)
        else:
            del d["denied"]
        return d


@dataclass
class RouteResult:
    """What the router got for one request: rows (if any vendor served), status, full trace."""

    status: LedgerStatus
    frame: pd.DataFrame
    vendor: str | None = None  # the vendor that served the rows
    message: str = ""
    raws: list[RawResponse] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    dropped: dict[str, str] = field(default_factory=dict)  # symbol → vendor owning its factors

    @property
    def ok(self) -> bool:
        return self.status is LedgerStatus.OK

    @property
    def attempts(self) -> int:
        return sum(int(t.get("attempts") or 0) for t in self.trace)


def _empty_canonical(dataset: str) -> pd.DataFrame:
    from pitlake.schemas import get as get_schema

    schema = get_schema(dataset)
    frame = schema.empty_frame()
    return frame[[*schema.columns, "known_at", "known_at_basis", "source"]]


class Router:
    """Routes FetchRequests through per-dataset vendor chains of adapters."""

    def __init__(
        self,
        adapters: Mapping[str, Adapter],
        chains: Mapping[str, Sequence[str]] | None = None,
        *,
        factor_owners: FactorOwners | None = None,
    ) -> None:
        self.adapters = dict(adapters)
        self.chains: dict[str, tuple[str, ...]] = dict(DEFAULT_CHAINS)
        for dataset, chain in (chains or {}).items():
            self.chains[dataset] = self._checked_chain(chain)
        self.factor_owners = factor_owners

    def _checked_chain(self, chain: Sequence[str]) -> tuple[str, ...]:
        if isinstance(chain, str):
            chain = [v for v in chain.split(",") if v.strip()]
        known = set(KNOWN_VENDORS) | set(self.adapters)
        unknown = [v for v in chain if v.strip() not in known]
        if unknown:
            raise InvalidArgumentsError(
                f"unknown vendor(s) {', '.join(map(repr, unknown))} in chain; "
                f"expected any of {', '.join(sorted(known))}"
            )
        return tuple(v.strip() for v in chain)

    def chain_for(self, dataset: str, override: Sequence[str] | None = None) -> tuple[str, ...]:
        if override is not None:
            return self._checked_chain(override)
        return self.chains.get(dataset, tuple(self.adapters))

    @staticmethod
    def validate(req: FetchRequest) -> None:
        """Raise InvalidArgumentsError for a request no vendor may be asked."""
        from pitlake.schemas import get as get_schema

        get_schema(req.dataset).symbols_of(list(req.symbols or ()))

    # ------------------------------------------------------------ routing

    def route(
        self,
        req: FetchRequest,
        fetched_at: datetime,
        *,
        chain: Sequence[str] | None = None,
    ) -> RouteResult:
        self.validate(req)
        trace: list[VendorAttempt] = []
        rejected: InvalidArgumentsError | None = None
        for vendor in self.chain_for(req.dataset, chain):
            adapter = self.adapters.get(vendor)
            if adapter is None or not adapter.supports(req.dataset):
                self._note(
                    trace,
                    VendorAttempt(
                        vendor,
                        LedgerStatus.NOT_CONFIGURED,
                        None,
                        0,
                        f"{vendor} does not serve {req.dataset}",
                    ),
                )
                continue
            outcome, attempt = self._try(adapter, vendor, req, fetched_at)
            if attempt.error_type == "InvalidArgumentsError" and attempt.attempts == 0:
                rejected = rejected or InvalidArgumentsError(attempt.message)
            if outcome is None:
                self._note(trace, attempt)
                continue
            frame, dropped = self._own_factors(req, vendor, outcome.frame)
            if frame.empty:
                self._note(
                    trace,
                    VendorAttempt(
                        vendor,
                        LedgerStatus.NO_DATA,
                        None,
                        attempt.attempts,
                        f"all rows dropped: factor series owned by {sorted(set(dropped.values()))}",
                    ),
                )
                continue
            note = f"{len(frame)} rows"
            if attempt.denied:
                note += f"; {_denied_note(attempt.denied)}"
            if dropped:
                note += (
                    f"; dropped {len(dropped)} symbol(s) whose factor series another vendor "
                    f"owns: {', '.join(sorted(dropped)[:10])}"
                )
            self._note(
                trace,
                VendorAttempt(
                    vendor,
                    LedgerStatus.OK,
                    None,
                    attempt.attempts,
                    note,
                    rows=len(frame),
                    denied=attempt.denied,
                ),
            )
            return RouteResult(
                status=LedgerStatus.OK,
                frame=frame,
                vendor=vendor,
                message=f"served by {vendor}: {note}",
                raws=outcome.raws,
                trace=[t.to_dict() for t in trace],
                dropped=dropped,
            )
        return self._unserved(req, trace, rejected)

    def _try(
        self, adapter: Adapter, vendor: str, req: FetchRequest, fetched_at: datetime
    ) -> tuple[FetchOutcome | None, VendorAttempt]:
        with recording() as calls:
            outcome, attempt = self._fetch(adapter, vendor, req, fetched_at, calls)
        denied = _denied_endpoints(calls, vendor)
        if not denied or attempt.outcome is LedgerStatus.PERMISSION_DENIED:
            return outcome, attempt
        if outcome is None:  # e.g. NO_DATA from the endpoints left: say which were denied
            message = f"{attempt.message}; {_denied_note(denied)}".lstrip("; ")
            return None, replace(attempt, message=message, denied=denied)
        return outcome, replace(attempt, denied=denied)

    def _fetch(
        self,
        adapter: Adapter,
        vendor: str,
        req: FetchRequest,
        fetched_at: datetime,
        calls: AttemptLog,
    ) -> tuple[FetchOutcome | None, VendorAttempt]:
        try:
            outcome = adapter.fetch(req, fetched_at)
        except InvalidArgumentsError as err:
            made = _attempts(calls, vendor, default=0)
            if made == 0 and not calls.calls:  # the adapter refused the request itself
                return None, VendorAttempt(
                    vendor, LedgerStatus.NOT_CONFIGURED, type(err).__name__, 0, str(err)
                )
            # Raised after vendor calls: the vendor's data could not be read.
            return None, VendorAttempt(
                vendor,
                LedgerStatus.UPSTREAM_ERROR,
                type(err).__name__,
                made,
                f"unreadable reply: {err}",
            )
        except VendorError as err:
            status = LedgerStatus(err.status.value)
            default = 0 if status is LedgerStatus.NOT_CONFIGURED else 1
            return None, VendorAttempt(
                vendor,
                status,
                type(err).__name__,
                _attempts(calls, vendor, default=default),
                str(err),
            )
        except Exception as err:  # an adapter bug or schema drift in transform
            log.exception("%s adapter failed on %s", vendor, req.dataset)
            return None, VendorAttempt(
                vendor,
                LedgerStatus.UPSTREAM_ERROR,
                type(err).__name__,
                _attempts(calls, vendor, default=1),
                f"adapter failed: {type(err).__name__}: {err}",
            )
        return outcome, VendorAttempt(
            vendor, LedgerStatus.OK, None, _attempts(calls, vendor, default=outcome.calls)
        )

    def _own_factors(
        self, req: FetchRequest, vendor: str, frame: pd.DataFrame
    ) -> tuple[pd.DataFrame, dict[str, str]]:
        """Drop rows of symbols whose series another vendor already owns (a dataset whose spec
        keeps one vendor per symbol: factor bases differ between vendors)."""
        if (
            not schemas.get(req.dataset).one_vendor_per_symbol
            or self.factor_owners is None
            or frame.empty
        ):
            return frame, {}
        dropped: dict[str, str] = {}
        owners = self.factor_owners()
        for symbol in frame["symbol"].dropna().unique():
            owner = owners.get(str(symbol))
            if owner is not None and owner != vendor:
                dropped[str(symbol)] = owner
        if dropped:
            log.warning(
                "%s from %s: dropped %d symbol(s) owned by another vendor",
                req.dataset,
                vendor,
                len(dropped),
            )
            frame = frame[~frame["symbol"].isin(list(dropped))].reset_index(drop=True)
        return frame, dropped

    def _unserved(
        self,
        req: FetchRequest,
        trace: list[VendorAttempt],
        rejected: InvalidArgumentsError | None,
    ) -> RouteResult:
        outcomes = [t.outcome for t in trace]
        failures = [s for s in ROUTE_FAILURE_ORDER if s in outcomes]
        if failures == [LedgerStatus.PERMISSION_DENIED] and LedgerStatus.NO_DATA in outcomes:
            # A denial is a standing fact about this token, like not-configured: no retry
            # will change it. A vendor that did answer (with no rows) is then the answer;
            # the trace keeps the denial. Transient failures still outrank NO_DATA.
            failures = []
        if failures:
            status = failures[0]
        elif LedgerStatus.NO_DATA in outcomes:
            status = LedgerStatus.NO_DATA
        else:
            if rejected is not None:  # every vendor that could serve it found it invalid
                raise rejected
            status = LedgerStatus.NOT_CONFIGURED
        if trace:
            message = "; ".join(
                f"{t.vendor}: {t.outcome}" + (f" ({t.message})" if t.message else "") for t in trace
            )
        else:
            message = f"no vendor chain for {req.dataset}"
        return RouteResult(
            status=status,
            frame=_empty_canonical(req.dataset),
            vendor=None,
            message=message,
            trace=[t.to_dict() for t in trace],
        )

    @staticmethod
    def _note(trace: list[VendorAttempt], attempt: VendorAttempt) -> None:
        trace.append(attempt)
        log.log(
            _LOG_LEVEL.get(attempt.outcome, logging.INFO),
            "%s: %s %s",
            attempt.vendor,
            attempt.outcome,
            attempt.message,
        )


def _denied_endpoints(calls: AttemptLog, vendor: str) -> tuple[str, ...]:
    """Endpoints whose calls the vendor refused for this token (VendorPermissionError)."""
    denied = {
        c.endpoint
        for c in calls.calls
        if c.vendor == vendor and c.error_type == "VendorPermissionError"
    }
    return tuple(sorted(denied))


def _denied_note(denied: tuple[str, ...]) -> str:
    return f"not permitted to this token, skipped: {', '.join(denied)}"


def _attempts(calls: AttemptLog, vendor: str, *, default: int) -> int:
    """Attempts the vendor's ResilientClient counted; `default` for clients that do not count."""
    mine = [c for c in calls.calls if c.vendor == vendor]
    return sum(c.attempts for c in mine) if mine else default
