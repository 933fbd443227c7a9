"""Baostock (baostock.com; the `baostock` library's socket protocol, docs/vendor-reference.md
Baostock §B): the plugin. Free and anonymous: no account, no token, no secret variable.

client.py speaks to the library (one login per process, one socket, pages read row by row),
classify.py reads its error codes, replay.py is its replay dialect, fields.py its field names,
fetchers/ one module per dataset it serves: quotes (unadjusted daily bars), adj_factors
(cumulative back-adjustment factors) and financials (quarterly data dated by pubDate).
"""

from __future__ import annotations

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
)
