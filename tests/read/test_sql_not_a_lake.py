"""Lake.sql on a directory that is not a lake raises NotALakeError (issue 27, item 8)."""

from pathlib import Path

import pytest

from pitlake.errors import NotALakeError
from pitlake.read.lake import Lake


def test_sql_on_a_missing_lake_raises(tmp_path: Path) -> None:
    with pytest.raises(NotALakeError):
        Lake(tmp_path / "nope").sql("SELECT count(*) n FROM quotes", as_of="2025-05-01")
