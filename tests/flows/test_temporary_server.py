"""Prefect's temporary server as a CLI run starts it (pitlake/flows/ephemeral.py): concurrent
first runs sharing a fresh PREFECT_HOME do not collide migrating its database and print no
Prefect traceback; the start waits for the lock beside the database; a SIGKILLed ingest leaves
no server behind. Real `pitlake ingest` processes, no PREFECT_API_URL (as a user runs it)."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pitlake.flows.ephemeral import LOCK_NAME

REPO = Path(__file__).resolve().parents[2]
INGEST = [sys.executable, "-m", "pitlake.cli", "ingest", "--source", "replay:sample"]
ONE_SESSION = ["--date", "2025-06-03", "--datasets", "quotes"]


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PITLAKE_", "PREFECT_")) or k.startswith("PREFECT_LOGGING")
    }
    return {**env, "PREFECT_HOME": str(home), **extra}


def _start(lake: Path, home: Path, **extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*INGEST, *ONE_SESSION, "--lake", str(lake)],
        cwd=REPO,
        env=_env(home, **extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _servers_of(home: Path) -> list[int]:
    """Live processes started with this PREFECT_HOME that run a uvicorn server."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            environ = (proc / "environ").read_bytes().split(b"\0")
            cmdline = (proc / "cmdline").read_bytes()
            state = (proc / "stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if f"PREFECT_HOME={home}".encode() in environ and b"uvicorn" in cmdline and state != "Z":
            found.append(int(proc.name))
    return found


def test_concurrent_first_runs_share_a_fresh_prefect_home(tmp_path: Path) -> None:
    home = tmp_path / "prefect-home"
    runs = [_start(tmp_path / f"lake{i}", home) for i in range(3)]
    outs = [p.communicate(timeout=600) for p in runs]
    for p, (out, err) in zip(runs, outs, strict=True):
        assert p.returncode == 0, err
        assert "Traceback" not in out + err, err[-3000:]
        assert "duplicate column name" not in out + err
        assert "quotes" in out and "OK" in out
    assert (home / "prefect.db").is_file()


def _holds_open(pid: int, path: Path) -> bool:
    try:
        return any(os.readlink(fd) == str(path) for fd in Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False


def test_the_server_start_waits_for_the_lock_beside_the_database(tmp_path: Path) -> None:
    home = tmp_path / "prefect-home"
    home.mkdir()
    path = home / LOCK_NAME
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run is starting its server
        run = _start(tmp_path / "lake", home, PITLAKE_PROGRESS_INTERVAL="3600")
        while not _holds_open(run.pid, path):  # it reached the lock: it waits there
            assert run.poll() is None, f"the run ended without waiting: {run.communicate()}"
            time.sleep(0.1)
        time.sleep(3)
        assert run.poll() is None
        assert not (home / "prefect.db").exists()  # no server has migrated it meanwhile
        assert _servers_of(home) == []
        fcntl.flock(lock, fcntl.LOCK_UN)
    _, err = run.communicate(timeout=600)
    assert run.returncode == 0, err
    assert (home / "prefect.db").is_file()


def test_a_killed_ingest_leaves_no_server_behind(tmp_path: Path) -> None:
    home = tmp_path / "prefect-home"
    run = subprocess.Popen(
        [*INGEST, *ONE_SESSION, "--lake", str(tmp_path / "lake")],
        cwd=REPO,
        env=_env(home, PITLAKE_KILL_AT="after_fetch"),
        stdout=subprocess.DEVNULL,  # a pipe would stay open in an orphaned child
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert run.wait(timeout=300) == -signal.SIGKILL
    deadline = time.monotonic() + 15
    while _servers_of(home) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = _servers_of(home)
    for pid in left:  # leave nothing running, whatever the verdict
        os.kill(pid, signal.SIGKILL)
    assert left == [], "the temporary server outlived its SIGKILLed ingest"
