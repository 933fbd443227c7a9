"""Prefect flows (nightly, backfill). Importing the package applies pitlake's Prefect
settings (telemetry off, quiet shutdown) before any flow module imports Prefect."""

from pitlake.flows import runtime as _runtime  # noqa: F401
