"""The contract every vendor adapter follows (OpenBB-style fetchers).

An adapter turns one `FetchRequest` into canonical rows in three steps:
  1. `build_queries(req)`   → the vendor calls to make (endpoint + native params);
  2. `extract(query)`       → the vendor-native frame, via a `VendorClient`, errors typed;
  3. `transform(req, raws)` → canonical columns of the dataset's schema (units converted).
`fetch()` runs the three steps and stamps `source`, `known_at` and `known_at_basis` with the
dataset's rule from `pitlake.pit`. The client is the only thing that differs between a live
run and a replay, so normalisation is the same code in both.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol

import numpy as np
import pandas as pd

from pitlake.errors import InvalidArgumentsError, NoMarketDataError
from pitlake.pit import apply_known_at


def json_cell(v: Any) -> Any:
    """A vendor frame cell → a JSON-safe value (NaN/NA/inf → null, numpy scalars → Python,
    dates ISO). Every adapter builds its `extra` and seat texts with it, so a field reads the
    same whichever vendor served it."""
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
            if self.dataset not in ("financials", "calendar", "news"):
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


class Adapter(ABC):
    vendor: str = ""
    datasets: frozenset[str] = frozenset()

    def __init__(self, client: VendorClient) -> None:
        self.client = client

    def supports(self, dataset: str) -> bool:
        return dataset in self.datasets

    @abstractmethod
    def build_queries(self, req: FetchRequest) -> list[VendorQuery]: ...

    def extract(self, query: VendorQuery) -> pd.DataFrame:
        """Make one call. The client raises typed errors; adapters may refine (e.g. frames
        with no columns become a typed error, never data)."""
        return self.client.call(query.endpoint, **query.params)

    @abstractmethod
    def transform(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        """Vendor-native frames → canonical data columns of req.dataset (no bitemporal ones)."""

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        """Steps 1–2: make every call. Adapters whose later calls depend on earlier answers
        (fallback chains, follow-up enrichment calls) override this."""
        return [
            RawResponse(self.vendor, q, self.extract(q), fetched_at)
            for q in self.build_queries(req)
        ]

    def fetch(self, req: FetchRequest, fetched_at: datetime) -> FetchOutcome:
        from pitlake.schemas import get as get_schema

        schema = get_schema(req.dataset)
        raws = self.collect(req, fetched_at)
        frame = self.transform(req, raws)
        if frame is None or frame.empty:
            raise NoMarketDataError(
                f"no rows for {req.dataset}",
                vendor=self.vendor,
                endpoint=",".join(sorted({r.query.endpoint for r in raws})),
            )
        frame = frame.reindex(columns=schema.columns)
        frame = apply_known_at(schema.known_at, frame, fetched_at)
        frame["source"] = self.vendor
        return FetchOutcome(self.vendor, frame.reset_index(drop=True), raws, calls=len(raws))
