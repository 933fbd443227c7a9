"""East Money's appointment list (stock_yysj_em) → disclosure_schedule: the plan is the latest
changed date given, the period comes from the request, and nothing is back-dated."""

from __future__ import annotations

from datetime import date, datetime

import pandas as pd
import pytest

from pitlake.calendar import BEIJING
from pitlake.errors import VendorError
from pitlake.vendors.akshare import PLUGIN as AKSHARE
from pitlake.vendors.base import FetchRequest
from tests.vendors.stub_client import StubClient

FETCHED = datetime(2025, 7, 20, 21, 0, tzinfo=BEIJING)
D = date(2025, 7, 20)


def appointments(**overrides: object) -> pd.DataFrame:
    row = {
        "序号": 1,
        "股票代码": "600519",
        "股票简称": "贵州茅台",
        "首次预约时间": date(2025, 8, 8),
        "一次变更日期": date(2025, 8, 15),
        "二次变更日期": date(2025, 8, 22),
        "三次变更日期": None,
        "实际披露时间": None,
    }
    row.update(overrides)
    return pd.DataFrame([row])


def fetch(frame: pd.DataFrame):
    client = StubClient({"stock_yysj_em": lambda symbol, date: frame})
    client.vendor = "akshare"
    return AKSHARE.adapter(client).fetch(
        FetchRequest("disclosure_schedule", start=D, end=D), FETCHED
    ), client


def test_the_plan_is_the_latest_change_and_known_when_first_seen() -> None:
    out, client = fetch(appointments())
    assert {(p["symbol"], p["date"]) for _, p in client.calls} == {
        ("沪深A股", "20250630"),
        ("京市A股", "20250630"),
    }
    (row,) = out.frame.to_dict("records")
    assert row["report_period"] == date(2025, 6, 30)
    assert row["first_planned_date"] == date(2025, 8, 8)
    assert row["planned_date"] == date(2025, 8, 22)
    assert row["ann_date"] is None and row["known_at_basis"] == "first_seen"
    assert row["known_at"] == pd.Timestamp(FETCHED).tz_convert("UTC")
    assert "二次变更日期" in row["extra"]


def test_a_garbled_date_rejects_the_answer() -> None:
    with pytest.raises(VendorError, match="一次变更日期"):
        fetch(appointments(**{"一次变更日期": "soon"}))
