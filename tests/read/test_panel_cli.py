"""`pitlake panel`: the panel written to Parquet equals `Lake.panel`; a bad field exits 2."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from typer.testing import CliRunner

from pitlake.cli import app
from pitlake.read.lake import Lake
from tests.serve.api.lakebuild import NOW, SESSIONS, A, B, build_lake


def test_cli_writes_the_panel_and_refuses_a_bad_field(tmp_path: Path) -> None:
    root = build_lake(tmp_path / "lake")
    out = tmp_path / "p.parquet"
    args = ["panel", "close,revenue", "--start", SESSIONS[0], "--end", SESSIONS[-1]]
    common = ["--universe", f"{A},{B}", "--as-of", NOW.isoformat(), "--lake", str(root)]
    done = CliRunner().invoke(app, [*args, *common, "--output", str(out)])
    assert done.exit_code == 0, done.output
    with Lake(root, clock=lambda: NOW) as lake:
        expect = lake.panel(["close", "revenue"], SESSIONS[0], SESSIONS[-1], universe=[A, B])
    assert pq.read_table(out).to_pylist() == expect.to_arrow().to_pylist()
    bad = CliRunner().invoke(app, ["panel", "clse", *args[2:], *common, "-o", str(out)])
    assert bad.exit_code == 2
    assert "did you mean close" in bad.output
