"""The dated price-limit regime table (pitlake/limit_rules.py), through the gate and the pools:
per regime a bar at the exact limit price (limit-up), a tick below (not), a tick past
(impossible: rejected), on both sides of each change date; the +9.85 % low-priced limit-up;
and a property over random (board, date, listing age, ST, pre_close)."""

from __future__ import annotations

from datetime import date, datetime, time
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pitlake.expectations import validate
from pitlake.expectations.verdict import Outcome

from pitlake import limit_rows, limits
from pitlake import limit_rules as rules
from pitlake.calendar import BEIJING, XSHG, sessions_between
from tests.expectations.conftest import BUILDERS, ctx

N = rules.State.NO_LIMIT


def _session(d: date) -> date:
    return XSHG.session_on_or_before(d)


# (code, session, first trading day or None, ST, expected (up ratio, down ratio) or a State)
CASES = [
    ("600519.SH", date(2025, 6, 3), None, False, (0.10, 0.10)),
    ("600519.SH", date(1997, 3, 3), None, False, (0.10, 0.10)),
    ("600000.SH", date(2026, 7, 3), None, True, (0.05, 0.05)),  # ST before the change
    ("600000.SH", date(2026, 7, 6), None, True, (0.10, 0.10)),  # and from it
    ("300750.SZ", date(2020, 8, 21), None, False, (0.10, 0.10)),  # ChiNext before reform
    ("300750.SZ", date(2020, 8, 24), None, False, (0.20, 0.20)),
    ("300001.SZ", date(2020, 8, 21), None, True, (0.05, 0.05)),  # ChiNext ST: main rule
    ("300001.SZ", date(2020, 8, 24), None, True, (0.20, 0.20)),  # ST included
    ("688981.SH", date(2025, 6, 3), None, True, (0.20, 0.20)),
    ("430047.BJ", date(2021, 11, 15), None, False, (0.30, 0.30)),
    # new listings
    ("688001.SH", date(2019, 7, 22), date(2019, 7, 22), False, N),
    ("688001.SH", date(2019, 7, 26), date(2019, 7, 22), False, N),  # session 5
    ("688001.SH", date(2019, 7, 29), date(2019, 7, 22), False, (0.20, 0.20)),  # session 6
    ("300999.SZ", date(2020, 8, 24), date(2020, 8, 24), False, N),
    ("300999.SZ", date(2020, 8, 28), date(2020, 8, 24), False, N),
    ("300998.SZ", date(2020, 8, 24), date(2020, 8, 20), False, (0.20, 0.20)),  # listed before
    ("300997.SZ", date(2020, 8, 20), date(2020, 8, 20), False, (0.44, 0.36)),  # issue price
    ("603398.SH", date(2023, 4, 10), date(2023, 4, 10), False, N),
    ("603398.SH", date(2023, 4, 14), date(2023, 4, 10), False, N),
    ("603398.SH", date(2023, 4, 17), date(2023, 4, 10), False, (0.10, 0.10)),
    ("603397.SH", date(2023, 4, 7), date(2023, 4, 7), False, (0.44, 0.36)),  # approval
    ("603397.SH", date(2023, 4, 10), date(2023, 4, 7), False, (0.10, 0.10)),  # its day 2
    ("601857.SH", date(2007, 11, 5), date(2007, 11, 5), False, N),  # before the 44 % bound
    ("920001.BJ", date(2024, 6, 3), date(2024, 6, 3), False, N),  # BSE: first day free
    ("920001.BJ", date(2024, 6, 4), date(2024, 6, 3), False, (0.30, 0.30)),
    # no rule encoded: never guessed
    ("688001.SH", date(2019, 7, 19), None, False, rules.State.UNKNOWN),
    ("430047.BJ", date(2021, 11, 12), None, False, rules.State.UNKNOWN),
]


@pytest.mark.parametrize(("code", "day", "first", "is_st", "want"), CASES)
def test_the_regime_table(code: str, day: date, first: date | None, is_st: bool, want) -> None:
    got = rules.limit_on(code, day, first_day=first, is_st=is_st)
    if isinstance(want, rules.State):
        assert got.state is want and got.prices(10.0) is None
    else:
        assert got.state is rules.State.LIMITED
        assert (got.up_ratio, got.down_ratio) == want
        assert got.on_issue is (want == (0.44, 0.36))


