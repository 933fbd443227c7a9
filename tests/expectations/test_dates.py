"""Trade dates: sessions (weekends, make-up workdays), the run's expected date (stale → NOT_READY),
backfill windows, and known_at after the fetch (too early → NOT_READY, vendor error → REJECTED)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from pitlake.expectations import validate
from pitlake.expectations.verdict import Outcome
from pitlake.schemas import TRADE_DATE_DATASETS

from pitlake.calendar import BEIJING
from pitlake.statuses import LedgerStatus
from tests.expectations.conftest import BUILDERS, EVENING, PREV, D, ctx

MAKE_UP_WORKDAY = date(2025, 9, 28)  # a Sunday worked before National Day: not a session
SATURDAY = date(2025, 6, 7)


@pytest.mark.parametrize("day", [SATURDAY, MAKE_UP_WORKDAY], ids=["weekend", "make-up-workday"])
@pytest.mark.parametrize("dataset", TRADE_DATE_DATASETS)
def test_non_session_dates_are_rejected(dataset: str, day: date) -> None:
    fetched = datetime.combine(day + timedelta(days=1), datetime.min.time(), BEIJING)
    frame = BUILDERS[dataset](day, fetched_at=fetched)
    v = validate(dataset, frame, ctx(expected_trade_date=day, fetched_at=fetched))
    assert v.failed_names() == ["trade_date_is_session"]
    assert v.ledger_status is LedgerStatus.REJECTED
    f = v.failed[0]
    assert f.unexpected_count == len(frame)
    assert f.sample_rows[0]["trade_date"] == day.isoformat()


@pytest.mark.parametrize("dataset", TRADE_DATE_DATASETS)
def test_stale_batch_is_not_ready(dataset: str) -> None:
    """Asked for D, the vendor answered with D-1's rows: nothing may pass as D."""
    frame = BUILDERS[dataset](PREV)
    v = validate(dataset, frame, ctx(expected_trade_date=D))
    assert v.outcome is Outcome.REJECT and not v.writable
    assert v.ledger_status is LedgerStatus.NOT_READY
    assert v.stale is True
    assert v.failed_names() == ["trade_date_expected"]
    assert v.trade_dates == [PREV.isoformat()] and v.expected_trade_date == D.isoformat()
    assert "stale" in v.message and D.isoformat() in v.message and PREV.isoformat() in v.message


def test_batch_dated_after_the_request_is_rejected_not_retried() -> None:
    nxt = date(2025, 6, 5)
    frame = BUILDERS["quotes"](nxt, fetched_at=datetime(2025, 6, 6, 0, 30, tzinfo=BEIJING))
    v = validate("quotes", frame, ctx(fetched_at=datetime(2025, 6, 6, 0, 30, tzinfo=BEIJING)))
    assert v.failed_names() == ["trade_date_expected"]
    assert v.ledger_status is LedgerStatus.REJECTED and not v.stale


def test_partly_current_batch_is_rejected_not_stale() -> None:
    import pandas as pd

    frame = pd.concat([BUILDERS["quotes"](D), BUILDERS["quotes"](PREV)], ignore_index=True)
    v = validate("quotes", frame, ctx())
    assert "trade_date_expected" in v.failed_names()
    assert v.ledger_status is LedgerStatus.REJECTED and not v.stale
    assert v.trade_dates == [PREV.isoformat(), D.isoformat()]


def test_backfill_window_accepts_dates_inside_it() -> None:
    import pandas as pd

    frame = pd.concat([BUILDERS["quotes"](PREV), BUILDERS["quotes"](D)], ignore_index=True)
    window = ctx(expected_trade_date=None, window_start=PREV, window_end=D)
    assert validate("quotes", frame, window).outcome is Outcome.PASS
    outside = ctx(expected_trade_date=None, window_start=D, window_end=date(2025, 6, 6))
    v = validate("quotes", frame, outside)
    assert v.failed_names() == ["trade_date_expected"]
    assert v.ledger_status is LedgerStatus.REJECTED  # no "stale" in a backfill
    assert v.window == (D.isoformat(), "2025-06-06")


