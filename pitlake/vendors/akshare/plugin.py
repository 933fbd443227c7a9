"""AkShare's `VendorPlugin` (the package's docstring describes the vendor). Loaded on
first use of `pitlake.vendors.akshare.PLUGIN`."""

from __future__ import annotations

from pitlake.vendors.akshare import SECRET_ENV
from pitlake.vendors.akshare.canary import canary_queries
from pitlake.vendors.akshare.classify import classify_akshare
from pitlake.vendors.akshare.client import live_client
from pitlake.vendors.akshare.replay import DIALECT
from pitlake.vendors.base import VendorPlugin
from pitlake.vendors.ratelimit import RateConfig

PLUGIN = VendorPlugin(
    name="akshare",
    rank=1,
    client=live_client,
    classify=classify_akshare,
    # East Money publishes no quota but blocks after bursts; AkShare is the fallback, so
    # slow and steady (these rates are pitlake's own choice: no margin on top).
    rates=RateConfig(per_min=30, burst=3),
    max_in_flight=2,
    replay=DIALECT,
    fetchers_package="pitlake.vendors.akshare.fetchers",
    secret_env=SECRET_ENV,
    columnless_is_no_rows=True,
    canary_queries=canary_queries,
)