def _bar(code: str, day: date, pre: float, close: float) -> pd.DataFrame:
    fetched = datetime.combine(XSHG.next_session(day), time(0, 30), tzinfo=BEIJING)
    frame = BUILDERS["quotes"](day, symbols=[code], fetched_at=fetched)
    frame[["pre_close", "open", "low", "close", "high"]] = [
        pre,
        pre,
        min(pre, close),
        close,
        max(pre, close),
    ]
    frame["pct_chg"] = round((close / pre - 1) * 100, 2)
    return frame


SEASONED = [  # (code, session, ST, ratio): both sides of each change date
    ("600519.SH", date(2025, 6, 3), False, 0.10),
    ("600000.SH", date(2026, 7, 3), True, 0.05),
    ("600000.SH", date(2026, 7, 6), True, 0.10),
    ("300750.SZ", date(2020, 8, 21), False, 0.10),
    ("300750.SZ", date(2020, 8, 24), False, 0.20),
    ("688981.SH", date(2019, 7, 23), False, 0.20),
    ("430047.BJ", date(2021, 11, 16), False, 0.30),
]


@pytest.mark.parametrize(("code", "day", "is_st", "ratio"), SEASONED)
def test_at_the_limit_a_tick_below_and_a_tick_past(
    code: str, day: date, is_st: bool, ratio: float
) -> None:
    pre = 12.34
    up = float(rules.exact_price(pre, ratio, 1))
    fetched = datetime.combine(XSHG.next_session(day), time(0, 30), tzinfo=BEIJING)
    kw = {"expected_trade_date": day, "fetched_at": fetched}
    if is_st:
        kw["st_symbols"] = {code}
    outcomes = {}
    for label, close in (("at", up), ("below", round(up - 0.01, 2)), ("past", round(up + 0.01, 2))):
        bar = _bar(code, day, pre, close)
        outcomes[label] = validate("quotes", bar, ctx(**kw)).outcome
        pool = limits.classify(bar, kw.get("st_symbols", frozenset()))["pool"].iloc[0]
        assert (pool == limits.UP) is (label == "at"), (label, pool)
    assert outcomes == {"at": Outcome.PASS, "below": Outcome.PASS, "past": Outcome.REJECT}


def test_a_move_inside_a_no_limit_window_raises_nothing() -> None:
    day = date(2025, 6, 12)  # session 3 of a main-board registration listing
    bar = _bar("603398.SH", day, 20.0, 30.0)
    fetched = datetime(2025, 6, 13, 0, 30, tzinfo=BEIJING)
    kw = {"expected_trade_date": day, "fetched_at": fetched}
    listed = {"603398.SH": date(2025, 6, 10)}
    assert validate("quotes", bar, ctx(new_listings=listed, **kw)).outcome is Outcome.PASS
    assert validate("quotes", bar, ctx(**kw)).outcome is Outcome.REJECT  # seasoned: impossible
    at_ten = _bar("603398.SH", day, 20.0, 22.0)
    assert pd.isna(limits.classify(at_ten, frozenset(), listed)["pool"].iloc[0])


def test_without_a_security_master_a_listing_age_is_unknown_not_seasoned() -> None:
    """A quotes-only backfill (no master stored): a new listing's +50 % session must not be
    rejected as impossible, yet a code with five earlier sessions in the batch is judged."""
    day = date(2025, 6, 12)
    fetched = datetime(2025, 6, 13, 0, 30, tzinfo=BEIJING)
    kw = {"expected_trade_date": day, "fetched_at": fetched, "listing_ages_known": False}
    bar = _bar("603398.SH", day, 20.0, 30.0)
    assert validate("quotes", bar, ctx(**kw)).outcome is Outcome.PASS
    assert (
        limit_rows.row_regimes(
            bar, np.array([day], "datetime64[D]"), (), (), ages_known=False
        ).state[0]
        == rules.State.UNKNOWN
    )
    days = sessions_between(date(2025, 6, 3), day)  # six sessions
    history = pd.concat(
        [_bar("600519.SH", d, 20.0, 20.5) for d in days[:-1]]
        + [_bar("600519.SH", day, 20.0, 30.0)],
        ignore_index=True,
    )
    window = {"window_start": days[0], "window_end": day, "fetched_at": fetched}
    judged = validate(
        "quotes", history, ctx(expected_trade_date=None, listing_ages_known=False, **window)
    )
    assert judged.outcome is Outcome.REJECT  # the sixth session is past every free window
    assert (
        validate(
            "quotes",
            history.iloc[:-1],
            ctx(expected_trade_date=None, listing_ages_known=False, **window),
        ).outcome
        is Outcome.PASS
    )


