"""The catalogue on every surface (issue 30): `pitlake datasets --json`, `GET /v1/catalog`,
the MCP tool `datasets` and `Lake.datasets` give the same envelope, all from one function
(pitlake.read.catalogue.answer); a bad as-of is INVALID_ARGUMENTS everywhere (HTTP 400, CLI
exit 2, MCP isError), never a 500; a pin clamps it like every answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pitlake.schemas import SCHEMAS
from typer.testing import CliRunner

from pitlake.cli import app as cli_app
from pitlake.read.lake import Lake
from pitlake.serve.api.app import create_app
from pitlake.serve.mcp import create_server
from tests.serve.api.conftest import assert_envelope
from tests.serve.api.lakebuild import NOW
from tests.serve.api.test_mcp import call, envelope

AS_OF = "2025-06-05"


def _cli(root: Path, *args: str) -> tuple[int, str]:
    r = CliRunner().invoke(cli_app, ["datasets", "--lake", str(root), *args])
    return r.exit_code, r.output


def test_cli_http_mcp_and_python_agree(lake_dir: Path) -> None:
    code, out = _cli(lake_dir, "--as-of", AS_OF, "--json")
    assert code == 0, out
    cli = assert_envelope(json.loads(out))
    with TestClient(create_app(lake_dir, clock=lambda: NOW, token="")) as client:
        r = client.get("/v1/catalog", params={"as_of": AS_OF})
    assert r.status_code == 200, r.text
    http = assert_envelope(r.json())
    (result,) = call(create_server(lake_dir, clock=lambda: NOW), [("datasets", {"as_of": AS_OF})])
    mcp = envelope(result)
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        python = lake.datasets(AS_OF).to_dict()
    assert [row["name"] for row in cli["data"]] == list(SCHEMAS)
    assert cli["data"][0]["held"]["rows"] == 8  # quotes: A and B on 05-30, 06-03 … 06-05
    for other in (http, mcp, python):
        assert other["data"] == cli["data"]
        assert {k: other[k] for k in ("status", "as_of", "message", "date_status")} == {
            k: cli[k] for k in ("status", "as_of", "message", "date_status")
        }


def test_one_dataset_on_the_cli(lake_dir: Path) -> None:
    code, out = _cli(lake_dir, "quotes", "--json")
    assert code == 0
    (row,) = json.loads(out)["data"]
    assert row["name"] == "quotes"
    code, out = _cli(lake_dir, "quotez")
    assert code == 2 and "unknown dataset 'quotez'" in out
    code, out = _cli(lake_dir, "dragon-tiger")  # the CLI's spelling of a dataset
    assert code == 0 and "dragon_tiger" in out and "CNY/share" in out


@pytest.mark.parametrize("bad", ["2025-13-01", "soon", "2025-06-05T25:00"])
def test_a_bad_as_of_is_invalid_arguments_on_every_surface(lake_dir: Path, bad: str) -> None:
    code, out = _cli(lake_dir, "--as-of", bad, "--json")
    assert code == 2 and json.loads(out)["status"] == "INVALID_ARGUMENTS"
    with TestClient(
        create_app(lake_dir, clock=lambda: NOW, token=""), raise_server_exceptions=False
    ) as client:
        r = client.get("/v1/catalog", params={"as_of": bad})
    assert r.status_code == 400, r.text
    assert r.json()["status"] == "INVALID_ARGUMENTS"
    (result,) = call(create_server(lake_dir, clock=lambda: NOW), [("datasets", {"as_of": bad})])
    assert envelope(result)["status"] == "INVALID_ARGUMENTS" and result.is_error


def test_a_pin_clamps_the_catalogue(lake_dir: Path) -> None:
    """Under a start-up pin of 06-04, a later as-of sees what the lake held on 06-04."""
    server = create_server(lake_dir, clock=lambda: NOW, as_of_pin="2025-06-04")
    (result,) = call(server, [("datasets", {"as_of": "2025-12-01"})])
    body: dict[str, Any] = envelope(result)
    assert body["meta"]["pinned"] is True and body["meta"]["pin"]["clamped"] is True
    quotes = body["data"][0]
    assert quotes["name"] == "quotes" and quotes["held"]["last_date"] == "2025-06-04"
