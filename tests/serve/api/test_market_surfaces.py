"""The derived market on every surface: `/v1/market`, `/v1/limits`, the MCP tools
`market_overview` and `limit_pools` (the derived pools with the ladder), answering about the
right session under an operator's pin, with the same envelope as `Lake.market` / `Lake.limits`."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from pitlake.read.lake import Lake
from pitlake.serve.mcp import create_server
from tests.serve.api.conftest import assert_envelope
from tests.serve.api.lakebuild import NOW
from tests.serve.api.test_mcp import call, envelope

PIN = "2025-06-05T23:59:59.999999+08:00"


def test_mcp_tools_under_a_pin_answer_the_pinned_session(lake_dir: Path) -> None:
    server = create_server(lake_dir, as_of_pin=PIN, clock=lambda: NOW)
    market, pools, weekend, bad = call(
        server,
        [
            ("market_overview", {"date": "2025-06-06"}),  # after the pin: clamped to it
            ("limit_pools", {"date": "2025-06-06", "kind": "up"}),
            ("market_overview", {"date": "2025-06-01", "as_of": "2025-06-01"}),
            ("limit_pools", {"kind": "sideways"}),
        ],
    )
    m = envelope(market)
    assert m["effective_trade_date"] == "2025-06-05" and m["meta"]["pinned"] is True
    row = m["data"][0]
    assert row["traded"] == 2 and row["unchanged"] == 2  # the fixture bars close at pre_close
    p = envelope(pools)
    assert p["effective_trade_date"] == "2025-06-05" and p["status"] == "NO_DATA"
    w = envelope(weekend)  # a holiday: the latest session before it, flagged
    assert (w["effective_trade_date"], w["date_status"]) == ("2025-05-30", "LATEST_TRADING_DAY")
    assert bad.is_error is True


def test_http_routes_equal_the_lake(client: TestClient, lake_dir: Path) -> None:
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        for path, direct in (
            (
                "/v1/market?date=2025-06-05&as_of=2025-06-08",
                lake.market("2025-06-05", as_of="2025-06-08"),
            ),
            (
                "/v1/limits?date=2025-06-05&kind=down&as_of=2025-06-08",
                lake.limits("2025-06-05", kind="down", as_of="2025-06-08"),
            ),
        ):
            r = client.get(path)
            assert r.status_code == 200, r.text
            body = assert_envelope(r.json())
            assert body["status"] == direct.status
            assert body["effective_trade_date"] == direct.effective_trade_date == "2025-06-05"
            assert body["data"] == direct.data
    r = client.get("/v1/limits?kind=sideways")
    assert r.status_code in (400, 422) and r.json()["status"] == "INVALID_ARGUMENTS"
