"""The derived market (pitlake.limits, Lake.market / Lake.limits) over a lake of the bundled
sample, and the gate's cross-check of the vendors' lists against the bars.

The sample's planted traps (sample/README.md, case 15), each pinned here: the three-board
ladder and the broken board (002594.SZ, 06-09 … 06-12), the ST stock at its ±5 % limit three
days running (600234.SH, 04-08 … 04-10), the limit-down after a suspension (000002.SZ,
suspended 05-12 … 05-14, down on 05-15), the session the vendor's pool disagrees (Tushare lists
688981.SH as a limit-up on 06-18); on every other session the derived and vendor pools agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pitlake.expectations.limit_checks import check_limits

from pitlake import limits
from pitlake.calendar import BEIJING, sessions_between
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.statuses import LedgerStatus
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.registry import build_router

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
FETCHED = datetime(2025, 7, 1, 20, 0, tzinfo=BEIJING)
START, END = date(2025, 4, 1), date(2025, 6, 30)
BARS, PRICES, POOLS, NAMES = "quotes", "limit_prices", "limit_pools", "dragon_tiger"
SESSIONS = sessions_between(START, END)
VENDOR_ERROR = ("688981.SH", date(2025, 6, 18))
ST = frozenset({"600234.SH", "000666.SZ"})  # ST樣本; *ST甲乙 from 04-25 (sample/README.md)


@pytest.fixture(scope="module")
def router():
    return build_router(f"replay:{SAMPLE}")


@pytest.fixture(scope="module")
def routed(router) -> dict[str, pd.DataFrame]:
    out = {}
    for name in (BARS, PRICES, POOLS, NAMES):
        r = router.route(FetchRequest(name, start=START, end=END), FETCHED, chain=["tushare"])
        assert r.status is LedgerStatus.OK, r.message
        out[name] = r.frame
    return out


@pytest.fixture(scope="module")
def sample_lake(tmp_path_factory: pytest.TempPathFactory, routed) -> Iterator[Lake]:
    root = tmp_path_factory.mktemp("market")
    store, catalog = LakeStore(root), Catalog(lake_root=root)
    for name, frame in routed.items():
        store.write(name, frame, run_id="sample", ingested_at=FETCHED)
        days = pd.to_datetime(frame["trade_date"]).dt.date.value_counts()
        for d in SESSIONS:
            n = int(days.get(d, 0))
            status = LedgerStatus.OK if n else LedgerStatus.NO_DATA
            catalog.record_ledger(name, d, status, rows=n, vendor="tushare", at=FETCHED)
    catalog.close()
    with Lake(root, clock=lambda: FETCHED) as lake:
        yield lake


def pool(lake: Lake, day: str, kind: str = "up", as_of: str | None = None) -> list[dict]:
    r = lake.limits(day, kind=kind, as_of=as_of or "2025-07-01")
    assert r.status in ("OK", "NO_DATA"), r.message
    assert r.effective_trade_date == day
    return r.data


def test_the_three_board_ladder_then_the_broken_board(sample_lake: Lake) -> None:
    ladder = [pool(sample_lake, d) for d in ("2025-06-09", "2025-06-10", "2025-06-11")]
    assert [[(r["symbol"], r["consecutive"]) for r in p] for p in ladder] == [
        [("002594.SZ", 1)],
        [("002594.SZ", 2)],
        [("002594.SZ", 3)],
    ]
    broken = pool(sample_lake, "2025-06-12", "broken")
    byd = [r for r in broken if r["symbol"] == "002594.SZ"]
    assert byd and byd[0]["high"] == byd[0]["up_limit"] > byd[0]["close"]
    assert byd[0]["consecutive"] == 3  # the run the broken board ended
    r = sample_lake.limits("2025-06-11", as_of="2025-07-01")
    assert r.meta["ladder"] == {"3": ["002594.SZ"]}


def test_the_ladder_never_counts_a_session_after_the_cutoff(sample_lake: Lake) -> None:
    """Asked about 06-11 as of the evening of 06-10: the answer is 06-10's, two boards."""
    r = sample_lake.limits("2025-06-11", as_of="2025-06-10T20:00+08:00")
    assert r.effective_trade_date == "2025-06-10"
    assert [(x["symbol"], x["consecutive"]) for x in r.data] == [("002594.SZ", 2)]


