"""The MCP server (issue item 5), through fastmcp's in-process client: the same task-shaped
tools and envelope, the as-of pinned by the operator and never lifted by a tool argument."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from pitlake.api.models import Envelope, SnapshotEnvelope, StatusEnvelope
from pitlake.mcp_server import create_server
from tests.api.conftest import assert_envelope
from tests.api.lakebuild import NOW, A, B

PIN = "2025-06-05T23:59:59.999999+08:00"
TOOLS = {
    "quotes",
    "valuation",
    "financials",
    "news",
    "dragon_tiger",
    "calendar",
    "snapshot",
    "status",
}


def call(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def go() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return asyncio.run(go())


def envelope(result: Any) -> dict[str, Any]:
    assert result.is_error is False
    return assert_envelope(result.structured_content)


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
    b = envelope(bad)  # invalid input is an envelope, not a tool error
    assert b["status"] == "INVALID_ARGUMENTS" and b["data"] == []


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("quotes", {"symbols": A}),
        ("valuation", {"symbols": A}),
        ("financials", {"symbols": A}),
        ("news", {"symbols": A}),
        ("dragon_tiger", {}),
        ("calendar", {}),
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


def test_a_wrongly_typed_argument_is_refused_by_the_protocol(lake_dir: Path) -> None:
    from fastmcp.exceptions import ToolError

    with pytest.raises(ToolError):
        call(create_server(lake_dir, clock=lambda: NOW), [("news", {"lookback_days": "many"})])


def test_pitlake_mcp_serves_over_stdio_pinned_by_its_flag(lake_dir: Path) -> None:
    """The real command, as an agent host starts it (the client owns the child process)."""
    import sys

    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(
        command=sys.executable,
        args=["-m", "pitlake.cli", "mcp", "--lake", str(lake_dir), "--as-of", "2025-06-05"],
        cwd=str(Path(__file__).resolve().parents[2]),
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
