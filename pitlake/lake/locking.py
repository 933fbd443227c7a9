"""Cross-thread, cross-process locks for read-merge-write on lake files.

A `filelock.FileLock` is an OS lock on an open file (flock), so two threads holding separate
lock objects exclude each other as two processes do. A new lock object per acquisition keeps
that true no matter how callers share a store between threads.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from filelock import FileLock

LOCK_NAME = ".lock"
DEFAULT_TIMEOUT_S = 600.0


@contextmanager
def locked(directory: Path, *, timeout: float = DEFAULT_TIMEOUT_S) -> Iterator[None]:
    """Hold `<directory>/.lock` (created with the directory if missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    lock = FileLock(
        str(directory / LOCK_NAME),
        timeout=timeout,
        thread_local=False,
        poll_interval=0.01,
        # Keep the file: unlinking a lock file on release races with a waiter opening it.
        preserve_lock_file=True,
    )
    with lock:
        yield


@contextmanager
def locked_all(directories: list[Path], *, timeout: float = DEFAULT_TIMEOUT_S) -> Iterator[None]:
    """Hold several directory locks, always taken in sorted order so writers cannot deadlock."""
    with ExitStack() as stack:
        for d in sorted(set(directories)):
            stack.enter_context(locked(d, timeout=timeout))
        yield
