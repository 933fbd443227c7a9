"""A simulated Tushare for benchmarks: a synthetic 5,300-symbol market served in-process.

from benchmarks.simvendor import SimMarket, SimConfig, SimClient, sim_router
client = SimClient(SimMarket(), SimConfig(latency=0.15, quota={"daily": 500}))
router = sim_router(client, env={...})   # pitlake's ResilientClient + the Tushare fetchers
RunEnv(lake, run_id=..., router=router)
"""

from __future__ import annotations

from collections.abc import Mapping

from benchmarks.simvendor.client import SimClient, SimConfig, SimLog
from benchmarks.simvendor.market import SimMarket
from pitlake.vendors.ratelimit import RateLimiter
from pitlake.vendors.retry import ResilientClient, RetryPolicy
from pitlake.vendors.router import DEFAULT_CHAINS, Router

__all__ = ["SimClient", "SimConfig", "SimLog", "SimMarket", "sim_router"]


def sim_router(
    client: SimClient,
    *,
    env: Mapping[str, str] | None = None,
    policy: RetryPolicy | None = None,
    max_in_flight: int = 4,
) -> Router:
    """A Router whose only vendor is the simulator, behind pitlake's own ResilientClient
    (classification, the token bucket from `env` — PITLAKE_TUSHARE_* —, tenacity retries)."""
    from pitlake.vendors.tushare import PLUGIN

    limiter = RateLimiter.for_vendor(
        "tushare", env if env is not None else {"PITLAKE_TUSHARE_PER_MIN": "0"}
    )
    resilient = ResilientClient(
        client, limiter, policy or RetryPolicy(), max_in_flight=max_in_flight
    )
    chains = {ds: ("tushare",) for ds in DEFAULT_CHAINS}
    return Router({"tushare": PLUGIN.adapter(resilient)}, chains)
