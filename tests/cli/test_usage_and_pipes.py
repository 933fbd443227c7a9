"""Usage errors and a closed output, on every command: a usage error (an unknown option or
command word, a missing argument, a value its option's type refuses) is one line on stderr
naming it, exit 2, never "internal error"; a reader that closes the pipe early (`| head`) ends
the command quietly with 141, never "network: Broken pipe". Values the read layer judges keep
their typed INVALID_ARGUMENTS envelope (tests/serve/api/test_cli_query.py)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitlake import failures
from pitlake.cli import app
from pitlake.commands import query as query_cmd
from tests.cli.test_failures import ROOT
from tests.serve.api.lakebuild import A


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["query", "quotes", "--bogus", "1"], ["pitlake query", "No such option: --bogus"]),
        (["query", "quotes", "--symbl", A], ["--symbl", "--symbol"]),
        (["query"], ["pitlake query", "Missing argument", "dataset"]),
        (["query", "quotes", "-s", A, "--limit", "abc"], ["'--limit'", "integer"]),
        (["qurey", "quotes"], ["No such command 'qurey'", "query"]),
        (["--bogus", "query"], ["pitlake:", "No such option: --bogus"]),
        (["ingest", "--bogus"], ["pitlake ingest", "--bogus"]),
        (["sql"], ["pitlake sql", "Missing argument"]),
        (["vendors", "check", "--bogus"], ["pitlake vendors check", "--bogus"]),
    ],
    ids=[
        "unknown-option",
        "near-option",
        "missing-argument",
        "bad-integer",
        "unknown-command",
        "root-option",
        "ingest",
        "sql",
        "vendors",
    ],
)
def test_a_usage_error_is_one_line_exit_2(args: list[str], words: list[str]) -> None:
    code, out, err = invoke(*args)
    assert code == failures.EXIT_INVALID, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "internal error" not in err and "Traceback" not in err
    for word in words:
        assert word in lines[0]
    assert lines[0].endswith("--help)")  # where the valid options are listed


def test_pitlake_alone_still_prints_its_help() -> None:
    code, out, err = invoke()
    assert "Usage" in out + err and "error:" not in err
    assert code in (0, 2)  # click's no_args_is_help (2 since click 8.2)


def test_a_broken_pipe_is_not_the_network() -> None:
    code, line = failures.describe(BrokenPipeError(errno.EPIPE, "Broken pipe"))
    assert "network" not in line and code != failures.EXIT_ENVIRONMENT
    code, line = failures.describe(ConnectionRefusedError(errno.ECONNREFUSED, "refused"))
    assert code == failures.EXIT_ENVIRONMENT and line.startswith("network: ")  # still network


def test_a_broken_pipe_elsewhere_than_stdout_is_reported(
    lake_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a closed stdout is silent: another pipe's failure still gets its one line."""

    def broken(env: object) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    monkeypatch.setattr(query_cmd, "print_readable", broken)
    monkeypatch.setattr(failures, "output_closed", lambda: False)
    code, _, err = invoke("query", "calendar", "--lake", str(lake_copy))
    assert code == failures.EXIT_FAILED and "broken pipe" in err and "network" not in err
    monkeypatch.setattr(failures, "output_closed", lambda: True)
    code, _, err = invoke("query", "calendar", "--lake", str(lake_copy))
    assert (code, err) == (failures.EXIT_OUTPUT_CLOSED, "")


def closed_pipe_run(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command writing into a pipe whose reader is already gone (`| head` after
    its lines), so the first write fails deterministically."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PITLAKE_")}
    try:
        return subprocess.run(
            [sys.executable, "-m", "pitlake.cli", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=120,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize("form", [[], ["--json"]], ids=["readable", "json"])
def test_a_reader_closing_the_pipe_ends_the_command_quietly(
    built_lake: Path, form: list[str]
) -> None:
    args = ["query", "quotes", "-s", A, "--start", "2025-05-30", "--end", "2025-06-06"]
    proc = closed_pipe_run(*args, "--as-of", "2025-06-08", "--lake", str(built_lake), *form)
    assert proc.stderr == ""
    assert proc.returncode == failures.EXIT_OUTPUT_CLOSED


@pytest.mark.parametrize(
    "args", [["--help"], ["query", "--help"], ["query", "quotes", "--help"], ["sql", "--help"]]
)
def test_a_help_page_into_a_closed_pipe_ends_quietly(args: list[str]) -> None:
    """typer prints help on its own rich console, which exited 1 on a broken pipe."""
    proc = closed_pipe_run(*args)
    assert proc.stderr == ""
    assert proc.returncode == failures.EXIT_OUTPUT_CLOSED
