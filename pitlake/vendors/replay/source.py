"""The replay source: vendor calls answered from recorded, vendor-native tables (docs/replay-format.md).

`ReplaySource(dir)` sits *below* the fetchers, so normalisation runs exactly as it does live: a
call gets the rows the vendor would have sent, typed as the vendor types them, filtered the way
the vendor filters, and — when nothing matches — the vendor's own no-rows reply (an empty frame
with columns, a frame with no columns, a `TypeError`, a `ValueError`). What differs between
vendors is each one's replay dialect (replay/dialect.py); native failures go through the
vendor's own reading of them, the same code that reads live failures.

Injected failures (`<endpoint>.error.json`) raise the native exception the vendor raises, or
answer stale rows. Counters live in the `ReplaySource`, so "the first N calls" means the first
N calls of a run, whichever client made them. Files are read once and cached.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from pitlake.errors import ERROR_BY_KIND, NoMarketDataError, VendorNotConfiguredError
from pitlake.vendors.classify import classify
from pitlake.vendors.replay.dialect import ReplayDialect, dialect_of
from pitlake.vendors.replay.filters import (
    FORMATS,
    EndpointSpec,
    Filter,
    Table,
    as_text,
    date_int,
    read_rows,
    time_bound,
)
from pitlake.vendors.replay.injection import (
    KIND_NO_DATA,
    STALE,
    STATUS_OF_KIND,
    Injection,
    native_failure,
    parse_injections,
)

log = logging.getLogger(__name__)


def typed(
    dialect: ReplayDialect, spec: EndpointSpec | None, frame: pd.DataFrame, *, text: bool
) -> pd.DataFrame:
    """Give every column the type the vendor's own frame has. `text`: the file stored
    everything as strings (CSV), so numbers must be recognised."""
    frame = frame.copy()
    spec = spec or EndpointSpec()
    for name in frame.columns:
        col = frame[name]
        if name.startswith("_"):
            frame[name] = as_text(col)
            continue
        typed_col = dialect.type_column(name, col, spec, text)
        if typed_col is not None:
            frame[name] = typed_col
    return frame


class ReplaySource:
    """One replay directory for one run: cached tables, injection rules and their counters."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._tables: dict[tuple[str, str], Table | None] = {}
        self._injections: dict[tuple[str, str], list[Injection]] = {}
        self.calls: Counter[tuple[str, str]] = Counter()  # (vendor, endpoint key) → calls

    def __repr__(self) -> str:
        return f"ReplaySource({str(self.root)!r})"

    def client(self, vendor: str) -> ReplayClient:
        return ReplayClient(self, vendor)

    def call_count(self, vendor: str | None = None, endpoint: str | None = None) -> int:
        with self._lock:
            return sum(
                n
                for (v, key), n in self.calls.items()
                if vendor in (None, v) and endpoint in (None, key, key.split("@")[0])
            )

    # -- files

    def _path(self, vendor: str, key: str) -> Path | None:
        for ext in FORMATS:
            path = self.root / vendor / f"{key}{ext}"
            if path.is_file():
                return path
        return None

    def table(self, vendor: str, key: str) -> Table | None:
        with self._lock:
            if (vendor, key) in self._tables:
                return self._tables[(vendor, key)]
            path = self._path(vendor, key)
            table = None
            if path is not None:
                rows = read_rows(path)
                dialect = dialect_of(vendor)
                spec = dialect.spec_for(key)
                table = Table(typed(dialect, spec, rows, text=path.suffix == ".csv"))
            self._tables[(vendor, key)] = table
            return table

    def _rules(self, vendor: str, key: str) -> list[Injection]:
        # Called with the lock held.
        if (vendor, key) not in self._injections:
            path = self.root / vendor / f"{key}.error.json"
            self._injections[(vendor, key)] = parse_injections(path) if path.is_file() else []
        return self._injections[(vendor, key)]

    def _fire(
        self, vendor: str, key: str, params: Mapping[str, Any], by_date: bool
    ) -> Injection | None:
        """The injection this call triggers (counted), if any."""
        with self._lock:
            self.calls[(vendor, key)] += 1
            for rule in self._rules(vendor, key):
                if rule.kind == STALE and not by_date:
                    continue
                if not rule.matches(params):
                    continue
                if rule.times is not None and rule.fired >= rule.times:
                    continue
                rule.fired += 1
                return rule
        return None


