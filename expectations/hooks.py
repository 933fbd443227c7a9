"""The named quality hooks a dataset spec lists in `quality`: for each, the `_dq_` columns it
derives from a batch and the GX expectations that check them.

The gate and the suites look hooks up by the names in the spec (`Dataset.quality`), never by
the dataset's name, so a new dataset picks its checks in its own spec; a check no dataset has
yet is one more hook here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import great_expectations.expectations as gxe
import numpy as np
import pandas as pd
from pitlake.expectations import derive as d
from pitlake.expectations.expect import (
    BLOCKING,
    FETCHED_AT,
    WARNING,
    expectation,
    known_at_not_before,
    param,
)
from pitlake.schemas import Dataset

from pitlake.pit import END_OF_DAY

if TYPE_CHECKING:
    from pitlake.expectations.gate import RunContext

QUARTER_ENDS = [331, 630, 930, 1231]

# derive(spec, frame, ctx, derived so far) -> more `_dq_` columns
Derive = Callable[[Dataset, pd.DataFrame, "RunContext", dict[str, Any]], dict[str, object]]


@dataclass(frozen=True)
class Hook:
    expectations: Callable[[], list]
    derive: Derive | None = None


def _ohlc() -> list:
    return [
        expectation(
            gxe.ExpectColumnPairValuesAToBeGreaterThanB,
            "ohlc_low",
            "low",
            "low ≤ min(open, close)",
            column_A=d.OC_MIN,
            column_B="low",
            or_equal=True,
            ignore_row_if="either_value_is_missing",
        ),
        expectation(
            gxe.ExpectColumnPairValuesAToBeGreaterThanB,
            "ohlc_high",
            "high",
            "high ≥ max(open, close)",
            column_A="high",
            column_B=d.OC_MAX,
            or_equal=True,
            ignore_row_if="either_value_is_missing",
        ),
        expectation(
            gxe.ExpectColumnValuesToBeBetween,
            "prices_positive",
            "open, high, low, close",
            "prices > 0",
            column=d.MIN_PRICE,
            min_value=0,
            strict_min=True,
        ),
        expectation(
            gxe.ExpectColumnValuesToBeBetween,
            "volume_non_negative",
            "volume",
            "volume ≥ 0",
            column="volume",
            min_value=0,
        ),
        expectation(
            gxe.ExpectColumnValuesToBeBetween,
            "amount_non_negative",
            "amount",
            "amount ≥ 0",
            column="amount",
            min_value=0,
        ),
    ]


def _price_limit(column: str, description: str, severity: Any) -> Any:
    return expectation(
        gxe.ExpectColumnPairValuesAToBeGreaterThanB,
        "price_limit",
        column,
        description,
        severity=severity,
        column_A=d.ALLOWED_MOVE,
        column_B=d.MOVE,
        or_equal=True,
        ignore_row_if="either_value_is_missing",
    )


def _statement_periods() -> list:
    return [
        known_at_not_before(d.EVENT_AT, "the end of report_period"),
        expectation(
            gxe.ExpectColumnValuesToBeInSet,
            "report_period_quarter_end",
            "report_period",
            "report_period is a quarter end (03-31, 06-30, 09-30, 12-31)",
            column=d.PERIOD_MMDD,
            value_set=QUARTER_ENDS,
        ),
        expectation(
            gxe.ExpectColumnPairValuesAToBeGreaterThanB,
            "ann_date_not_before_period",
            "ann_date",
            "ann_date is not before report_period",
            column_A=d.ANN_DAY,
            column_B=d.PERIOD_DAY,
            or_equal=True,
            ignore_row_if="either_value_is_missing",
        ),
        expectation(
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


def _quarter_end() -> list:
    return [
        expectation(
            gxe.ExpectColumnValuesToBeInSet,
            "report_period_quarter_end",
            "report_period",
            "report_period is a quarter end (03-31, 06-30, 09-30, 12-31)",
            column=d.PERIOD_MMDD,
            value_set=QUARTER_ENDS,
        )
    ]


def _period_mmdd(
    spec: Dataset, frame: pd.DataFrame, ctx: RunContext, derived: dict[str, Any]
) -> dict[str, object]:
    return {d.PERIOD_MMDD: d.statement_period_columns(frame, END_OF_DAY)[d.PERIOD_MMDD]}


def _publication() -> list:
    return [
        known_at_not_before("published_at", "published_at"),
        expectation(
            gxe.ExpectColumnValuesToBeBetween,
            "published_not_in_future",
            "published_at",
            "published_at is not after the fetch (a future stamp is a zone or feed error)",
            column="published_at",
            max_value=param(FETCHED_AT),
        ),
    ]


def _positive_factor() -> list:
    return [
        expectation(
            gxe.ExpectColumnValuesToBeBetween,
            "adj_factor_positive",
            "adj_factor",
            "adj_factor > 0",
            column="adj_factor",
            min_value=0,
            strict_min=True,
        )
    ]


def _limit_close() -> list:
    # With the dated rule (pitlake.limit_rules) a price past the limit in force is
    # impossible data: blocking, the batch is quarantined. No-limit and unknown sessions
    # are not checked.
    return [
        _price_limit(
            "close",
            "close, high and low within the limit prices in force that session (the dated "
            "regime table: board, date, listing age, ST; round-half-up(pre_close × (1 ± "
            "ratio), 2)); a new listing's no-limit sessions and unknown limits are not checked",
            BLOCKING,
        )
    ]


def _limit_pct() -> list:
    # a list's pct_chg is rounded and carries no reference price: a warning
    return [
        _price_limit(
            "pct_chg", "|pct_chg| within the ratio in force that session + rounding", WARNING
        )
    ]


def _trade_day(frame: pd.DataFrame, derived: dict[str, Any]) -> np.ndarray:
    day = derived.get(d.TRADE_DAY)
    return day if day is not None else d.days(frame.get("trade_date"), len(frame))


def _moves(in_prices: bool) -> Derive:
    def derive(
        spec: Dataset, frame: pd.DataFrame, ctx: RunContext, derived: dict[str, Any]
    ) -> dict[str, object]:
        day = _trade_day(frame, derived)
        return d.price_move_columns(
            frame,
            day,
            ctx.st_symbols,
            ctx.new_listings,
            in_prices=in_prices,
            ages_known=ctx.listing_ages_known,
            issue_prices=ctx.issue_prices,
            delisting=ctx.delisting,
        )

    return derive


def _periods(
    spec: Dataset, frame: pd.DataFrame, ctx: RunContext, derived: dict[str, Any]
) -> dict[str, object]:
    assert spec.event_time is not None, f"{spec.name}: statement_periods needs an event_time"
    return d.statement_period_columns(frame, spec.event_time)


def _event_day(
    spec: Dataset, frame: pd.DataFrame, ctx: RunContext, derived: dict[str, Any]
) -> dict[str, object]:
    assert spec.event_time is not None and spec.date_column, f"{spec.name}: dated_event needs both"
    day = d.days(frame.get(spec.date_column), len(frame))
    return {d.EVENT_AT: d.instants(day, spec.event_time)}


HOOKS: dict[str, Hook] = {
    # a daily bar: low ≤ open/close ≤ high, prices > 0, volume and amount ≥ 0
    "ohlc": Hook(_ohlc, lambda spec, frame, ctx, derived: d.ohlc_columns(frame)),
    # close, high and low within the limit prices in force that session (an error)
    "price_limit_close": Hook(_limit_close, _moves(in_prices=True)),
    # pct_chg within the ratio in force that session (a list that carries no pre_close)
    "price_limit_pct": Hook(_limit_pct, _moves(in_prices=False)),
    # report periods are quarter ends, announced after them and by the statutory deadline
    "statement_periods": Hook(_statement_periods, _periods),
    # report periods are quarter ends (a schedule for a period may be made before it ends)
    "quarter_end_period": Hook(_quarter_end, _period_mmdd),
    # published_at is the known_at floor and never after the fetch
    "publication": Hook(_publication),
    "positive_factor": Hook(_positive_factor),
    # known_at not before the spec's event_time on the row's date (a kind without trade-date
    # checks: a snapshot list is not known before its day has begun)
    "dated_event": Hook(
        lambda: [known_at_not_before(d.EVENT_AT, "event_time on the row's date")], _event_day
    ),
}


# Hooks that judge a row with its symbol's states that day (RunContext.st_symbols and
# new_listings, which the pipeline reads from the stored security master for them).
STATE_HOOKS: frozenset[str] = frozenset({"price_limit_close", "price_limit_pct"})


def hooks_of(spec: Dataset) -> list[Hook]:
    """The spec's hooks; an unknown name is a programming error, named at once."""
    unknown = [h for h in spec.quality if h not in HOOKS]
    if unknown:
        raise KeyError(f"{spec.name}: unknown quality hooks {unknown}; known: {sorted(HOOKS)}")
    return [HOOKS[h] for h in spec.quality]
