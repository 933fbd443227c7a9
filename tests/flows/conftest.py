"""A real local Prefect server for the flow tests (Dask needs one: in temporary mode each
worker would start its own server and leave it orphaned). Started once, stopped by its PID."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample"
BIN = Path(sys.executable).parent

QUIET = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "PREFECT_LOGGING_LOGGERS_PREFECT_SERVER_LEVEL": "CRITICAL",
    "PREFECT_LOGGING_LEVEL": "WARNING",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    home = tmp_path_factory.mktemp("prefect-home")
    port = free_port()
    env = {**os.environ, **QUIET, "PREFECT_HOME": str(home)}
    env.pop("PREFECT_API_URL", None)
    log = open(home / "server.log", "w")
    proc = subprocess.Popen(
        [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/api"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            raise RuntimeError(f"prefect server did not start: {(home / 'server.log').read_text()}")
        time.sleep(0.5)
    try:
        yield {"PREFECT_API_URL": url, "PREFECT_HOME": str(home), **QUIET}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


@pytest.fixture(scope="session", autouse=True)
def prefect_api(prefect_server: dict[str, str]) -> Iterator[None]:
    """Point in-process flow runs at the server."""
    from prefect.settings import PREFECT_API_URL, PREFECT_LOGGING_TO_API_ENABLED, temporary_settings

    # Run logs stay local: shipping them to the API only slows the server's shutdown.
    with temporary_settings(
        updates={
            PREFECT_API_URL: prefect_server["PREFECT_API_URL"],
            PREFECT_LOGGING_TO_API_ENABLED: False,
        }
    ):
        yield


@pytest.fixture
def replay(tmp_path: Path) -> Path:
    """A private copy of the bundled sample, for failure injection."""
    dst = tmp_path / "replay"
    shutil.copytree(SAMPLE, dst)
    return dst


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    return tmp_path / "lake"
