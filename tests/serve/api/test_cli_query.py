"""`pitlake query` (issue item 4): the envelope as JSON or a readable table, exit codes by
status, --lake defaults, and a fast path free of Prefect and Great Expectations."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pitlake.schemas import NIGHTLY_DATASETS
from typer.testing import CliRunner

from pitlake.cli import app
from tests.serve.api.conftest import assert_envelope
from tests.serve.api.lakebuild import A, B

ROOT = Path(__file__).resolve().parents[3]


def run(lake: Path | None, *args: str) -> tuple[int, str]:
    argv = ["query", *args] + (["--lake", str(lake)] if lake else [])
    result = CliRunner().invoke(app, argv)
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("args", "status", "code"),
    [
        (["quotes", "-s", A, "--date", "2025-06-07", "--as-of", "2025-06-08"], "OK", 0),
        (["dragon-tiger", "-s", B, "--date", "2025-06-04", "--as-of", "2025-06-05"], "NO_DATA", 0),
        (["quotes", "-s", "../../etc/passwd"], "INVALID_ARGUMENTS", 2),
        (["quotes", "-s", A, "--date", "2025-02-30"], "INVALID_ARGUMENTS", 2),
        (["prices", "-s", A], "INVALID_ARGUMENTS", 2),
        (["news", "--adjust", "qfq"], "INVALID_ARGUMENTS", 2),
        (["calendar", "-s", A], "INVALID_ARGUMENTS", 2),
        (
            ["quotes", "-s", A, "--date", "2025-06-06", "--as-of", "2025-06-06T14:00:00+08:00"],
            "NOT_READY",
            3,
        ),
        (["quotes", "-s", A, "--date", "2025-06-09", "--as-of", "2025-06-12"], "UPSTREAM_ERROR", 3),
        (["quotes", "-s", A, "--date", "2025-06-10", "--as-of", "2025-06-12"], "RATE_LIMITED", 3),
        (["dragon-tiger", "--date", "2025-06-10", "--as-of", "2025-06-12"], "UNKNOWN", 3),
        (["snapshot", "-s", A, "--date", "2025-06-06", "--as-of", "2025-06-08"], "NOT_READY", 3),
        (["status", "--as-of", "2025-06-08"], "OK", 3),  # financials 44 sessions behind
    ],
)
def test_json_envelope_and_exit_code(
    lake_dir: Path, args: list[str], status: str, code: int
) -> None:
    exit_code, out = run(lake_dir, *args, "--json")
    body = assert_envelope(json.loads(out))
    assert body["status"] == status
    assert exit_code == code


def test_query_status_exits_3_past_the_staleness_threshold(
    lake_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cron and monitoring read the exit code: 3 when any dataset is more than
    $PITLAKE_STALE_SESSIONS sessions behind (or never fetched), 0 when none is."""
    args = ["status", "--as-of", "2025-06-08", "--json"]
    code, out = run(lake_dir, *args)
    body = json.loads(out)
    assert code == 3 and body["status"] == "OK"
    assert body["meta"]["stale"] == ["financials"] and body["meta"]["stale_threshold"] == 1
    assert [r["dataset"] for r in body["data"] if r["stale"]] == ["financials"]
    assert "Stale (more than 1 session(s) behind, or never fetched): financials" in body["message"]
    monkeypatch.setenv("PITLAKE_STALE_SESSIONS", "44")
    code, out = run(lake_dir, *args)
    assert code == 0 and json.loads(out)["meta"]["stale"] == []
    monkeypatch.delenv("PITLAKE_STALE_SESSIONS")
    code, out = run(lake_dir, "status", "--as-of", "2025-06-12", "--json")  # 4+ behind
    assert code == 3 and json.loads(out)["meta"]["stale"] == list(NIGHTLY_DATASETS)  # every one


def test_a_corrupt_lake_exits_4(writable_lake: Path) -> None:
    [part] = (writable_lake / "curated" / "quotes").rglob("*.parquet")
    part.write_bytes(b"PAR1 not really")
    exit_code, out = run(writable_lake, "quotes", "-s", A, "--date", "2025-06-05", "--json")
    assert exit_code == 4 and json.loads(out)["meta"]["fault"] == "storage"


