"""One GX expectation suite per dataset, built from its spec so a reviewer reads each rule once:
the checks every dataset gets, the checks of its kind, and the quality hooks its spec names
(`pitlake.expectations.hooks`).

Values known only at run time (fetch time, expected dates, the column set) are `$PARAMETER`s
filled by the gate from the RunContext. `python -m pitlake.expectations.suites` prints them as JSON.
"""

from __future__ import annotations

import json
from typing import Any

import great_expectations as gx
import great_expectations.expectations as gxe
from pitlake.expectations import derive as d
from pitlake.expectations.custom import ExpectTableColumnsToMatchArrowSchema
from pitlake.expectations.expect import (
    EXPECTED_COLUMNS,
    EXPECTED_TRADE_DATES,
    MIN_ROW_COUNT,
    WARNING,
    expectation,
    known_at_not_before,
    param,
)
from pitlake.expectations.hooks import hooks_of
from pitlake.schemas import SCHEMAS, Dataset, Kind

SUITE_PREFIX = "pitlake."


def suite_name(dataset: str) -> str:
    return f"{SUITE_PREFIX}{dataset}"


def _common(schema: Dataset) -> list:
    key = schema.version_key if schema.batch_versions else schema.key
    out = [
        expectation(
            gxe.ExpectTableColumnsToMatchSet,
            "columns",
            None,
            "exactly the schema's columns (ingested_at and run_id optional)",
            column_set=param(EXPECTED_COLUMNS),
            exact_match=True,
        ),
        expectation(
            ExpectTableColumnsToMatchArrowSchema,
            "dtypes",
            None,
            "every column fits its Arrow type; not-null fields have no nulls",
            dataset=schema.name,
        ),
    ]
    for col in (*schema.key, "known_at"):
        out.append(
            expectation(
                gxe.ExpectColumnValuesToNotBeNull,
                f"{col}_not_null",
                col,
                f"{col} is present on every row",
                column=col,
            )
        )
    unique_desc = f"one row per {', '.join(key)}" + (
        " (versions of a key differ by known_at)" if "known_at" in key else ""
    )
    if len(key) == 1:
        out.append(
            expectation(
                gxe.ExpectColumnValuesToBeUnique, "key_unique", key[0], unique_desc, column=key[0]
            )
        )
    else:
        out.append(
            expectation(
                gxe.ExpectCompoundColumnsToBeUnique,
                "key_unique",
                ", ".join(key),
                unique_desc,
                column_list=list(key),
            )
        )
    out.append(
        expectation(
            gxe.ExpectColumnPairValuesAToBeGreaterThanB,
            "known_at_not_after_fetch",
            "known_at",
            "known_at is not after the fetch (a date-only fact fetched on its own Beijing day "
            "may carry that day's end): nothing is public before we saw it",
            column_A=d.KNOWN_AT_LIMIT,
            column_B="known_at",
            or_equal=True,
            ignore_row_if="either_value_is_missing",
        )
    )
    return out


def _trade_date(schema: Dataset) -> list:
    assert schema.event_time is not None, f"{schema.name}: a trade-dated spec needs event_time"
    what = f"{schema.event_time:%H:%M} of the trade date"
    return [
        known_at_not_before(d.EVENT_AT, f"trade_date, {what}"),
        expectation(
            gxe.ExpectColumnValuesToBeInSet,
            "trade_date_is_session",
            "trade_date",
            "every trade_date is an XSHG session (make-up weekend workdays are not)",
            column=d.IS_SESSION,
            value_set=[True],
        ),
        expectation(
            gxe.ExpectColumnValuesToBeInSet,
            "trade_date_expected",
            "trade_date",
            "every trade_date is the run's effective trade date (inside the window for a "
            "backfill); older rows mean the vendor is stale",
            column=d.TRADE_DAY,
            value_set=param(EXPECTED_TRADE_DATES),
        ),
        expectation(
            gxe.ExpectTableRowCountToBeBetween,
            "row_count_vs_previous",
            None,
            f"row count not far below the previous session's "
            f"(at least {schema.row_count_floor or 0:.0%} of it)",
            severity=WARNING,
            min_value=param(MIN_ROW_COUNT),
        ),
    ]


def expectations_for(dataset: str) -> list:
    schema = SCHEMAS[dataset]
    out = _common(schema)
    if schema.kind is Kind.TRADE_DATED:
        out += _trade_date(schema)
    for hook in hooks_of(schema):
        out += hook.expectations()
    return out


def build_suite(dataset: str) -> gx.ExpectationSuite:
    """A fresh, unsaved suite for `dataset` (expectations.context registers it once)."""
    return gx.ExpectationSuite(
        name=suite_name(dataset), expectations=expectations_for(dataset), meta={"dataset": dataset}
    )


def suite_json(dataset: str) -> dict[str, Any]:
    return build_suite(dataset).to_json_dict()


def main() -> None:
    print(json.dumps({name: suite_json(name) for name in SCHEMAS}, indent=2, default=str))


if __name__ == "__main__":
    main()
