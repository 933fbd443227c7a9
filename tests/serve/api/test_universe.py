"""The universe (the securities dataset's question) on the known lake (lakebuild.py): who was
listed, named, ST and suspended at an instant, as known then; bad arguments are one clear
line; a lake that never fetched securities answers UNKNOWN, never an empty OK list."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitlake.lake.catalog import Catalog
from pitlake.read.lake import Lake
from tests.serve.api.lakebuild import NOW, A, B, C


def universe(lake_dir: Path, *args: object, **kw: object) -> dict[str, dict]:
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        r = lake.universe(*args, **kw)
    assert r.status == "OK", r.message
    return {d["symbol"]: d for d in r.data}


def test_as_of_is_positional_and_a_date_means_the_end_of_that_beijing_day(lake_dir: Path) -> None:
    got = universe(lake_dir, "2025-06-04")
    assert set(got) == {A, B, C}
    assert got[A]["name"] == "贵州茅台" and got[A]["is_suspended"] is True
    assert got[B]["name"] == "ST平安" and got[B]["is_st"] is True
    assert got[A]["board"] == "main" and got[A]["exchange"] == "SH"
    assert got[A]["list_date"] == "2001-08-27"


def test_a_name_change_announced_after_the_cutoff_is_not_applied(lake_dir: Path) -> None:
    """B's ST name (in force from 06-04) was announced on 06-03: not known at 06-03 noon, and
    not yet in force at the end of 06-03 either."""
    noon = universe(lake_dir, as_of="2025-06-03T12:00:00+08:00")
    evening = universe(lake_dir, as_of="2025-06-03")
    for got in (noon, evening):
        assert got[B]["name"] == "平安银行" and got[B]["is_st"] is False


def test_a_delisting_known_later_does_not_remove_the_company_earlier(lake_dir: Path) -> None:
    """C's listing closes on 06-04 (delisted from 06-05): that version is known from 06-05
    on; earlier cutoffs hold C, later ones do not."""
    assert C in universe(lake_dir, "2025-06-04")
    assert C in universe(lake_dir, as_of="2025-06-04T23:59:00+08:00")
    assert C not in universe(lake_dir, "2025-06-05")
    assert C not in universe(lake_dir, "2025-06-06")


def test_a_suspension_is_public_from_the_call_auction(lake_dir: Path) -> None:
    before = universe(lake_dir, as_of="2025-06-04T09:00:00+08:00")
    after = universe(lake_dir, as_of="2025-06-04T09:15:00+08:00")
    assert before[A]["is_suspended"] is False and after[A]["is_suspended"] is True
    assert universe(lake_dir, "2025-06-05")[A]["is_suspended"] is False


def test_filters(lake_dir: Path) -> None:
    assert set(universe(lake_dir, "2025-06-04", include_st=False)) == {A, C}
    assert set(universe(lake_dir, "2025-06-04", include_suspended=False)) == {B, C}
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        star = lake.universe("2025-06-04", board="STAR")
    assert star.status == "NO_DATA" and star.data == []  # fetched; nothing on STAR
    assert set(universe(lake_dir, "2025-06-04", board="MAIN")) == {A, B, C}  # case forgiven


@pytest.mark.parametrize(
    ("kw", "text"),
    [
        ({"board": "nasdaq"}, "unknown board"),
        ({"include_st": "maybe"}, "include_st"),
        ({"as_of": "yesterday"}, "as_of"),
    ],
)
def test_bad_arguments_are_one_clear_line(lake_dir: Path, kw: dict, text: str) -> None:
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        r = lake.universe(**kw)
    assert r.status == "INVALID_ARGUMENTS" and text in r.message and "\n" not in r.message


def test_the_answer_is_stale_past_the_last_fetch_and_never_after_the_cutoff(
    lake_dir: Path,
) -> None:
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        r = lake.universe("2025-06-10")
        assert r.status == "OK" and r.date_status == "STALE"
        assert r.effective_trade_date == "2025-06-06"
        early = lake.universe(as_of="2025-06-04T09:00:00+08:00")
    cutoff = "2025-06-04T09:00:00+08:00"
    assert all(d["known_at"] <= cutoff for d in early.data)


def test_a_lake_that_never_fetched_securities_is_unknown_not_empty(tmp_path: Path) -> None:
    Catalog(lake_root=tmp_path).close()  # a lake with a catalog and nothing in it
    with Lake(tmp_path, clock=lambda: NOW) as lake:
        r = lake.universe("2025-06-04")
    assert r.status == "UNKNOWN" and r.data == []
    assert "unknown, not empty" in r.message


def test_the_sql_view_holds_the_rows_known_at_the_cutoff(lake_dir: Path) -> None:
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        rows = lake.sql(
            "SELECT symbol, end_date FROM securities WHERE attribute = 'listing' ORDER BY symbol",
            as_of="2025-06-04",
        ).rows
        later = lake.sql(
            f"SELECT end_date FROM securities WHERE attribute = 'listing' AND symbol = '{C}'",
            as_of="2025-06-05",
        ).rows
    assert [(r["symbol"], r["end_date"]) for r in rows] == [(B, None), (C, None), (A, None)]
    assert later == [{"end_date": "2025-06-04"}]
