"""Building blocks of the suites: one GX expectation with its stable check name, the column a
person should look at, a description and a severity; runtime `$PARAMETER`s.

Every expectation carries `meta.check` (the name verdicts, the catalog and Data Docs use) and
`meta.column`; CRITICAL blocks the batch, WARNING flags it.
"""

from __future__ import annotations

from typing import Any

import great_expectations.expectations as gxe
from great_expectations.expectations.metadata_types import FailureSeverity

BLOCKING = FailureSeverity.CRITICAL
WARNING = FailureSeverity.WARNING

# Runtime parameters (filled by expectations.gate from the RunContext).
EXPECTED_COLUMNS = "expected_columns"
FETCHED_AT = "fetched_at"
EXPECTED_TRADE_DATES = "expected_trade_dates"
MIN_ROW_COUNT = "min_row_count"


def param(name: str) -> dict[str, str]:
    return {"$PARAMETER": name}


def expectation(
    cls: type,
    check: str,
    label: str | None,
    description: str,
    severity: FailureSeverity = BLOCKING,
    **kwargs: Any,
):
    """An expectation named `check`, about column `label` (what a person should look at)."""
    return cls(
        meta={"check": check, "column": label}, description=description, severity=severity, **kwargs
    )


def known_at_not_before(event_col: str, what: str) -> Any:
    return expectation(
        gxe.ExpectColumnPairValuesAToBeGreaterThanB,
        "known_at_not_before_event",
        "known_at",
        f"known_at is not before the event ({what})",
        column_A="known_at",
        column_B=event_col,
        or_equal=True,
        ignore_row_if="either_value_is_missing",
    )