def test_the_readable_output_has_a_status_line_and_rows(lake_dir: Path) -> None:
    exit_code, out = run(
        lake_dir, "quotes", "-s", "600519", "--date", "2025-06-07", "--as-of", "2025-06-08"
    )
    assert exit_code == 0
    first = " ".join(out.splitlines()[:3])
    for part in ("OK", "requested 2025-06-07", "effective 2025-06-06", "LATEST_TRADING_DAY"):
        assert part in first
    assert "as_of" in first and "source tushare" in first
    assert "not an XSHG session" in out  # the message
    assert "600519.SH" in out and "1,504" in out  # a row (close)


def test_a_readable_table_sent_to_a_pipe_keeps_each_row_on_one_line(
    lake_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # CliRunner's stdout is not a terminal
    _, out = run(
        lake_dir,
        "quotes",
        "-s",
        A,
        "--start",
        "2025-06-03",
        "--end",
        "2025-06-06",
        "--as-of",
        "2025-06-08",
    )
    # four sessions, many fields: one line per field, each holding all four values unfolded
    [known_at] = [line for line in out.splitlines() if line.startswith("│ known_at ")]
    assert known_at.count("+08:00") == 4, out
    [symbols] = [line for line in out.splitlines() if line.startswith("│ symbol ")]
    assert symbols.count(A) == 4


def test_the_readable_snapshot_shows_each_section(lake_dir: Path) -> None:
    code, out = run(
        lake_dir, "snapshot", "-s", f"{A},{B}", "--date", "2025-06-06", "--as-of", "2025-06-08"
    )
    assert code == 3
    assert "NOT aligned" in out
    for title in (
        "[snapshot]",
        "[quotes]",
        "[valuation]",
        "[dragon_tiger]",
        "[financials]",
        "[news]",
    ):
        assert title in out


def test_readable_failures_say_why(lake_dir: Path) -> None:
    code, out = run(lake_dir, "quotes", "-s", A, "--date", "2025-06-09", "--as-of", "2025-06-12")
    assert code == 3 and "UPSTREAM_ERROR" in out and "retryable" in out
    assert "read timed out" in out


def test_lake_defaults_to_pitlake_home_then_dot_lake(
    lake_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["calendar", "--date", "2025-06-06", "--as-of", "2025-06-06", "--json"]
    monkeypatch.chdir(tmp_path)
    code, out = run(None, *args)
    assert code == 4 and "not a pitlake lake: lake" in json.loads(out)["message"]
    monkeypatch.setenv("PITLAKE_HOME", str(lake_dir))
    assert run(None, *args)[0] == 0
    monkeypatch.delenv("PITLAKE_HOME")
    (tmp_path / "lake").symlink_to(lake_dir)
    assert run(None, *args)[0] == 0


HEAVY_CHECK = """
import sys
from pitlake.cli import app
try:
    app({argv!r})
except SystemExit as e:
    code = e.code
heavy = sorted(
    m for m in sys.modules
    if m.split(".")[0] in ("prefect", "great_expectations", "fastapi", "fastmcp", "uvicorn",
                           "akshare", "tushare", "dask", "distributed")
)
print("HEAVY=" + ",".join(heavy), file=sys.stderr)
sys.exit(code or 0)
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["query", "--help"],
        ["query", "quotes", "-s", A, "--date", "2025-06-05", "--as-of", "2025-06-06", "--json"],
        ["query", "snapshot", "-s", A, "--date", "2025-06-05", "--as-of", "2025-06-06"],
    ],
    ids=["help", "query-help", "query-json", "query-table"],
)
def test_help_and_query_import_neither_prefect_nor_great_expectations(
    lake_dir: Path, argv: list[str]
) -> None:
    if argv[0] == "query" and argv[1] != "--help":
        argv = [*argv, "--lake", str(lake_dir)]
    env = {k: v for k, v in os.environ.items() if k not in ("PITLAKE_HOME", "PITLAKE_CATALOG_URL")}
    proc = subprocess.run(
        [sys.executable, "-c", HEAVY_CHECK.format(argv=argv)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    heavy = [line for line in proc.stderr.splitlines() if line.startswith("HEAVY=")]
    assert heavy == ["HEAVY="], proc.stderr[-2000:]
    assert proc.returncode == 0, proc.stderr[-2000:]
