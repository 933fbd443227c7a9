"""The regime table's rows as the exchanges' texts give them (docs/design.md §"Price-limit
regimes", decision 55): each exchange's first-day bound from its own notice, the BSE's opening
day, the delisting-arrangement period (退市整理期) by board and date, and the one-tick floor;
each on both sides of its change date."""

from __future__ import annotations

from datetime import date, datetime, time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pitlake.expectations import validate
from pitlake.expectations.verdict import Outcome

from pitlake import limit_rules as rules
from pitlake import limits
from pitlake.calendar import BEIJING, XSHG, sessions_between
from tests.expectations.conftest import BUILDERS, ctx

N, U = rules.State.NO_LIMIT, rules.State.UNKNOWN
BOUND = (0.44, 0.36)

# (code, session, first trading day, expected): first days under the approval regime
FIRST_DAYS = [
    ("603000.SH", date(2013, 12, 12), N),  # SSE: 上证发〔2013〕47号 from 2013-12-13
    ("603000.SH", date(2013, 12, 13), BOUND),
    ("002700.SZ", date(2014, 1, 21), N),  # SZSE: only an opening range until 2014-06-13
    ("002700.SZ", date(2014, 6, 12), N),
    ("002700.SZ", date(2014, 6, 13), BOUND),  # 深证会〔2014〕54号
    ("300390.SZ", date(2014, 6, 12), N),  # ChiNext followed the SZSE's notice
    ("300390.SZ", date(2014, 6, 13), BOUND),
    ("603001.SH", date(2014, 1, 21), BOUND),
    ("832000.BJ", date(2021, 11, 15), U),  # the BSE's opening day: IPO or moved over
    ("832000.BJ", date(2021, 11, 16), N),
]


@pytest.mark.parametrize(("code", "day", "want"), FIRST_DAYS)
def test_each_exchanges_first_day_rule(code: str, day: date, want) -> None:
    got = rules.limit_on(code, day, first_day=day)
    if isinstance(want, rules.State):
        assert got.state is want
    else:
        assert got.state is rules.State.LIMITED and got.on_issue
        assert (got.up_ratio, got.down_ratio) == want


def _nth(start: date, n: int) -> date:
    """The n-th session from `start` (1: itself)."""
    return sessions_between(start, date(2026, 12, 31))[n - 1]


# (code, first day of the delisting period, session number in it, ST, expected)
DELISTING = [
    ("600001.SH", date(2020, 12, 30), 1, False, (0.10, 0.10)),  # before the 2020 reform
    ("600001.SH", date(2020, 12, 31), 1, False, N),  # 上证发〔2020〕103号
    ("600001.SH", date(2020, 12, 31), 2, True, (0.10, 0.10)),  # ST or not: 10 %, never 5 %
    ("600001.SH", date(2012, 12, 31), 3, False, U),  # no SSE period before 2013
    ("600001.SH", date(2013, 1, 4), 3, True, (0.10, 0.10)),
    ("000001.SZ", date(2012, 12, 14), 2, False, U),  # SZSE: from the 2012 rules
    ("000001.SZ", date(2012, 12, 17), 1, True, (0.10, 0.10)),
    ("000001.SZ", date(2020, 12, 30), 1, False, (0.10, 0.10)),  # before the 2020 reform
    ("000001.SZ", date(2020, 12, 31), 1, False, N),  # SZSE 股票上市规则（2020年修订）
    ("000001.SZ", date(2021, 3, 1), 1, False, N),
    ("300001.SZ", date(2020, 8, 21), 2, False, (0.10, 0.10)),  # begun before the reform
    ("300001.SZ", date(2020, 8, 24), 2, False, (0.20, 0.20)),  # 深证上〔2020〕620号
    ("300001.SZ", date(2020, 12, 30), 1, False, (0.20, 0.20)),
    ("300001.SZ", date(2021, 3, 1), 1, True, N),
    ("300001.SZ", date(2021, 3, 1), 2, True, (0.20, 0.20)),
    ("688001.SH", date(2020, 12, 30), 1, False, (0.20, 0.20)),  # STAR: 上证发〔2020〕101号
    ("688001.SH", date(2020, 12, 31), 1, False, N),
    ("832000.BJ", date(2022, 3, 1), 1, False, N),  # BSE trial rules 3.3.12
    ("832000.BJ", date(2022, 3, 1), 2, True, (0.30, 0.30)),
]


@pytest.mark.parametrize(("code", "start", "nth", "is_st", "want"), DELISTING)
def test_the_delisting_arrangement_period(code, start, nth, is_st, want) -> None:
    day = _nth(start, nth)
    got = rules.limit_on(code, day, is_st=is_st, delisting_from=start)
    if isinstance(want, rules.State):
        assert got.state is want
    else:
        assert got.state is rules.State.LIMITED and not got.on_issue
        assert (got.up_ratio, got.down_ratio) == want
    outside = rules.limit_on(code, day, is_st=is_st)  # a seasoned code outside a period
    assert outside.state is not N


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


