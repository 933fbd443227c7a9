"""The contract every vendor follows: OpenBB-style fetchers, bundled by a vendor plugin.

A `Fetcher` is one vendor's way to one dataset, in three steps:
  1. `transform_query(req)`      → the vendor calls to make (endpoint + native params);
  2. `extract(query)`            → the vendor-native frame, via a `VendorClient`, errors typed;
  3. `transform_data(req, raws)` → canonical columns of the dataset's schema (units converted).
`fetch()` runs the three steps and stamps `source`, `known_at` and `known_at_basis` with the
dataset spec's rule. The client is the only thing that differs between a live run and a
replay, so normalisation is the same code in both.

A `VendorPlugin` is everything pitlake knows of one vendor (docs/design.md §2): its live
client, error classification, rates, secret variables, replay dialect and fetchers. The
registry, router, classifier, rate limiter, replay and redaction iterate the plugins
(`pitlake.vendors.plugins`) instead of naming vendors. `Adapter` is what the router asks: a
vendor's fetch surface over one client (`VendorAdapter` bundles a plugin's fetchers).
"""

from __future__ import annotations

import importlib
import json
import math
import pkgutil
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np

from pitlake.errors import (
    InvalidArgumentsError,
    NoMarketDataError,
    PitlakeError,
    VendorNotConfiguredError,
)
from pitlake.pit import apply_known_at

if TYPE_CHECKING:
    import pandas as pd

    from pitlake.vendors.ratelimit import RateConfig
    from pitlake.vendors.replay.dialect import ReplayDialect


def json_cell(v: Any) -> Any:
    """A vendor frame cell → a JSON-safe value (NaN/NA/inf → null, numpy scalars → Python,
    dates ISO). Every adapter builds its `extra` and seat texts with it, so a field reads the
    same whichever vendor served it."""
    import pandas as pd

    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, bool | np.bool_):
        return bool(v)
    if isinstance(v, int | np.integer):
        return int(v)
    if isinstance(v, float | np.floating):
        f = float(v)
        return f if math.isfinite(f) else None
    if isinstance(v, str):
        return v
    if isinstance(v, datetime | date):
        return v.isoformat()
    return str(v)


