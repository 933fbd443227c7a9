"""One long-lived GX context per process, with every dataset's suite registered once.

Creating a context, a data source and suites costs far more than validating a session's batch,
so they are built on first use and reused. The context is ephemeral (nothing on disk: suites
come from `pitlake.expectations.suites`), analytics and progress bars are off, and GX calls are
serialised by a lock (the context and its stores are not documented as thread-safe; the work
is CPU-bound under the GIL anyway).
"""

from __future__ import annotations

import copy
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")  # before GX is imported
os.environ.setdefault("TQDM_DISABLE", "1")

import great_expectations as gx
import pandas as pd
import pitlake.expectations.custom  # noqa: F401  (registers the custom expectation; see its doc)
from great_expectations.data_context.types.base import ProgressBarsConfig
from great_expectations.execution_engine import pandas_execution_engine
from great_expectations.validator.v1_validator import Validator
from pitlake.expectations.suites import build_suite
from pitlake.schemas import SCHEMAS

DATASOURCE = "pitlake"

# GX fingerprints every pandas batch under 1 GB with an md5 over hash_pandas_object: 1.3 s per
# 5M rows, twice per validation (measured, benchmarks/README.md). The fingerprint is only a
# batch marker; nothing here reads it.
pandas_execution_engine.HASH_THRESHOLD = 0

_lock = threading.RLock()


@dataclass
class _Gx:
    context: Any
    batch_definitions: dict[str, Any]
    suites: dict[str, gx.ExpectationSuite]


_state: _Gx | None = None


def _build() -> _Gx:
    # GX announces its ephemeral docs directory at INFO on every context start; set here, at
    # build time, because an orchestrator's logging setup may have reset levels since import.
    logging.getLogger("great_expectations").setLevel(logging.WARNING)
    # (that module sets its own logger to INFO explicitly)
    logging.getLogger("great_expectations.data_context.types.base").setLevel(logging.WARNING)
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
    source = context.data_sources.add_pandas(DATASOURCE)
    batch_definitions, suites = {}, {}
    for name in SCHEMAS:
        asset = source.add_dataframe_asset(name)
        batch_definitions[name] = asset.add_batch_definition_whole_dataframe(f"{name}-batch")
        suites[name] = context.suites.add(build_suite(name))
    return _Gx(context, batch_definitions, suites)


def state() -> _Gx:
    global _state
    with _lock:
        if _state is None:
            _state = _build()
        return _state


def gx_context() -> Any:
    """The process's GX context (for Data Docs tooling or inspection)."""
    return state().context


def suite(dataset: str) -> gx.ExpectationSuite:
    return state().suites[dataset]


def run_suite(
    dataset: str,
    frame: pd.DataFrame,
    parameters: dict[str, Any],
    *,
    result_format: Any = "BOOLEAN_ONLY",
    only: list[Any] | None = None,
) -> Any:
    """Validate `frame` with the dataset's suite (or just the expectations in `only`).

    The batch is loaded once per call (not twice, as `Batch.validate` does)."""
    s = state()
    with _lock:
        expect = s.suites[dataset]
        if only is not None:  # a transient suite; GX wants unbound copies
            copies = []
            for e in only:
                c = copy.copy(e)
                c.id = None
                copies.append(c)
            expect = gx.ExpectationSuite(name=expect.name, expectations=copies)
        validator = Validator(
            batch_definition=s.batch_definitions[dataset],
            batch_parameters={"dataframe": frame},
            result_format=result_format,
        )
        return validator.validate_expectation_suite(expect, parameters)
