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
