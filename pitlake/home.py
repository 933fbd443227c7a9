"""Where the lake is when nobody says: --lake, else $PITLAKE_HOME, else ./lake.

One rule for every entry point (ingest, query, serve, mcp, dq, the flows). Plain and tiny so the
fast CLI paths can import it."""

from __future__ import annotations

import os

ENV_HOME = "PITLAKE_HOME"
DEFAULT_LAKE = "lake"


def lake_root(lake: str | None = None) -> str:
    return lake or os.environ.get(ENV_HOME, "").strip() or DEFAULT_LAKE
