"""SQL limits against the real `pitlake serve` (uvicorn in its own process), issue 27 item 2:
a statement whose client disconnects is interrupted at once, slow statements leave /healthz
answering within a second, and SIGTERM ends the server in seconds while statements run."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

REPO = Path(__file__).resolve().parents[3]
SLOW = "SELECT sum(i) FROM range(100000000000) t(i)"  # minutes of one core
QUEUE_WAIT_S = 1.5


def _serve(lake: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "PITLAKE_SQL_CONCURRENCY": "1",
        "PITLAKE_SQL_QUEUE_WAIT": str(QUEUE_WAIT_S),
        "PITLAKE_SQL_TIMEOUT": "120",
    }
    for name in ("PITLAKE_CATALOG_URL", "PITLAKE_API_TOKEN"):
        env.pop(name, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pitlake.cli", "serve", "--lake", str(lake), "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):  # start-up, polled (at most 30 s)
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(proc.communicate()[0].decode()[-2000:])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)


def _send_slow(base: str) -> socket.socket:
    """A GET of the slow statement on a raw socket, left waiting for its answer."""
    port = int(base.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port))
    path = f"/v1/sql?q={quote(SLOW)}"
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return sock


@pytest.fixture(scope="module")
def server(lake_dir: Path) -> Iterator[str]:
    proc, base = _serve(lake_dir)
    try:
        yield base
    finally:
        _stop(proc)


def _quick(base: str) -> dict:
    r = httpx.get(f"{base}/v1/sql", params={"q": "SELECT 42 AS x"}, timeout=30)
    return r.json()


def test_a_statement_whose_client_disconnects_is_interrupted(server: str) -> None:
    sock = _send_slow(server)
    time.sleep(0.8)  # the slow statement holds the only slot
    busy = _quick(server)
    assert busy["status"] == "RATE_LIMITED" and busy["retryable"], busy
    sock.close()  # the client gives up
    time.sleep(0.6)  # a poll (0.2 s) and the interrupt
    t0 = time.monotonic()
    again = _quick(server)
    assert again["status"] == "OK" and again["data"] == [{"x": 42}], again
    assert time.monotonic() - t0 < QUEUE_WAIT_S  # the slot was free, not waited for


def test_healthz_answers_within_a_second_while_statements_run(server: str) -> None:
    socks = [_send_slow(server) for _ in range(3)]
    try:
        time.sleep(0.5)
        for _ in range(5):
            t0 = time.monotonic()
            assert httpx.get(f"{server}/healthz", timeout=5).status_code == 200
            assert time.monotonic() - t0 < 1.0
            time.sleep(0.2)
    finally:
        for s in socks:
            s.close()


def test_sigterm_ends_the_server_while_a_statement_runs(lake_dir: Path) -> None:
    proc, base = _serve(lake_dir)
    try:
        sock = _send_slow(base)
        time.sleep(0.8)
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
        took = time.monotonic() - t0
        answer = sock.recv(65536).decode(errors="replace")
        sock.close()
    finally:
        _stop(proc)
    assert took < 6.0, f"shutdown took {took:.1f} s"
    assert proc.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it handled
    assert "shutting down" in answer  # the interrupted statement's envelope reached its client