def test_a_low_priced_limit_up_at_985_percent() -> None:
    bar = _bar("600519.SH", date(2025, 6, 3), 2.03, 2.23)  # 2.233 rounds to 2.23: +9.85 %
    out = limits.classify(bar)
    assert out["up_limit"].iloc[0] == 2.23 and out["pool"].iloc[0] == limits.UP


def test_an_approval_first_day_is_unknown_without_an_issue_price() -> None:
    day = date(2020, 8, 20)
    bar = _bar("300997.SZ", day, 10.0, 14.4)
    listed = {"300997.SZ": day}
    out = limits.classify(bar, frozenset(), listed)
    assert pd.isna(out["up_limit"].iloc[0]) and pd.isna(out["pool"].iloc[0])
    known = limits.classify(bar, frozenset(), listed, issue_prices={"300997.SZ": 10.0})
    assert known["up_limit"].iloc[0] == 14.4 and known["pool"].iloc[0] == limits.UP


def test_an_ex_date_reference_from_the_factors() -> None:
    days = [date(2025, 6, 3), date(2025, 6, 4)]
    bars = pd.DataFrame(
        {
            "symbol": ["600519.SH"] * 2,
            "trade_date": pd.to_datetime(days),
            "close": [20.0, 11.0],  # a 10-for-10 bonus: the reference is 10.00
            "high": [20.0, 11.0],
            "volume": [1.0, 1.0],
        }
    )
    factors = bars[["symbol", "trade_date"]].assign(adj_factor=[1.0, 2.0])
    out = limits.classify(bars, factors=factors)
    assert out["up_limit"].iloc[1] == 11.0 and out["pool"].iloc[1] == limits.UP
    naive = limits.classify(bars)
    assert naive["up_limit"].iloc[1] == 22.0  # without factors: the raw previous close


def test_published_prices_that_differ_from_the_rule_are_reported_with_both() -> None:
    bar = _bar("600234.SH", date(2025, 6, 17), 10.0, 10.5)
    vendor = bar[["symbol", "trade_date"]].assign(up_limit=10.5, down_limit=9.5)  # ±5 %
    out = limits.classify(bar, frozenset(), frozenset(), vendor)
    found = limits.disagreements(out)
    assert found == [
        {
            "symbol": "600234.SH",
            "trade_date": "2025-06-17",
            "vendor": [10.5, 9.5],
            "rule": [11.0, 9.0],
            "rule_state": "limited",
        }
    ]


BOARD_CODES = ["600519.SH", "000001.SZ", "300750.SZ", "688981.SH", "430047.BJ", "200002.SZ"]
DAYS = sessions_between(date(2005, 1, 4), date(2026, 11, 30))


@settings(max_examples=300, deadline=None)
@given(
    code=st.sampled_from(BOARD_CODES),
    i=st.integers(0, len(DAYS) - 1),
    age=st.one_of(st.none(), st.integers(1, 8)),
    is_st=st.booleans(),
    cents=st.integers(100, 300_000),
)
def test_limit_up_is_round_half_up_of_the_tables_ratio(
    code: str, i: int, age: int | None, is_st: bool, cents: int
) -> None:
    day = DAYS[i]
    first = None if age is None or i - age + 1 < 0 else DAYS[i - age + 1]
    pre = cents / 100
    rule = rules.limit_on(code, day, first_day=first, is_st=is_st)
    bar = pd.DataFrame(
        {
            "symbol": [code],
            "trade_date": pd.to_datetime([day]),
            "pre_close": [pre],
            "close": [pre],
            "high": [pre],
            "volume": [1.0],
        }
    )
    listed = {code: first} if first else {}
    out = limits.classify(bar, {code: [day]} if is_st else {}, listed)
    if rule.state is not rules.State.LIMITED or rule.on_issue:
        assert pd.isna(out["pool"].iloc[0]) and pd.isna(out["up_limit"].iloc[0])
        return
    want = Decimal(str(pre)) * (1 + Decimal(str(rule.up_ratio)))
    want = want.quantize(Decimal("0.01"), rounding="ROUND_HALF_UP")
    assert out["up_limit"].iloc[0] == float(want)
    assert np.isclose(rule.prices(pre)[0], float(want))
