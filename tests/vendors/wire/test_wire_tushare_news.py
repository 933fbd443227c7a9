"""Issue 14, done when: a Tushare token without `major_news` stores `news`. The nightly's news
unit through pitlake's live TushareClient (recorded DataApi replies: every `news` source
answers, `major_news` answers the permission refusal), the real router and ingest's fetch,
gate and commit, without Prefect; the denial is in the ledger's vendor trace."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from pitlake.pipeline.commit import commit
from pitlake.pipeline.fetch import fetch
from pitlake.pipeline.gating import gate
from pitlake.pipeline.planning import nightly_units
from pitlake.pipeline.resources import RunEnv
from pitlake.vendors.registry import build_router
from pitlake.vendors.retry import RetryPolicy
from tests.vendors.wire.http_replay import HttpReplay
from tests.vendors.wire.tushare_wire import TOKEN, serve

SESSION = date(2025, 6, 3)  # after the Dragon Boat holiday: the window is 05-31 … 06-03


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUSHARE_TOKEN", TOKEN)
    monkeypatch.delenv("PITLAKE_TUSHARE_URL", raising=False)


def nightly_news(tmp_path: Path, replay: HttpReplay) -> tuple[list, RunEnv]:
    router = build_router(
        "vendors:tushare", policy=RetryPolicy.no_wait(), env={"PITLAKE_TUSHARE_PER_MIN": "0"}
    )
    env = RunEnv(tmp_path / "lake", source="vendors:tushare", run_id="wire-news", router=router)
    with replay.active():
        units = nightly_units(env, SESSION, ["news"], None)
        batches = [fetch(env, u) for u in units]
        outcomes = commit(env, batches, gate(env, batches, align_on=SESSION))
    return outcomes, env


def stored_news(lake: Path) -> pd.DataFrame:
    files = sorted((lake / "curated" / "news").rglob("*.parquet"))
    return pd.concat([pd.read_parquet(f) for f in files]) if files else pd.DataFrame()


def test_a_token_without_major_news_stores_news(tmp_path: Path, token: None) -> None:
    replay = HttpReplay()
    serve(replay, "news", "normal")
    serve(replay, "major_news", "permission")
    outcomes, env = nightly_news(tmp_path, replay)
    try:
        assert [(o.dataset, o.status) for o in outcomes] == [("news", "OK")]
        entry = env.catalog.ledger_entry("news", SESSION, "*")
        assert str(entry.status) == "OK"
        (step,) = entry.trace
        assert step["vendor"] == "tushare" and step["denied"] == ["major_news"]
        assert "not permitted to this token, skipped: major_news" in step["message"]
    finally:
        env.close()
    news = stored_news(tmp_path / "lake")
    assert set(news["title"]) == {"茅台分红", "央行今日开展1000亿元逆回购操作。"}
    # four days × nine sources asked; major_news asked once a day, refused, never retried
    assert len(replay.served(r"/dataapi/news$")) == 4 * 9
    assert len(replay.served(r"/dataapi/major_news$")) == 4
    assert not replay.unmatched


def test_a_token_with_neither_news_right_is_permission_denied(tmp_path: Path, token: None) -> None:
    replay = HttpReplay()
    serve(replay, "news", "permission")
    serve(replay, "major_news", "permission")
    outcomes, env = nightly_news(tmp_path, replay)
    env.close()
    assert [(o.dataset, o.status) for o in outcomes] == [("news", "PERMISSION_DENIED")]
    assert stored_news(tmp_path / "lake").empty
