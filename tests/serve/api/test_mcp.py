"""The MCP server (issue item 5), through fastmcp's in-process client: the same task-shaped
tools and envelope, the as-of pinned by the operator and never lifted by a tool argument."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from pitlake.serve.api.models import Envelope, SnapshotEnvelope, StatusEnvelope
from pitlake.serve.mcp import create_server
from tests.serve.api.conftest import assert_envelope
from tests.serve.api.lakebuild import NOW, A, B

PIN = "2025-06-05T23:59:59.999999+08:00"
TOOLS = {
    "quotes",
    "valuation",
    "index_quotes",
    "financials",
    "news",
    "dragon_tiger",
    "calendar",
    "announcements",
    "disclosure_schedule",
    "new_shares",
    "universe",
    "index_members",
    "limit_prices",
    "vendor_limit_pools",
    "market_overview",
    "limit_pools",
    "snapshot",
    "status",
    "datasets",
    "runs",
}


def call(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def go() -> list[Any]:
        async with Client(server) as client:
            return [
                await client.call_tool(name, args, raise_on_error=False) for name, args in calls
            ]

    return asyncio.run(go())


def envelope(result: Any) -> dict[str, Any]:
    """The envelope of a call; `isError` is set exactly for a failed call (invalid arguments
    or a lake that could not answer), never for a data status."""
    body = assert_envelope(result.structured_content)
    failed = body["status"] == "INVALID_ARGUMENTS" or "fault" in body["meta"]
    assert result.is_error is failed
    return body


def test_the_tools_are_task_shaped_and_read_only(lake_dir: Path) -> None:
    async def go() -> list[Any]:
        async with Client(create_server(lake_dir, clock=lambda: NOW)) as client:
            return await client.list_tools()

    tools = {t.name: t for t in asyncio.run(go())}
    assert set(tools) == TOOLS
    for t in tools.values():
        assert t.annotations.readOnlyHint is True
        assert t.output_schema["type"] == "object"
        assert "pin" not in t.input_schema["properties"]  # the model cannot choose a pin
    assert set(tools["quotes"].input_schema["required"]) == {"symbols"}


def test_answers_are_the_envelope(lake_dir: Path) -> None:
    server = create_server(lake_dir, clock=lambda: NOW)
    quotes, no_data, not_ready, failed, snap, status, bad = call(
        server,
        [
            ("quotes", {"symbols": A, "date": "2025-06-07", "as_of": "2025-06-08"}),
            ("dragon_tiger", {"symbols": [B], "date": "2025-06-04", "as_of": "2025-06-05"}),
            ("valuation", {"symbols": [A], "date": "2025-06-06", "as_of": "2025-06-07"}),
            ("quotes", {"symbols": A, "date": "2025-06-09", "as_of": "2025-06-12"}),
            ("snapshot", {"symbols": [A, B], "date": "2025-06-06", "as_of": "2025-06-08"}),
            ("status", {"as_of": "2025-06-08"}),
            ("quotes", {"symbols": "'; DROP TABLE ledger; --"}),
        ],
    )
    q = envelope(quotes)
    Envelope.model_validate(q)
    assert (q["status"], q["date_status"], q["effective_trade_date"]) == (
        "OK",
        "LATEST_TRADING_DAY",
        "2025-06-06",
    )
    assert envelope(no_data)["status"] == "NO_DATA"
    nr = envelope(not_ready)
    assert nr["status"] == "NOT_READY" and nr["retryable"] is True and nr["data"] == []
    assert envelope(failed)["status"] == "UPSTREAM_ERROR"
    s = envelope(snap)
    SnapshotEnvelope.model_validate(s)
    assert s["meta"]["aligned"] is False and s["effective_trade_date"] is None
    StatusEnvelope.model_validate(envelope(status))
    b = envelope(bad)  # invalid input pitlake finds: an envelope with isError true
    assert bad.is_error is True
    assert b["status"] == "INVALID_ARGUMENTS" and b["data"] == []


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("quotes", {"symbols": A}),
        ("valuation", {"symbols": A}),
        ("financials", {"symbols": A}),
        ("news", {"symbols": A}),
        ("index_quotes", {}),
        ("dragon_tiger", {}),
        ("calendar", {}),
        ("announcements", {"symbols": A}),
        ("disclosure_schedule", {"symbols": A}),
        ("index_members", {"index": "000300.SH"}),
        ("snapshot", {"symbols": [A, B]}),
        ("status", {}),
    ],
)
def test_the_operator_pin_clamps_every_tool(lake_dir: Path, tool: str, args: dict) -> None:
    server = create_server(lake_dir, as_of_pin="2025-06-05", clock=lambda: NOW)
    later, omitted, earlier = call(
        server,
        [
            (tool, {**args, "as_of": "2025-12-01"}),
            (tool, args),
            (tool, {**args, "as_of": "2025-06-04"}),
        ],
    )
    for result in (later, omitted):
        body = envelope(result)
        assert body["as_of"] == PIN and body["meta"]["pinned"] is True
        assert body["meta"]["pin"]["clamped"] is True
    early = envelope(earlier)
    assert early["as_of"] == "2025-06-04T23:59:59.999999+08:00"
    assert early["meta"]["pin"]["clamped"] is False


def test_a_pinned_quotes_tool_never_sees_after_the_pin(lake_dir: Path) -> None:
    server = create_server(lake_dir, as_of_pin="2025-06-05", clock=lambda: NOW)
    [result] = call(
        server, [("quotes", {"symbols": A, "date": "2025-06-06", "as_of": "2025-07-01"})]
    )
    body = envelope(result)
    assert body["effective_trade_date"] == "2025-06-05"
    assert {d["trade_date"] for d in body["data"]} == {"2025-06-05"}
    assert "clamped" in body["message"]


def test_a_wrongly_typed_argument_is_an_invalid_arguments_envelope(lake_dir: Path) -> None:
    async def go() -> Any:
        async with Client(create_server(lake_dir, clock=lambda: NOW)) as client:
            return await client.call_tool("news", {"lookback_days": "many"}, raise_on_error=False)

    result = asyncio.run(go())
    assert result.is_error is True
    body = envelope(result)
    assert body["status"] == "INVALID_ARGUMENTS" and "lookback_days" in body["message"]
    assert "many" not in body["message"]  # where and why, not the value echoed


def test_pitlake_mcp_serves_over_stdio_pinned_by_its_flag(lake_dir: Path) -> None:
    """The real command, as an agent host starts it (the client owns the child process)."""
    import sys

    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(
        command=sys.executable,
        args=["-m", "pitlake.cli", "mcp", "--lake", str(lake_dir), "--as-of", "2025-06-05"],
        cwd=str(Path(__file__).resolve().parents[3]),
    )

    async def go() -> tuple[set[str], dict[str, Any]]:
        async with Client(transport) as client:
            tools = {t.name for t in await client.list_tools()}
            result = await client.call_tool("quotes", {"symbols": A, "as_of": "2025-06-30"})
            return tools, result.structured_content

    tools, body = asyncio.run(go())
    assert tools == TOOLS
    assert body["as_of"] == PIN and body["effective_trade_date"] == "2025-06-05"
    assert body["meta"]["pinned"] is True


# ------------------------------------------------ the official MCP client (issue 13 item 7)

SCHEMA_REJECTIONS = [
    ("quotes", {"symbols": A, "adjust": "QFQ"}, "adjust"),
    ("quotes", {}, "symbols"),
    ("quotes", {"symbols": A, "bogus": 1}, "bogus"),
    ("financials", {"symbols": A, "statement": "profit"}, "statement"),
    ("news", {"limit": "ten"}, "limit"),
]


def test_the_official_mcp_client_sees_one_failure_shape(lake_dir: Path) -> None:
    """Over stdio with the `mcp` package's own client: pitlake's version; every argument the
    schema rejects and every argument pitlake refuses is an INVALID_ARGUMENTS envelope with
    isError true; an answer (even UPSTREAM_ERROR) is isError false; every parameter of every
    tool says what it takes."""
    import sys

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from pitlake import __version__

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pitlake.cli", "mcp", "--lake", str(lake_dir)],
        cwd=str(Path(__file__).resolve().parents[3]),
    )

    async def go() -> tuple[Any, list[Any], list[Any], Any]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            init = await s.initialize()
            rejected = [await s.call_tool(t, a) for t, a, _ in SCHEMA_REJECTIONS]
            answers = [
                await s.call_tool("quotes", {"symbols": "'; DROP TABLE ledger; --"}),
                await s.call_tool(
                    "quotes", {"symbols": A, "date": "2025-06-09", "as_of": "2025-06-12"}
                ),
                await s.call_tool("quotes", {"symbols": A, "date": "2025-06-05"}),
            ]
            return init, rejected, answers, await s.list_tools()

    init, rejected, (pitlake_refused, failed_fetch, ok), tools = asyncio.run(go())
    assert init.server_info.name == "pitlake" and init.server_info.version == __version__
    for result, (tool, _, where) in zip(rejected, SCHEMA_REJECTIONS, strict=True):
        assert result.is_error is True, (tool, result)
        body = assert_envelope(result.structured_content)
        assert body["status"] == "INVALID_ARGUMENTS" and where in body["message"]
        assert json.loads(result.content[0].text) == body  # the text is the same envelope
    assert pitlake_refused.is_error is True
    assert pitlake_refused.structured_content["status"] == "INVALID_ARGUMENTS"
    assert failed_fetch.is_error is False
    assert failed_fetch.structured_content["status"] == "UPSTREAM_ERROR"
    assert ok.is_error is False and ok.structured_content["status"] == "OK"
    for tool in tools.tools:
        for name, prop in tool.input_schema["properties"].items():
            assert len(prop.get("description", "")) > 15, (tool.name, name)


def test_an_unknown_tool_is_an_invalid_arguments_envelope_naming_the_nearest(
    lake_dir: Path,
) -> None:
    [result] = call(create_server(lake_dir, clock=lambda: NOW), [("quote", {"symbol": A})])
    body = envelope(result)
    assert body["status"] == "INVALID_ARGUMENTS" and "'quote'" in body["message"]
    assert "did you mean 'quotes'?" in body["message"] and body["meta"]["pinned"] is False


def test_a_refusal_on_a_pinned_server_says_pinned(lake_dir: Path) -> None:
    server = create_server(lake_dir, as_of_pin="2025-06-05", clock=lambda: NOW)
    bad, unknown = call(server, [("news", {"lookback_days": "many"}), ("nope", {})])
    for result in (bad, unknown):
        assert envelope(result)["meta"]["pinned"] is True
