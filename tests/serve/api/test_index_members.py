"""index_members through every generated surface (Python, HTTP, MCP, CLI) gives the same
answer; a bad index is INVALID_ARGUMENTS on each (HTTP 400, MCP isError, CLI exit 2); the
point-in-time SQL views hold the snapshots known at T."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from fastmcp import Client
from typer.testing import CliRunner

from pitlake.cli import app as cli_app
from pitlake.read.lake import Lake
from pitlake.serve.api.app import create_app
from pitlake.serve.mcp import create_server
from tests.read.test_index_members import AFTER, CSI300, NOW, sample_lake  # noqa: F401

ASK = {"date": "2025-06-03", "as_of": "2025-06-03"}


def _cli(lake: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        cli_app, ["query", "index-members", *args, "--json", "--lake", str(lake)]
    )
    return result.exit_code, json.loads(result.output)


def _mcp(lake: Path, arguments: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with Client(create_server(lake, clock=lambda: NOW)) as c:
            return await c.call_tool("index_members", arguments, raise_on_error=False)

    return asyncio.run(go())


def test_every_surface_gives_the_same_members(sample_lake: Path) -> None:  # noqa: F811
    with Lake(sample_lake, clock=lambda: NOW) as lake:
        py = lake.index_members(CSI300, **ASK).to_dict()
    with TestClient(create_app(sample_lake, clock=lambda: NOW, token="")) as client:
        http = client.get("/v1/index-members", params={"index": CSI300, **ASK}).json()
    mcp = _mcp(sample_lake, {"index": CSI300, **ASK}).structured_content
    code, cli = _cli(sample_lake, "--index", CSI300, "--date", ASK["date"], "--as-of", ASK["as_of"])
    assert code == 0
    for body in (py, http, mcp, cli):
        assert body["status"] == "OK"
        assert body["effective_trade_date"] == "2025-06-03"
        assert {d["symbol"] for d in body["data"]} == AFTER
        assert [d["weight"] for d in body["data"]] == [d["weight"] for d in py["data"]]


def test_a_bad_index_is_invalid_arguments_everywhere(sample_lake: Path) -> None:  # noqa: F811
    with TestClient(create_app(sample_lake, clock=lambda: NOW, token="")) as client:
        bad = client.get("/v1/index-members", params={"index": "000001.SZ"})
        missing = client.get("/v1/index-members")
    assert bad.status_code == 400 and bad.json()["status"] == "INVALID_ARGUMENTS"
    assert missing.status_code == 400 and missing.json()["status"] == "INVALID_ARGUMENTS"
    tool = _mcp(sample_lake, {"index": "000001.SZ"})
    assert tool.is_error and tool.structured_content["status"] == "INVALID_ARGUMENTS"
    code, cli = _cli(sample_lake, "--index", "600519.SH")
    assert (code, cli["status"]) == (2, "INVALID_ARGUMENTS")


def test_the_sql_views_hold_the_snapshots_known_at_t(sample_lake: Path) -> None:  # noqa: F811
    query = (
        "SELECT trade_date, count(*) AS n FROM index_members "
        "WHERE index_code = '000300.SH' GROUP BY trade_date ORDER BY trade_date"
    )
    with Lake(sample_lake, clock=lambda: NOW) as lake:
        at_close = lake.sql(query, as_of="2025-06-03T15:00:00+08:00").rows
        day_end = lake.sql(query, as_of="2025-06-03").rows
        # the list in force on a day, as of each month end, in plain SQL
        in_force = lake.sql(
            "SELECT symbol FROM index_members WHERE index_code = '000300.SH' AND trade_date = "
            "(SELECT max(trade_date) FROM index_members "
            " WHERE index_code = '000300.SH' AND trade_date <= DATE '2025-06-03') ORDER BY symbol",
            as_of="2025-06-30",
        ).rows
    assert [r["trade_date"] for r in at_close] == ["2025-04-01", "2025-05-06"]
    assert [r["trade_date"] for r in day_end] == ["2025-04-01", "2025-05-06", "2025-06-03"]
    assert {r["symbol"] for r in in_force} == AFTER
