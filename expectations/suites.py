"""One GX expectation suite per dataset, built from Python so a reviewer reads each rule once.

Every expectation carries `meta.check` (the stable name verdicts, the catalog and Data Docs use),
`meta.column` (the column a person should look at, even when GX checks a derived `_dq_` column),
a `description`, and a GX `severity`: CRITICAL blocks the batch, WARNING flags it.
Values known only at run time (fetch time, expected dates, the column set) are `$PARAMETER`s
filled by the gate from the RunContext. `python -m pitlake.expectations.suites` prints them as JSON.
"""

from __future__ import annotations

import json
from typing import Any

import great_expectations as gx
import great_expectations.expectations as gxe
from great_expectations.expectations.metadata_types import FailureSeverity
from pitlake.expectations import derive as d
from pitlake.expectations.custom import ExpectTableColumnsToMatchArrowSchema
from pitlake.schemas import SCHEMAS, TRADE_DATE_DATASETS, Dataset

SUITE_PREFIX = "pitlake."
BLOCKING = FailureSeverity.CRITICAL
WARNING = FailureSeverity.WARNING

# Runtime parameters (see expectations.gate._parameters).
EXPECTED_COLUMNS = "expected_columns"
FETCHED_AT = "fetched_at"
EXPECTED_TRADE_DATES = "expected_trade_dates"
MIN_ROW_COUNT = "min_row_count"

# Datasets whose batch may carry several versions of one key (restatements).
VERSIONED: frozenset[str] = frozenset({"financials"})
# "Far below the previous session": warn under this share of its row count. The dragon-tiger
# list follows the news, not the market's size, so only a collapse is suspicious there.
ROW_COUNT_FLOOR: dict[str, float] = {
    "quotes": 0.8,
    "adj_factors": 0.8,
    "valuation": 0.8,
    "dragon_tiger": 0.25,
}
QUARTER_ENDS = [331, 630, 930, 1231]


def suite_name(dataset: str) -> str:
    return f"{SUITE_PREFIX}{dataset}"


def _p(name: str) -> dict[str, str]:
    return {"$PARAMETER": name}


