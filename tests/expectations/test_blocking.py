"""Every blocking expectation of every suite: a batch that trips it, and the clean batch that
passes it. A coverage test keeps this table in step with the suites."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pandas as pd
import pytest
from pitlake.expectations import validate
from pitlake.expectations.expect import BLOCKING
from pitlake.expectations.suites import expectations_for
from pitlake.expectations.verdict import Outcome
from pitlake.schemas import SCHEMAS, TRADE_DATE_DATASETS

from pitlake.calendar import BEIJING
from pitlake.statuses import LedgerStatus
from tests.expectations.conftest import BUILDERS, FETCHED, PREV, ctx

Mutation = Callable[[pd.DataFrame], pd.DataFrame]


def _set(col: str, value: Any, row: int = 0) -> Mutation:
    def mutate(f: pd.DataFrame) -> pd.DataFrame:
        f = f.copy()
        f.loc[row, col] = value
        return f

    return mutate


def _drop(col: str) -> Mutation:
    return lambda f: f.drop(columns=[col])


def _duplicate_first(f: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([f, f.iloc[[0]]], ignore_index=True)


def _source_as_int(f: pd.DataFrame) -> pd.DataFrame:
    return f.assign(source=1)


def _at(day: date, hour: int, minute: int = 0) -> pd.Timestamp:
    return pd.Timestamp(
        year=day.year, month=day.month, day=day.day, hour=hour, minute=minute, tz=BEIJING
    ).tz_convert("UTC")


def _known_at_before_event(dataset: str) -> Mutation:
    def mutate(f: pd.DataFrame) -> pd.DataFrame:
        f = f.copy()
        if dataset in ("news", "announcements"):  # dated by published_at
            early = f.loc[0, "published_at"] - pd.Timedelta(minutes=1)
        elif dataset == "financials":
            early = _at(f.loc[0, "report_period"], 12)
        elif dataset == "index_members":  # a snapshot list: known from its day's start
            early = _at(f.loc[0, "trade_date"], 0) - pd.Timedelta(minutes=1)
        elif dataset == "adj_factors":
            early = _at(f.loc[0, "trade_date"], 9, 0)  # before the 09:15 ex-date open
        else:  # a minute before the instant the row describes (the 15:00 close, 08:40 …)
            event = SCHEMAS[dataset].event_time
            assert event is not None
            early = _at(f.loc[0, "trade_date"], event.hour, event.minute) - pd.Timedelta(minutes=1)
        f.loc[0, "known_at"] = early
        return f

    return mutate


def _future_published(f: pd.DataFrame) -> pd.DataFrame:
    f = f.copy()
    future = pd.Timestamp(FETCHED).tz_convert("UTC") + pd.Timedelta(hours=8)
    f.loc[0, "published_at"] = future  # a feed stamping UTC wall time as Beijing, say
    f.loc[0, "known_at"] = future
    return f


def _common_trips(dataset: str) -> list[tuple[str, Mutation, dict[str, Any]]]:
    schema = SCHEMAS[dataset]
    out: list[tuple[str, Mutation, dict[str, Any]]] = [
        ("columns", _drop(schema.columns[-1]), {}),
        ("dtypes", _source_as_int, {}),
        ("known_at_not_null", _set("known_at", pd.NaT), {}),
        ("key_unique", _duplicate_first, {}),
        (
            "known_at_not_after_fetch",
            # the next Beijing day: after the fetch for every basis, date-only ones included
            _set("known_at", pd.Timestamp(FETCHED).tz_convert("UTC") + pd.Timedelta(days=1)),
            {},
        ),
    ]
    for col in schema.key:
        out.append((f"{col}_not_null", _set(col, None), {}))
    if "known_at_not_before_event" in {e.meta["check"] for e in expectations_for(dataset)}:
        out.append(("known_at_not_before_event", _known_at_before_event(dataset), {}))
    if dataset in TRADE_DATE_DATASETS:
        weekend = date(2025, 6, 7)
        out.append(
            (
                "trade_date_is_session",
                lambda f: f.assign(trade_date=weekend),
                {"expected_trade_date": weekend, "fetched_at": FETCHED + timedelta(days=3)},
            )
        )
        out.append(("trade_date_expected", lambda f: BUILDERS[dataset](PREV), {}))
    return out


SPECIFIC: dict[str, list[tuple[str, Mutation, dict[str, Any]]]] = {
    "quotes": [
        ("ohlc_low", lambda f: f.assign(low=f[["open", "close"]].min(axis=1) + 0.01), {}),
        ("ohlc_high", lambda f: f.assign(high=f[["open", "close"]].max(axis=1) - 0.01), {}),
        ("prices_positive", _set("open", 0.0), {}),
        ("volume_non_negative", _set("volume", -1.0), {}),
        ("amount_non_negative", _set("amount", -1.0), {}),
        # a high one tick past the limit-up price of its pre_close: impossible data
        ("price_limit", lambda f: f.assign(high=(f["pre_close"] * 1.1).round(2) + 0.01), {}),
    ],
    "index_quotes": [
        ("ohlc_low", lambda f: f.assign(low=f[["open", "close"]].min(axis=1) + 0.01), {}),
        ("ohlc_high", lambda f: f.assign(high=f[["open", "close"]].max(axis=1) - 0.01), {}),
        ("prices_positive", _set("open", 0.0), {}),
        ("volume_non_negative", _set("volume", -1.0), {}),
        ("amount_non_negative", _set("amount", -1.0), {}),
    ],
    "financials": [
        ("report_period_quarter_end", _set("report_period", date(2025, 3, 30)), {}),
        ("ann_date_not_before_period", _set("ann_date", date(2025, 3, 1)), {}),
    ],
    "news": [("published_not_in_future", _future_published, {})],
    "announcements": [("published_not_in_future", _future_published, {})],
    "disclosure_schedule": [
        ("report_period_quarter_end", _set("report_period", date(2025, 3, 30)), {})
    ],
    "adj_factors": [("adj_factor_positive", _set("adj_factor", 0.0), {})],
}

TRIPS = [
    pytest.param(ds, check, mutate, kw, id=f"{ds}-{check}")
    for ds in SCHEMAS
    for check, mutate, kw in _common_trips(ds) + SPECIFIC.get(ds, [])
]


def test_every_blocking_expectation_has_a_tripping_batch() -> None:
    covered = {(p.values[0], p.values[1]) for p in TRIPS}
    for ds in SCHEMAS:
        for e in expectations_for(ds):
            if e.severity == BLOCKING:
                assert (ds, e.meta["check"]) in covered, f"no tripping batch for {ds}.{e.meta}"


@pytest.mark.parametrize("dataset", list(SCHEMAS))
def test_clean_batch_passes_every_expectation(dataset: str) -> None:
    frame = BUILDERS[dataset]()
    v = validate(dataset, frame, ctx())
    assert v.outcome is Outcome.PASS, v.message
    assert v.ledger_status is LedgerStatus.OK and v.writable
    assert v.evaluated == len(expectations_for(dataset)) == len(v.checks)
    assert all(c.success for c in v.checks) and v.failed == []


@pytest.mark.parametrize(("dataset", "check", "mutate", "kw"), TRIPS)
def test_tripping_batch_is_rejected(
    dataset: str, check: str, mutate: Mutation, kw: dict[str, Any]
) -> None:
    frame = mutate(BUILDERS[dataset]())
    v = validate(dataset, frame, ctx(**kw))
    assert v.outcome is Outcome.REJECT and not v.writable
    assert check in v.failed_names(), (check, v.message)
    failure = next(f for f in v.failed if f.name == check)
    assert failure.severity == "blocking"
    assert failure.error is None, failure.error  # evaluated by GX, not an exception
    assert v.ledger_status in (LedgerStatus.REJECTED, LedgerStatus.NOT_READY)


def test_failure_carries_counts_columns_and_sample_rows() -> None:
    frame = BUILDERS["quotes"]()
    frame.loc[[1, 3], "low"] = frame.loc[[1, 3], "close"] + 5  # two bad bars
    v = validate("quotes", frame, ctx())
    f = next(f for f in v.failed if f.name == "ohlc_low")
    assert f.unexpected_count == 2
    assert f.column == "low" and f.expectation_type.endswith("a_to_be_greater_than_b")
    assert f.description == "low ≤ min(open, close)"
    assert [r["symbol"] for r in f.sample_rows] == [frame.loc[1, "symbol"], frame.loc[3, "symbol"]]
    assert f.sample_rows[0]["trade_date"] == "2025-06-04"
    assert f.sample_rows[0]["known_at"] == "2025-06-04T15:00:00+08:00"
    assert v.ledger_status is LedgerStatus.REJECTED


def test_columns_failure_names_missing_and_unexpected() -> None:
    frame = BUILDERS["quotes"]().drop(columns=["turnover_rate"]).assign(上榜后1日=0.1)
    v = validate("quotes", frame, ctx())
    f = next(f for f in v.failed if f.name == "columns")
    assert f.details["details"]["mismatched"] == {
        "missing": ["turnover_rate"],
        "unexpected": ["上榜后1日"],
    }


def test_optional_bitemporal_columns_are_accepted() -> None:
    frame = BUILDERS["quotes"]().assign(
        ingested_at=pd.Timestamp(FETCHED).tz_convert("UTC"), run_id="run-1"
    )
    frame["ingested_at"] = frame["ingested_at"].astype("datetime64[us, UTC]")
    assert validate("quotes", frame, ctx()).outcome is Outcome.PASS


def test_dtypes_failure_names_column_and_types() -> None:
    frame = BUILDERS["quotes"]()
    frame["close"] = frame["close"].astype(str)
    frame["known_at"] = frame["known_at"].dt.tz_localize(None)  # naive instants are ambiguous
    v = validate("quotes", frame, ctx())
    f = next(f for f in v.failed if f.name == "dtypes")
    bad = {m["column"] for m in f.details["details"]["mismatched"]}
    assert bad == {"close", "known_at"}


def test_restated_statement_two_versions_of_one_key_passes() -> None:
    first = BUILDERS["financials"]().iloc[[0]]
    restated = first.copy()
    restated["revision_date"] = [date(2025, 5, 20)]
    restated["revenue"] = [5.1e10]
    restated["known_at"] = [_at(date(2025, 5, 20), 23, 59)]
    restated["known_at_basis"] = pd.array(["revision"], dtype="str")
    frame = pd.concat([first, restated], ignore_index=True)
    v = validate("financials", frame, ctx())
    assert v.outcome is Outcome.PASS, v.message
    # The same version twice (same known_at) is still a duplicate.
    dup = pd.concat([first, first], ignore_index=True)
    assert "key_unique" in validate("financials", dup, ctx()).failed_names()


def test_future_stamped_news_is_rejected_not_retried() -> None:
    v = validate("news", _future_published(BUILDERS["news"]()), ctx())
    assert {"published_not_in_future", "known_at_not_after_fetch"} <= set(v.failed_names())
    assert v.ledger_status is LedgerStatus.REJECTED  # a zone error: retrying will not fix it


def test_news_without_publish_time_is_known_when_first_seen() -> None:
    frame = BUILDERS["news"]()
    assert frame.loc[2, "known_at_basis"] == "first_seen"
    assert validate("news", frame, ctx()).outcome is Outcome.PASS
