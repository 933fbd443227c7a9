"""AkShare's csindex lists are the *current* list only (over the bundled sample's replay): a
list is dated by the fetch's Beijing day and known from the fetch (first_seen), never
back-dated to the 日期 the file states; a window without the fetch's day gets no rows; an
index without a weights file falls back to the cons list (no weights)."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pandas as pd
import pytest

from pitlake.calendar import BEIJING
from pitlake.errors import NoMarketDataError
from pitlake.vendors.akshare import PLUGIN
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.replay.source import ReplaySource

SAMPLE = Path(__file__).resolve().parents[3] / "sample"
SEEN = datetime(2025, 7, 2, 20, 30, tzinfo=BEIJING)  # an evening after the list's 日期


def fetch(req: FetchRequest, at: datetime = SEEN) -> pd.DataFrame:
    adapter = PLUGIN.adapter(ReplaySource(SAMPLE).client("akshare"))
    return adapter.fetch(req, at).frame


def test_a_current_list_is_first_seen_at_the_fetch_never_back_dated() -> None:
    frame = fetch(FetchRequest("index_members", trade_date=SEEN.date(), symbols=("000300.SH",)))
    assert set(frame["trade_date"]) == {SEEN.date()}  # not the file's 2025-06-30
    assert set(frame["vendor_date"]) == {date(2025, 6, 30)}
    assert (frame["known_at"] == pd.Timestamp(SEEN).tz_convert("UTC")).all()
    assert set(frame["known_at_basis"]) == {"first_seen"} and frame["current_list"].all()
    assert "688981.SH" in set(frame["symbol"]) and frame["weight"].notna().all()


def test_a_window_without_the_fetch_day_has_no_rows() -> None:
    with pytest.raises(NoMarketDataError, match="only the current lists"):
        fetch(FetchRequest("index_members", start=date(2025, 6, 1), end=date(2025, 6, 30)))


def test_an_index_without_a_weights_file_falls_back_to_its_cons_list() -> None:
    frame = fetch(FetchRequest("index_members", trade_date=SEEN.date(), symbols=("000688.SH",)))
    assert list(frame["symbol"]) == ["688981.SH"] and frame["weight"].isna().all()
