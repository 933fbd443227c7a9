"""Warnings flag a batch but never reject it (late announcements, a row count far below the
previous session's, a list's pct_chg past its limit); a bar past the limit price in force is
impossible data and rejects it (board, ST, new listings, rounding)."""

from __future__ import annotations

from datetime import date, datetime

import pandas as pd
import pytest
from pitlake.expectations import validate
from pitlake.expectations.verdict import Outcome

from pitlake import schemas
from pitlake.calendar import BEIJING
from pitlake.pit import apply_known_at
from tests.expectations.conftest import BUILDERS, PREV, ctx


def _quote(symbol: str, pre: float, close: float, day: date | None = None) -> pd.DataFrame:
    frame = (
        BUILDERS["quotes"](day, symbols=[symbol]) if day else BUILDERS["quotes"](symbols=[symbol])
    )
    frame["pre_close"] = pre
    frame["close"] = close
    frame["open"] = min(pre, close)
    frame["low"] = min(pre, close)
    frame["high"] = max(pre, close)
    frame["pct_chg"] = round((close / pre - 1) * 100, 2)
    return frame


def _outcome(frame: pd.DataFrame, **kw) -> tuple[Outcome, list[str]]:
    v = validate("quotes", frame, ctx(**kw))
    return v.outcome, v.failed_names()


@pytest.mark.parametrize(
    ("symbol", "pre", "close", "warned"),
    [
        ("600519.SH", 100.0, 110.0, False),  # main board at its +10 % limit
        ("600519.SH", 100.0, 111.0, True),
        ("600519.SH", 1.05, 1.16, False),  # limit price round(1.155) = 1.16: +10.48 %
        ("600519.SH", 1.05, 1.17, True),
        ("000001.SZ", 10.0, 9.0, False),  # -10 % on the Shenzhen main board
        ("300750.SZ", 200.0, 240.0, False),  # ChiNext ±20 %
        ("300750.SZ", 200.0, 250.0, True),
        ("688981.SH", 50.0, 39.9, True),  # STAR -20.2 %
        ("430047.BJ", 10.0, 12.99, False),  # BSE ±30 %
        ("430047.BJ", 10.0, 13.5, True),
    ],
)
def test_board_price_limits(symbol: str, pre: float, close: float, warned: bool) -> None:
    outcome, names = _outcome(_quote(symbol, pre, close))
    assert outcome is (Outcome.REJECT if warned else Outcome.PASS)
    assert names == (["price_limit"] if warned else [])


def test_a_bar_past_its_limit_price_is_blocking() -> None:
    frame = _quote("600519.SH", 100.0, 115.0)
    v = validate("quotes", frame, ctx())
    assert v.outcome is Outcome.REJECT and not v.writable
    f = v.failed[0]
    assert f.severity == "blocking" and f.unexpected_count == 1
    assert f.sample_rows[0]["_dq_move"] == pytest.approx(5.0)  # 元 past the 110.00 limit
    assert f.sample_rows[0]["_dq_allowed_move"] == pytest.approx(0.005, abs=1e-5)


def test_st_limit_is_five_percent_until_the_rule_change() -> None:
    six_pct = _quote("600000.SH", 10.0, 10.6)
    assert _outcome(six_pct)[0] is Outcome.PASS
    assert _outcome(six_pct, st_symbols={"600000.SH"})[1] == ["price_limit"]
    after = date(2026, 7, 7)
    fetched = datetime(2026, 7, 8, 0, 30, tzinfo=BEIJING)
    later = BUILDERS["quotes"](after, symbols=["600000.SH"], fetched_at=fetched)
    later[["pre_close", "open", "low", "close", "high"]] = [10.0, 10.0, 10.0, 10.6, 10.6]
    assert (
        _outcome(later, st_symbols={"600000.SH"}, expected_trade_date=after, fetched_at=fetched)[0]
        is Outcome.PASS
    )


def test_first_sessions_of_a_new_listing_are_exempt() -> None:
    debut = _quote("688981.SH", 20.0, 50.0)  # +150 %: STAR, no limit on its first 5 sessions
    assert _outcome(debut)[1] == ["price_limit"]
    assert _outcome(debut, new_listings={"688981.SH"})[0] is Outcome.PASS
    assert _outcome(debut, new_listings={"688981.SH": date(2025, 6, 4)})[0] is Outcome.PASS
    assert _outcome(debut, new_listings={"688981.SH": PREV})[0] is Outcome.PASS  # session 2
    assert _outcome(debut, new_listings={"688981.SH": date(2025, 5, 27)})[1] == ["price_limit"]


def test_pct_chg_stands_in_for_a_missing_pre_close() -> None:
    frame = _quote("600519.SH", 100.0, 112.0)
    frame["pre_close"] = float("nan")
    assert _outcome(frame)[1] == ["price_limit"]


def test_dragon_tiger_limits_use_pct_chg_and_st_names() -> None:
    frame = BUILDERS["dragon_tiger"]()
    assert validate("dragon_tiger", frame, ctx()).outcome is Outcome.PASS
    frame.loc[0, "pct_chg"] = 12.0
    v = validate("dragon_tiger", frame, ctx())
    assert v.outcome is Outcome.WARN and v.failed_names() == ["price_limit"]
    st = BUILDERS["dragon_tiger"]()
    st.loc[2, ["symbol", "name", "pct_chg", "close"]] = ["600010.SH", "*ST包钢", 5.5, 2.0]
    assert validate("dragon_tiger", st, ctx()).failed_names() == ["price_limit"]
    st.loc[2, "pct_chg"] = 4.98
    assert validate("dragon_tiger", st, ctx()).outcome is Outcome.PASS


def test_row_count_far_below_previous_session_warns() -> None:
    frame = BUILDERS["quotes"]()  # 6 rows
    v = validate("quotes", frame, ctx(previous_row_count=100))
    assert v.outcome is Outcome.WARN and v.failed_names() == ["row_count_vs_previous"]
    assert v.warnings[0].details["observed_value"] == 6
    assert validate("quotes", frame, ctx(previous_row_count=7)).outcome is Outcome.PASS
    assert validate("quotes", frame, ctx(previous_row_count=None)).outcome is Outcome.PASS


def test_announcement_after_statutory_deadline_warns() -> None:
    frame = BUILDERS["financials"]()
    frame.loc[0, "ann_date"] = date(2025, 5, 10)  # Q1 is due by 04-30
    frame = apply_known_at(schemas.get("financials").known_at, frame, ctx().fetched_at)
    frame["known_at_basis"] = frame["known_at_basis"].astype("str")
    v = validate("financials", frame, ctx())
    assert v.outcome is Outcome.WARN and v.writable
    assert v.failed_names() == ["ann_date_within_deadline"]


def test_warnings_alongside_a_blocking_failure_still_reject() -> None:
    frame = _quote("600519.SH", 100.0, 115.0)
    frame["volume"] = -1.0
    v = validate("quotes", frame, ctx())
    assert v.outcome is Outcome.REJECT
    assert v.failed_names() == ["volume_non_negative", "price_limit"]
    assert [f.severity for f in v.failed] == ["blocking", "blocking"]
