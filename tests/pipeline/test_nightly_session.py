"""The nightly session as a plain function (pitlake.pipeline.nightly.run_session): what the
Prefect flow does, called without Prefect."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from pitlake import schemas
from pitlake.pipeline.nightly import run_session
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.summary import summarize

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
D = date(2025, 6, 3)


@pytest.fixture
def env(tmp_path: Path) -> RunEnv:
    e = RunEnv(tmp_path / "lake", source=f"replay:{SAMPLE}", run_id="run-n")
    yield e
    e.close()


def test_a_session_ends_every_dataset_with_its_ledger_status(env: RunEnv) -> None:
    outcomes = run_session(env, D, schemas.NIGHTLY_DATASETS)
    assert [o.dataset for o in outcomes] == list(schemas.NIGHTLY_DATASETS)
    summary = summarize(outcomes)
    assert summary.completed, summary.to_dict()
    got = {d.dataset: d for d in summary.datasets}
    assert got["quotes"].status == "OK" and got["quotes"].rows > 0
    for o in outcomes:
        entry = env.catalog.ledger_entry(o.dataset, D)
        assert entry is not None and str(entry.status) == o.status
    assert env.store.files("quotes"), "the session's rows were written"


def test_a_non_session_is_skipped_with_the_reason(env: RunEnv) -> None:
    saturday = date(2025, 6, 7)
    outcomes = run_session(env, saturday, ["quotes", "news"])
    assert [o.status for o in outcomes] == ["SKIPPED", "SKIPPED"]
    assert outcomes[0].message == "2025-06-07 is not an XSHG session (Saturday)"
    assert str(env.catalog.ledger_entry("news", saturday).status) == "SKIPPED"


def test_the_stages_wait_only_for_what_a_later_wave_reads() -> None:
    from pitlake.pipeline.planning import session_stages

    stages = session_stages(list(schemas.NIGHTLY_DATASETS))
    (states, none), (first, after_states), (later, needs) = stages
    assert none == [] and after_states == states == list(schemas.GATE_FACT_DATASETS)
    assert "financials" in first and "limit_prices" in later
    # the limit lists wait for tonight's master and bars, not for the statements
    assert needs == [*schemas.GATE_FACT_DATASETS, schemas.UNIVERSE_SOURCE]
    # without a bars-checked dataset in it, a later wave waits for the master alone
    assert session_stages(["securities", "quotes", "news"])[-1] == (["news"], ["securities"])


def test_a_slow_statements_unit_holds_up_no_later_wave(
    env: RunEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reporting night's statements take minutes of quota; the limit lists and news
    (the last wave) read only the master and the bars, so they land meanwhile."""
    import threading

    from pitlake.pipeline import nightly

    later_done = threading.Event()
    financials_waited: list[bool] = []
    real = nightly.ingest_unit

    def unit(env_: RunEnv, u, day):  # type: ignore[no-untyped-def]
        if u.dataset == "financials":  # finishes only once the last wave has
            financials_waited.append(later_done.wait(timeout=60))
        out = real(env_, u, day)
        if u.dataset == "limit_prices":
            later_done.set()
        return out

    monkeypatch.setattr(nightly, "ingest_unit", unit)
    outcomes = run_session(
        env, D, ["securities", "new_shares", "quotes", "financials", "limit_prices", "news"]
    )
    assert financials_waited == [True], "the limit prices waited for the statements"
    assert {o.dataset: o.status for o in outcomes}["limit_prices"] == "OK"
