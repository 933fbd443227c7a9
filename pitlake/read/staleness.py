"""How many sessions behind a dataset may be before an answer about its freshness says stale:
one rule for the API's /v1/status and the dashboard."""

from __future__ import annotations

import os
from collections.abc import Mapping

STALE_ENV = "PITLAKE_STALE_SESSIONS"
DEFAULT_STALE_SESSIONS = 1


def stale_threshold(environ: Mapping[str, str] | None = None) -> tuple[int, str | None]:
    """Lag (in sessions) beyond which a dataset is stale: $PITLAKE_STALE_SESSIONS, default 1.
    A bad value falls back to the default with a note (the dashboard still renders)."""
    raw = (os.environ if environ is None else environ).get(STALE_ENV, "").strip()
    if not raw:
        return DEFAULT_STALE_SESSIONS, None
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        return DEFAULT_STALE_SESSIONS, (
            f"{STALE_ENV}={raw[:20]!r} is not a whole number ≥ 0; using {DEFAULT_STALE_SESSIONS}"
        )
    return value, None