def _x(
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


def _common(schema: Dataset) -> list:
    key = schema.version_key if schema.name in VERSIONED else schema.key
    out = [
        _x(
            gxe.ExpectTableColumnsToMatchSet,
            "columns",
            None,
            "exactly the schema's columns (ingested_at and run_id optional)",
            column_set=_p(EXPECTED_COLUMNS),
            exact_match=True,
        ),
        _x(
            ExpectTableColumnsToMatchArrowSchema,
            "dtypes",
            None,
            "every column fits its Arrow type; not-null fields have no nulls",
            dataset=schema.name,
        ),
    ]
    for col in (*schema.key, "known_at"):
        out.append(
            _x(
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
            _x(gxe.ExpectColumnValuesToBeUnique, "key_unique", key[0], unique_desc, column=key[0])
        )
    else:
        out.append(
            _x(
                gxe.ExpectCompoundColumnsToBeUnique,
                "key_unique",
                ", ".join(key),
                unique_desc,
                column_list=list(key),
            )
        )
    out.append(
        _x(
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


def _known_at_not_before(event_col: str, what: str) -> Any:
    return _x(
        gxe.ExpectColumnPairValuesAToBeGreaterThanB,
        "known_at_not_before_event",
        "known_at",
        f"known_at is not before the event ({what})",
        column_A="known_at",
        column_B=event_col,
        or_equal=True,
        ignore_row_if="either_value_is_missing",
    )


def _trade_date(schema: Dataset) -> list:
    what = {"adj_factors": "09:15 of the ex-date"}.get(schema.name, "the 15:00 close")
    return [
        _known_at_not_before(d.EVENT_AT, f"trade_date, {what}"),
        _x(
            gxe.ExpectColumnValuesToBeInSet,
            "trade_date_is_session",
            "trade_date",
            "every trade_date is an XSHG session (make-up weekend workdays are not)",
            column=d.IS_SESSION,
            value_set=[True],
        ),
        _x(
            gxe.ExpectColumnValuesToBeInSet,
            "trade_date_expected",
            "trade_date",
            "every trade_date is the run's effective trade date (inside the window for a "
            "backfill); older rows mean the vendor is stale",
            column=d.TRADE_DAY,
            value_set=_p(EXPECTED_TRADE_DATES),
        ),
        _x(
            gxe.ExpectTableRowCountToBeBetween,
            "row_count_vs_previous",
            None,
            f"row count not far below the previous session's "
            f"(at least {ROW_COUNT_FLOOR[schema.name]:.0%} of it)",
            severity=WARNING,
            min_value=_p(MIN_ROW_COUNT),
        ),
    ]


def _quotes() -> list:
    return [
        _x(
            gxe.ExpectColumnPairValuesAToBeGreaterThanB,
            "ohlc_low",
            "low",
            "low ≤ min(open, close)",
            column_A=d.OC_MIN,
            column_B="low",
            or_equal=True,
            ignore_row_if="either_value_is_missing",
        ),
        _x(
            gxe.ExpectColumnPairValuesAToBeGreaterThanB,
            "ohlc_high",
            "high",
            "high ≥ max(open, close)",
            column_A="high",
            column_B=d.OC_MAX,
            or_equal=True,
            ignore_row_if="either_value_is_missing",
        ),
        _x(
            gxe.ExpectColumnValuesToBeBetween,
            "prices_positive",
            "open, high, low, close",
            "prices > 0",
            column=d.MIN_PRICE,
            min_value=0,
            strict_min=True,
        ),
        _x(
            gxe.ExpectColumnValuesToBeBetween,
            "volume_non_negative",
            "volume",
            "volume ≥ 0",
            column="volume",
            min_value=0,
        ),
        _x(
            gxe.ExpectColumnValuesToBeBetween,
            "amount_non_negative",
            "amount",
            "amount ≥ 0",
            column="amount",
            min_value=0,
        ),
        _price_limit(
            "close",
            "|close − pre_close| within the board's limit (main ±10 %, "
            "STAR/ChiNext ±20 %, BSE ±30 %, ST ±5 % before 2026-07-06) + half a tick of rounding",
        ),
    ]


def _price_limit(column: str, description: str) -> Any:
    return _x(
        gxe.ExpectColumnPairValuesAToBeGreaterThanB,
        "price_limit",
        column,
        description,
        severity=WARNING,
        column_A=d.ALLOWED_MOVE,
        column_B=d.MOVE,
        or_equal=True,
        ignore_row_if="either_value_is_missing",
    )


def _financials() -> list:
    return [
        _known_at_not_before(d.EVENT_AT, "the end of report_period"),
        _x(
            gxe.ExpectColumnValuesToBeInSet,
            "report_period_quarter_end",
            "report_period",
            "report_period is a quarter end (03-31, 06-30, 09-30, 12-31)",
            column=d.PERIOD_MMDD,
            value_set=QUARTER_ENDS,
        ),
        _x(
            gxe.ExpectColumnPairValuesAToBeGreaterThanB,
            "ann_date_not_before_period",
            "ann_date",
            "ann_date is not before report_period",
            column_A=d.ANN_DAY,
            column_B=d.PERIOD_DAY,
            or_equal=True,
            ignore_row_if="either_value_is_missing",
        ),
        _x(
            gxe.ExpectColumnPairValuesAToBeGreaterThanB,
            "ann_date_within_deadline",
            "ann_date",
            "announced by the statutory deadline (Q1 04-30, H1 08-31, Q3 10-31, annual 04-30)",
            severity=WARNING,
            column_A=d.DEADLINE_DAY,
            column_B=d.ANN_DAY,
            or_equal=True,
            ignore_row_if="either_value_is_missing",
        ),
    ]


def _news() -> list:
    return [
        _known_at_not_before("published_at", "published_at"),
        _x(
            gxe.ExpectColumnValuesToBeBetween,
            "published_not_in_future",
            "published_at",
            "published_at is not after the fetch (a future stamp is a zone or feed error)",
            column="published_at",
            max_value=_p(FETCHED_AT),
        ),
    ]


def _dragon_tiger() -> list:
    return [_price_limit("pct_chg", "|pct_chg| within the board's limit + rounding")]


def _adj_factors() -> list:
    return [
        _x(
            gxe.ExpectColumnValuesToBeBetween,
            "adj_factor_positive",
            "adj_factor",
            "adj_factor > 0",
            column="adj_factor",
            min_value=0,
            strict_min=True,
        )
    ]


_SPECIFIC = {
    "quotes": _quotes,
    "financials": _financials,
    "news": _news,
    "dragon_tiger": _dragon_tiger,
    "adj_factors": _adj_factors,
}


def expectations_for(dataset: str) -> list:
    schema = SCHEMAS[dataset]
    out = _common(schema)
    if dataset in TRADE_DATE_DATASETS:
        out += _trade_date(schema)
    out += _SPECIFIC.get(dataset, list)()
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
