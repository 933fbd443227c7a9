"""Great Expectations suites per dataset and the gate that applies them to every batch.

`validate(dataset, frame, RunContext(...)) -> Verdict` is the entry point; `check_alignment` and
`validate_run` add the run-level trade-date alignment; `build_data_docs` renders results into
`<lake>/dq/`. Names resolve lazily so `import expectations` does not import GX (~3 s) until a
batch is validated.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "RunContext": "pitlake.expectations.run_context",
    "validate": "pitlake.expectations.gate",
    "validate_run": "pitlake.expectations.gate",
    "check_alignment": "pitlake.expectations.alignment",
    "Verdict": "pitlake.expectations.verdict",
    "FailedExpectation": "pitlake.expectations.verdict",
    "CheckResult": "pitlake.expectations.verdict",
    "Outcome": "pitlake.expectations.verdict",
    "Severity": "pitlake.expectations.verdict",
    "build_data_docs": "pitlake.expectations.datadocs",
    "rebuild_data_docs": "pitlake.expectations.datadocs",
    "build_suite": "pitlake.expectations.suites",
    "suite_name": "pitlake.expectations.suites",
    "gx_context": "pitlake.expectations.context",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module), name)
