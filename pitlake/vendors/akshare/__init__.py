"""AkShare: East Money / Sina / Tencent endpoints through the akshare library
(docs/vendor-reference.md §2.1–2.3, §3.2, §4.3/4.6, §5, §6): the plugin.

client.py calls the library, classify.py and replies.py read its failures, replay.py is its
replay dialect, fields.py its field names, canary.py its fallback calls, fetchers/ one module
per dataset it serves (no valuation: AkShare has no point-in-time market-cap / PE history).
"""

from __future__ import annotations

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
    columnless_is_no_rows=True,
    canary_queries=canary_queries,
)