def test_the_st_stock_at_its_five_percent_limit(sample_lake: Lake) -> None:
    got = [pool(sample_lake, d) for d in ("2025-04-08", "2025-04-09", "2025-04-10")]
    st = [next(r for r in p if r["symbol"] == "600234.SH") for p in got]
    assert [r["consecutive"] for r in st] == [1, 2, 3]
    assert all(abs(r["pct_chg"]) < 5.3 for r in st)  # ±5 % (a tick of rounding), not ±10 %
    assert st[0]["up_limit"] == round(st[0]["pre_close"] * 1.05, 2)


def test_a_suspended_code_is_in_no_pool_and_its_limit_down_after(sample_lake: Lake) -> None:
    for d in ("2025-05-12", "2025-05-13", "2025-05-14"):
        for kind in limits.POOLS:
            assert "000002.SZ" not in {r["symbol"] for r in pool(sample_lake, d, kind)}
    down = pool(sample_lake, "2025-05-15", "down")
    assert [(r["symbol"], r["consecutive"]) for r in down] == [("000002.SZ", 1)]
    overview = sample_lake.market("2025-05-13", as_of="2025-07-01").data[0]
    bars = sample_lake.sql("SELECT count(*) AS n FROM quotes WHERE trade_date = '2025-05-13'")
    assert overview["traded"] == bars.to_pandas()["n"].iloc[0]  # 000002.SZ has no bar


def test_market_overview_counts_the_session(sample_lake: Lake) -> None:
    r = sample_lake.market("2025-06-11", as_of="2025-07-01")
    assert r.status == "OK" and r.date_status == "CURRENT"
    row = r.data[0]
    assert row["advancers"] + row["decliners"] + row["unchanged"] == row["traded"] == 12
    assert row["limit_up"] == 1 and row["ladder_height"] == 3 and row["turnover"] > 0


def test_weekend_and_before_the_close(sample_lake: Lake) -> None:
    weekend = sample_lake.market("2025-06-14", as_of="2025-06-15")
    assert weekend.effective_trade_date == "2025-06-13"
    assert weekend.date_status == "LATEST_TRADING_DAY" and weekend.status == "OK"
    early = sample_lake.limits("2025-06-12", as_of="2025-06-12T14:00+08:00")
    assert early.status == "NOT_READY" and early.data == []
    assert sample_lake.limits("2025-06-12", kind="sideways").status == "INVALID_ARGUMENTS"
    assert sample_lake.market("2025-13-01").status == "INVALID_ARGUMENTS"


def test_derived_and_vendor_pools_agree_on_every_other_session(routed) -> None:
    bars, prices, vendor = routed[BARS], routed[PRICES], routed[POOLS]
    disagree: dict[date, list[str]] = {}
    for d in SESSIONS:
        on = {k: f[pd.to_datetime(f["trade_date"]).dt.date == d] for k, f in routed.items()}
        if on[POOLS].empty:
            on[POOLS] = vendor.iloc[:0]
        verdicts = check_limits(
            {BARS: on[BARS], PRICES: on[PRICES], POOLS: on[POOLS], NAMES: on[NAMES]}
        )
        for name in (PRICES,):
            assert verdicts[name].outcome == "pass", (d, verdicts[name].message)
        v = verdicts.get(POOLS)
        if v is not None and v.outcome != "pass":
            disagree[d] = v.failed[0].details["differences"]
    # sessions with an empty vendor pool are compared too: the derived (non-ST) pool is empty
    for d in SESSIONS:
        on_bars = bars[pd.to_datetime(bars["trade_date"]).dt.date == d]
        derived = limits.classify(on_bars, ST, frozenset(), prices)
        listed = vendor[pd.to_datetime(vendor["trade_date"]).dt.date == d]
        mine = {
            (s, p)
            for s, p in zip(derived["symbol"], derived["pool"], strict=True)
            if isinstance(p, str) and s not in ST
        }
        theirs = set(zip(listed["symbol"], listed["pool"], strict=True))
        assert (mine == theirs) == (d != VENDOR_ERROR[1]), (d, mine, theirs)
    assert list(disagree) == [VENDOR_ERROR[1]]
    assert disagree[VENDOR_ERROR[1]] == [
        "up 688981.SH 2025-06-18: listed by the vendor, not in the bars"
    ]


