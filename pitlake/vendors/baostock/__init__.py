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

from typing import Any

# Environment variables holding this vendor's secrets (none: Baostock is anonymous): the plugin's
# `secret_env`, masked in every answer (`pitlake.serve.api.redact`).
SECRET_ENV: tuple[str, ...] = ()


def __getattr__(name: str) -> Any:
    """`PLUGIN`, imported from plugin.py on first use."""
    if name == "PLUGIN":
        from pitlake.vendors.baostock.plugin import PLUGIN

        globals()["PLUGIN"] = PLUGIN
        return PLUGIN
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