def test_trade_date_dataset_needs_a_date_or_window_in_the_context() -> None:
    v = validate("quotes", BUILDERS["quotes"](), ctx(expected_trade_date=None))
    assert v.outcome is Outcome.REJECT and v.failed_names() == ["run_context"]


def test_financials_and_news_need_no_trade_date() -> None:
    for dataset in ("financials", "news"):
        v = validate(dataset, BUILDERS[dataset](), ctx(expected_trade_date=None))
        assert v.outcome is Outcome.PASS, v.message


def test_quotes_fetched_before_the_close_are_not_ready() -> None:
    """A bar fetched at 14:00 is partial: its 15:00 known_at is after the fetch."""
    early = datetime(2025, 6, 4, 14, 0, tzinfo=BEIJING)
    v = validate("quotes", BUILDERS["quotes"](fetched_at=early), ctx(fetched_at=early))
    assert v.failed_names() == ["known_at_not_after_fetch"]
    assert v.ledger_status is LedgerStatus.NOT_READY
    assert "not ready" in v.message


def test_dragon_tiger_fetched_the_same_evening_passes() -> None:
    """Its known_at is the end of the trade date's Beijing day (DESIGN §3): fetched at 18:30
    that day it is already public, merely dated conservatively, so it passes and is stored."""
    v = validate(
        "dragon_tiger", BUILDERS["dragon_tiger"](fetched_at=EVENING), ctx(fetched_at=EVENING)
    )
    assert v.outcome is Outcome.PASS, v.message


def test_dragon_tiger_dated_a_later_day_than_the_fetch_is_not_ready() -> None:
    before = datetime(2025, 6, 3, 20, 0, tzinfo=BEIJING)  # the evening before its trade date
    v = validate(
        "dragon_tiger", BUILDERS["dragon_tiger"](fetched_at=EVENING), ctx(fetched_at=before)
    )
    assert "known_at_not_after_fetch" in v.failed_names()
    assert not v.writable


def test_naive_fetch_time_is_beijing() -> None:
    naive_evening = datetime(2025, 6, 4, 18, 30)
    c = ctx(fetched_at=naive_evening)
    assert c.fetched_at == EVENING
    assert validate("quotes", BUILDERS["quotes"](fetched_at=EVENING), c).outcome is Outcome.PASS


def _statement(ann: date | None, revision: date | None, fetched: datetime):
    from pitlake import schemas
    from pitlake.pit import apply_known_at

    frame = BUILDERS["financials"](fetched_at=fetched).iloc[[0]].reset_index(drop=True)
    frame["ann_date"] = [ann]
    frame["revision_date"] = [revision]
    frame = apply_known_at(schemas.get("financials").known_at, frame, fetched)
    frame["known_at_basis"] = frame["known_at_basis"].astype("str")
    return frame


def test_statement_announced_the_evening_it_is_fetched_passes() -> None:
    v = validate("financials", _statement(D, None, EVENING), ctx(fetched_at=EVENING))
    assert v.writable and not v.blocking, v.message


def test_statement_revised_on_a_later_day_than_the_fetch_is_rejected() -> None:
    """A revision dated after the day we fetched it claims a date that has not come."""
    v = validate(
        "financials",
        _statement(date(2025, 4, 25), date(2025, 6, 10), EVENING),
        ctx(fetched_at=EVENING),
    )
    assert v.failed_names() == ["known_at_not_after_fetch"]
    assert v.ledger_status is LedgerStatus.REJECTED


def test_statement_without_dates_is_not_ready_until_its_statutory_deadline() -> None:
    import pandas as pd

    frame = _statement(None, None, EVENING)
    frame.loc[0, "report_period"] = date(2025, 6, 30)  # H1: due by 08-31
    frame["known_at"] = (
        pd.Series([pd.Timestamp("2025-08-31T23:59:59.999999+08:00")])
        .dt.tz_convert("UTC")
        .astype("datetime64[us, UTC]")
    )
    frame["known_at_basis"] = pd.array(["statutory_deadline"], dtype="str")
    v = validate("financials", frame, ctx(fetched_at=EVENING))
    assert v.failed_names() == ["known_at_not_after_fetch"]
    assert v.ledger_status is LedgerStatus.NOT_READY
