"""Baostock (baostock.com; the `baostock` library's socket protocol, docs/vendor-reference.md
Baostock §B). Free and anonymous: no account, no token, no secret variable.

client.py speaks to the library (one login per process, one socket, pages read row by row),
classify.py reads its error codes, replay.py is its replay dialect, fields.py its field names,
fetchers/ one module per dataset it serves: quotes (unadjusted daily bars), adj_factors
(cumulative back-adjustment factors) and financials (quarterly data dated by pubDate).

plugin.py holds its `PLUGIN` (the client, classifier and replay dialect, and their imports),
loaded on first use; this module holds only the names of the variables holding its secrets,
which redaction reads without loading the plugin (decision 54).
"""

from __future__ import annotations

from pitlake.vendors import lazy_plugin

# The variables holding its secrets (none: Baostock is anonymous): the plugin's
# `secret_env`, masked in every answer (`pitlake.serve.api.redact`).
SECRET_ENV: tuple[str, ...] = ()

__getattr__ = lazy_plugin(__name__)
