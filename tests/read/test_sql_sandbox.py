"""Lake.sql's sandbox (issue 27, item 1): one read-only statement, no file anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus
from tests.read.test_query_future_rows import CUTOFF, planted  # noqa: F401

REFUSED = [
    "EXPORT DATABASE '.tmp'",
    "COPY (SELECT 1 AS i) TO '.tmp/x.csv'",
    "SELECT * FROM read_csv('.tmp/x.csv')",
    "SELECT * FROM glob('.tmp/*')",
    "SELECT * FROM read_parquet('.tmp/*.parquet')",
    "SELECT 1; SELECT 2",
    "SET temp_directory = '.tmp'",
    "SET enable_external_access = true",
    "ATTACH ':memory:' AS other",
    "INSTALL httpfs",
    "LOAD httpfs",
    "PRAGMA version",
    "CREATE TABLE t AS SELECT 1",
]


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("query", REFUSED)
def test_a_statement_that_writes_or_reads_a_file_is_refused(
    planted: Lake,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    query: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tmp").mkdir()
    (tmp_path / ".tmp" / "x.csv").write_text("i\n1\n")
    before, lake_before = tree(tmp_path), tree(planted.root)
    result = planted.sql(query, as_of=CUTOFF)
    assert result.status is ResultStatus.INVALID_ARGUMENTS, result.message
    assert "\n" not in result.message
    assert tree(tmp_path) == before and tree(planted.root) == lake_before


def test_a_select_still_runs_and_spilling_is_off(planted: Lake) -> None:  # noqa: F811
    result = planted.sql("SELECT current_setting('temp_directory') AS t", as_of=CUTOFF)
    assert result.status is ResultStatus.OK
    assert result.table.to_pylist() == [{"t": ""}]
