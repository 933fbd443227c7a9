"""The universe on the bundled sample, through the real pipeline (replay:sample): its planted
traps (sample/securities_tables.py) answer as planted, and the README's backtest example runs
as written."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pitlake.read.lake import Lake

ROOT = Path(__file__).resolve().parents[2]
DELISTED, ST_REMOVED, NEW, HALTED = "000666.SZ", "600234.SH", "603398.SH", "000002.SZ"


@pytest.fixture(scope="module")
def sample_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lake = tmp_path_factory.mktemp("universe") / "lake"
    subprocess.run(
        [
            *(sys.executable, "-m", "pitlake.cli", "ingest", "--source", "replay:sample"),
            *("--start", "2025-04-28", "--end", "2025-06-30", "--lake", str(lake)),
            *("--datasets", "securities,quotes"),
        ],
        check=True,
        cwd=ROOT,
        capture_output=True,
        timeout=600,
    )
    return lake


def _members(lake: Lake, day: str) -> dict[str, dict]:
    r = lake.universe(day)
    assert r.status == "OK", r.message
    return {d["symbol"]: d for d in r.data}


def test_the_sample_traps(sample_lake: Path) -> None:
    with Lake(sample_lake) as lake:
        june3 = _members(lake, "2025-06-03")
        assert june3[DELISTED]["is_st"] and june3[DELISTED]["name"] == "*ST甲乙"
        assert DELISTED in _members(lake, "2025-06-20")  # its last session
        assert DELISTED not in _members(lake, "2025-06-23")  # its delisting date
        assert _members(lake, "2025-06-13")[ST_REMOVED]["is_st"]
        after = _members(lake, "2025-06-16")[ST_REMOVED]
        assert not after["is_st"] and after["name"] == "样本股份"
        assert _members(lake, "2025-05-13")[HALTED]["is_suspended"]
        assert not _members(lake, "2025-05-15")[HALTED]["is_suspended"]
        assert NEW not in _members(lake, "2025-06-09")
        assert _members(lake, "2025-06-10")[NEW]["list_date"] == "2025-06-10"
        # its quotes end with its last session
        bars = lake.quotes(DELISTED, start="2025-06-16", end="2025-06-30", as_of="2025-06-30")
        assert bars.data[-1]["trade_date"] == "2025-06-20"


def test_the_readme_example_runs(sample_lake: Path) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"<!-- universe-example -->\n```python\n(.*?)```", text, re.S)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code.replace('Lake("lake")', f"Lake({str(sample_lake)!r})"), {})
    lines = out.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == ["2025-04-30", "2025-05-30", "2025-06-30"]
    assert DELISTED in lines[1] and DELISTED not in lines[2]  # *ST in May, delisted by June's end


def test_the_readme_sql_runs(sample_lake: Path) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (query,) = re.findall(r"```sql\n(SELECT l\.symbol.*?)```", text, re.S)
    with Lake(sample_lake) as lake:
        r = lake.sql(query, as_of="2025-06-03")
        assert r.status == "OK"
        assert {row["symbol"] for row in r.rows} == set(_members(lake, "2025-06-03")) - {NEW}
