"""The universe from AkShare alone (Tushare failing on the sample's securities endpoints): the
exchanges' lists give listings and delistings with their dates, the suspensions come by date,
and today's names are only known from the fetch on (first_seen), never back-dated."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pitlake.read.lake import Lake

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def akshare_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("ak")
    replay = Path(shutil.copytree(ROOT / "sample", base / "replay"))
    for endpoint in ("stock_basic", "namechange", "suspend_d"):
        (replay / "tushare" / f"{endpoint}.error.json").write_text(
            json.dumps({"error": "upstream_error"}), encoding="utf-8"
        )
    lake = base / "lake"
    subprocess.run(
        [
            *(sys.executable, "-m", "pitlake.cli", "ingest", "--source", f"replay:{replay}"),
            *("--start", "2025-05-12", "--end", "2025-05-13", "--lake", str(lake)),
            *("--datasets", "securities"),
        ],
        check=True,
        cwd=ROOT,
        capture_output=True,
        timeout=600,
    )
    return lake


def test_akshare_serves_listings_delistings_and_suspensions(akshare_lake: Path) -> None:
    with Lake(akshare_lake) as lake:
        may13 = lake.universe("2025-05-13")
        assert may13.status == "OK" and may13.source == "akshare"
        got = {d["symbol"]: d for d in may13.data}
        assert got["000002.SZ"]["is_suspended"] and got["000666.SZ"]["board"] == "main"
        assert got["000002.SZ"]["name"] is None  # today's list: named only from the fetch on
        late = lake.universe("2025-06-23")  # past the window fetched: STALE, still answered
        assert late.date_status == "STALE"
        june23 = {d["symbol"] for d in late.data}
        assert "000666.SZ" in got and "000666.SZ" not in june23  # delisted on 06-23
        assert "603398.SH" in june23 and "603398.SH" not in got  # listed on 06-10
