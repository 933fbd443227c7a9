"""Prefect's temporary server for a CLI run without `PREFECT_API_URL`, started by pitlake
rather than lazily by Prefect's client, for three reasons (issues 30 and 32):

- Concurrent first runs share `$PREFECT_HOME/prefect.db`: each server migrates it at start-up,
  and two migrating at once fail (`duplicate column name: concurrency_options`, a 190-line
  traceback). The start is serialized across processes by a lock file beside the database,
  so the second server finds the schema migrated.
- The server is a child process writing to the terminal: its output goes to the run's log
  instead (`<lake>/logs/ingest-<run_id>.log`), so no Prefect traceback reaches the console.
- A SIGKILLed ingest used to orphan it: the child asks the kernel for SIGTERM when its parent
  dies (Linux `PR_SET_PDEATHSIG`).

Prefect's client takes the same server: `SubprocessASGIServer()` is one instance per port, and
the client asks for the default one (prefect/client/orchestration/__init__.py, `get_client`)."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

PR_SET_PDEATHSIG = 1  # linux/prctl.h
LOCK_NAME = "pitlake-server-start.lock"


def _die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the parent dies (no-op where there is no prctl)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _uvicorn_command(server: Any, output: IO[str] | None) -> subprocess.Popen[Any]:
    """Prefect's own `SubprocessASGIServer._run_uvicorn_command` (prefect 3.9), with the
    child's output sent to `output` and its life bound to ours."""
    import prefect
    from prefect.settings import get_current_settings

    return subprocess.Popen(
        args=[
            *(sys.executable, "-m", "uvicorn", "--app-dir", str(prefect.__module_path__.parent)),
            *("--factory", "prefect.server.api.server:create_app", "--host", "127.0.0.1"),
            *("--port", str(server.port), "--log-level", "error", "--lifespan", "on"),
        ],
        env={
            **os.environ,
            "PREFECT_UI_ENABLED": "0",
            "PREFECT__SERVER_EPHEMERAL": "1",
            "PREFECT__SERVER_FINAL": "1",
            **get_current_settings().to_environment_variables(exclude_unset=True),
        },
        stdout=output,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        preexec_fn=_die_with_parent,
    )


def _remove_if_empty(path: Path) -> None:
    with contextlib.suppress(OSError):
        if path.stat().st_size == 0:
            path.unlink()


@contextlib.contextmanager
def temporary_server(log_path: Path | None) -> Iterator[str | None]:
    """Prefect's temporary server for the `with` block, its API URL (None: the user named a
    server with PREFECT_API_URL: Prefect talks to that one)."""
    from prefect.settings import PREFECT_API_URL, PREFECT_HOME

    if PREFECT_API_URL.value():
        yield None
        return
    from prefect.server.api.server import SubprocessASGIServer

    server = SubprocessASGIServer()
    if server.running:  # started earlier in this process
        yield server.api_url
        return
    home = Path(PREFECT_HOME.value()).expanduser()
    home.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        output: IO[str] | None = None  # no log directory (object storage): the terminal
        if log_path is not None:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            if not log_path.exists():  # a log the server never wrote to is not left behind
                stack.callback(_remove_if_empty, log_path)
            output = stack.enter_context(open(log_path, "a", encoding="utf-8"))
        server._run_uvicorn_command = lambda: _uvicorn_command(server, output)
        with open(home / LOCK_NAME, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one server migrates the database at a time
            try:
                server.start()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        try:
            yield server.api_url
        finally:
            server.stop()
