"""Fixtures for the dashboard tests: a fresh catalog per test (synthetic ledger facts), the
failure lake (sample + injected failures, built once per session) and HTTP clients on
`create_app`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from pitlake.calendar import BEIJING
from pitlake.lake.catalog import Catalog

# "Now" for the synthetic tests: long after everything recorded, inside the calendar.
NOW = datetime(2025, 12, 31, 12, 0, tzinfo=BEIJING)
RECORDED = datetime(2025, 7, 1, 9, 0, tzinfo=BEIJING)
ENV_KEPT_OUT = (
    "PITLAKE_CATALOG_URL",
    "PITLAKE_STALE_SESSIONS",
    "PITLAKE_API_TOKEN",
    "TUSHARE_TOKEN",
    "TS_TOKEN",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dashboard reads these; a developer's shell must not change the answers."""
    for name in ENV_KEPT_OUT:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    """A lake with an empty catalog (what a first ingest leaves before any run): a directory
    without one is not a lake, and the read surfaces refuse it."""
    root = tmp_path / "lake"
    root.mkdir()
    Catalog(lake_root=root).close()
    return root


@pytest.fixture
def catalog(lake: Path) -> Iterator[Catalog]:
    cat = Catalog(lake_root=lake)
    yield cat
    cat.close()


@pytest.fixture(scope="session")
def failure_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample ingested with planted failures (tests/serve/dashboard/failure_lake.py)."""
    from tests.serve.dashboard.failure_lake import build_failure_lake

    with pytest.MonkeyPatch.context() as mp:
        for name in ENV_KEPT_OUT:
            mp.delenv(name, raising=False)
        return build_failure_lake(tmp_path_factory.mktemp("dashboard"))


@pytest.fixture
def client_for() -> Iterator[Callable[..., Any]]:
    """`client_for(lake, **create_app_kwargs)` → a TestClient on the real app (closed after)."""
    from fastapi.testclient import TestClient

    from pitlake.serve.api.app import create_app

    clients: list[TestClient] = []

    def make(lake: Path, **kwargs: Any) -> TestClient:
        kwargs.setdefault("clock", lambda: NOW)
        client = TestClient(create_app(lake, **kwargs))
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for c in clients:
        c.__exit__(None, None, None)
