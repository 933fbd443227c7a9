"""CLI tables print data as data (issue 27 item 11): a cell, a column name or a message
holding Rich markup ('[/x]', '[bold red]') is printed literally, never parsed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pitlake.commands.query import print_readable


@pytest.mark.parametrize("text", ["[/x]", "[bold red]hello", "[link=http://x]y[/link]"])
def test_pitlake_sql_prints_a_bracketed_cell_literally(built_lake: Path, text: str) -> None:
    quoted = text.replace("'", "''")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pitlake.cli",
            "sql",
            "--lake",
            str(built_lake),
            f"SELECT '{quoted}' AS \"[b]col\"",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "200", "PATH": ""},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert text in proc.stdout and "[b]col" in proc.stdout, proc.stdout


def test_a_query_table_prints_a_vendor_title_with_brackets(capsys: pytest.CaptureFixture) -> None:
    env = {
        "status": "OK",
        "requested_date": None,
        "effective_trade_date": None,
        "date_status": "NOT_APPLICABLE",
        "as_of": "2025-06-30T23:59:59+08:00",
        "source": "x",
        "message": "note [/y]",
        "meta": {"rows": 1},
        "data": [{"symbol": "600519.SH", "title": "[bold]茅台[/bold] 公告 [/x]"}],
    }
    print_readable(env)
    out = capsys.readouterr().out
    assert "[bold]茅台[/bold] 公告 [/x]" in out and "note [/y]" in out
