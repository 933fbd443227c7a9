"""Walk-forward panels (issue 29): one row per (session, symbol in that session's universe),
each cell what was known at that session's cutoff (run.py, queries.py, fields.py)."""

from pitlake.read.panel.fields import ALL_FIELDS
from pitlake.read.panel.run import panel

__all__ = ["ALL_FIELDS", "panel"]
