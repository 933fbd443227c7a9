"""Prefect runtime settings for pitlake: quiet, offline-clean, and the task runner choice.

Imported by every flow module *before* Prefect itself, so the settings apply at import."""

from __future__ import annotations

import logging
import os

# Telemetry off (no DNS lookup, no spurious "database is locked" traceback), a start-up
# timeout that a 2-core machine meets, and the temporary server's shutdown noise silenced.
_DEFAULTS = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
    "PREFECT_LOGGING_LOGGERS_PREFECT_SERVER_LEVEL": "CRITICAL",
    "GX_ANALYTICS_ENABLED": "false",
    "TQDM_DISABLE": "1",
}
for _k, _v in _DEFAULTS.items():
    os.environ.setdefault(_k, _v)
# GX announces its ephemeral docs directory at INFO on every context start.
logging.getLogger("great_expectations").setLevel(logging.WARNING)


def max_workers() -> int:
    raw = os.environ.get("PITLAKE_MAX_WORKERS", "").strip()
    return max(1, int(raw)) if raw.isdigit() else 4


PRELOAD = "pitlake.flows.dask_preload"  # a Dask worker's preload module


def task_runner():  # -> prefect TaskRunner
    """Threads by default; PITLAKE_TASK_RUNNER=dask spreads tasks over a Dask cluster
    (PITLAKE_DASK_ADDRESS to join an existing one, else a local cluster)."""
    kind = os.environ.get("PITLAKE_TASK_RUNNER", "threads").strip().lower()
    if kind == "dask":
        try:
            from prefect_dask import DaskTaskRunner
        except ImportError as e:  # optional extra
            raise RuntimeError(
                "PITLAKE_TASK_RUNNER=dask needs the dask extra: pip install 'pitlake[dask]'"
            ) from e
        address = os.environ.get("PITLAKE_DASK_ADDRESS") or None
        if address:
            return DaskTaskRunner(address=address)
        n = int(os.environ.get("PITLAKE_DASK_WORKERS", "2"))
        return DaskTaskRunner(
            cluster_kwargs={
                "n_workers": n,
                "threads_per_worker": 2,
                "processes": True,
                "preload": [PRELOAD],  # workers import the tasks as they start (decision 62)
            }
        )
    if kind != "threads":
        raise RuntimeError(f"PITLAKE_TASK_RUNNER must be threads or dask, got {kind!r}")
    from prefect.task_runners import ThreadPoolTaskRunner

    return ThreadPoolTaskRunner(max_workers=max_workers())


def default_lake(lake: str | None) -> str:
    from pitlake.home import lake_root

    return lake_root(lake)
