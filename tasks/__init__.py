"""Prefect tasks: thin wrappers over `pitlake.ingest`. Importing the package applies
pitlake's Prefect settings before Prefect is imported."""

from pitlake.flows import runtime as _runtime  # noqa: F401
