"""A process-wide progress sink: long work reports units done; the CLI shows a bar.

Plain Python so the domain library can report without knowing who listens (a rich bar on the
CLI, nothing on a Dask worker)."""

from __future__ import annotations

import threading
from collections.abc import Callable

_lock = threading.Lock()
_sink: Callable[[int, int], None] | None = None


def set_sink(sink: Callable[[int, int], None] | None) -> None:
    """`sink(done, more_total)` is called from worker threads: units done, and units newly
    planned (the total grows as chunks discover their work)."""
    global _sink
    with _lock:
        _sink = sink


def advance(n: int = 1) -> None:
    sink = _sink
    if sink is not None and n:
        sink(n, 0)


def plan(n: int) -> None:
    sink = _sink
    if sink is not None and n:
        sink(0, n)
