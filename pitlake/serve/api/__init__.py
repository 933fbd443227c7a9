"""The query API for agents and people (docs/design.md §8).

- `pitlake.serve.api.service.QueryService`: the one place task-shaped questions become `Lake` reads
  and envelopes (pin, snapshot, freshness, fault handling, redaction). The HTTP app, the
  `pitlake query` CLI and the MCP server all call it, so their answers are the same envelope.
- `pitlake.serve.api.app.create_app(lake_path, ...)`: the FastAPI app (`pitlake serve`).

This package's `__init__` stays light: importing the service must not import FastAPI.
"""

from __future__ import annotations

from typing import Any

__all__ = ["QueryService", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from pitlake.serve.api.app import create_app

        return create_app
    if name == "QueryService":
        from pitlake.serve.api.service import QueryService

        return QueryService
    raise AttributeError(name)
