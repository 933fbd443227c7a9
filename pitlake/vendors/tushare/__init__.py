"""Tushare Pro (docs/vendor-reference.md §2.4–2.6, §3.1, §4.1–4.2, §5.3, §6.3): the plugin.

client.py speaks the HTTP protocol, classify.py reads its failures, replay.py is its replay
dialect, fields.py its field names, fetchers/ one module per dataset it serves.
"""

from __future__ import annotations

from pitlake.vendors.base import VendorPlugin
from pitlake.vendors.ratelimit import RateConfig
from pitlake.vendors.tushare.classify import classify_tushare, rate_quota
from pitlake.vendors.tushare.client import TUSHARE_TOKEN_ENV, live_client
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
    secret_env=TUSHARE_TOKEN_ENV,
    replay=DIALECT,
    fetchers_package="pitlake.vendors.tushare.fetchers",
    quota_of=rate_quota,
)
