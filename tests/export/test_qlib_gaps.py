"""The export vouches for every read by its ledger status: a window holding failed or
never-fetched sessions, or bars without a factor, fails the export (nothing written, CLI exit
3) unless gaps are allowed, and a read that failed whole is a gap, never "no factor"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pitlake.cli import app
from pitlake.export.qlib import ExportIncompleteError, write_qlib
from pitlake.statuses import ResultStatus
from tests.export.qlib_lake import NO_FACTOR


def test_a_window_with_failed_sessions_fails_and_writes_nothing(lake: Any, tmp_path: Path) -> None:
    target = tmp_path / "qlib"
    with pytest.raises(ExportIncompleteError) as failed:
        write_qlib(lake, target, "2025-06-03", "2025-06-11")
    assert failed.value.status is ResultStatus.UPSTREAM_ERROR
    assert "UPSTREAM_ERROR" in str(failed.value) and "--allow-gaps" in str(failed.value)
    assert not target.exists() and not list(tmp_path.glob(".qlib.building-*"))


def test_bars_without_a_factor_fail_too(lake: Any, tmp_path: Path) -> None:
    with pytest.raises(ExportIncompleteError) as failed:
        write_qlib(lake, tmp_path / "qlib", "2025-06-03", "2025-06-04")
    assert failed.value.status is ResultStatus.NOT_READY and NO_FACTOR in str(failed.value)


def test_a_window_the_lake_holds_exports_without_gaps(lake: Any, tmp_path: Path) -> None:
    summary = write_qlib(lake, tmp_path / "qlib", "2025-06-05", "2025-06-06")
    assert summary.gaps == {} and summary.gap_runs == [] and summary.featured == 2


def test_a_read_that_failed_whole_is_a_gap_not_no_factor(lake: Any, tmp_path: Path) -> None:
    """06-09 … 06-11: every quotes fetch failed, so the hfq read holds no row at all: with
    gaps allowed the export writes those sessions empty and counts them by status; no
    symbol is named as lacking a factor (that list is for bars without one)."""
    summary = write_qlib(lake, tmp_path / "qlib", "2025-06-09", "2025-06-11", allow_gaps=True)
    assert summary.no_factor == []
    assert summary.featured == 0
    assert {"UPSTREAM_ERROR", "RATE_LIMITED", "PERMISSION_DENIED"} <= set(summary.gaps)
    assert {r["status"] for r in summary.gap_runs} >= {"UPSTREAM_ERROR", "RATE_LIMITED"}


def test_the_command_exits_3_with_one_line_and_writes_nothing(
    export_lake: Path, tmp_path: Path
) -> None:
    target = tmp_path / "qlib"
    args = ["export", "qlib", str(target), "--start", "2025-06-03", "--end", "2025-06-11"]
    result = CliRunner().invoke(app, [*args, "--lake", str(export_lake)])
    assert result.exit_code == 3, result.output
    [line] = result.stderr.splitlines()
    assert line.startswith("error: export qlib: quotes (hfq)") and "UPSTREAM_ERROR" in line
    assert result.stdout == "" and not target.exists()
    allowed = CliRunner().invoke(app, [*args, "--allow-gaps", "--lake", str(export_lake)])
    assert allowed.exit_code == 0, allowed.output
    assert target.is_dir()