def json_text(obj: Any) -> str:
    """Canonical JSON text (sorted keys, UTF-8, no NaN): equal values give equal text, which
    the store's version comparison relies on."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, allow_nan=False)


class VendorClient(Protocol):
    """Answers a vendor endpoint with that vendor's native frame, or raises a typed error.

    Live clients wrap the tushare / akshare libraries; `ReplayClient` reads recorded tables."""

    vendor: str

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame: ...


@dataclass(frozen=True)
class FetchRequest:
    """What to fetch, in canonical terms. Adapters translate it to vendor calls."""

    dataset: str
    trade_date: date | None = None  # by-date fetch (nightly)
    start: date | None = None  # range fetch (backfill)
    end: date | None = None
    symbols: tuple[str, ...] | None = None  # canonical codes; None = whole market
    statement: str | None = None  # financials: income | balance | cashflow; None = all
    # Per-symbol vendors (AkShare bars, factors) fetch these when `symbols` is None.
    universe: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.trade_date is None and (self.start is None or self.end is None):
            if _needs_dates(self.dataset):
                raise InvalidArgumentsError(
                    f"{self.dataset}: give trade_date, or both start and end"
                )
        if self.start and self.end and self.start > self.end:
            raise InvalidArgumentsError(f"start {self.start} is after end {self.end}")

    @property
    def first_day(self) -> date | None:
        return self.trade_date or self.start

    @property
    def last_day(self) -> date | None:
        return self.trade_date or self.end


def _needs_dates(dataset: str) -> bool:
    """A whole-market-by-date dataset is fetched for sessions: its request names them. (An
    unknown dataset is the router's to refuse.)"""
    from pitlake.schemas import SCHEMAS, Scope

    spec = SCHEMAS.get(dataset)
    return spec is None or spec.scope is Scope.MARKET_BY_DATE


@dataclass(frozen=True)
class VendorQuery:
    endpoint: str
    params: dict[str, Any]
    symbol: str | None = None  # canonical symbol this call is about, if any
    tag: str = ""  # adapter-private label (e.g. the statement a call is for)


@dataclass
class RawResponse:
    """One vendor answer, kept as-is for the raw zone and for transform()."""

    vendor: str
    query: VendorQuery
    frame: pd.DataFrame
    fetched_at: datetime


@dataclass
class FetchOutcome:
    """Canonical rows from one vendor plus the raw answers they came from."""

    vendor: str
    frame: pd.DataFrame
    raws: list[RawResponse] = field(default_factory=list)
    calls: int = 0


def stamped(
    vendor: str, dataset: str, frame: pd.DataFrame | None, raws: list[RawResponse], at: datetime
) -> FetchOutcome:
    """Canonical rows → the fetch's outcome: the schema's columns, `known_at` and its basis by
    the dataset's rule, `source` = the vendor. No rows is NoMarketDataError, never data."""
    from pitlake.schemas import get as get_schema

    schema = get_schema(dataset)
    if frame is None or frame.empty:
        raise NoMarketDataError(
            f"no rows for {dataset}",
            vendor=vendor,
            endpoint=",".join(sorted({r.query.endpoint for r in raws})),
        )
    frame = frame.reindex(columns=schema.columns)
    frame = apply_known_at(schema.known_at, frame, at)
    frame["source"] = vendor
    return FetchOutcome(vendor, frame.reset_index(drop=True), raws, calls=len(raws))


class Fetcher(ABC):
    """One vendor's fetch of one dataset (OpenBB's Fetcher: transform_query → extract →
    transform_data). Subclasses set `vendor` and `dataset`; options a vendor's fetchers take
    come as keyword arguments (each fetcher keeps the ones it uses)."""

    vendor: ClassVar[str] = ""
    dataset: ClassVar[str] = ""
    # endpoint → the columns its answer must carry (a missing one is schema drift, never
    # data); the contract test renames them to prove it (tests/vendors/test_fetcher_contract.py)
    required: ClassVar[dict[str, tuple[str, ...]]] = {}
    # The vendor endpoints its calls may go to (first calls, fallbacks, follow-ups); by
    # default those of `required`.
    endpoints: ClassVar[frozenset[str]] = frozenset()
    # The transform checks units against another column (amount ÷ volume vs close, market
    # value vs price × shares): the canary reports "units ok" when it passes.
    checks_units: ClassVar[bool] = False

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "required" in cls.__dict__ and "endpoints" not in cls.__dict__:
            cls.endpoints = frozenset(cls.required)

    def __init__(self, client: VendorClient, **options: Any) -> None:
        self.client = client
        self.options = options

    @abstractmethod
    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        """Step 1: the first calls for the request, in vendor-native parameters."""

    def extract(self, query: VendorQuery) -> pd.DataFrame:
        """Step 2, one call. The client raises typed errors; a vendor's fetchers refine them
        (frames with no columns become a typed error, never data)."""
        return self.client.call(query.endpoint, **query.params)

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        """Step 2, every call. Fetchers whose later calls depend on earlier answers (fallback
        chains, follow-up enrichment calls) override this."""
        return [
            RawResponse(self.vendor, q, self.extract(q), fetched_at)
            for q in self.transform_query(req)
        ]

    @abstractmethod
    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        """Step 3: vendor-native frames → canonical data columns (no bitemporal ones)."""

    def fetch(self, req: FetchRequest, fetched_at: datetime) -> FetchOutcome:
        raws = self.collect(req, fetched_at)
        return stamped(self.vendor, req.dataset, self.transform_data(req, raws), raws, fetched_at)


class Adapter(ABC):
    """What the router asks of one vendor over one client: which datasets it serves, and a
    fetch. A plain subclass implements the three steps itself (tests' fake vendors);
    `VendorAdapter` hands each dataset to the plugin's fetcher."""

    vendor: str = ""
    datasets: frozenset[str] = frozenset()

    def __init__(self, client: VendorClient) -> None:
        self.client = client

    def supports(self, dataset: str) -> bool:
        return dataset in self.datasets

    @abstractmethod
    def build_queries(self, req: FetchRequest) -> list[VendorQuery]: ...

    def extract(self, query: VendorQuery) -> pd.DataFrame:
        return self.client.call(query.endpoint, **query.params)

    def extract_for(self, dataset: str, query: VendorQuery) -> pd.DataFrame:
        """One call as the dataset's fetch makes it (its reply checks included)."""
        return self.extract(query)

    @abstractmethod
    def transform(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame: ...

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        return [
            RawResponse(self.vendor, q, self.extract(q), fetched_at)
            for q in self.build_queries(req)
        ]

    def fetch(self, req: FetchRequest, fetched_at: datetime) -> FetchOutcome:
        raws = self.collect(req, fetched_at)
        return stamped(self.vendor, req.dataset, self.transform(req, raws), raws, fetched_at)


class VendorAdapter(Adapter):
    """A plugin's fetchers over one client: each dataset is its fetcher's business."""

    def __init__(self, plugin: VendorPlugin, client: VendorClient, **options: Any) -> None:
        super().__init__(client)
        self.plugin = plugin
        self.vendor = plugin.name
        self.fetchers: dict[str, Fetcher] = {
            dataset: cls(client, **options) for dataset, cls in plugin.fetchers.items()
        }
        self.datasets = frozenset(self.fetchers)

    def fetcher(self, dataset: str) -> Fetcher:
        found = self.fetchers.get(dataset)
        if found is None:
            raise VendorNotConfiguredError(
                f"{self.vendor} does not offer {dataset}", vendor=self.vendor
            )
        return found

    def build_queries(self, req: FetchRequest) -> list[VendorQuery]:
        return self.fetcher(req.dataset).transform_query(req)

    def extract(self, query: VendorQuery) -> pd.DataFrame:
        """One call as the fetcher that calls this endpoint makes it (its reply checks)."""
        for fetcher in self.fetchers.values():
            if query.endpoint in fetcher.endpoints:
                return fetcher.extract(query)
        return super().extract(query)

    def extract_for(self, dataset: str, query: VendorQuery) -> pd.DataFrame:
        return self.fetcher(dataset).extract(query)

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        return self.fetcher(req.dataset).collect(req, fetched_at)

    def transform(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return self.fetcher(req.dataset).transform_data(req, raws)

    def fetch(self, req: FetchRequest, fetched_at: datetime) -> FetchOutcome:
        return self.fetcher(req.dataset).fetch(req, fetched_at)


Classifier = Callable[..., PitlakeError]  # (exc, *, endpoint="") → typed error
CanaryQueries = Callable[[Adapter, date, str], list[tuple[str, VendorQuery]]]


@dataclass(frozen=True)
class VendorPlugin:
    """Everything pitlake knows of one vendor; each vendor package registers one (`PLUGIN`).

    name              the vendor's name in sources, chains, ledgers and `source` columns
    rank              its place in the list of vendors (`vendors:` order, the canary's order)
    client            the live client factory: `client(record_dir=, timeout=, env=)`
    classify          native exception → typed error (`classify(exc, endpoint=)`)
    rates             default rate limits (env variables PITLAKE_<NAME>_* override them)
    max_in_flight     concurrent calls by default (PITLAKE_<NAME>_MAX_IN_FLIGHT overrides)
    secret_env        environment variables holding its secrets (masked in every answer)
    replay            the replay dialect (docs/replay-format.md)
    fetchers_package  the package whose modules each define one `FETCHER` (one per dataset)
    columnless_is_no_rows  a frame without columns means "no rows" (else a broken reply)
    quota_of          (calls, window seconds) named by a rate-limit refusal's text, if any
    canary_queries    calls the fetchers make only as fallbacks or follow-ups, for the canary
    """

    name: str
    rank: int
    client: Callable[..., VendorClient]
    classify: Classifier
    rates: RateConfig
    replay: ReplayDialect
    fetchers_package: str
    max_in_flight: int = 2
    secret_env: tuple[str, ...] = ()
    columnless_is_no_rows: bool = False
    quota_of: Callable[[str], tuple[int, float] | None] | None = None
    canary_queries: CanaryQueries | None = None

    @cached_property
    def fetchers(self) -> dict[str, type[Fetcher]]:
        """dataset → fetcher class, from the modules of `fetchers_package` (imported once)."""
        package = importlib.import_module(self.fetchers_package)
        out: dict[str, type[Fetcher]] = {}
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            module = importlib.import_module(f"{self.fetchers_package}.{info.name}")
            cls = getattr(module, "FETCHER", None)
            if cls is not None:
                out[cls.dataset] = cls
        return out

    def adapter(self, client: VendorClient, **options: Any) -> VendorAdapter:
        """This vendor's fetchers over `client` (live, replayed or a test stub)."""
        return VendorAdapter(self, client, **options)
