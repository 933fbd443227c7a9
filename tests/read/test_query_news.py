"""News as of a cutoff: Beijing-day windows, undated items, symbol filter, statuses."""

from __future__ import annotations

import pytest

from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.statuses import DateStatus, ResultStatus
from tests.lake.conftest import bj, news_frame, news_item, write

A, B = "600519.SH", "000001.SZ"
FIRST_SEEN = bj("2025-06-05", "10:00")


@pytest.fixture
def feed(store: LakeStore) -> LakeStore:
    write(
        store,
        "news",
        news_frame(
            [
                news_item(
                    "late-night", "深夜公告", bj("2025-06-02", "23:30"), [A]
                ),  # 15:30 UTC 06-02
                news_item(
                    "morning", "早间快讯", bj("2025-06-03", "07:30"), [A, B]
                ),  # 23:30 UTC 06-02
                news_item("noon", "午间消息", bj("2025-06-03", "12:00"), [B]),
            ]
        ),
        ingested_at=bj("2025-06-04", "08:00"),
    )
    write(
        store,
        "news",
        news_frame([news_item("undated", "无时间新闻", None, [A])], fetched_at=FIRST_SEEN),
        ingested_at=FIRST_SEEN,
    )
    return store


def ids(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [d["news_id"] for d in result.data]


def test_windows_are_beijing_days_not_utc_days(feed: LakeStore, lake: Lake) -> None:
    r = lake.news(start="2025-06-03", end="2025-06-03", as_of="2025-06-04")
    assert ids(r) == ["noon", "morning"]  # newest first; 23:30 on 06-02 is the day before
    assert (
        lake.news(start="2025-06-02", end="2025-06-02", as_of="2025-06-04").data[0]["news_id"]
        == "late-night"
    )
    assert r.date_status is DateStatus.NOT_APPLICABLE and r.requested_date == "2025-06-03"
    row = r.data[1]
    assert row["published_at"] == row["known_at"] == "2025-06-03T07:30:00+08:00"
    assert row["symbols"] == [A, B] and row["sources"] == ["akshare:em"]


def test_items_after_the_cutoff_never_appear(feed: LakeStore, lake: Lake) -> None:
    r = lake.news(start="2025-06-01", end="2025-06-10", as_of="2025-06-03T09:00+08:00")
    assert ids(r) == ["morning", "late-night"]
    assert all(d["known_at"] <= "2025-06-03T09:00:00+08:00" for d in r.data)


def test_an_undated_item_is_known_from_first_sight(feed: LakeStore, lake: Lake) -> None:
    before = lake.news(A, start="2025-06-01", end="2025-06-05", as_of="2025-06-05T09:59+08:00")
    assert "undated" not in ids(before)
    after = lake.news(A, start="2025-06-01", end="2025-06-05", as_of="2025-06-05T10:00+08:00")
    assert ids(after)[0] == "undated"
    assert after.data[0]["published_at"] is None
    assert after.data[0]["known_at_basis"] == "first_seen"


def test_symbol_filter_and_lookback(feed: LakeStore, lake: Lake) -> None:
    assert ids(lake.news(B, as_of="2025-06-04", lookback_days=3)) == ["noon", "morning"]
    assert ids(lake.news([A], as_of="2025-06-04", lookback_days=3)) == ["morning", "late-night"]
    assert ids(lake.news(A, as_of="2025-06-04", lookback_days=1)) == []  # only 06-04 itself
    default = lake.news(as_of="2025-06-09")  # 7 Beijing days ending on the cutoff's day
    assert set(ids(default)) == {"morning", "noon", "undated"}  # 06-02 23:30 is outside
    assert default.meta["window"] == {"start": "2025-06-03", "end": "2025-06-09"}


def test_limit_truncates_and_says_so(feed: LakeStore, lake: Lake) -> None:
    r = lake.news(as_of="2025-06-09", limit=2)
    assert len(r.data) == 2 and r.meta["truncated"] is True and r.meta["total_rows"] == 3


def test_empty_window_status_comes_from_the_ledger(
    feed: LakeStore, lake: Lake, sqlite_catalog: Catalog
) -> None:
    ask = {"start": "2025-06-20", "end": "2025-06-21", "as_of": "2025-06-22"}
    assert lake.news(**ask).status is ResultStatus.UNKNOWN
    sqlite_catalog.record_ledger("news", "2025-06-21", "RATE_LIMITED", message="quota")
    limited = lake.news(**ask)
    assert limited.status is ResultStatus.RATE_LIMITED and limited.retryable is True
    sqlite_catalog.record_ledger("news", "2025-06-22", "OK", rows=0)
    assert lake.news(**ask).status is ResultStatus.NO_DATA


def test_a_window_after_the_cutoff_is_not_ready(feed: LakeStore, lake: Lake) -> None:
    r = lake.news(start="2025-06-10", end="2025-06-11", as_of="2025-06-05")
    assert r.status is ResultStatus.NOT_READY and r.data == []
