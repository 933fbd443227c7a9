"""GET /v1/runs (issue 32 item 3, the API side): the lake's ingest runs as known at the
cutoff, as an envelope. A run started after the cutoff (or the pin) is hidden, one that ended
after it is RUNNING without its end, a killed one ABANDONED with when it was last alive."""

from __future__ import annotations

import socket
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pitlake.lake.catalog import Catalog
from tests.serve.api.conftest import assert_envelope
from tests.serve.api.lakebuild import bj

DEAD = f"{socket.gethostname()}~999999999~dead"  # no such pid on this host
SUMMARY = {
    "completed": True,
    "datasets": [
        {
            "dataset": "quotes",
            "status": "OK",
            "units": 1,
            "rows": 3,
            "rows_added": 3,
            "failed_units": [{"date": "2025-06-03", "message": "kept off the API"}],
        },
    ],
}


@pytest.fixture
def runs_lake(writable_lake: Path) -> Path:
    with Catalog(lake_root=writable_lake) as cat:
        cat.start_run("early", "nightly", {"date": "2025-06-03"}, bj("2025-06-03", "18:00"))
        cat.finish_run("early", "COMPLETED", SUMMARY, bj("2025-06-03", "18:10"))
        # Ends the morning after the 06-04 pin: RUNNING as of 06-04.
        cat.start_run("spans", "backfill", {}, bj("2025-06-04", "20:00"))
        cat.finish_run("spans", "COMPLETED", SUMMARY, bj("2025-06-05", "09:00"))
        cat.start_run("later", "nightly", {}, bj("2025-06-05", "18:00"))
        cat.finish_run("later", "FAILED", {"completed": False}, bj("2025-06-05", "18:05"))
        cat.start_run("killed", "nightly", {}, bj("2025-06-06", "18:00"), holder=DEAD)
    return writable_lake


def _runs(client: TestClient, **params: str) -> dict:
    r = client.get("/v1/runs", params=params)
    body = assert_envelope(r.json())
    assert r.status_code == 200, body
    return body


def test_runs_now_newest_first_with_the_killed_one_abandoned(
    make_client: Callable[..., TestClient], runs_lake: Path
) -> None:
    body = _runs(make_client(runs_lake))
    assert body["status"] == "OK" and body["source"] == "catalog"
    assert body["meta"]["pinned"] is False
    shown = {r["run_id"]: r for r in body["data"]}
    assert [r["run_id"] for r in body["data"]] == ["killed", "later", "spans", "early"]
    killed = shown["killed"]
    assert killed["status"] == "ABANDONED" and killed["recorded_status"] == "RUNNING"
    assert killed["last_alive"] == "2025-06-06T18:00:00+08:00" and killed["ended_at"] is None
    early = shown["early"]
    assert early["status"] == "COMPLETED" and early["ended_at"] == "2025-06-03T18:10:00+08:00"
    assert early["completed"] is True and early["last_alive"] is None
    assert early["datasets"] == [
        {"dataset": "quotes", "status": "OK", "units": 1, "rows": 3, "rows_added": 3}
    ]
    assert "holder" not in killed  # host and pid stay in the catalog
    assert shown["later"]["status"] == "FAILED"


def test_as_of_hides_later_runs_and_shows_one_ending_later_running(
    make_client: Callable[..., TestClient], runs_lake: Path
) -> None:
    body = _runs(make_client(runs_lake), as_of="2025-06-04")
    assert [r["run_id"] for r in body["data"]] == ["spans", "early"]
    spans = body["data"][0]
    assert spans["status"] == spans["recorded_status"] == "RUNNING"
    assert spans["ended_at"] is None and spans["completed"] is None and spans["datasets"] == []


