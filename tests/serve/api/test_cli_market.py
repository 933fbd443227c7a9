"""`pitlake query market` and `pitlake query limits` (issue 18, the CLI surface): the words
answer what `Lake.market` / `Lake.limits` answer, value for value, with the same envelope, on
the bundled sample's lake (the fixture of tests/read/test_market.py: the three-board ladder of
002594.SZ, 06-09 … 06-11, broken on 06-12)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from pitlake.cli import app
from pitlake.read.lake import Lake
from tests.read import test_market as sample
from tests.serve.api.conftest import assert_envelope

# The sample lake's fixtures, shared rather than built another way (module-scoped: built once
# here, in about 2 s).
router, routed, sample_lake = sample.router, sample.routed, sample.sample_lake

AS_OF = "2025-06-12T20:00:00+08:00"  # the evening of the broken board


def cli(lake: Lake, *args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(app, ["query", *args, "--lake", str(lake.root), "--json"])
    return result.exit_code, assert_envelope(json.loads(result.stdout))


@pytest.mark.parametrize(
    ("args", "direct"),
    [
        (["market", "--date", "2025-06-11"], lambda lake: lake.market("2025-06-11", as_of=AS_OF)),
        (["limits", "--date", "2025-06-11"], lambda lake: lake.limits("2025-06-11", as_of=AS_OF)),
        (
            ["limits", "--date", "2025-06-12", "--kind", "broken"],
            lambda lake: lake.limits("2025-06-12", kind="broken", as_of=AS_OF),
        ),
        (  # asked about 06-12 before its close: NOT_READY, never 06-11's pool
            ["limits", "--date", "2025-06-12", "--as-of", "2025-06-12T14:00:00+08:00"],
            lambda lake: lake.limits("2025-06-12", as_of="2025-06-12T14:00:00+08:00"),
        ),
    ],
    ids=["market", "limits-up", "limits-broken", "limits-before-the-close"],
)
def test_the_cli_answers_what_the_lake_answers(
    sample_lake: Lake,
    args: list[str],
    direct: Any,
) -> None:
    if "--as-of" not in args:
        args = [*args, "--as-of", AS_OF]
    code, body = cli(sample_lake, *args)
    want = direct(sample_lake).to_dict()
    assert {k: body[k] for k in want if k != "meta"} == {k: want[k] for k in want if k != "meta"}
    for key in ("rows", "kind", "ladder", "pinned"):
        assert body["meta"].get(key) == want["meta"].get(key), key
    assert code == (0 if body["status"] in ("OK", "NO_DATA") else 3)


def test_the_ladder_and_the_broken_board_on_the_command_line(sample_lake: Lake) -> None:
    code, up = cli(sample_lake, "limits", "--date", "2025-06-11", "--as-of", AS_OF)
    assert code == 0 and up["status"] == "OK"
    assert (up["effective_trade_date"], up["date_status"]) == ("2025-06-11", "CURRENT")
    assert [(r["symbol"], r["consecutive"]) for r in up["data"]] == [("002594.SZ", 3)]
    assert up["meta"]["ladder"] == {"3": ["002594.SZ"]}
    _, broken = cli(
        sample_lake, "limits", "--date", "2025-06-12", "--kind", "broken", "--as-of", AS_OF
    )
    assert "002594.SZ" in {r["symbol"] for r in broken["data"]}
    _, market = cli(sample_lake, "market", "--date", "2025-06-11", "--as-of", AS_OF)
    assert market["data"][0]["ladder_height"] == 3 and market["data"][0]["limit_up"] == 1


def test_a_weekend_answers_the_latest_session_flagged(sample_lake: Lake) -> None:
    for word in ("market", "limits"):
        code, body = cli(sample_lake, word, "--date", "2025-06-14", "--as-of", "2025-06-15")
        assert code == 0 and body["status"] in ("OK", "NO_DATA")
        assert (body["effective_trade_date"], body["date_status"]) == (
            "2025-06-13",
            "LATEST_TRADING_DAY",
        )
        assert body["requested_date"] == "2025-06-14"


def test_a_bad_kind_or_a_misplaced_option_is_invalid_arguments(sample_lake: Lake) -> None:
    code, body = cli(sample_lake, "limits", "--kind", "sideways", "--as-of", AS_OF)
    assert code == 2 and body["status"] == "INVALID_ARGUMENTS"
    assert body["message"] == "invalid kind 'sideways': expected one of up, down, broken"
    code, body = cli(sample_lake, "market", "--kind", "down", "--as-of", AS_OF)
    assert code == 2 and body["status"] == "INVALID_ARGUMENTS" and "--kind" in body["message"]
    code, body = cli(sample_lake, "limits", "-s", "002594.SZ", "--as-of", AS_OF)
    assert code == 2 and body["status"] == "INVALID_ARGUMENTS" and "--symbols" in body["message"]


def test_the_readable_answer_names_its_session(sample_lake: Lake) -> None:
    result = CliRunner().invoke(
        app,
        [
            "query",
            "limits",
            "--date",
            "2025-06-11",
            "--as-of",
            AS_OF,
            "--lake",
            str(sample_lake.root),
        ],
    )
    assert result.exit_code == 0, result.output
    head = result.stdout.splitlines()[0]
    assert head.startswith("OK") and "effective 2025-06-11 (CURRENT)" in head
    assert "002594.SZ" in result.stdout
