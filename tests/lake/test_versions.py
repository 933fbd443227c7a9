"""The versioning rule as a pure function (pitlake.lake.versions.new_versions): frames in,
frames out, no files."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
from pitlake.schemas import get as get_schema

from pitlake.calendar import BEIJING
from pitlake.lake.canonical import canonical_batch
from pitlake.lake.versions import new_versions
from tests.lake.conftest import bar, bj, canonical

QUOTES = get_schema("quotes")
FIRST = pd.Timestamp(datetime(2025, 6, 20, 18, 0, tzinfo=BEIJING)).tz_convert("UTC")
LATER = pd.Timestamp(datetime(2025, 6, 25, 18, 0, tzinfo=BEIJING)).tz_convert("UTC")


def _batch(rows: list[dict], at: pd.Timestamp = FIRST) -> pd.DataFrame:
    return canonical_batch(QUOTES, canonical("quotes", rows), run_id="r", ingested_at=at)


def test_into_an_empty_partition_every_distinct_row_is_a_version() -> None:
    batch = _batch([bar("600519.SH", "2025-06-03", 10.0), bar("600519.SH", "2025-06-04", 11.0)])
    added, revisions = new_versions(QUOTES, batch, None, FIRST)
    assert len(added) == 2 and revisions == 0
    assert set(added["known_at_basis"]) == {"session_close"}


def test_the_same_values_twice_in_one_batch_are_one_version() -> None:
    row = bar("600519.SH", "2025-06-03", 10.0)
    added, _ = new_versions(QUOTES, _batch([row, row]), None, FIRST)
    assert len(added) == 1


def test_values_already_stored_add_nothing() -> None:
    stored = _batch([bar("600519.SH", "2025-06-03", 10.0)])
    again = _batch([bar("600519.SH", "2025-06-03", 10.0)], LATER)
    added, revisions = new_versions(QUOTES, again, stored, LATER)
    assert added.empty and revisions == 0


def test_an_undated_change_is_known_from_when_we_first_saw_it() -> None:
    stored = _batch([bar("600519.SH", "2025-06-03", 10.0)])
    changed = _batch([bar("600519.SH", "2025-06-03", 10.5)], LATER)
    added, revisions = new_versions(QUOTES, changed, stored, LATER)
    assert revisions == 1
    (row,) = added.to_dict("records")
    assert row["known_at"] == LATER and row["known_at_basis"] == "first_seen"


def test_a_change_the_vendor_dates_later_keeps_its_date() -> None:
    stored = _batch([bar("600519.SH", "2025-06-03", 10.0)])
    dated = {**bar("600519.SH", "2025-06-03", 10.5), "known_at": bj("2025-06-24", "09:00")}
    added, revisions = new_versions(QUOTES, _batch([dated], LATER), stored, LATER)
    assert revisions == 0
    assert added["known_at"].iloc[0] == pd.Timestamp(bj("2025-06-24", "09:00"))


def test_two_undated_changes_in_one_batch_keep_the_last_as_current() -> None:
    stored = _batch([bar("600519.SH", "2025-06-03", 10.0)])
    changes = _batch([bar("600519.SH", "2025-06-03", 10.5), bar("600519.SH", "2025-06-03", 10.7)])
    added, revisions = new_versions(QUOTES, changes, stored, LATER)
    assert revisions == 1 and list(added["close"]) == [10.7]
    assert added["known_at_basis"].iloc[0] == "first_seen"


def test_list_values_compare_as_text_and_other_columns_are_left_as_they_are() -> None:
    """Only the spec's list-typed columns are turned into text (an array and a list of the
    same items match); a symbol or a date is compared as it is, unmapped."""
    import numpy as np

    from pitlake.lake.versions import _comparable, _list_columns

    assert _list_columns(get_schema("news")) == {"symbols", "sources"}
    assert _list_columns(QUOTES) == frozenset()
    frame = pd.DataFrame({"symbols": [["600519.SH"], np.array(["600519.SH"]), None]})
    frame["symbol"] = ["600519.SH", "600519.SH", None]
    got = _comparable(frame, ["symbols", "symbol"], frozenset({"symbols"}))
    assert list(got["symbols"][:2]) == ['["600519.SH"]', '["600519.SH"]']
    assert pd.isna(got["symbols"][2])  # no list: left missing, not text
    assert got["symbol"].tolist()[:2] == ["600519.SH", "600519.SH"]