class ReplayClient:
    """A VendorClient answering one vendor's calls from a ReplaySource."""

    def __init__(self, source: ReplaySource, vendor: str) -> None:
        self.source = source
        self.vendor = vendor
        self.dialect = dialect_of(vendor)

    def __repr__(self) -> str:
        return f"ReplayClient({self.vendor!r}, {self.source!r})"

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        try:
            return self._answer(endpoint, params)
        except Exception as exc:
            read = self.dialect.read_failure  # the live client's reading of the failure
            if read is not None:
                err = read(endpoint, exc)
            else:
                err = classify(self.vendor, exc, endpoint=endpoint)
            if err is exc:
                raise
            raise err from exc

    # -- answering

    def _answer(self, endpoint: str, params: dict[str, Any]) -> pd.DataFrame:
        key = self.dialect.endpoint_key(endpoint, params)
        spec = self.dialect.spec_for(key)
        wanted_day = self._by_date(spec, params)
        rule = self.source._fire(self.vendor, key, params, wanted_day is not None)
        table = self.source.table(self.vendor, key)
        if rule is not None and rule.kind != STALE:
            return self._fail(endpoint, rule, spec, table, params)
        if table is None:
            raise VendorNotConfiguredError(
                f"replay has no {key} table under {self.source.root / self.vendor}",
                vendor=self.vendor,
                endpoint=endpoint,
            )
        for name, allowed in spec.require.items() if spec else ():
            value = params.get(name, allowed[0])
            if value not in allowed:
                raise VendorNotConfiguredError(
                    f"replay holds {name}={allowed[0]!r} only, not {value!r}",
                    vendor=self.vendor,
                    endpoint=endpoint,
                )
        if rule is not None:  # stale: the latest earlier date that has rows
            assert wanted_day is not None
            mask = self._stale_mask(table, spec, params, wanted_day)
        else:
            mask = self._mask(table, spec, params)
        if not mask.any():
            return self._no_rows(spec, table, params)
        return self._project(table.frame[mask.to_numpy()], params)

    def _fail(
        self,
        endpoint: str,
        rule: Injection,
        spec: EndpointSpec | None,
        table: Table | None,
        params: dict[str, Any],
    ) -> pd.DataFrame:
        if rule.kind == KIND_NO_DATA:
            if table is None:
                raise NoMarketDataError(
                    rule.message or "no data", vendor=self.vendor, endpoint=endpoint
                )
            return self._no_rows(spec, table, params)
        native = native_failure(self.vendor, rule.kind, rule.message)
        typed = classify(self.vendor, native, endpoint=endpoint)
        if typed.status is not STATUS_OF_KIND[rule.kind]:
            # A custom message the classifier reads differently: the injected kind wins.
            log.warning(
                "replay %s/%s: %r classified as %s; raising %s as injected",
                self.vendor,
                endpoint,
                rule.message,
                typed.status,
                rule.kind,
            )
            raise ERROR_BY_KIND[rule.kind](str(native), vendor=self.vendor, endpoint=endpoint)
        raise native

    @staticmethod
    def _by_date(spec: EndpointSpec | None, params: Mapping[str, Any]) -> int | None:
        """The single day a call asks for (trade_date=D, or start=end=D), else None."""
        if spec is None or spec.date_column is None:
            return None
        for f in spec.date_filters:
            if f.kind == "date" and params.get(f.param) not in (None, ""):
                return date_int(params[f.param])
        lo = [f for f in spec.date_filters if f.kind == "date_from"]
        hi = [f for f in spec.date_filters if f.kind == "date_to"]
        if lo and hi:
            d1, d2 = date_int(params.get(lo[0].param)), date_int(params.get(hi[0].param))
            if d1 is not None and d1 == d2:
                return d1
        return None

    def _mask(
        self,
        table: Table,
        spec: EndpointSpec | None,
        params: Mapping[str, Any],
        *,
        skip: tuple[Filter, ...] = (),
    ) -> pd.Series:
        frame = table.frame
        mask = pd.Series(True, index=frame.index)
        filters = spec.filters if spec else self._generic_filters(frame, params)
        defaults = spec.defaults if spec else {}
        for f in filters:
            if f in skip:
                continue
            given = params.get(f.param)
            value = given if given not in (None, "") else defaults.get(f.param)
            if value in (None, "") or str(value) in f.unless:
                continue
            matcher = self.dialect.matchers.get(f.kind)
            if matcher is not None:  # the vendor's own kind (it judges a missing column)
                mask &= matcher(table, f, value)
                continue
            if f.column not in frame.columns:
                if given in (None, ""):
                    continue  # a vendor default the recording does not carry
                log.warning(
                    "replay %s: no column %r to filter %s=%r: no rows",
                    self.vendor,
                    f.column,
                    f.param,
                    value,
                )
                return pd.Series(False, index=frame.index)
            mask &= self._match(table, f, value)
        return mask

    @staticmethod
    def _generic_filters(frame: pd.DataFrame, params: Mapping[str, Any]) -> tuple[Filter, ...]:
        """An endpoint outside the table: a param naming a column (or `_` tag) filters it."""
        out = []
        for name in params:
            for column in (name, f"_{name}"):
                if column in frame.columns:
                    out.append(Filter(name, column, "date" if date_int(params[name]) else "eq"))
                    break
        return tuple(out)

    def _match(self, table: Table, f: Filter, value: Any) -> pd.Series:
        if f.kind in ("date", "date_from", "date_to"):
            day = date_int(value)
            keys = table.key(f.column, "date")
            if day is None:
                return pd.Series(False, index=keys.index)
            return {"date": keys == day, "date_from": keys >= day, "date_to": keys <= day}[f.kind]
        if f.kind in ("time_from", "time_to"):
            bound = time_bound(value, upper=f.kind == "time_to")
            keys = table.key(f.column, "time")
            if bound is None:
                return pd.Series(False, index=keys.index)
            return (keys >= bound) if f.kind == "time_from" else (keys <= bound)
        keys = table.key(f.column, "str")
        if f.kind == "list":
            wanted = [p.strip() for p in str(value).split(",") if p.strip()]
            return keys.isin(wanted).fillna(False).astype(bool)
        return (keys == str(value).strip()).fillna(False).astype(bool)

    def _stale_mask(
        self, table: Table, spec: EndpointSpec | None, params: Mapping[str, Any], day: int
    ) -> pd.Series:
        assert spec is not None and spec.date_column is not None
        if spec.date_column not in table.frame.columns:
            return pd.Series(False, index=table.frame.index)
        base = self._mask(table, spec, params, skip=spec.date_filters)
        keys = table.key(spec.date_column, "date")
        earlier = keys[base & (keys < day)]
        if earlier.empty:
            return pd.Series(False, index=table.frame.index)
        return base & (keys == earlier.max())

    def _no_rows(self, spec: EndpointSpec | None, table: Table, params: Mapping[str, Any]):
        kind = spec.no_rows if spec else "columns"
        if kind == "no_columns":
            return pd.DataFrame()
        if kind == "type_error":
            raise TypeError("'NoneType' object is not subscriptable")
        if kind == "value_error":
            raise ValueError("sina hfq factor not available")
        if kind.startswith("key_error:"):
            raise KeyError(kind.split(":", 1)[1])
        return self._project(table.frame.iloc[0:0], params)

    def _project(self, rows: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
        """Drop the `_` tags; honour Tushare's `fields`; hand out a copy, never the cache."""
        keep = [c for c in rows.columns if not str(c).startswith("_")]
        fields = params.get("fields") if self.dialect.honours_fields else None
        if fields:
            wanted = [f.strip() for f in str(fields).split(",") if f.strip()]
            keep = [c for c in wanted if c in keep]
        return rows[keep].reset_index(drop=True).copy()
