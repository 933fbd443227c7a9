"""Fixtures for the CLI failure tests: the query-API test lake (built once) and copies of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.serve.api.lakebuild import build_lake

ENV_VARS = ("PITLAKE_CATALOG_URL", "PITLAKE_HOME", "PITLAKE_DEBUG", "TUSHARE_TOKEN", "TS_TOKEN")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def built_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_lake(tmp_path_factory.mktemp("cli") / "lake")


@pytest.fixture
def lake_copy(built_lake: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(built_lake, tmp_path / "lake"))
