"""Date-only facts fetched during their own Beijing day (a dragon-tiger list at 18:30, an
announcement at 22:30) are stored dated at the day's end; instants may not lie in the future."""

from datetime import date

import pytest

from pitlake.lake.store import LakeStore
from pitlake.pit import end_of_beijing_day
from tests.lake.conftest import bar, bj, canonical


def _lhb(close: float) -> dict:
    return {
        "symbol": "600234.SH",
        "trade_date": "2025-06-03",
        "reason": "日涨幅偏离值达7%",
        "close": close,
    }


def test_day_end_fact_fetched_same_evening_is_stored(store: LakeStore) -> None:
    evening = bj("2025-06-03", "18:30")
    frame = canonical("dragon_tiger", [_lhb(5.0)], fetched_at=evening)
    result = store.write("dragon_tiger", frame, run_id="r1", ingested_at=evening)
    assert result.rows_added == 1
    stored = store.read_all("dragon_tiger")
    assert stored["known_at"].iloc[0] == end_of_beijing_day(date(2025, 6, 3))


def test_day_end_fact_from_a_later_day_is_refused(store: LakeStore) -> None:
    evening = bj("2025-06-02", "18:30")
    frame = canonical("dragon_tiger", [_lhb(5.0)], fetched_at=evening)
    with pytest.raises(ValueError, match="future"):
        store.write("dragon_tiger", frame, run_id="r1", ingested_at=evening)


def test_pre_close_bar_is_still_refused(store: LakeStore) -> None:
    noon = bj("2025-06-03", "12:00")
    frame = canonical("quotes", [bar("600519.SH", "2025-06-03", 10.0)], fetched_at=noon)
    with pytest.raises(ValueError, match="future"):
        store.write("quotes", frame, run_id="r1", ingested_at=noon)


def test_same_day_correction_supersedes_not_shadowed(store: LakeStore) -> None:
    first = bj("2025-06-03", "18:30")
    second = bj("2025-06-03", "22:30")
    store.write(
        "dragon_tiger",
        canonical("dragon_tiger", [_lhb(5.0)], fetched_at=first),
        run_id="r1",
        ingested_at=first,
    )
    store.write(
        "dragon_tiger",
        canonical("dragon_tiger", [_lhb(5.5)], fetched_at=second),
        run_id="r2",
        ingested_at=second,
    )
    stored = store.read_all("dragon_tiger").sort_values("known_at")
    assert stored["close"].tolist() == [5.0, 5.5]
    # The correction has no vendor date: first_seen, strictly after the version it replaces.
    assert stored["known_at_basis"].tolist() == ["day_end", "first_seen"]
    assert stored["known_at"].iloc[1] > stored["known_at"].iloc[0]
    assert stored["known_at"].iloc[1].date() >= date(2025, 6, 3)
