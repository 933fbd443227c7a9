"""`pitlake vendors check`: one live call per vendor endpoint, to see drift before a nightly
run does (after upgrading akshare, or changing a Tushare token).

Each endpoint pitlake calls is asked once, for a recent session and a known symbol, through the
same client, classifier and adapter a run uses (no retries: a canary reports, it does not
insist). Per endpoint it says whether the vendor was reachable, whether the token may call it,
whether the answer has the columns the adapter reads, whether the units come out plausible
(the adapters' own unit checks, plus a magnitude check on statements), and how long the call
took. A vendor whose first calls all fail at the transport (no network, a dead mirror) is
reported in one line and not asked further; a missing token or library likewise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timezone
from typing import Any

import pandas as pd

from pitlake.errors import (
    CalendarRangeError,
    NoMarketDataError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.base import Adapter, FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.plugins import find
from pitlake.vendors.replay.dialect import endpoint_key

KNOWN_SYMBOL = "600519.SH"
# Consecutive transport failures, before any answer, that make a vendor "unreachable".
UNREACHABLE_AFTER = 2
# Statements of a listed company are in 元: total assets of any A-share are above 1亿, below
# 100万亿 (ICBC ≈ 4.5e13), and a period's revenue above 100万, below 10万亿; a 万元 slip of a
# large company (the default symbol) falls outside.
# Fetchers whose transform checks units (amount ÷ volume vs close; market value vs price ×
# shares) say so (`Fetcher.checks_units`); rows with statement items get MAGNITUDES. Factors,
# calendars, news and seat texts have none to check.
MAGNITUDES = {"total_assets": (1e8, 1e14), "total_revenue": (1e6, 1e13)}

# Text of a transport failure (the classifier keeps the native exception's name first).
_TRANSPORT_MARKS = (
    "ConnectionError",
    "ConnectTimeout",
    "ProxyError",
    "SSLError",
    "DNSError",
    "NameResolution",
    "NewConnectionError",
    "RemoteDisconnected",
    "Connection refused",
    "timed out",
    "Failed to perform",
)

OK, NO_ROWS, DENIED, DRIFT, UNREACHABLE, ERROR, RATE_LIMITED, NOT_CONFIGURED = (
    "ok",
    "no rows",
    "denied",
    "drift",
    "unreachable",
    "error",
    "rate limited",
    "not configured",
)


@dataclass
class Probe:
    """One endpoint's check. `columns` / `units`: "ok", a drift text, or None (not judged:
    no rows, or the call failed first)."""

    vendor: str
    endpoint: str
    dataset: str
    params: dict[str, Any]
    status: str = ""
    reachable: bool | None = None
    permission: bool | None = None
    columns: str | None = None
    units: str | None = None
    latency_ms: float | None = None
    rows: int = 0
    message: str = ""

    @property
    def drifted(self) -> bool:
        return self.status in (DRIFT, ERROR)


@dataclass
class VendorCheck:
    """One vendor's probes, or the one line saying why there are none."""

    vendor: str
    state: str = "ok"  # ok | unreachable | not configured
    message: str = ""
    probes: list[Probe] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "vendor": self.vendor,
            "state": self.state,
            "message": self.message,
            "endpoints": [asdict(p) for p in self.probes],
        }


def recent_session(today: date | None = None) -> date:
    """The last session before today (Beijing): its data is out by now."""
    from pitlake.calendar import XSHG, beijing_today

    day = today or beijing_today()
    try:
        return XSHG.previous_session(day)
    except CalendarRangeError:  # today is past the offline calendar: its last session
        return XSHG.session_on_or_before(XSHG.last)


# ---------------------------------------------------------------- which calls


def _requests(dataset: str, session: date, symbol: str) -> list[FetchRequest]:
    """The request for the known symbol, and the whole-market one: the by-date lookups
    (announcers, feeds) are asked only without symbols; where both make the same call, it is
    probed once."""
    return [
        FetchRequest(dataset, trade_date=session, symbols=(symbol,)),
        FetchRequest(dataset, trade_date=session),
    ]


