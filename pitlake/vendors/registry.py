"""Build the vendor layer for a run from one source spec.

    None | "live"                 live clients, default chains
    "vendors:tushare,akshare"     live clients, every dataset tried in that vendor order
    "replay:DIR"                  recorded answers from DIR (docs/replay-format.md)

Every client is wrapped in a `ResilientClient` (classification, rate limit, retries), so live and
replayed calls take the same path. Replay has no rate limit and never really waits: injected
rate limits are retried on a virtual clock, with the same attempt and time budgets as live.
Every vendor is a plugin (pitlake.vendors.plugins): its client, rates, in-flight bound and
fetchers come from it; nothing here names a vendor.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pitlake.errors import InvalidArgumentsError
from pitlake.vendors.base import Adapter, VendorClient
from pitlake.vendors.plugins import known_vendors, plugin
from pitlake.vendors.ratelimit import RateLimiter
from pitlake.vendors.replay.source import ReplaySource
from pitlake.vendors.retry import ResilientClient, RetryPolicy
from pitlake.vendors.router import DEFAULT_CHAINS, FactorOwners, Router

AdapterFactory = Callable[[VendorClient], Adapter]


@dataclass(frozen=True)
class SourceSpec:
    """A parsed source string."""

    kind: str  # "live" | "replay"
    replay_dir: Path | None = None
    vendors: tuple[str, ...] | None = None  # explicit chain order (vendors:…)


def parse_source(source: str | None) -> SourceSpec:
    if source is None or source.strip() in ("", "live"):
        return SourceSpec("live")
    text = source.strip()
    kind, _, rest = text.partition(":")
    if kind == "replay" and rest.strip():
        path = Path(rest.strip()).expanduser()
        if not path.is_dir():
            raise InvalidArgumentsError(f"replay directory {str(path)!r} does not exist")
        return SourceSpec("replay", replay_dir=path)
    if kind == "vendors" and rest.strip():
        vendors = tuple(v.strip() for v in rest.split(",") if v.strip())
        known = known_vendors()
        unknown = [v for v in vendors if v not in known]
        if unknown or not vendors:
            raise InvalidArgumentsError(
                f"source {text!r}: unknown vendor(s) {unknown}; expected {', '.join(known)}"
            )
        return SourceSpec("live", vendors=vendors)
    shown = text if len(text) <= 60 else text[:60] + "…"
    raise InvalidArgumentsError(
        f"invalid source {shown!r}: expected 'live', 'vendors:tushare,akshare' or 'replay:DIR'"
    )


def _live_client(vendor: str, record_dir: str | Path | None) -> VendorClient:
    """The vendor's own live client (its plugin says which)."""
    return plugin(vendor).client(record_dir=record_dir)


def build_clients(
    source: str | None,
    *,
    record_dir: str | Path | None = None,
    policy: RetryPolicy | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[str, ResilientClient]:
    """vendor → resilient client for the source (replay clients share one ReplaySource)."""
    spec = parse_source(source)
    vendors = spec.vendors or known_vendors()
    if spec.kind == "replay":
        assert spec.replay_dir is not None
        replay = ReplaySource(spec.replay_dir)
        return {
            v: ResilientClient(
                replay.client(v), RateLimiter.unlimited(), policy or RetryPolicy.no_wait()
            )
            for v in vendors
        }
    return {
        v: ResilientClient(
            _live_client(v, record_dir),
            RateLimiter.for_vendor(v, env),
            policy or RetryPolicy(),
            max_in_flight=max_in_flight(v, env),
        )
        for v in vendors
    }


def max_in_flight(vendor: str, env: Mapping[str, str] | None = None) -> int:
    """Concurrent calls allowed to one vendor: PITLAKE_<VENDOR>_MAX_IN_FLIGHT, else a
    default that keeps a backfill's threads from tripping the vendor's IP blocks."""
    env = os.environ if env is None else env
    raw = env.get(f"PITLAKE_{vendor.upper()}_MAX_IN_FLIGHT", "")
    try:
        n = int(raw) if raw.strip() else _default_in_flight(vendor)
    except ValueError:
        raise InvalidArgumentsError(
            f"PITLAKE_{vendor.upper()}_MAX_IN_FLIGHT must be an integer, got {raw!r}"
        ) from None
    return max(1, n)


def _default_in_flight(vendor: str) -> int:
    from pitlake.vendors.plugins import find

    found = find(vendor)
    return found.max_in_flight if found is not None else 2


def _load_adapter(vendor: str) -> AdapterFactory:
    """The vendor's fetchers over a client (its plugin's adapter)."""
    return plugin(vendor).adapter


def build_router(
    source: str | None = None,
    *,
    record_dir: str | Path | None = None,
    chains: Mapping[str, Sequence[str]] | None = None,
    factor_owners: FactorOwners | None = None,
    policy: RetryPolicy | None = None,
    adapters: Mapping[str, AdapterFactory] | None = None,
    env: Mapping[str, str] | None = None,
) -> Router:
    """A Router over the source's clients. `chains` overrides per dataset (after `vendors:`);
    `adapters` replaces the adapter classes (tests)."""
    spec = parse_source(source)
    clients = build_clients(source, record_dir=record_dir, policy=policy, env=env)
    factories = dict(adapters or {})
    built = {
        vendor: (factories.get(vendor) or _load_adapter(vendor))(client)
        for vendor, client in clients.items()
    }
    merged: dict[str, Sequence[str]] = {}
    if spec.vendors:
        merged.update({dataset: spec.vendors for dataset in DEFAULT_CHAINS})
    merged.update(chains or {})
    return Router(built, merged, factor_owners=factor_owners)