def test_the_gate_warning_names_the_disagreeing_code(routed) -> None:
    day = VENDOR_ERROR[1]
    on = {k: f[pd.to_datetime(f["trade_date"]).dt.date == day] for k, f in routed.items()}
    v = check_limits(on, run_id="r")[POOLS]
    assert v.outcome == "warn" and v.writable
    assert "688981.SH" in v.message and v.failed[0].severity == "warning"
    wrong = on[PRICES].assign(up_limit=on[PRICES]["up_limit"] + 0.05)
    prices = check_limits({**on, PRICES: wrong})[PRICES]
    assert prices.outcome == "warn"
    assert all(s in prices.message for s in wrong["symbol"])


@settings(max_examples=200, deadline=None)
@given(
    cents=st.integers(min_value=1, max_value=500_000),
    ratio=st.sampled_from([0.05, 0.10, 0.20, 0.30]),
)
def test_limit_prices_round_half_up_to_the_cent(cents: int, ratio: float) -> None:
    """The exchange rule in exact decimal: previous close × (1 ± ratio), 四舍五入 to 0.01."""
    from decimal import ROUND_HALF_UP, Decimal

    pre = cents / 100
    up, down = limits.limit_prices([pre], [ratio])
    exact = Decimal(cents) / 100
    r = Decimal(str(ratio))
    want_up = (exact * (1 + r)).quantize(Decimal("0.01"), ROUND_HALF_UP)
    want_down = (exact * (1 - r)).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert (Decimal(str(up[0])), Decimal(str(down[0]))) == (want_up, want_down)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(["up", "down", "none"]), min_size=1, max_size=30))
def test_the_ladder_counts_runs_of_one_code(days: list[str]) -> None:
    """Property: each up row counts the up rows right before it + 1, never more."""
    pre = 10.0
    rows = []
    for i, kind in enumerate(days):
        up, down = limits.limit_prices([pre], [0.1])
        close = {"up": up[0], "down": down[0], "none": round(pre * 1.01, 2)}[kind]
        rows.append(
            {
                "symbol": "600000.SH",
                "trade_date": date(2025, 1, 2) + timedelta(days=i),
                "high": close,
                "close": close,
                "pre_close": pre,
                "volume": 100.0,
            }
        )
        pre = close
    c = limits.classify(pd.DataFrame(rows))
    counts = limits.ladder(c).tolist()
    run = 0
    for kind, n in zip(days, counts, strict=True):
        run = run + 1 if kind == "up" else 0
        if kind == "up":
            assert n == run


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.sampled_from(["up", "down", "broken", "none"]), min_size=1, max_size=20),
    st.randoms(use_true_random=False),
)
def test_the_ladder_does_not_depend_on_the_rows_order(days: list[str], rnd) -> None:
    """Property: classify + ladder on shuffled rows of two codes give each (code, day) the
    count they give on rows sorted by code and date (both orders are derived here)."""
    rows = []
    for code in ("600000.SH", "300750.SZ"):
        pre = 10.0
        ratio = 0.2 if code.startswith("3") else 0.1
        for i, kind in enumerate(days if code[0] == "6" else days[::-1]):
            up, down = limits.limit_prices([pre], [ratio])
            close = {"up": up[0], "down": down[0], "broken": round(pre * 1.01, 2)}.get(
                kind, round(pre * 0.99, 2)
            )
            high = up[0] if kind == "broken" else max(close, pre)
            day = date(2025, 1, 2) + timedelta(days=i)
            rows.append(
                {
                    "symbol": code,
                    "trade_date": day,
                    "high": high,
                    "close": close,
                    "pre_close": pre,
                    "volume": 100.0,
                }
            )
            pre = close
    ordered = pd.DataFrame(rows)
    shuffled = ordered.sample(frac=1.0, random_state=rnd.randint(0, 2**31)).reset_index(drop=True)

    def counts(frame: pd.DataFrame) -> dict[tuple[str, date], tuple[str, int]]:
        c = limits.classify(frame)
        n = limits.ladder(c)
        return {
            (s, d): (str(p), int(k))
            for s, d, p, k in zip(c["symbol"], c["trade_date"], c["pool"], n, strict=True)
        }

    want = counts(ordered)
    assert counts(shuffled) == want
    ups = [want[("600000.SH", date(2025, 1, 2) + timedelta(days=i))] for i in range(len(days))]
    run = 0
    for kind, (pool, k) in zip(days, ups, strict=True):
        run = run + 1 if kind == "up" else 0
        assert pool == ("nan" if kind == "none" else kind) and (kind != "up" or k == run)