def _extra_queries(adapter: Adapter, session: date, symbol: str) -> list[tuple[str, VendorQuery]]:
    """Calls the fetchers make only as fallbacks or follow-ups (the vendor's plugin says
    which), built the way the fetchers build them."""
    plugin = find(adapter.vendor)
    if plugin is None or plugin.canary_queries is None:
        return []
    return plugin.canary_queries(adapter, session, symbol)


def probes_for(adapter: Adapter, session: date, symbol: str) -> list[tuple[str, VendorQuery]]:
    """(dataset, first query) for every distinct endpoint the adapter calls."""
    seen: set[str] = set()
    out: list[tuple[str, VendorQuery]] = []
    candidates: list[tuple[str, VendorQuery]] = []
    for dataset in sorted(adapter.datasets):
        for req in _requests(dataset, session, symbol):
            try:
                candidates += [(dataset, q) for q in adapter.build_queries(req)]
            except VendorError:
                continue  # e.g. a per-symbol vendor asked for the whole market
    candidates += _extra_queries(adapter, session, symbol)
    for dataset, q in candidates:
        key = endpoint_key(adapter.vendor, q.endpoint, q.params)
        if key not in seen:
            seen.add(key)
            out.append((dataset, q))
    return out


# ---------------------------------------------------------------- judging one answer


def is_transport(err: BaseException) -> bool:
    """A failure to reach the vendor at all (as opposed to an answer that is wrong)."""
    chain: list[BaseException] = []
    e: BaseException | None = err
    while e is not None and len(chain) < 5:
        chain.append(e)
        e = e.__cause__ or e.__context__
    text = " ".join(f"{type(x).__name__}: {x}" for x in chain)
    return isinstance(err, VendorError) and any(m in text for m in _TRANSPORT_MARKS)


def _drift_kind(err: VendorError) -> str:
    text = str(err)
    if "unit drift" in text:
        return "units"
    return "columns"


def _statement_units(frame: pd.DataFrame) -> str | None:
    """A magnitude check of the statement's headline item in 元 (None: no such item)."""
    for item, (lo, hi) in MAGNITUDES.items():
        if item not in frame.columns:
            continue
        values = pd.to_numeric(frame[item], errors="coerce").abs().dropna()
        if values.empty:
            continue
        median = float(values.median())
        if not lo <= median <= hi:
            return f"drift: {item} {median:.3g} 元 is outside [{lo:.0e}, {hi:.0e}]"
        return "ok"
    return None


def judge(adapter: Adapter, dataset: str, query: VendorQuery, session: date) -> Probe:
    """Make the call and judge its answer."""
    probe = Probe(adapter.vendor, query.endpoint, dataset, dict(query.params))
    start = time.perf_counter()
    try:
        frame = adapter.extract_for(dataset, query)
    except Exception as exc:
        probe.latency_ms = round((time.perf_counter() - start) * 1000, 1)
        return _failed(probe, exc)
    probe.latency_ms = round((time.perf_counter() - start) * 1000, 1)
    probe.reachable, probe.permission = True, True
    probe.rows = len(frame)
    if frame.empty:
        probe.status, probe.message = NO_ROWS, "answered no rows for this request"
        return probe
    fetched = datetime.now(timezone.utc)
    req = FetchRequest(
        dataset, trade_date=session, symbols=(query.symbol,) if query.symbol else None
    )
    try:
        rows = adapter.transform(req, [RawResponse(adapter.vendor, query, frame, fetched)])
    except NoMarketDataError:
        probe.columns, probe.status = "ok", OK
        probe.message = "answered; none of its rows are this dataset's on their own"
        return probe
    except VendorError as err:
        kind = _drift_kind(err)
        probe.columns = "ok" if kind == "units" else f"drift: {err.message}"
        probe.units = f"drift: {err.message}" if kind == "units" else None
        probe.status, probe.message = DRIFT, str(err)
        return probe
    except Exception as exc:  # an adapter reading a changed reply
        probe.columns = f"drift: {type(exc).__name__}: {exc}"
        probe.status, probe.message = DRIFT, probe.columns
        return probe
    probe.columns = "ok"
    fetcher = getattr(adapter, "fetchers", {}).get(dataset)
    if any(item in rows.columns for item in MAGNITUDES):
        probe.units = _statement_units(rows)
    elif getattr(fetcher, "checks_units", False):
        probe.units = "ok"  # the transform's own unit check passed
    probe.status = DRIFT if (probe.units or "").startswith("drift") else OK
    probe.message = f"{len(rows)} canonical rows"
    return probe


