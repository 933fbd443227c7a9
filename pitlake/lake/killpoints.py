"""Kill points in the write path for the kill test suite (issue 32): with
`PITLAKE_KILL_AT=<point>` set, the process SIGKILLs itself on reaching that point (with
`PITLAKE_KILL_NTH=<n>`, the n-th time this process reaches it, so a test can kill a run in
its middle rather than at its first unit); without the variable every hook is a no-op.

The points, in the order a unit passes them: `after_fetch` (its vendor answer is in hand,
nothing gated), `after_gate` (verdicts in hand, nothing written), `after_rename` (a partition
file is in the lake, its catalog record not yet made: the moment `before_record` names too,
there is nothing between them), `after_record` (the file is recorded, the unit's ledger entry
not yet)."""

from __future__ import annotations

import os
import signal
import threading

KILL_POINTS = ("after_fetch", "after_gate", "after_rename", "before_record", "after_record")
ENV = "PITLAKE_KILL_AT"
ENV_NTH = "PITLAKE_KILL_NTH"

_reached: dict[str, int] = {}
_lock = threading.Lock()  # Prefect runs a flow's tasks on threads: one count per process


def _nth() -> int:
    raw = os.environ.get(ENV_NTH, "").strip()
    if not raw:
        return 1
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"${ENV_NTH} must be a whole number ≥ 1, got {raw!r}")
    return int(raw)


def kill_point(*points: str) -> None:
    """Die here, at once and without cleanup, if the environment names one of these points
    (one place may be several points: `after_rename` is `before_record`) and this is the
    n-th time it is reached."""
    for point in points:
        if point not in KILL_POINTS:
            raise ValueError(f"unknown kill point {point!r}")
    wanted = os.environ.get(ENV)
    if not wanted or wanted not in points:
        return
    with _lock:
        _reached[wanted] = _reached.get(wanted, 0) + 1
        if _reached[wanted] >= _nth():
            os.kill(os.getpid(), signal.SIGKILL)
