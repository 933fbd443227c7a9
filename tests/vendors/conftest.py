"""Shared helpers for the vendor-core tests: replay directories written on the fly, a fake clock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.lake.conftest import fresh_pg_url


class FakeClock:
    """A monotonic clock that only moves when something sleeps on it."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def write_table(
    root: Path, vendor: str, key: str, rows: Iterable[Mapping[str, Any]], fmt: str = "jsonl"
) -> Path:
    """Write vendor-native rows the way a replay directory stores them."""
    folder = root / vendor
    folder.mkdir(parents=True, exist_ok=True)
    rows = list(rows)
    path = folder / f"{key}.{fmt}"
    if fmt == "jsonl":
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )
    elif fmt == "csv":
        pd.DataFrame(rows).to_csv(path, index=False)
    elif fmt == "parquet":
        pd.DataFrame(rows).to_parquet(path, index=False)
    else:
        raise ValueError(fmt)
    return path


def write_error(root: Path, vendor: str, key: str, spec: Any) -> Path:
    folder = root / vendor
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}.error.json"
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def replay_dir(tmp_path: Path) -> Path:
    root = tmp_path / "replay"
    root.mkdir()
    return root


def ts_daily_row(code: str, day: str, close: float, vol: float | int = 1000) -> dict[str, Any]:
    return {
        "ts_code": code,
        "trade_date": day,
        "open": close,
        "high": close,
        "low": close,
        "close": close,
        "pre_close": close,
        "change": 0.0,
        "pct_chg": 0.0,
        "vol": vol,
        "amount": 1234.5,
    }


def em_hist_row(code: str, day: str, close: float) -> dict[str, Any]:
    return {
        "日期": day,
        "股票代码": code,
        "开盘": close,
        "收盘": close,
        "最高": close,
        "最低": close,
        "成交量": 100,
        "成交额": 1.0e6,
        "振幅": 0.0,
        "涨跌幅": 0.0,
        "涨跌额": 0.0,
        "换手率": 0.1,
    }


def _quota_backends() -> list[str]:
    return ["sqlite", "postgres"] if os.environ.get("PITLAKE_TEST_PG_URL") else ["sqlite"]


@pytest.fixture(params=_quota_backends())
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where a test's shared vendor quota lives (PITLAKE_QUOTA_URL): a SQLite file, and a
    fresh PostgreSQL schema too when PITLAKE_TEST_PG_URL is set."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'quota.sqlite'}"
        return
    with fresh_pg_url() as url:
        assert url is not None
        yield url


REPO = Path(__file__).resolve().parents[2]


def python_child(code: str, days: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """`python -c code DAY,DAY,…` from the repository: a real second process on the token."""
    return subprocess.Popen(
        [sys.executable, "-c", code, ",".join(days)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def child_result(child: subprocess.Popen[str], timeout: float = 300) -> dict[str, Any]:
    """The JSON line a `python_child` printed last (its stderr when it failed)."""
    out, err = child.communicate(timeout=timeout)
    assert child.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])
