"""Tushare fetchers that page past a row cap (anns_d 2000, disclosure_date 3000): a full page
asks for the next from its offset until a short one comes; and their cell checks."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pandas as pd
import pytest

from pitlake.calendar import BEIJING
from pitlake.errors import VendorError
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.tushare import PLUGIN as TUSHARE
from pitlake.vendors.tushare.fetchers import announcements as ts_anns
from pitlake.vendors.tushare.fetchers import disclosure_schedule as ts_schedule
from tests.vendors.tushare.fixtures import StubClient

FETCHED = datetime(2025, 6, 4, 21, 0, tzinfo=BEIJING)
D = date(2025, 6, 3)


def paged(frame: pd.DataFrame, cap: int):
    def answer(**params: Any) -> pd.DataFrame:
        offset = int(params.get("offset", 0))
        return frame.iloc[offset : offset + cap].reset_index(drop=True)

    return answer


def notices(n: int, rec_time: str | None = "2025-06-03 18:00:00") -> pd.DataFrame:
    return pd.DataFrame(
        {
            "ann_date": ["20250603"] * n,
            "ts_code": ["600519.SH"] * n,
            "name": ["贵州茅台"] * n,
            "title": [f"公告{i}" for i in range(n)],
            "url": [None] * n,
            "rec_time": [rec_time] * n,
        }
    )


def test_anns_d_pages_from_the_next_offset_until_a_short_page(monkeypatch) -> None:
    monkeypatch.setattr(ts_anns, "_rows_cap", lambda: 2)
    client = StubClient({"anns_d": paged(notices(5), 2)})
    out = TUSHARE.adapter(client).fetch(FetchRequest("announcements", start=D, end=D), FETCHED)
    assert [p.get("offset", 0) for _, p in client.calls] == [0, 2, 4]
    assert all(p["ann_date"] == "20250603" and "rec_time" in p["fields"] for _, p in client.calls)
    assert sorted(out.frame["title"]) == [f"公告{i}" for i in range(5)]
    assert set(out.frame["known_at_basis"]) == {"published"}


def test_a_garbled_rec_time_rejects_the_answer() -> None:
    client = StubClient({"anns_d": notices(1, rec_time="yesterday evening")})
    with pytest.raises(VendorError, match="rec_time"):
        TUSHARE.adapter(client).fetch(FetchRequest("announcements", start=D, end=D), FETCHED)


def test_a_missing_rec_time_is_the_end_of_the_day() -> None:
    client = StubClient({"anns_d": notices(1, rec_time=None)})
    out = TUSHARE.adapter(client).fetch(FetchRequest("announcements", start=D, end=D), FETCHED)
    (known,) = out.frame["known_at"]
    assert known == pd.Timestamp("2025-06-03T23:59:59.999999+08:00")
    assert list(out.frame["known_at_basis"]) == ["announcement"]


def schedule(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "ts_code": [f"60000{i}.SH" for i in range(n)],
            "ann_date": ["20250601"] * n,
            "end_date": ["20250630"] * n,
            "pre_date": ["20250820"] * n,
            "actual_date": [None] * (n - 1) + ["20250603"],
            "modify_date": [None] * n,
        }
    )


def test_disclosure_date_pages_and_a_published_row_gives_the_plan_first(monkeypatch) -> None:
    monkeypatch.setattr(ts_schedule, "_rows_cap", lambda: 2)
    client = StubClient({"disclosure_date": paged(schedule(3), 2)})
    out = TUSHARE.adapter(client).fetch(
        FetchRequest("disclosure_schedule", start=D, end=D), FETCHED
    )
    assert [(p["end_date"], p.get("offset", 0)) for _, p in client.calls] == [
        ("20250630", 0),
        ("20250630", 2),
    ]
    f = out.frame
    assert len(f) == 4  # three plans, and the published one's plan as announced
    published = f[f["symbol"] == "600002.SH"].sort_values("known_at")
    assert published["actual_date"].isna().tolist() == [True, False]
    assert [str(k) for k in published["known_at"]] == [
        "2025-06-01 15:59:59.999999+00:00",
        "2025-06-03 15:59:59.999999+00:00",
    ]


def test_a_schedule_for_a_non_quarter_end_rejects_the_answer() -> None:
    bad = schedule(1).assign(end_date="20250615")
    client = StubClient({"disclosure_date": bad})
    with pytest.raises(VendorError, match="quarter end"):
        TUSHARE.adapter(client).fetch(FetchRequest("disclosure_schedule", start=D, end=D), FETCHED)
