"""`pitlake export qlib`: one JSON summary line on success (the lake left as it was), one
error line and exit 2 for every bad argument (nothing written)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitlake import failures
from pitlake.cli import app


def files_of(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_the_command_writes_a_directory_and_leaves_the_lake_untouched(
    export_lake: Path, tmp_path: Path
) -> None:
    before = files_of(export_lake)
    target = tmp_path / "qlib"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pitlake.cli",
            "export",
            "qlib",
            str(target),
            "--start",
            "2025-05-26",
            "--end",
            "2025-06-11",
            "--as-of",
            "2025-12-31",
            "--allow-gaps",
            "--lake",
            str(export_lake),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    [line] = proc.stdout.splitlines()
    summary = json.loads(line)
    assert summary["sessions"] == 12 and summary["instruments"] == 3
    assert summary["markets"] == {"csi300": 2}  # symbols that were members (B in two spells)
    assert summary["as_of"] == "2025-12-31T23:59:59.999999+08:00"
    assert summary["featured"] == 2 and summary["no_factor"] == ["600036.SH"]
    assert summary["gaps"]["UPSTREAM_ERROR"] == 4 and summary["gaps"]["UNKNOWN"] == 16
    assert (target / "calendars" / "day.txt").read_text().splitlines()[0] == "2025-05-26"
    assert (target / "features" / "sh600519" / "close.day.bin").exists()
    assert not (target / "features" / "sh600036").exists()  # bars without a factor
    assert (target / "financial" / "sz000001" / "net_profit_q.data").exists()
    assert files_of(export_lake) == before
    assert not list(tmp_path.glob(".qlib.building-*"))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--start", "2025-06-11", "--end", "2025-05-26"], "is after end"),
        (["--start", "2025-13-01", "--end", "2025-06-11"], "invalid date"),
        (["--start", "2025-05-26", "--end", "2025-06-11", "--as-of", "soon"], "invalid as_of"),
        (["--start", "2025-06-07", "--end", "2025-06-08"], "no XSHG session"),
        (["--end", "2025-06-11"], "Missing option '--start'"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    export_lake: Path, tmp_path: Path, args: list[str], says: str
) -> None:
    target = tmp_path / "qlib"
    result = CliRunner().invoke(
        app, ["export", "qlib", str(target), *args, "--lake", str(export_lake)]
    )
    assert result.exit_code == failures.EXIT_INVALID == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and says in line, line
    assert result.stdout == "" and not target.exists()


def test_a_directory_holding_files_is_refused(export_lake: Path, tmp_path: Path) -> None:
    target = tmp_path / "qlib"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    result = CliRunner().invoke(
        app,
        [
            "export",
            "qlib",
            str(target),
            "--start",
            "2025-05-26",
            "--end",
            "2025-06-11",
            "--lake",
            str(export_lake),
        ],
    )
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == f"error: export qlib: {target} exists and is not an empty directory"
    )
    assert [p.name for p in target.iterdir()] == ["keep.txt"]


def test_a_directory_without_a_catalog_is_not_a_lake(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "export",
            "qlib",
            str(tmp_path / "q"),
            "--start",
            "2025-05-26",
            "--end",
            "2025-06-11",
            "--lake",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 4 and "not a pitlake lake" in result.stderr
    assert not (tmp_path / "q").exists()
