"""What each command path imports, in a fresh interpreter running the CLI's own entry point.

Start-up time is mostly imports; timings are noisy, so these hold the import graph instead:
a read never loads the orchestrator, the validator, the web server or a vendor SDK, and
`pitlake --help` loads no command module and none of the data stack."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from pitlake import cli

# Fresh interpreter: run `pitlake ARGS…` through pitlake.cli.main, then record what was imported,
# at exit: the recorder is the first exit handler registered, so it runs last, and what the
# command's own exit handlers import (a vendor library closing its socket, say) counts too.
PROBE = """
import atexit, json, sys
out, args = sys.argv[1], sys.argv[2:]
result = {"code": None}
def record():
    with open(out, "w") as f:
        json.dump({"code": result["code"], "modules": sorted(sys.modules)}, f)
atexit.register(record)
sys.argv = ["pitlake", *args]
from pitlake import cli
try:
    cli.main()
    result["code"] = 0
except SystemExit as exc:
    result["code"] = exc.code or 0
"""

NOT_IN_A_READ = (
    "prefect",
    "great_expectations",
    "fastapi",
    "starlette",
    "uvicorn",
    "tushare",
    "akshare",
    "baostock",
)
NOT_IN_HELP = ("pandas", "pyarrow", "duckdb", "numpy", "sqlalchemy", "pydantic")


def imported(tmp_path: Path, *args: str) -> tuple[int, set[str]]:
    """(exit code, every module imported) of `pitlake ARGS` in a new interpreter."""
    out = tmp_path / "modules.json"
    subprocess.run([sys.executable, "-c", PROBE, str(out), *args], capture_output=True, check=False)
    got = json.loads(out.read_text())
    return int(got["code"]), set(got["modules"])


def tops(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


READS = {
    "query": ("query", "quotes", "-s", "000001.SZ", "--as-of", "2025-06-03"),
    "sql": ("sql", "select symbol, close from quotes limit 1", "--as-of", "2025-06-03"),
}


@pytest.mark.parametrize("read", sorted(READS))
def test_a_read_imports_no_orchestrator_validator_server_or_vendor_sdk(
    read: str, built_lake: Path, tmp_path: Path
) -> None:
    code, modules = imported(tmp_path, *READS[read], "--lake", str(built_lake))
    assert code == 0
    assert tops(modules).isdisjoint(NOT_IN_A_READ), sorted(tops(modules) & set(NOT_IN_A_READ))
    # nor typer's help renderer (rich markdown, tracebacks): it is only for help pages
    assert "typer.rich_utils" not in modules
    # only the command module asked for
    assert {m for m in modules if m.startswith("pitlake.commands.")} <= {
        f"pitlake.commands.{read}",
        "pitlake.commands.query_options",
    }


# What a one-symbol read does without (decision 54): pandas (the read is Arrow from the scan to
# the printed table), SQLAlchemy (the ledger rows are read through sqlite3, `catalog_sqlite`),
# the lease (writes only), exchange-calendars (its snapshot is read), the pipeline, the
# vendor plugins (redaction reads the names of their secret variables from their packages),
# pyarrow's Parquet module and the file lock.
NOT_IN_A_ONE_SYMBOL_READ = (
    "pandas",  # pyarrow imports it at the first Python value it converts, or a `to_numpy`
    "sqlalchemy",
    "pitlake.lake.lease",
    "pitlake.lake.catalog_tables",
    "exchange_calendars",
    "pitlake.pipeline",
    "pitlake.vendors.base",
    *(f"pitlake.vendors.{vendor}." for vendor in ("tushare", "akshare", "baostock")),
    "pyarrow.parquet",  # with pyarrow.fs and ssl: the scan is DuckDB's, the writes need it
    "filelock",  # the store's locks: writers only
)


def test_a_one_symbol_query_loads_no_pandas_no_writer_and_no_calendar_library(
    built_lake: Path, tmp_path: Path
) -> None:
    code, modules = imported(tmp_path, *READS["query"], "--lake", str(built_lake))
    assert code == 0
    assert not {m for m in modules if m.startswith(NOT_IN_A_ONE_SYMBOL_READ)}
    assert "pitlake.lake.catalog_sqlite" in modules  # the ledger was read, without SQLAlchemy


def test_a_one_symbol_query_with_a_vendor_token_set_masks_it_without_the_plugins(
    built_lake: Path, tmp_path: Path
) -> None:
    """Redaction reads every vendor's secret variables on each answer: with a token set it
    still loads no plugin, client or replay dialect (and the token never shows)."""
    token = "ts-planted-0123456789abcdef"
    out = tmp_path / "modules.json"
    args = (*READS["query"], "--lake", str(built_lake), "--json")
    env = {**os.environ, "TUSHARE_TOKEN": token}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *args], capture_output=True, env=env, check=False
    )
    got = json.loads(out.read_text())
    assert got["code"] == 0 and token.encode() not in done.stdout + done.stderr
    assert not {m for m in got["modules"] if m.startswith(NOT_IN_A_ONE_SYMBOL_READ)}


def test_loading_the_query_command_loads_no_pandas_and_no_catalog(tmp_path: Path) -> None:
    """The query command's module and its options (generated from the specs' query models)
    import the specs' Arrow fields, not pandas, the catalog or DuckDB: `pitlake query --help`
    and every refusal before a read pay only for those."""
    code, modules = imported(tmp_path, "query", "quotes", "--help")
    assert code == 0
    assert "pitlake.commands.query" in modules
    heavy = {"pandas", "sqlalchemy", "duckdb", "exchange_calendars"}
    assert tops(modules).isdisjoint(heavy), sorted(tops(modules) & heavy)


def test_help_imports_no_command_module_and_no_data_stack(tmp_path: Path) -> None:
    code, modules = imported(tmp_path, "--help")
    assert code == 0
    assert tops(modules).isdisjoint(NOT_IN_HELP), sorted(tops(modules) & set(NOT_IN_HELP))
    assert not {m for m in modules if m.startswith("pitlake.commands.")}


def test_a_command_loads_click_only_when_typer_does(tmp_path: Path) -> None:
    """typer >= 0.2x vendors click and loads none of it; `pitlake` then needs none either (its
    one-line usage errors catch typer's classes, and click's only when click is loaded)."""
    probe = "import sys, typer, typer.main; print('click' in sys.modules)"
    typer_loads_click = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    _, modules = imported(tmp_path, "query", "quotes", "--help")
    assert ("click" in modules) == (typer_loads_click == "True")


def test_root_help_lines_are_the_commands_own_help() -> None:
    """The help page's table (`cli.COMMANDS`) names every command the modules register, each
    with the line its command would print, so the table is never a second, stale copy."""
    loaded: dict[str, str] = {}
    for module in dict.fromkeys(m for m, _ in cli.COMMANDS.values()):
        words = typer.Typer()
        __import__(module, fromlist=["register"]).register(words)
        for name, command in typer.main.get_group(words).commands.items():
            assert cli.COMMANDS[name][0] == module
            loaded[name] = command.get_short_help_str(limit=10_000)
    assert loaded == {word: line for word, (_, line) in cli.COMMANDS.items()}


def test_prints_help_only_for_help_pages() -> None:
    assert cli.prints_help([])
    assert cli.prints_help(["--debug"])
    assert cli.prints_help(["query", "--help"])
    assert cli.prints_help(["vendors"])
    assert not cli.prints_help(["vendors", "check"])
    assert not cli.prints_help(["query", "quotes", "-s", "000001.SZ"])
