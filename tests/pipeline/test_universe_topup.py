"""A universe-scope window (news) records the symbols it asked; a later run over the same
window asks only the listings the security master gained since, and the lake then holds what
one run over the grown master holds (issue 32 item 1, decision 44). Over the bundled sample:
603398.SH lists on 2025-06-10 and has news in April; a replay copy without it in its
stock_basic is the master as an earlier run saw it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.pipeline.backfill import backfill_chunk
from pitlake.pipeline.failures import fail_units
from pitlake.pipeline.planning import backfill_units
from pitlake.pipeline.resources import RunEnv

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
NEW = "603398.SH"
APRIL = (date(2025, 4, 1), date(2025, 4, 30))
JUNE = (date(2025, 6, 1), date(2025, 6, 30))


@pytest.fixture
def without_new(tmp_path: Path) -> Path:
    """The sample as a vendor answered before the listing: stock_basic lacks 603398.SH."""
    dst = tmp_path / "replay"
    shutil.copytree(SAMPLE, dst)
    basic = dst / "tushare" / "stock_basic.jsonl"
    lines = [line for line in basic.read_text("utf-8").splitlines() if NEW not in line]
    basic.write_text("".join(f"{line}\n" for line in lines), "utf-8")
    return dst


class Spy:
    """The symbols of every news request a RunEnv's router is asked."""

    def __init__(self, env: RunEnv) -> None:
        self.asked: list[tuple[str, ...]] = []
        route = env.router.route

        def spy(req: Any, at: Any) -> Any:
            if req.dataset == "news":
                self.asked.append(tuple(req.symbols or ()))
            return route(req, at)

        env.router.route = spy  # type: ignore[method-assign]


def _env(lake: Path, replay: Path, run_id: str) -> Iterator[tuple[RunEnv, Spy]]:
    env = RunEnv(lake, source=f"replay:{replay}", run_id=run_id)
    try:
        yield env, Spy(env)
    finally:
        env.close()


def _news(lake: Path) -> pd.DataFrame:
    files = sorted((lake / "curated" / "news").rglob("*.parquet"))
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)


def _ok(outcomes: list[Any]) -> None:
    assert outcomes and all(o.status in ("OK", "NO_DATA") for o in outcomes), outcomes


def test_a_listing_stored_later_gets_its_news_for_a_window_already_fetched(
    tmp_path: Path, without_new: Path
) -> None:
    lake = tmp_path / "lake"
    for env, spy in _env(lake, without_new, "before"):
        _ok(backfill_chunk(env, "securities", *APRIL, None))
        _ok(backfill_chunk(env, "news", *APRIL, None))
        first = env.universe()
        assert first and NEW not in first
        assert spy.asked == [first]
        entry = env.catalog.ledger_entry("news", APRIL[1], WHOLE_MARKET)
        assert entry.symbols_asked == frozenset(first)
    assert not any(NEW in list(s) for s in _news(lake)["symbols"])
    before = _news(lake)

    for env, spy in _env(lake, SAMPLE, "after"):
        _ok(backfill_chunk(env, "securities", *JUNE, None))  # the master gains 603398.SH
        assert NEW in (env.universe() or ())
        _ok(backfill_chunk(env, "news", *APRIL, None))
        assert spy.asked == [(NEW,)]  # the symbols already covered are not asked again
        entry = env.catalog.ledger_entry("news", APRIL[1], WHOLE_MARKET)
        assert entry.symbols_asked == frozenset(env.universe() or ())
        assert entry.status == "OK" and entry.rows > 0
        assert backfill_chunk(env, "news", *APRIL, None) == []  # now covered
        assert spy.asked == [(NEW,)]
    after = _news(lake)
    assert set(before["news_id"]) < set(after["news_id"])  # the first fetch's rows kept
    assert any(NEW in list(s) for s in after["symbols"])

    full = tmp_path / "full"  # one run over the grown master
    for env, _ in _env(full, SAMPLE, "full"):
        _ok(backfill_chunk(env, "securities", *JUNE, None))
        _ok(backfill_chunk(env, "news", *APRIL, None))
    whole = _news(full)
    assert len(after) == len(whole)  # no item stored twice
    assert sorted(after["news_id"]) == sorted(whole["news_id"])


def test_an_entry_recorded_before_the_symbols_were_is_asked_over_the_whole_master(
    tmp_path: Path,
) -> None:
    """NULL cannot say which symbols were asked: the window is asked again, once."""
    lake = tmp_path / "lake"
    for env, spy in _env(lake, SAMPLE, "old"):
        _ok(backfill_chunk(env, "securities", *APRIL, None))
        _ok(backfill_chunk(env, "news", *APRIL, None))
        with env.catalog.engine.begin() as conn:
            conn.exec_driver_sql("UPDATE ledger SET symbols_asked = NULL")
        rows = len(_news(lake))
        _ok(backfill_chunk(env, "news", *APRIL, None))
        universe = env.universe()
        assert spy.asked == [universe, universe]
        assert len(_news(lake)) == rows  # asked again, nothing stored twice
        assert backfill_chunk(env, "news", *APRIL, None) == []
        assert len(spy.asked) == 2


def test_a_failed_top_up_vouches_for_no_symbol_and_the_window_is_asked_whole_again(
    tmp_path: Path, without_new: Path
) -> None:
    lake = tmp_path / "lake"
    for env, _ in _env(lake, without_new, "before"):
        _ok(backfill_chunk(env, "securities", *APRIL, None))
        _ok(backfill_chunk(env, "news", *APRIL, None))
    for env, spy in _env(lake, SAMPLE, "after"):
        _ok(backfill_chunk(env, "securities", *JUNE, None))
        (top_up,) = backfill_units(env, "news", *APRIL, None)
        assert top_up.fetch_symbols == (NEW,) and top_up.covered
        fail_units(env, [top_up], ValueError("the answer could not be parsed"), step="fetch")
        entry = env.catalog.ledger_entry("news", APRIL[1], WHOLE_MARKET)
        assert not entry.successful and entry.symbols_asked is None
        (again,) = backfill_units(env, "news", *APRIL, None)
        assert again.fetch_symbols == env.universe() and again.covered is None
        _ok(backfill_chunk(env, "news", *APRIL, None))
        assert spy.asked == [env.universe()]
        entry = env.catalog.ledger_entry("news", APRIL[1], WHOLE_MARKET)
        assert entry.status == "OK" and entry.symbols_asked == frozenset(env.universe() or ())
