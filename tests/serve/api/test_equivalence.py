"""The same question through the CLI (`pitlake query --json`), HTTP and MCP gives the same
envelope, byte for byte after parsing (issue item 7)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fastmcp import Client
from typer.testing import CliRunner

from pitlake.cli import app as cli_app
from pitlake.serve.mcp import create_server
from tests.serve.api.lakebuild import CSI300, NOW, A, B

# (CLI arguments, HTTP path + query, MCP tool + arguments): one question each.
CASES: list[tuple[list[str], tuple[str, dict[str, Any]], tuple[str, dict[str, Any]]]] = [
    (
        ["quotes", "-s", A, "--date", "2025-06-07", "--as-of", "2025-06-08"],
        ("/v1/quotes", {"symbol": A, "date": "2025-06-07", "as_of": "2025-06-08"}),
        ("quotes", {"symbols": A, "date": "2025-06-07", "as_of": "2025-06-08"}),
    ),
    (
        [
            *("quotes", "-s", f"{A},{B}", "--start", "2025-05-30", "--end", "2025-06-06"),
            *("--adjust", "qfq", "--as-of", "2025-06-06T15:30:00+08:00"),
        ],
        (
            "/v1/quotes",
            {
                "symbols": f"{A},{B}",
                "start": "2025-05-30",
                "end": "2025-06-06",
                "adjust": "qfq",
                "as_of": "2025-06-06T15:30:00+08:00",
            },
        ),
        (
            "quotes",
            {
                "symbols": [A, B],
                "start": "2025-05-30",
                "end": "2025-06-06",
                "adjust": "qfq",
                "as_of": "2025-06-06T15:30:00+08:00",
            },
        ),
    ),
    (
        ["quotes", "-s", A, "--date", "2025-06-06", "--as-of", "2025-06-06T14:00:00+08:00"],
        ("/v1/quotes", {"symbol": A, "date": "2025-06-06", "as_of": "2025-06-06T14:00:00+08:00"}),
        ("quotes", {"symbols": A, "date": "2025-06-06", "as_of": "2025-06-06T14:00:00+08:00"}),
    ),
    (
        ["quotes", "-s", A, "--date", "2025-06-10", "--as-of", "2025-06-12"],
        ("/v1/quotes", {"symbol": A, "date": "2025-06-10", "as_of": "2025-06-12"}),
        ("quotes", {"symbols": A, "date": "2025-06-10", "as_of": "2025-06-12"}),
    ),
    (
        ["valuation", "-s", B, "--date", "2025-06-04", "--as-of", "2025-06-04"],
        ("/v1/valuation", {"symbol": B, "date": "2025-06-04", "as_of": "2025-06-04"}),
        ("valuation", {"symbols": B, "date": "2025-06-04", "as_of": "2025-06-04"}),
    ),
    (
        ["index-quotes", "-s", CSI300, "--date", "2025-06-04", "--as-of", "2025-06-05"],
        ("/v1/index-quotes", {"symbol": CSI300, "date": "2025-06-04", "as_of": "2025-06-05"}),
        ("index_quotes", {"symbols": CSI300, "date": "2025-06-04", "as_of": "2025-06-05"}),
    ),
    (
        ["index-quotes", "--start", "2025-06-03", "--end", "2025-06-06", "--as-of", "2025-06-07"],
        ("/v1/index-quotes", {"start": "2025-06-03", "end": "2025-06-06", "as_of": "2025-06-07"}),
        ("index_quotes", {"start": "2025-06-03", "end": "2025-06-06", "as_of": "2025-06-07"}),
    ),
    (
        [
            *("announcements", "--start", "2025-06-05", "--end", "2025-06-06"),
            *("--as-of", "2025-06-05T23:59:30+08:00"),
        ],
        (
            "/v1/announcements",
            {"start": "2025-06-05", "end": "2025-06-06", "as_of": "2025-06-05T23:59:30+08:00"},
        ),
        (
            "announcements",
            {"start": "2025-06-05", "end": "2025-06-06", "as_of": "2025-06-05T23:59:30+08:00"},
        ),
    ),
    (
        ["announcements", "-s", A, "--date", "2025-06-06", "--as-of", "2025-06-07"],
        ("/v1/announcements", {"symbol": A, "date": "2025-06-06", "as_of": "2025-06-07"}),
        ("announcements", {"symbols": A, "date": "2025-06-06", "as_of": "2025-06-07"}),
    ),
    (
        [
            *("disclosure-schedule", "--start", "2025-08-15", "--end", "2025-08-31"),
            *("--as-of", "2025-06-04"),
        ],
        (
            "/v1/disclosure-schedule",
            {"start": "2025-08-15", "end": "2025-08-31", "as_of": "2025-06-04"},
        ),
        (
            "disclosure_schedule",
            {"start": "2025-08-15", "end": "2025-08-31", "as_of": "2025-06-04"},
        ),
    ),
    (
        [
            *("disclosure-schedule", "-s", A, "--report-period", "2025-06-30"),
            *("--start", "2025-08-01", "--end", "2025-08-31", "--as-of", "2025-12-30"),
        ],
        (
            "/v1/disclosure-schedule",
            {
                "symbol": A,
                "report_period": "2025-06-30",
                "start": "2025-08-01",
                "end": "2025-08-31",
                "as_of": "2025-12-30",
            },
        ),
        (
            "disclosure_schedule",
            {
                "symbols": A,
                "report_period": "2025-06-30",
                "start": "2025-08-01",
                "end": "2025-08-31",
                "as_of": "2025-12-30",
            },
        ),
    ),
    (
        ["dragon-tiger", "-s", B, "--date", "2025-06-04", "--as-of", "2025-06-05"],
        ("/v1/dragon-tiger", {"symbol": B, "date": "2025-06-04", "as_of": "2025-06-05"}),
        ("dragon_tiger", {"symbols": B, "date": "2025-06-04", "as_of": "2025-06-05"}),
    ),
    (
        ["dragon-tiger", "--start", "2025-06-03", "--end", "2025-06-06", "--as-of", "2025-06-07"],
        ("/v1/dragon-tiger", {"start": "2025-06-03", "end": "2025-06-06", "as_of": "2025-06-07"}),
        ("dragon_tiger", {"start": "2025-06-03", "end": "2025-06-06", "as_of": "2025-06-07"}),
    ),
    (
        ["financials", "-s", A, "--statement", "income", "--latest-only", "--as-of", "2025-06-01"],
        (
            "/v1/financials",
            {"symbol": A, "statement": "income", "latest_only": "true", "as_of": "2025-06-01"},
        ),
        (
            "financials",
            {"symbols": A, "statement": "income", "latest_only": True, "as_of": "2025-06-01"},
        ),
    ),
    (
        ["news", "-s", B, "--end", "2025-06-06", "--lookback-days", "3", "--as-of", "2025-06-06"],
        ("/v1/news", {"symbol": B, "end": "2025-06-06", "lookback_days": 3, "as_of": "2025-06-06"}),
        ("news", {"symbols": B, "end": "2025-06-06", "lookback_days": 3, "as_of": "2025-06-06"}),
    ),
    (
        ["calendar", "--start", "2025-05-30", "--end", "2025-06-09", "--as-of", "2025-06-09"],
        ("/v1/calendar", {"start": "2025-05-30", "end": "2025-06-09", "as_of": "2025-06-09"}),
        ("calendar", {"start": "2025-05-30", "end": "2025-06-09", "as_of": "2025-06-09"}),
    ),
    (
        ["universe", "--as-of", "2025-06-04"],
        ("/v1/universe", {"as_of": "2025-06-04"}),
        ("universe", {"as_of": "2025-06-04"}),
    ),
    (
        ["universe", "--as-of", "2025-06-05", "--board", "main", "--no-include-st"],
        ("/v1/universe", {"as_of": "2025-06-05", "board": "main", "include_st": "false"}),
        ("universe", {"as_of": "2025-06-05", "board": "main", "include_st": False}),
    ),
    (
        ["snapshot", "-s", f"{A},{B}", "--date", "2025-06-06", "--as-of", "2025-06-08"],
        ("/v1/snapshot", {"symbols": f"{A},{B}", "date": "2025-06-06", "as_of": "2025-06-08"}),
        ("snapshot", {"symbols": [A, B], "date": "2025-06-06", "as_of": "2025-06-08"}),
    ),
    (
        ["status", "--as-of", "2025-06-11T16:00:00+08:00"],
        ("/v1/status", {"as_of": "2025-06-11T16:00:00+08:00"}),
        ("status", {"as_of": "2025-06-11T16:00:00+08:00"}),
    ),
    (
        ["quotes", "-s", "600519.SH' OR 1=1 --", "--as-of", "2025-06-08"],
        ("/v1/quotes", {"symbol": "600519.SH' OR 1=1 --", "as_of": "2025-06-08"}),
        ("quotes", {"symbols": "600519.SH' OR 1=1 --", "as_of": "2025-06-08"}),
    ),
]


@pytest.fixture(scope="module")
def mcp_answers(lake_dir: Path) -> list[dict[str, Any]]:
    server = create_server(lake_dir, clock=lambda: NOW)

    async def go() -> list[dict[str, Any]]:
        async with Client(server) as client:
            out = []
            for _, _, (tool, args) in CASES:
                result = await client.call_tool(tool, args, raise_on_error=False)
                invalid = result.structured_content["status"] == "INVALID_ARGUMENTS"
                assert result.is_error is invalid
                out.append(result.structured_content)
            return out

    return asyncio.run(go())


@pytest.mark.parametrize("i", range(len(CASES)), ids=[" ".join(c[0][:2]) for c in CASES])
def test_cli_http_and_mcp_give_the_same_envelope(
    i: int, lake_dir: Path, client: TestClient, mcp_answers: list[dict[str, Any]]
) -> None:
    cli_args, (path, params), _ = CASES[i]
    result = CliRunner().invoke(cli_app, ["query", *cli_args, "--lake", str(lake_dir), "--json"])
    from_cli = json.loads(result.output)
    from_http = client.get(path, params=params).json()
    from_mcp = mcp_answers[i]
    assert from_cli == from_http
    assert from_http == from_mcp
    assert from_cli["data"] or from_cli["status"] != "OK"  # a real question, not a trivial one
