"""Tushare Pro's `VendorPlugin` (the package's docstring describes the vendor). Loaded on
first use of `pitlake.vendors.tushare.PLUGIN`."""

from __future__ import annotations

from pitlake.vendors.base import VendorPlugin
from pitlake.vendors.ratelimit import RateConfig
from pitlake.vendors.tushare import SECRET_ENV
from pitlake.vendors.tushare.classify import classify_tushare, rate_quota
from pitlake.vendors.tushare.client import live_client
from pitlake.vendors.tushare.replay import DIALECT

PLUGIN = VendorPlugin(
    name="tushare",
    rank=0,
    client=live_client,
    classify=classify_tushare,
    # Tushare's per-endpoint quotas (≈500/min at the basic tier, 200/min for statements at
    # 2000 points); the buckets run 5 % below them (ratelimit.py).
    rates=RateConfig(
        per_min=500,
        burst=10,
        endpoints={"income": 200, "balancesheet": 200, "cashflow": 200},
        margin=0.05,
    ),
    max_in_flight=4,
    secret_env=SECRET_ENV,
    replay=DIALECT,
    fetchers_package="pitlake.vendors.tushare.fetchers",
    quota_of=rate_quota,
)
