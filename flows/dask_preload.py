"""A Dask worker's preload: pitlake's task modules and Prefect's task engine imported, and the
gate built, when the worker starts rather than in its first task.

    dask worker tcp://scheduler:8786 --preload pitlake.flows.dask_preload

The local cluster of `PITLAKE_TASK_RUNNER=dask` passes it (`runtime.task_runner`). A cold
worker spends its first ~3 s of CPU importing what a unit task needs, plus the gate's build,
while the run's first chunks wait; on a cluster that stays up between runs that is paid once,
at the worker's start (decision 62).
"""

from __future__ import annotations

from typing import Any

import pitlake.tasks.ingest  # noqa: F401  (the unit and chunk tasks)
import prefect.task_engine  # noqa: F401  (what runs every task)
from pitlake.expectations.warm import warm_up


def dask_setup(worker: Any) -> None:
    """Called by Dask once the worker starts: the gate's build goes on a thread."""
    warm_up()
