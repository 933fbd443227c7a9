"""Generated SQL against the sandbox (issue 27, item 1): over `Lake.sql` and `/v1/sql`, no
statement leaves a file anywhere (cwd, lake, temp directories) and none answers a 500."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus
from tests.serve.api.lakebuild import NOW

VIEWS = ("quotes", "adj_factors", "valuation", "financials", "news", "quotes_versions", "calendar")
PATHS = (".tmp", ".tmp/x.csv", ".tmp/*", "x.parquet", "../x.csv", "/tmp/pitlake_fuzz.csv")

select = st.one_of(
    st.builds("SELECT count(*) FROM {}".format, st.sampled_from(VIEWS)),
    st.builds("SELECT * FROM {} LIMIT 3".format, st.sampled_from(VIEWS)),
    st.builds("WITH t AS (SELECT * FROM {}) SELECT count(*) FROM t".format, st.sampled_from(VIEWS)),
    st.just("VALUES (1), (2)"),
    st.just("DESCRIBE quotes"),
    st.just("SELECT current_setting('temp_directory')"),
)
path = st.sampled_from(PATHS)
hostile = st.one_of(
    st.builds("COPY (SELECT * FROM {}) TO '{}'".format, st.sampled_from(VIEWS), path),
    st.builds("COPY (SELECT 1 AS i) TO '{}' (FORMAT parquet)".format, path),
    st.builds("EXPORT DATABASE '{}'".format, path),
    st.builds("ATTACH '{}' AS other".format, st.sampled_from(("x.duckdb", ".tmp/x.duckdb"))),
    st.sampled_from(("INSTALL httpfs", "LOAD httpfs", "PRAGMA version", "CHECKPOINT")),
    st.builds("SET temp_directory = '{}'".format, path),
    st.sampled_from(("SET enable_external_access = true", "SET lock_configuration = false")),
    st.builds("SELECT * FROM read_csv('{}')".format, path),
    st.builds("SELECT * FROM read_parquet('{}')".format, path),
    st.builds("SELECT * FROM glob('{}')".format, path),
    st.builds("CREATE TABLE t AS SELECT * FROM {}".format, st.sampled_from(VIEWS)),
)
statement = st.one_of(select, hostile)
script = st.one_of(
    statement, st.lists(statement, min_size=2, max_size=3).map("; ".join), st.text(max_size=40)
)


def snapshot(*roots: Path) -> set[str]:
    return {str(p) for root in roots for p in root.rglob("*")}


@pytest.fixture
def sandbox(lake_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The directories a statement could write to: the cwd, the lake and the temp dir."""
    monkeypatch.chdir(tmp_path)
    return [tmp_path, lake_dir, Path(tempfile.gettempdir())]


FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(query=script)
def test_lake_sql_leaves_no_file(lake_dir: Path, sandbox: list[Path], query: str) -> None:
    before = snapshot(*sandbox[:2])
    tmp_before = set(os.listdir(sandbox[2]))
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        result = lake.sql(query, as_of="2025-06-30")
    assert result.status in (
        ResultStatus.OK,
        ResultStatus.NO_DATA,
        ResultStatus.INVALID_ARGUMENTS,
    ), result.message
    assert snapshot(*sandbox[:2]) == before
    assert {n for n in os.listdir(sandbox[2]) if "pitlake_fuzz" in n or n == ".tmp"} <= tmp_before


@FUZZ
@given(query=script)
def test_http_sql_leaves_no_file(client: TestClient, sandbox: list[Path], query: str) -> None:
    before = snapshot(*sandbox[:2])
    response = client.post("/v1/sql", json={"query": query, "as_of": "2025-06-30"})
    assert response.status_code in (200, 400, 422), response.text
    assert snapshot(*sandbox[:2]) == before
    assert not Path("/tmp/pitlake_fuzz.csv").exists()


@pytest.mark.parametrize(
    "query", ["SELECT 1; SELECT 2", "EXPORT DATABASE '.tmp'", "SELECT * FROM glob('.tmp/*')"]
)
def test_cli_and_http_refuse_with_one_line(
    client: TestClient, lake_dir: Path, sandbox: list[Path], query: str
) -> None:
    from typer.testing import CliRunner

    from pitlake.cli import app

    before = snapshot(*sandbox[:2])
    run = CliRunner().invoke(app, ["sql", "--lake", str(lake_dir), "--as-of", "2025-06-30", query])
    assert run.exit_code == 2, run.output
    r = client.get("/v1/sql", params={"q": query})
    assert r.status_code == 400 and r.json()["status"] == "INVALID_ARGUMENTS"
    assert "\n" not in r.json()["message"]
    assert snapshot(*sandbox[:2]) == before