def test_a_delisting_periods_first_day_through_the_gate_and_the_pools() -> None:
    start = date(2025, 6, 10)
    periods = {"600001.SH": [(start, None)]}
    fetched = datetime(2025, 6, 30, 20, 0, tzinfo=BEIJING)

    def outcome(day: date, close: float, **kw) -> Outcome:
        kw = {"expected_trade_date": day, "fetched_at": fetched, **kw}
        return validate("quotes", _bar("600001.SH", day, 2.0, close), ctx(**kw)).outcome

    assert outcome(start, 3.0, delisting=periods) is Outcome.PASS  # +50 %: no limit
    assert outcome(start, 3.0) is Outcome.REJECT  # not known to be in the period
    day2 = _nth(start, 2)
    st = {"600001.SH": [start, day2]}  # still named *ST by a vendor: 10 % all the same
    assert outcome(day2, 2.2, delisting=periods, st_symbols=st) is Outcome.PASS
    assert outcome(day2, 2.2, st_symbols=st) is Outcome.REJECT  # ±5 % without the period
    assert outcome(day2, 2.21, delisting=periods, st_symbols=st) is Outcome.REJECT
    first = limits.classify(_bar("600001.SH", start, 2.0, 2.2), delisting=periods)
    assert pd.isna(first["pool"].iloc[0]) and first["limit_state"].iloc[0] == "none"
    second = limits.classify(_bar("600001.SH", day2, 2.0, 2.2), st, delisting=periods)
    assert second["pool"].iloc[0] == limits.UP
    ended = {"600001.SH": [(start, start)]}  # a period that ended: ordinary again
    assert (
        limits.classify(_bar("600001.SH", day2, 2.0, 2.2), delisting=ended)["limit_state"].iloc[0]
        == "limited"
    )


MIN_TICK = [  # (code, session, pre_close, (up, down))
    ("000001.SZ", date(2011, 2, 25), 0.04, (0.04, 0.04)),
    ("000001.SZ", date(2011, 2, 28), 0.04, (0.05, 0.03)),  # SZSE 2011 rules 3.3.16
    ("600001.SH", date(2023, 4, 7), 0.04, (0.04, 0.04)),
    ("600001.SH", date(2023, 4, 10), 0.04, (0.05, 0.03)),  # SSE 2023 rules 3.3.17
    ("600001.SH", date(2023, 4, 10), 3.21, (3.53, 2.89)),  # a tick or more off: as computed
]


def test_the_sse_delisting_periods_cent_below_five_cents() -> None:
    """SSE risk-warning-board measures (2013): a delisting-period A share whose previous close
    is below ¥0.05 moves ¥0.01 a day, before the SSE's general one-tick floor (2023)."""
    start = date(2015, 3, 2)
    day = _nth(start, 3)
    assert rules.limit_on("600001.SH", day).prices(0.04) == (0.04, 0.04)
    inside = rules.limit_on("600001.SH", day, delisting_from=start)
    assert inside.prices(0.04) == (0.05, 0.03)


@pytest.mark.parametrize(("code", "day", "pre", "want"), MIN_TICK)
def test_the_one_tick_floor(code: str, day: date, pre: float, want) -> None:
    assert rules.limit_on(code, day).prices(pre) == want
    out = limits.classify(_bar(code, day, pre, want[0]))
    assert (out["up_limit"].iloc[0], out["down_limit"].iloc[0]) == want
    assert out["pool"].iloc[0] == limits.UP


CODES = ["600519.SH", "000001.SZ", "300750.SZ", "688981.SH", "832000.BJ"]
DAYS = sessions_between(date(2012, 1, 4), date(2026, 11, 30))


@settings(max_examples=200, deadline=None)
@given(
    code=st.sampled_from(CODES),
    i=st.integers(20, len(DAYS) - 1),
    nth=st.integers(1, 8),
    is_st=st.booleans(),
    cents=st.integers(100, 300_000),
)
def test_inside_a_delisting_period_the_pools_follow_the_table(
    code: str, i: int, nth: int, is_st: bool, cents: int
) -> None:
    """For random (board, date, session of the period, ST, pre_close): the limit-up price is
    round-half-up(pre_close × (1 + ratio), 2) with the table's ratio, and a no-limit or
    unknown session is in no pool."""
    day, start = DAYS[i], DAYS[i - nth + 1]
    pre = cents / 100
    rule = rules.limit_on(code, day, is_st=is_st, delisting_from=start)
    bar = pd.DataFrame(
        {
            "symbol": [code],
            "trade_date": pd.to_datetime([day]),
            "pre_close": [pre],
            "close": [pre * 1.6],
            "high": [pre * 1.6],
            "volume": [1.0],
        }
    )
    periods = {code: [(start, None)]}
    out = limits.classify(bar, {code: [day]} if is_st else {}, delisting=periods)
    if rule.state is not rules.State.LIMITED:
        assert pd.isna(out["pool"].iloc[0]) and pd.isna(out["up_limit"].iloc[0])
        return
    assert out["up_limit"].iloc[0] == float(rules.exact_price(pre, rule.up_ratio, 1))
    assert pd.isna(out["pool"].iloc[0])  # +60 %: past every ratio, impossible, in no pool
    assert np.isclose(rule.prices(pre)[0], out["up_limit"].iloc[0])
