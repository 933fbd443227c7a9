"""A failed answer never becomes an empty frame (issue 27 item 9): `to_arrow`, `to_pandas` and
`to_polars` raise the typed error of a failure without rows; OK and NO_DATA convert, and so
does a partial answer that holds rows."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from pitlake.envelope import Result
from pitlake.errors import AnswerUnavailableError, InvalidArgumentsError
from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus
from tests.serve.api.lakebuild import build_lake


@pytest.fixture(scope="module")
def lake_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_lake(tmp_path_factory.mktemp("frames") / "lake")


@pytest.mark.parametrize("form", ["to_arrow", "to_pandas", "to_polars"])
def test_a_bad_statement_raises_invalid_arguments(lake_dir: Path, form: str) -> None:
    with Lake(lake_dir) as lk:
        answer = lk.sql("SELEC 1")
    assert answer.status is ResultStatus.INVALID_ARGUMENTS
    with pytest.raises(InvalidArgumentsError, match="SQL error"):
        getattr(answer, form)()


@pytest.mark.parametrize(
    "status",
    [
        ResultStatus.NOT_READY,
        ResultStatus.UNKNOWN,
        ResultStatus.UPSTREAM_ERROR,
        ResultStatus.RATE_LIMITED,
    ],
)
def test_a_failure_without_rows_raises_with_its_status(status: ResultStatus) -> None:
    answer = Result(
        status=status,
        message="not fetched",
        retryable=True,
        table=pa.table({"x": pa.array([], pa.int64())}),
    )
    with pytest.raises(AnswerUnavailableError) as caught:
        answer.to_pandas()
    assert caught.value.status is status and caught.value.retryable is True
    assert caught.value.envelope["status"] == status.value


def test_no_data_and_partial_answers_convert() -> None:
    empty = Result(status=ResultStatus.NO_DATA, table=pa.table({"x": pa.array([], pa.int64())}))
    assert len(empty.to_pandas()) == 0 and empty.to_arrow().num_rows == 0
    partial = Result(status=ResultStatus.UNKNOWN, table=pa.table({"x": [1, 2]}))
    assert partial.to_pandas()["x"].tolist() == [1, 2]


def test_a_real_read_of_an_unfetched_range_raises_not_empty(lake_dir: Path) -> None:
    with Lake(lake_dir) as lk:
        answer = lk.quotes("600519", start="2024-01-02", end="2024-01-05", as_of="2025-06-30")
    assert answer.status not in (ResultStatus.OK, ResultStatus.NO_DATA), answer.status
    assert not answer.data
    with pytest.raises((AnswerUnavailableError, InvalidArgumentsError)):
        answer.to_pandas()
