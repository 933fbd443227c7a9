"""Kill points in the write path for the kill test suite (issue 32): with
`PITLAKE_KILL_AT=<point>` set, the process SIGKILLs itself on reaching that point; without it
every hook is a no-op."""

from __future__ import annotations

import os
import signal

KILL_POINTS = ("after_fetch", "after_gate", "after_rename", "after_record")
ENV = "PITLAKE_KILL_AT"


def kill_point(point: str) -> None:
    """Die here, at once and without cleanup, if the environment names this point."""
    if point not in KILL_POINTS:
        raise ValueError(f"unknown kill point {point!r}")
    if os.environ.get(ENV) == point:
        os.kill(os.getpid(), signal.SIGKILL)