def _failed(probe: Probe, exc: BaseException) -> Probe:
    probe.message = str(exc)
    if isinstance(exc, VendorNotConfiguredError):
        if "no such function" in str(exc):  # an akshare upgrade renamed or dropped it
            probe.status, probe.columns = DRIFT, "drift: the installed library lacks it"
        else:
            probe.status = NOT_CONFIGURED
        return probe
    if isinstance(exc, VendorPermissionError):
        probe.reachable, probe.permission, probe.status = True, False, DENIED
        return probe
    if isinstance(exc, NoMarketDataError):
        probe.reachable, probe.permission, probe.status = True, True, NO_ROWS
        return probe
    if isinstance(exc, VendorRateLimitError):
        probe.reachable, probe.status = True, RATE_LIMITED
        return probe
    if is_transport(exc):
        probe.reachable, probe.status = False, UNREACHABLE
        return probe
    probe.reachable = True
    if isinstance(exc, VendorError) and not exc.retryable:  # the answer could not be read
        probe.permission, probe.columns, probe.status = True, f"drift: {exc}", DRIFT
        return probe
    probe.status = ERROR
    return probe


# ---------------------------------------------------------------- a whole vendor


def check_vendor(
    adapter: Adapter,
    *,
    session: date,
    symbol: str = KNOWN_SYMBOL,
    where: str = "",
    on_probe: Callable[[Probe], None] | None = None,
) -> VendorCheck:
    """Every endpoint of one vendor, in turn; stops early when the vendor cannot be reached
    or used at all."""
    result = VendorCheck(adapter.vendor)
    inner = getattr(adapter.client, "inner", adapter.client)
    ensure = getattr(inner, "ensure_configured", None)
    if ensure is not None:
        try:
            ensure()
        except VendorError as err:
            result.state, result.message = NOT_CONFIGURED, err.message
            return result
    streak = 0
    answered = False
    for dataset, query in probes_for(adapter, session, symbol):
        probe = judge(adapter, dataset, query, session)
        if probe.status == NOT_CONFIGURED:
            result.state, result.message = NOT_CONFIGURED, probe.message
            result.probes.clear()
            return result
        result.probes.append(probe)
        if on_probe is not None:
            on_probe(probe)
        if probe.status == UNREACHABLE:
            streak += 1
            if not answered and streak >= UNREACHABLE_AFTER:
                result.state = UNREACHABLE
                place = f" at {where}" if where else ""
                result.message = f"no network, or the vendor is down{place}: {probe.message}"
                return result
        else:
            streak, answered = 0, True
    return result


def drifted(checks: Iterable[VendorCheck]) -> bool:
    return any(p.drifted for c in checks for p in c.probes)


def unreachable(checks: Iterable[VendorCheck]) -> bool:
    """A vendor, or one of its hosts (East Money blocked, Sina up), could not be reached."""
    return any(
        c.state == UNREACHABLE or any(p.status == UNREACHABLE for p in c.probes) for c in checks
    )


def canary_adapters(
    vendors: Iterable[str], *, timeout: float, env: Mapping[str, str] | None = None
) -> dict[str, tuple[Adapter, str]]:
    """vendor → (its fetchers over its live client with no retries, where it is reached)."""
    from pitlake.vendors.plugins import plugin
    from pitlake.vendors.ratelimit import RateLimiter
    from pitlake.vendors.retry import ResilientClient, RetryPolicy

    once = RetryPolicy(max_attempts=1, rate_limit_attempts=1)
    out: dict[str, tuple[Adapter, str]] = {}
    for vendor in vendors:
        found = plugin(vendor)
        inner: Any = found.client(timeout=timeout, env=env)
        where = str(getattr(inner, "url", "") or "")
        client = ResilientClient(inner, RateLimiter.for_vendor(vendor, env), once)
        out[vendor] = (found.adapter(client, max_parallel=1), where)
    return out
