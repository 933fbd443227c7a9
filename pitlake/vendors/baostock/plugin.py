"""Baostock's `VendorPlugin` (the package's docstring describes the vendor). Loaded on
first use of `pitlake.vendors.baostock.PLUGIN`."""

from __future__ import annotations

from pitlake.vendors.baostock import SECRET_ENV
from pitlake.vendors.baostock.classify import classify_baostock
from pitlake.vendors.baostock.client import live_client
from pitlake.vendors.baostock.replay import DIALECT
from pitlake.vendors.base import VendorPlugin
from pitlake.vendors.ratelimit import RateConfig

PLUGIN = VendorPlugin(
    name="baostock",
    rank=2,
    client=live_client,
    classify=classify_baostock,
    # Baostock publishes no quota; its library sends one message at a time on one socket, so
    # one call in flight, paced by pitlake's own choice (no margin on top).
    rates=RateConfig(per_min=300, burst=5),
    max_in_flight=1,
    replay=DIALECT,
    fetchers_package="pitlake.vendors.baostock.fetchers",
    secret_env=SECRET_ENV,
)