def test_a_pinned_server_hides_what_started_after_its_pin(
    make_client: Callable[..., TestClient], runs_lake: Path
) -> None:
    pinned = make_client(runs_lake, as_of_pin="2025-06-04", allowed_pins={"first": "2025-06-03"})
    body = _runs(pinned, as_of="2025-06-30")  # a later as-of is clamped to the pin
    assert [r["run_id"] for r in body["data"]] == ["spans", "early"]
    assert body["data"][0]["status"] == "RUNNING"
    assert body["meta"]["pinned"] is True and body["meta"]["pin"]["clamped"] is True
    assert _runs(pinned)["as_of"] == body["as_of"]  # no as-of: the pin, not now
    r = pinned.get("/v1/runs", headers={"X-Pitlake-Pin": "first"})
    assert [d["run_id"] for d in r.json()["data"]] == ["early"]


def test_a_killed_run_is_judged_by_its_beats_before_a_past_cutoff(
    make_client: Callable[..., TestClient], runs_lake: Path
) -> None:
    client = make_client(runs_lake)
    start = bj("2025-06-06", "18:00")
    soon = _runs(client, as_of=(start + timedelta(minutes=1)).isoformat())["data"][0]
    assert soon["run_id"] == "killed" and soon["status"] == "RUNNING"  # not yet missed a beat
    late = _runs(client, as_of=(start + timedelta(minutes=10)).isoformat())["data"][0]
    assert late["status"] == "ABANDONED" and late["last_alive"] == "2025-06-06T18:00:00+08:00"


def test_limit_keeps_the_newest_and_no_run_is_no_data(
    make_client: Callable[..., TestClient], runs_lake: Path
) -> None:
    body = _runs(make_client(runs_lake), limit="2")
    assert [r["run_id"] for r in body["data"]] == ["killed", "later"]
    assert _runs(make_client(runs_lake), as_of="2025-06-01")["status"] == "NO_DATA"


@pytest.mark.parametrize(
    "params",
    [{"limit": "0"}, {"limit": "many"}, {"as_of": "yesterday-ish"}, {"as_0f": "2025-06-04"}],
)
def test_bad_questions_are_one_clear_400(
    make_client: Callable[..., TestClient], runs_lake: Path, params: dict[str, str]
) -> None:
    r = make_client(runs_lake).get("/v1/runs", params=params)
    body = assert_envelope(r.json())
    assert r.status_code in (400, 422) and body["status"] == "INVALID_ARGUMENTS", body
    assert body["data"] == []


def test_the_cli_mcp_and_lake_give_the_same_runs_as_of_the_cutoff(
    make_client: Callable[..., TestClient], runs_lake: Path
) -> None:
    """`pitlake runs --as-of`, the MCP tool `runs` and `Lake.runs` are the route's answer:
    a run started after the cutoff stays out, one ended after it is RUNNING."""
    import asyncio
    import json

    from fastmcp import Client
    from typer.testing import CliRunner

    from pitlake.cli import app
    from pitlake.read.lake import Lake
    from pitlake.serve.mcp import create_server

    route = _runs(make_client(runs_lake), as_of="2025-06-04")["data"]
    assert [r["run_id"] for r in route] == ["spans", "early"]
    out = CliRunner().invoke(
        app, ["runs", "--lake", str(runs_lake), "--as-of", "2025-06-04", "--json"]
    )
    assert out.exit_code == 0, out.output
    assert [json.loads(line) for line in out.output.splitlines()] == route
    with Lake(runs_lake) as lake:
        assert lake.runs("2025-06-04").to_dict()["data"] == route
        assert lake.runs("2025-06-04", limit=0).status.value == "INVALID_ARGUMENTS"

    async def go() -> object:
        async with Client(create_server(runs_lake)) as client:
            return await client.call_tool("runs", {"as_of": "2025-06-04"}, raise_on_error=False)

    assert asyncio.run(go()).structured_content["data"] == route
    bad = CliRunner().invoke(app, ["runs", "--lake", str(runs_lake), "--as-of", "not-a-date"])
    assert bad.exit_code == 2 and "not-a-date" in bad.output
