"""AkShare: East Money / Sina / Tencent endpoints through the akshare library
(docs/vendor-reference.md §2.1–2.3, §3.2, §4.3/4.6, §5, §6).

client.py calls the library, classify.py and replies.py read its failures, replay.py is its
replay dialect, fields.py its field names, canary.py its fallback calls, fetchers/ one module
per dataset it serves (no valuation: AkShare has no point-in-time market-cap / PE history).

plugin.py holds its `PLUGIN` (the client, classifier and replay dialect, and their imports),
loaded on first use; this module holds only the names of the variables holding its secrets,
which redaction reads without loading the plugin (decision 54).
"""

from __future__ import annotations

from pitlake.vendors import lazy_plugin

# The variables holding its secrets (none: its endpoints take no account): the plugin's
# `secret_env`, masked in every answer (`pitlake.serve.api.redact`).
SECRET_ENV: tuple[str, ...] = ()

__getattr__ = lazy_plugin(__name__)
