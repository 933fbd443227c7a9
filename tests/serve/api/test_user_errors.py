"""A user's mistake is INVALID_ARGUMENTS (400 / exit 2), never a lake fault (503 / exit 1)
(issue 27 item 10): a statement answering two columns of one name, a column the asked file
format cannot hold, an as-of past datetime's range in Beijing time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus
from tests.serve.api.conftest import assert_envelope

OVERFLOW = "9999-12-31T23:59:59-12:00"  # 10000-01-01 in Beijing


def test_lake_sql_refuses_two_columns_of_one_name(lake_dir: Path) -> None:
    with Lake(lake_dir) as lk:
        r = lk.sql("SELECT 1 AS a, 2 AS a")
    assert r.status is ResultStatus.INVALID_ARGUMENTS and "'a'" in r.message


def test_an_out_of_range_as_of_is_invalid_on_every_read(lake_dir: Path) -> None:
    with Lake(lake_dir) as lk:
        for answer in (
            lk.sql("SELECT 1 AS x", as_of=OVERFLOW),
            lk.quotes("600519", as_of=OVERFLOW),
        ):
            assert answer.status is ResultStatus.INVALID_ARGUMENTS, answer.message
            assert "out of range" in answer.message


@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"q": "SELECT 1 AS a, 2 AS a"}, "'a'"),
        ({"q": "SELECT INTERVAL 1 DAY AS i", "format": "parquet"}, "'i'"),
        ({"q": "SELECT union_value(k := 1) AS u", "format": "parquet"}, "'u'"),
        ({"q": "SELECT 1 AS x", "as_of": OVERFLOW}, "out of range"),
    ],
)
def test_http_answers_400_not_503(client: TestClient, params: dict, needle: str) -> None:
    r = client.get("/v1/sql", params=params)
    assert r.status_code == 400, r.text[:300]
    body = assert_envelope(r.json())
    assert body["status"] == "INVALID_ARGUMENTS" and needle in body["message"]


def test_an_interval_still_answers_as_json_and_arrow(client: TestClient) -> None:
    for fmt in ("json", "arrow"):
        assert (
            client.get(
                "/v1/sql", params={"q": "SELECT INTERVAL 1 DAY AS i", "format": fmt}
            ).status_code
            == 200
        )


def test_a_dataset_route_with_an_out_of_range_as_of_is_400(client: TestClient) -> None:
    r = client.get("/v1/quotes", params={"symbol": "600519", "as_of": OVERFLOW})
    assert r.status_code == 400 and "out of range" in r.json()["message"]


@pytest.mark.parametrize(
    ("query", "fmt"),
    [
        ("SELECT 1 AS a, 2 AS a", "table"),
        ("SELECT INTERVAL 1 DAY AS i", "csv"),
        ("SELECT INTERVAL 1 DAY AS i", "parquet"),
    ],
)
def test_the_cli_exits_2_with_one_line(
    lake_dir: Path, tmp_path: Path, query: str, fmt: str
) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pitlake.cli",
            "sql",
            "--lake",
            str(lake_dir),
            "--format",
            fmt,
            "--output",
            str(tmp_path / "out"),
            query,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "out").exists()
