"""Fixtures for the query-API tests: one known lake (see lakebuild.py), the HTTP app over it
with an injected clock, and a writable copy for the tests that damage or add to the lake."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from pitlake.serve.api.app import create_app
from pitlake.serve.api.service import QueryService
from tests.serve.api.lakebuild import NOW, build_lake

ENV_VARS = ("PITLAKE_CATALOG_URL", "PITLAKE_API_TOKEN", "PITLAKE_HOME", "TUSHARE_TOKEN", "TS_TOKEN")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests choose catalog, token and lake explicitly; the shell's settings must not leak in."""
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def lake_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared read-only lake. Tests that change a lake use `writable_lake`."""
    return build_lake(tmp_path_factory.mktemp("api") / "lake")


@pytest.fixture
def writable_lake(lake_dir: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(lake_dir, tmp_path / "lake"))


@pytest.fixture
def make_client(lake_dir: Path) -> Iterator[Callable[..., TestClient]]:
    """make_client(**create_app kwargs) → a TestClient (clock fixed at NOW)."""
    opened: list[TestClient] = []

    def make(lake: Path | None = None, **kw: Any) -> TestClient:
        kw.setdefault("clock", lambda: NOW)
        client = TestClient(create_app(lake or lake_dir, **kw), raise_server_exceptions=False)
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in opened:
        client.__exit__(None, None, None)


@pytest.fixture(scope="session")
def client(lake_dir: Path) -> Iterator[TestClient]:
    """The unpinned app without a token, shared by the read-only tests."""
    app = create_app(lake_dir, clock=lambda: NOW, token="")
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.fixture
def service(lake_dir: Path) -> Iterator[QueryService]:
    svc = QueryService(lake_dir, clock=lambda: NOW)
    yield svc
    svc.close()


ENVELOPE_KEYS = {
    "status",
    "requested_date",
    "effective_trade_date",
    "date_status",
    "as_of",
    "source",
    "retryable",
    "message",
    "data",
    "meta",
}
META_KEYS = {"rows", "known_at_max", "vendor_trace", "pinned"}


def assert_envelope(body: dict[str, Any]) -> dict[str, Any]:
    """The same keys everywhere (docs/design.md §8)."""
    assert set(body) == ENVELOPE_KEYS, sorted(set(body) ^ ENVELOPE_KEYS)
    assert META_KEYS <= set(body["meta"]), sorted(META_KEYS - set(body["meta"]))
    assert isinstance(body["data"], list) and isinstance(body["retryable"], bool)
    return body
