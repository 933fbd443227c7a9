"""Tushare Pro (docs/vendor-reference.md §2.4–2.6, §3.1, §4.1–4.2, §5.3, §6.3).

client.py speaks the HTTP protocol, classify.py reads its failures, replay.py is its replay
dialect, fields.py its field names, fetchers/ one module per dataset it serves.

plugin.py holds its `PLUGIN` (the client, classifier and replay dialect, and their imports),
loaded on first use; this module holds only the names of the variables holding its secrets,
which redaction reads without loading the plugin (decision 54).
"""

from __future__ import annotations

from pitlake.vendors import lazy_plugin

# Environment variables holding this vendor's secrets (its token): the plugin's
# `secret_env`, masked in every answer (`pitlake.serve.api.redact`).
SECRET_ENV: tuple[str, ...] = ("TUSHARE_TOKEN", "TS_TOKEN")

__getattr__ = lazy_plugin(__name__)
