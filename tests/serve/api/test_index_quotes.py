"""index_quotes through every generated surface: index codes are taken as index codes (the SSE
Composite 000001.SH is never Ping An Bank's 000001.SZ), a bar known after the cutoff stays out,
and the point-in-time SQL view exists."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from fastmcp import Client
from pitlake.schemas import get as get_schema
from pitlake.schemas.index_quotes import INDICES
from typer.testing import CliRunner

from pitlake.cli import app as cli_app
from pitlake.errors import InvalidArgumentsError
from pitlake.read import arguments
from pitlake.read.lake import Lake
from pitlake.serve.mcp import create_server
from pitlake.symbols import canonical
from tests.serve.api.lakebuild import CSI300, NOW, SSE, B

SPEC = get_schema("index_quotes")


@pytest.mark.parametrize("code", list(INDICES))
def test_no_index_code_parses_as_a_stock(code: str) -> None:
    """pitlake.symbols refuses every index code (000xxx trades on SZ, 399xxx is no A-share
    code): an index can never be read as a stock, nor a stock as an index."""
    with pytest.raises(InvalidArgumentsError):
        canonical(code)


def test_index_symbols_are_checked_against_the_spec() -> None:
    assert arguments.symbols(
        " 000001.sh,000300.SH", required=False, instruments=SPEC.instruments
    ) == [
        SSE,
        CSI300,
    ]
    with pytest.raises(InvalidArgumentsError, match=r"000001\.SZ"):
        arguments.symbols("000001.SZ", required=False, instruments=SPEC.instruments)
    with pytest.raises(InvalidArgumentsError):  # a stock form is not an index
        arguments.symbols("sh000001", required=False, instruments=SPEC.instruments)


def test_lake_reads_index_bars_and_never_a_stock(lake_dir: Path) -> None:
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        r = lake.index_quotes(SSE, date="2025-06-04", as_of="2025-06-05")
        assert r.status == "OK"
        assert [(d["symbol"], d["close"]) for d in r.data] == [(SSE, 3301.0)]
        every = lake.index_quotes(date="2025-06-04", as_of="2025-06-05")
        assert {d["symbol"] for d in every.data} == {SSE, CSI300}
        assert lake.index_quotes(B).status == "INVALID_ARGUMENTS"  # Ping An Bank


def test_a_bar_known_after_the_cutoff_stays_out(lake_dir: Path) -> None:
    """06-05's bar is known at its session close (15:00 +08:00): not at 14:59."""
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        before = lake.index_quotes(CSI300, date="2025-06-05", as_of="2025-06-05T14:59:00+08:00")
        after = lake.index_quotes(CSI300, date="2025-06-05", as_of="2025-06-05T15:00:00+08:00")
    assert "2025-06-05" not in {d["trade_date"] for d in before.data}
    assert [d["trade_date"] for d in after.data] == ["2025-06-05"]


def test_the_sql_view_holds_the_index_bars(lake_dir: Path) -> None:
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        rows = lake.sql(
            "SELECT symbol, trade_date FROM index_quotes ORDER BY trade_date, symbol",
            as_of="2025-06-04",
        ).rows
    assert [(r["symbol"], r["trade_date"]) for r in rows] == [
        (SSE, "2025-06-03"),
        (CSI300, "2025-06-03"),
        (SSE, "2025-06-04"),
        (CSI300, "2025-06-04"),
    ]


def test_http_mcp_and_cli_answer_it(lake_dir: Path) -> None:
    from pitlake.serve.api.app import create_app

    with TestClient(create_app(lake_dir, clock=lambda: NOW, token="")) as client:
        http = client.get(
            "/v1/index-quotes",
            params={"symbol": CSI300, "date": "2025-06-04", "as_of": "2025-06-05"},
        ).json()

    async def go() -> Any:
        async with Client(create_server(lake_dir, clock=lambda: NOW)) as c:
            return await c.call_tool(
                "index_quotes",
                {"symbols": CSI300, "date": "2025-06-04", "as_of": "2025-06-05"},
                raise_on_error=False,
            )

    mcp = asyncio.run(go()).structured_content
    result = CliRunner().invoke(
        cli_app,
        [
            *("query", "index-quotes", "-s", CSI300, "--date", "2025-06-04"),
            *("--as-of", "2025-06-05", "--json", "--lake", str(lake_dir)),
        ],
    )
    cli = json.loads(result.output)
    for body in (http, mcp, cli):
        assert body["status"] == "OK"
        assert [(d["symbol"], d["trade_date"]) for d in body["data"]] == [(CSI300, "2025-06-04")]
