"""Failures a user can fix are one line naming what and where, with a documented exit code
(issue 13 items 5 and 6, the CLI side): the real command in a subprocess, so every byte on
stderr — Prefect's, Python logging's last resort, ours — is counted."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitlake import failures
from pitlake.cli import app
from pitlake.errors import LakeUnwritableError, NotALakeError
from tests.serve.api.lakebuild import A

ROOT = Path(__file__).resolve().parents[2]
UNREACHABLE_PG = "postgresql://pitlake:s3cret@127.0.0.1:1/pitlake"


def pitlake(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PITLAKE_CATALOG_URL", "PITLAKE_HOME", "PITLAKE_DEBUG")
    }
    return subprocess.run(
        [sys.executable, "-m", "pitlake.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**base, **(env or {})},
        timeout=300,
    )


def one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr[-3000:]
    assert "Traceback" not in stderr
    return lines[0]


def test_ingest_into_a_path_under_a_regular_file_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    lake = blocker / "lake"
    proc = pitlake(
        "ingest", "--source", "replay:sample", "--date", "2025-06-03", "--lake", str(lake)
    )
    line = one_line(proc.stderr)
    assert proc.returncode == failures.EXIT_ENVIRONMENT, proc.stderr
    assert line.startswith("error: ") and str(blocker) in line


def test_ingest_with_an_unreachable_catalog_is_one_line(tmp_path: Path) -> None:
    proc = pitlake(
        "ingest",
        "--source",
        "replay:sample",
        "--date",
        "2025-06-03",
        "--lake",
        str(tmp_path / "lake"),
        env={"PITLAKE_CATALOG_URL": UNREACHABLE_PG},
    )
    line = one_line(proc.stderr)
    assert proc.returncode == failures.EXIT_ENVIRONMENT, proc.stderr
    assert "127.0.0.1" in line and "s3cret" not in proc.stderr + proc.stdout


def test_a_query_on_an_unreachable_catalog_prints_its_envelope_only(lake_copy: Path) -> None:
    proc = pitlake(
        "query",
        "quotes",
        "-s",
        A,
        "--lake",
        str(lake_copy),
        "--json",
        env={"PITLAKE_CATALOG_URL": UNREACHABLE_PG},
    )
    assert proc.returncode == failures.EXIT_LAKE, proc.stderr
    assert proc.stderr == ""
    body = json.loads(proc.stdout)
    assert body["status"] == "UPSTREAM_ERROR" and body["meta"]["fault"] == "catalog"


def test_a_corrupt_parquet_file_is_named_in_the_envelope_without_a_traceback(
    lake_copy: Path,
) -> None:
    [part] = (lake_copy / "curated" / "quotes").rglob("*.parquet")
    part.write_bytes(b"PAR1 not really")
    args = ["query", "quotes", "-s", A, "--date", "2025-06-05", "--as-of", "2025-06-06"]
    proc = pitlake(*args, "--lake", str(lake_copy), "--json")
    assert proc.returncode == failures.EXIT_LAKE
    assert proc.stderr == ""
    body = json.loads(proc.stdout)
    shown = str(part.relative_to(lake_copy))
    assert body["status"] == "UPSTREAM_ERROR" and body["meta"]["fault"] == "storage"
    assert shown in body["message"] and body["meta"]["fault_path"] == shown
    assert "server log" not in body["message"].replace("server's log, or `pitlake --debug`", "")
    readable = pitlake(*args, "--lake", str(lake_copy))
    assert readable.returncode == failures.EXIT_LAKE and readable.stderr == ""
    assert "UPSTREAM_ERROR" in readable.stdout and shown in readable.stdout


def test_an_unexpected_error_is_one_line_and_debug_prints_its_traceback(
    monkeypatch: pytest.MonkeyPatch, lake_copy: Path
) -> None:
    import pitlake.commands.query as query_cmd

    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(query_cmd, "run_query", boom)
    args = ["query", "status", "--lake", str(lake_copy)]
    quiet = CliRunner().invoke(app, args)
    assert quiet.exit_code == failures.EXIT_FAILED
    assert quiet.stderr.strip() == (
        "error: internal error: RuntimeError: boom (details: pitlake --debug query …)"
    )
    loud = CliRunner().invoke(app, ["--debug", *args])
    assert loud.exit_code == failures.EXIT_FAILED
    assert "Traceback (most recent call last)" in loud.stderr and "second line" in loud.stderr
    assert loud.stderr.strip().splitlines()[-1].startswith("error: internal error: RuntimeError")


def test_a_writing_command_keeps_its_traceback_in_the_lake(
    monkeypatch: pytest.MonkeyPatch, lake_copy: Path
) -> None:
    import pitlake.expectations.datadocs as datadocs

    def fail(_lake: str) -> None:
        raise RuntimeError("docs exploded")

    monkeypatch.setattr(datadocs, "rebuild_data_docs", fail)
    result = CliRunner().invoke(app, ["dq", "--lake", str(lake_copy)])
    assert result.exit_code == failures.EXIT_FAILED
    [line] = result.stderr.strip().splitlines()
    [log] = (lake_copy / "logs").glob("pitlake-dq-*.log")
    assert line.endswith(f"(traceback: {log})")
    assert "docs exploded" in log.read_text() and "Traceback" in log.read_text()


@pytest.mark.parametrize(
    ("exc", "code", "words"),
    [
        (NotALakeError("not a pitlake lake: /x", path="/x"), 4, ["not a pitlake lake: /x"]),
        (LakeUnwritableError("cannot write /x", path="/x"), 5, ["cannot write /x"]),
        (OSError(errno.ENOSPC, "No space left on device", "/x/part.parquet"), 5, ["disk full"]),
        (PermissionError(errno.EACCES, "Permission denied", "/x/catalog.db"), 5, ["/x/catalog"]),
        (OSError(errno.EROFS, "Read-only file system", "/x"), 5, ["read-only file system"]),
        (ConnectionError("Connection refused"), 5, ["network: Connection refused"]),
    ],
)
def test_each_fixable_failure_has_its_code_and_names_where(
    exc: BaseException, code: int, words: list[str]
) -> None:
    got, line = failures.describe(exc, lake="/x")
    assert got == code
    assert "\n" not in line
    for w in words:
        assert w in line
