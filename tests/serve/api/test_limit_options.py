"""The statement limits as command-line options (issue 27 item 2): `pitlake sql --timeout /
--max-rows / --max-bytes`, `pitlake serve --sql-*`, and a port that cannot be served is one line
and exit 5 (issue 30)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pitlake.cli import app as cli_app
from pitlake.read import sql_limits


def test_sql_options_set_the_limits_of_one_statement(lake_dir: Path) -> None:
    runner = CliRunner()
    base = ["sql", "--lake", str(lake_dir)]
    rows = runner.invoke(cli_app, [*base, "--max-rows", "3", "SELECT i FROM range(5) t(i)"])
    assert rows.exit_code == 2 and "more than 3 rows" in rows.stderr
    size = runner.invoke(
        cli_app, [*base, "--max-bytes", "1000", "SELECT repeat('x', 100) FROM range(100)"]
    )
    assert size.exit_code == 2 and sql_limits.MAX_BYTES_ENV in size.stderr
    slow = runner.invoke(
        cli_app, [*base, "--timeout", "0.2", "SELECT sum(i) FROM range(100000000000) t(i)"]
    )
    assert slow.exit_code == 2 and "timeout of 0.2 s" in slow.stderr
    fine = runner.invoke(cli_app, [*base, "--max-rows", "5", "SELECT i FROM range(5) t(i)"])
    assert fine.exit_code == 0, fine.output


def test_serve_options_become_the_servers_limits(
    lake_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    for env in (sql_limits.TIMEOUT_ENV, sql_limits.MAX_ROWS_ENV, sql_limits.CONCURRENCY_ENV):
        monkeypatch.delenv(env, raising=False)
    seen: dict[str, Any] = {}

    class FakeServer:
        def __init__(self, config: Any) -> None:
            seen["port"] = config.port

        def run(self) -> None:
            seen["limits"] = sql_limits.limits()
            seen["concurrency"] = os.environ.get(sql_limits.CONCURRENCY_ENV)

    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ["serve", "--lake", str(lake_dir), "--port", str(port), "--sql-timeout", "7"]
    result = CliRunner().invoke(cli_app, [*args, "--sql-max-rows", "9", "--sql-concurrency", "4"])
    assert result.exit_code == 0, result.output
    assert seen["limits"].timeout == 7 and seen["limits"].max_rows == 9
    assert seen["concurrency"] == "4"
    for env in (sql_limits.TIMEOUT_ENV, sql_limits.MAX_ROWS_ENV, sql_limits.CONCURRENCY_ENV):
        os.environ.pop(env, None)  # the command set them in this process


def test_serving_on_a_busy_port_is_one_line_and_exit_5(lake_dir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            cli_app, ["serve", "--lake", str(lake_dir), "--port", str(port)]
        )
    assert result.exit_code == 5
    lines = result.stderr.strip().splitlines()
    assert lines == [f"error: cannot serve on 127.0.0.1:{port}: the port is in use"]
