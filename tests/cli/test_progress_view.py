"""Progress of a long ingest (issue 30): without a terminal a line every interval (chunks
done/total, units, elapsed), with the chunk total known from the start; nothing with --json."""

from __future__ import annotations

import time

import pytest

from pitlake import progress
from pitlake.commands.progress_view import INTERVAL_ENV, ProgressView, line


def test_reports_are_no_ops_until_someone_listens() -> None:
    progress.stop()
    progress.plan_chunks(3)
    progress.advance(2)
    assert progress.snapshot() is None


def test_without_a_terminal_a_line_comes_every_interval(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(INTERVAL_ENV, "0.1")
    with ProgressView("lines", "pitlake backfill x"):
        progress.plan_chunks(4)
        progress.plan(10)
        progress.advance(3)
        progress.chunk_done("quotes 2025-05-01..2025-05-31")
        time.sleep(0.35)
    err = capsys.readouterr().err.splitlines()
    assert len(err) >= 2
    assert err[-1].startswith("pitlake backfill x: 1/4 chunks, 3/10 units, ")
    assert err[-1].endswith("last quotes 2025-05-01..2025-05-31")
    assert progress.snapshot() is None  # the view stops listening when the run ends


def test_json_output_shows_no_progress(capsys: pytest.CaptureFixture[str]) -> None:
    assert ProgressView.mode_for(as_json=True) == "off"
    with ProgressView("off", "t"):
        progress.plan_chunks(2)
        assert progress.snapshot() is None
    assert capsys.readouterr().err == ""


def test_a_line_before_the_chunks_are_known_says_planning() -> None:
    shown = line(progress.Counts(), 3.2, "t")
    assert shown == "t: planning, 0 units, 3 s elapsed"
