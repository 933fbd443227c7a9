"""Process-wide progress counters: long work reports chunks and units; the CLI shows them.

Plain Python so the domain library can report without knowing who listens (a bar on a
terminal, a line every few seconds in a log, nothing on a Dask worker). The backfill flow
knows its chunks (dataset × month) before the first starts, so `chunks_total` is fixed from the
start; units are planned as each chunk discovers its work, so their total grows."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Counts:
    chunks_total: int = 0
    chunks_done: int = 0
    units_planned: int = 0
    units_done: int = 0
    last: str = ""  # the chunk finished last, e.g. "quotes 2025-05-01..2025-05-31"


_lock = threading.Lock()
_counts: Counts | None = None  # None: nobody listens, every report is a no-op


def listen() -> None:
    """Start counting from zero (the CLI, before it runs a flow)."""
    global _counts
    with _lock:
        _counts = Counts()


def stop() -> None:
    global _counts
    with _lock:
        _counts = None


def snapshot() -> Counts | None:
    with _lock:
        return _counts


def _add(**changes: int | str) -> None:
    global _counts
    with _lock:
        if _counts is None:
            return
        fields = {
            k: (getattr(_counts, k) + v if isinstance(v, int) else v) for k, v in changes.items()
        }
        _counts = replace(_counts, **fields)


def plan_chunks(n: int) -> None:
    if n:
        _add(chunks_total=n)


def chunk_done(label: str) -> None:
    _add(chunks_done=1, last=label)


def plan(n: int) -> None:
    if n:
        _add(units_planned=n)


def advance(n: int = 1) -> None:
    if n:
        _add(units_done=n)
