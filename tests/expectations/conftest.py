"""Canonical batches per dataset (known_at stamped by pitlake.pit's real rules) and a warm GX
context shared by the whole session (building it costs seconds; validating costs ~70 ms)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd
import pytest
from pitlake.schemas import SCHEMAS

from pitlake.calendar import BEIJING
from pitlake.pit import apply_known_at

D = date(2025, 6, 4)  # a Wednesday session
PREV = date(2025, 6, 3)  # the session before (06-02 was the Dragon Boat holiday)
# After D's Beijing day has ended: day-end facts (dragon-tiger lists) are known by then.
FETCHED = datetime(2025, 6, 5, 0, 30, tzinfo=BEIJING)
EVENING = datetime(2025, 6, 4, 18, 30, tzinfo=BEIJING)  # the nightly cron's time
VALIDATED = datetime(2025, 6, 5, 0, 31, tzinfo=BEIJING)
SYMBOLS = ["600519.SH", "000001.SZ", "300750.SZ", "688981.SH", "430047.BJ", "600000.SH"]


@pytest.fixture(scope="session", autouse=True)
def warm_gx() -> Any:
    """One GX context for every test: built once, as in a real process."""
    from pitlake.expectations.context import state

    return state()


def _finish(dataset: str, frame: pd.DataFrame, fetched_at: datetime, source: str) -> pd.DataFrame:
    schema = SCHEMAS[dataset]
    frame = frame.reindex(columns=schema.columns)
    frame = apply_known_at(schema.known_at, frame, fetched_at)
    frame["source"] = pd.Series(source, index=frame.index, dtype="str")
    frame["known_at_basis"] = frame["known_at_basis"].astype("str")
    for col in frame.columns:  # the canonical string dtype, as a normaliser leaves it
        if (
            col in schema.columns
            and frame[col].dtype == object
            and isinstance(next((v for v in frame[col] if v is not None), None), str)
        ):
            frame[col] = frame[col].astype("str")
    return frame


def quotes(
    day: date = D, symbols: list[str] | None = None, fetched_at: datetime = FETCHED
) -> pd.DataFrame:
    symbols = symbols or SYMBOLS
    n = len(symbols)
    pre = np.linspace(10.0, 20.0, n)
    close = np.round(pre * 1.02, 2)
    open_ = np.round(pre * 0.99, 2)
    frame = pd.DataFrame(
        {
            "symbol": pd.array(symbols, dtype="str"),
            "trade_date": [day] * n,
            "open": open_,
            "high": np.round(np.maximum(open_, close) * 1.01, 2),
            "low": np.round(np.minimum(open_, close) * 0.99, 2),
            "close": close,
            "pre_close": pre,
            "volume": np.full(n, 1.0e6),
            "amount": np.full(n, 1.5e7),
            "pct_chg": np.round((close / pre - 1) * 100, 2),
            "turnover_rate": np.full(n, 1.2),
        }
    )
    return _finish("quotes", frame, fetched_at, "tushare")


INDEX_SYMBOLS = ["000001.SH", "399001.SZ", "000300.SH"]


def index_quotes(day: date = D, fetched_at: datetime = FETCHED) -> pd.DataFrame:
    n = len(INDEX_SYMBOLS)
    pre = np.array([3300.0, 10200.0, 3850.0])
    close = np.round(pre * 1.004, 2)
    open_ = np.round(pre * 0.998, 2)
    frame = pd.DataFrame(
        {
            "symbol": pd.array(INDEX_SYMBOLS, dtype="str"),
            "trade_date": [day] * n,
            "open": open_,
            "high": np.round(np.maximum(open_, close) * 1.003, 2),
            "low": np.round(np.minimum(open_, close) * 0.997, 2),
            "close": close,
            "pre_close": pre,
            "volume": np.full(n, 4.0e10),
            "amount": np.full(n, 5.0e11),
            "pct_chg": np.round((close / pre - 1) * 100, 4),
        }
    )
    return _finish("index_quotes", frame, fetched_at, "tushare")


def adj_factors(day: date = D, fetched_at: datetime = FETCHED) -> pd.DataFrame:
    n = len(SYMBOLS)
    frame = pd.DataFrame(
        {
            "symbol": pd.array(SYMBOLS, dtype="str"),
            "trade_date": [day] * n,
            "adj_factor": np.linspace(1.0, 3.0, n),
        }
    )
    return _finish("adj_factors", frame, fetched_at, "tushare")


def valuation(day: date = D, fetched_at: datetime = FETCHED) -> pd.DataFrame:
    n = len(SYMBOLS)
    schema = SCHEMAS["valuation"]
    frame = pd.DataFrame({c: np.linspace(1.0, 2.0, n) for c in schema.columns[2:]})
    frame.insert(0, "trade_date", [day] * n)
    frame.insert(0, "symbol", pd.array(SYMBOLS, dtype="str"))
    return _finish("valuation", frame, fetched_at, "tushare")


def dragon_tiger(day: date = D, fetched_at: datetime = FETCHED) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "symbol": pd.array(["600519.SH", "600519.SH", "300750.SZ"], dtype="str"),
            "trade_date": [day] * 3,
            "reason": pd.array(
                ["日涨幅偏离值达7%", "连续三个交易日内涨幅偏离值累计达20%", "日涨幅偏离值达15%"],
                dtype="str",
            ),
            "name": pd.array(["贵州茅台", "贵州茅台", "宁德时代"], dtype="str"),
            "close": [1500.0, 1500.0, 250.0],
            "pct_chg": [9.98, 9.98, 19.99],
            "turnover_rate": [0.5, 0.5, 3.0],
            "buy_amount": [1e8, 1e8, 2e8],
            "sell_amount": [5e7, 5e7, 1e8],
            "net_buy": [5e7, 5e7, 1e8],
            "billboard_amount": [1.5e8, 1.5e8, 3e8],
            "market_amount": [1e9, 1e9, 2e9],
            "float_mv": [1e12, 1e12, 8e11],
            "seats": [None, None, None],
        }
    )
    return _finish("dragon_tiger", frame, fetched_at, "akshare")


def financials(fetched_at: datetime = FETCHED) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "symbol": pd.array(["600519.SH", "000001.SZ"], dtype="str"),
            "statement": pd.array(["income", "income"], dtype="str"),
            "report_period": [date(2025, 3, 31), date(2024, 12, 31)],
            "report_type": pd.array(["1", "1"], dtype="str"),
            "ann_date": [date(2025, 4, 25), date(2025, 3, 15)],
            "revision_date": [None, None],
            "update_flag": pd.array(["1", "1"], dtype="str"),
            "undated_revision": [False, False],
            "revenue": [5.0e10, 3.0e10],
            "net_profit": [2.0e10, 1.0e10],
            "extra": [None, None],
        }
    )
    return _finish("financials", frame, fetched_at, "tushare")


def news(fetched_at: datetime = FETCHED) -> pd.DataFrame:
    published = pd.Series(
        pd.to_datetime(["2025-06-04T09:00:00+08:00", "2025-06-04T17:45:00+08:00", None], utc=True)
    ).astype("datetime64[us, UTC]")
    frame = pd.DataFrame(
        {
            "news_id": pd.array(["n1", "n2", "n3"], dtype="str"),
            "symbols": [["600519.SH"], [], ["000001.SZ"]],
            "title": pd.array(["茅台公告", "市场综述", "平安银行"], dtype="str"),
            "content": pd.array(["…", "…", "…"], dtype="str"),
            "url": pd.array(["https://example.invalid/n1", None, None], dtype="str"),
            "published_at": published,
            "sources": [["akshare:em"], ["tushare:news"], ["akshare:em"]],
        }
    )
    return _finish("news", frame, fetched_at, "akshare")


def announcements(fetched_at: datetime = FETCHED) -> pd.DataFrame:
    published = pd.Series(pd.to_datetime(["2025-06-04T16:30:00+08:00", None], utc=True)).astype(
        "datetime64[us, UTC]"
    )
    frame = pd.DataFrame(
        {
            "ann_id": pd.array(["a1", "a2"], dtype="str"),
            "symbols": [["600519.SH"], ["000001.SZ"]],
            "name": pd.array(["贵州茅台", "平安银行"], dtype="str"),
            "title": pd.array(["关于召开股东大会的通知", "权益分派实施公告"], dtype="str"),
            "ann_type": pd.array([None, "权益分派实施"], dtype="str"),
            "ann_date": [date(2025, 6, 4), date(2025, 6, 4)],
            "url": pd.array([None, None], dtype="str"),
            "published_at": published,
            "sources": [["tushare:anns_d"], ["akshare:stock_notice_report"]],
        }
    )
    return _finish("announcements", frame, fetched_at, "tushare")


def disclosure_schedule(fetched_at: datetime = FETCHED) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "symbol": pd.array(["600519.SH", "000001.SZ"], dtype="str"),
            "report_period": [date(2025, 6, 30)] * 2,
            "planned_date": [date(2025, 8, 8), date(2025, 8, 22)],
            "actual_date": [None, None],
            "first_planned_date": [None, date(2025, 8, 15)],
            "ann_date": [date(2025, 6, 1), None],  # the second: first_seen
            "extra": pd.array([None, '{"一次变更日期": "2025-08-22"}'], dtype="str"),
        }
    )
    return _finish("disclosure_schedule", frame, fetched_at, "tushare")


def calendar(fetched_at: datetime = FETCHED) -> pd.DataFrame:
    days = [D + timedelta(days=i) for i in range(4)]
    frame = pd.DataFrame(
        {
            "exchange": pd.array(["XSHG"] * 4, dtype="str"),
            "date": days,
            "is_open": [True, True, False, False],
        }
    )
    return _finish("calendar", frame, fetched_at, "tushare")


def securities(fetched_at: datetime = FETCHED) -> pd.DataFrame:
    """A listing, a name that marks ST (its st interval beside it) and a suspended session,
    as the fetchers build them (pitlake.schemas.securities)."""
    from pitlake.schemas.securities import finish, listing_rows, name_rows, suspension_rows

    s = pd.Series
    frame = finish(
        [
            listing_rows(s(["600519.SH"]), s([date(2001, 8, 27)]), s([None]), "L"),
            name_rows(
                s(["600000.SH"]),
                s(["ST浦发"]),
                s([date(2025, 5, 6)]),
                s([None]),
                s([date(2025, 4, 30)]),
                s(["ST"]),
            ),
            suspension_rows(s(["000001.SZ"]), s([D]), None, "S"),
        ],
        fetched_at.date(),
    )
    return _finish("securities", frame, fetched_at, "tushare")


def index_members(day: date = D, fetched_at: datetime = FETCHED) -> pd.DataFrame:
    members = ["600519.SH", "000001.SZ", "688981.SH"]
    frame = pd.DataFrame(
        {
            "index_code": pd.array(["000300.SH"] * len(members), dtype="str"),
            "trade_date": [day] * len(members),
            "symbol": pd.array(members, dtype="str"),
            "weight": [5.2, 3.5, 4.3],
            "current_list": [False] * len(members),
            "vendor_date": [None] * len(members),
        }
    )
    return _finish("index_members", frame, fetched_at, "tushare")


def limit_prices(day: date = D, fetched_at: datetime = FETCHED) -> pd.DataFrame:
    n = len(SYMBOLS)
    pre = np.linspace(10.0, 20.0, n)
    frame = pd.DataFrame(
        {
            "symbol": pd.array(SYMBOLS, dtype="str"),
            "trade_date": [day] * n,
            "pre_close": pre,
            "up_limit": np.round(pre * 1.1, 2),
            "down_limit": np.round(pre * 0.9, 2),
        }
    )
    return _finish("limit_prices", frame, fetched_at, "tushare")


def limit_pools(day: date = D, fetched_at: datetime = FETCHED) -> pd.DataFrame:
    sealed = pd.Series(pd.to_datetime(["2025-06-04T09:31:56+08:00", None], utc=True)).astype(
        "datetime64[us, UTC]"
    )
    frame = pd.DataFrame(
        {
            "symbol": pd.array(["600519.SH", "000001.SZ"], dtype="str"),
            "trade_date": [day, day],
            "pool": pd.array(["up", "down"], dtype="str"),
            "name": pd.array(["贵州茅台", "平安银行"], dtype="str"),
            "limit_stat": pd.array(["1/1", "0/1"], dtype="str"),
            "industry": pd.array(["酿酒行业", "银行"], dtype="str"),
            "close": [1683.55, 10.35],
            "pct_chg": [10.0, -10.0],
            "first_sealed_at": sealed,
            "last_sealed_at": sealed,
            "breaks": [0.0, 1.0],
            "consecutive": [1.0, 1.0],
        }
    )
    return _finish("limit_pools", frame, fetched_at, "tushare")


def new_shares(fetched_at: datetime = FETCHED) -> pd.DataFrame:
    """A listed IPO (dated by T+1), one priced but not listed (first seen), as the fetcher
    builds them."""
    frame = pd.DataFrame(
        {
            "symbol": pd.array(["603398.SH", "001390.SZ"], dtype="str"),
            "sub_code": pd.array(["732398", "001390"], dtype="str"),
            "name": pd.array(["新股样本", "临近样本"], dtype="str"),
            "ipo_date": [date(2025, 5, 29), D],
            "list_date": [date(2025, 6, 10), None],
            "issue_price": [18.0, 9.5],
            "issue_pe": [22.98, 21.5],
            "shares_offered": [40_000_000.0, 25_000_000.0],
            "shares_online": [16_000_000.0, 10_000_000.0],
            "subscription_cap": [16_000.0, 10_000.0],
            "funds": [720_000_000.0, 237_500_000.0],
            "ballot_rate": [0.0312, None],
        }
    )
    return _finish("new_shares", frame, fetched_at, "tushare")


BUILDERS = {
    "quotes": quotes,
    "adj_factors": adj_factors,
    "valuation": valuation,
    "index_quotes": index_quotes,
    "securities": securities,
    "dragon_tiger": dragon_tiger,
    "financials": financials,
    "news": news,
    "calendar": calendar,
    "announcements": announcements,
    "disclosure_schedule": disclosure_schedule,
    "index_members": index_members,
    "limit_prices": limit_prices,
    "limit_pools": limit_pools,
    "new_shares": new_shares,
}


def ctx(**kw: Any):
    from pitlake.expectations.gate import RunContext

    base: dict[str, Any] = {
        "run_id": "run-1",
        "fetched_at": FETCHED,
        "expected_trade_date": D,
        "validated_at": VALIDATED,
    }
    base.update(kw)
    return RunContext(**base)
