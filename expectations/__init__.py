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
    "RunContext": "expectations.gate",
    "validate": "expectations.gate",
    "validate_run": "expectations.gate",
    "check_alignment": "expectations.gate",
    "Verdict": "expectations.verdict",
    "FailedExpectation": "expectations.verdict",
    "CheckResult": "expectations.verdict",
    "Outcome": "expectations.verdict",
    "Severity": "expectations.verdict",
    "build_data_docs": "expectations.datadocs",
    "rebuild_data_docs": "expectations.datadocs",
    "build_suite": "expectations.suites",
    "suite_name": "expectations.suites",
    "gx_context": "expectations.context",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'expectations' has no attribute {name!r}")
    return getattr(import_module(module), name)
