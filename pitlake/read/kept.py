"""Tables kept per file identity: facts of immutable files, read once per process.

A stored Parquet file never changes in place; a rewrite makes a new file (another size,
mtime or inode). So what a scan of a set of files says, before any cutoff, can be kept
under the files' identities and reused until one of them is rewritten. The point-in-time
rules are applied per request to the kept rows by the callers; answers are never kept.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

T = TypeVar("T")

FileIdentity = tuple[str, int, int, int]


def file_identity(path: Any) -> FileIdentity | None:
    """(path, size, mtime_ns, inode) of a local file; None for a remote or missing one."""
    if not isinstance(path, (str, Path)) or "://" in str(path):
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (str(path), st.st_size, st.st_mtime_ns, st.st_ino)


class BoundedLRU(Generic[T]):
    """Values by key, least recently used dropped first beyond `max_items` or `max_bytes`
    (each value's bytes given when kept; the newest value always stays). Thread-safe."""

    def __init__(self, max_items: int | None = None, max_bytes: int | None = None) -> None:
        self._max_items = max_items
        self._max_bytes = max_bytes
        self._bytes = 0
        self._kept: OrderedDict[Hashable, tuple[T, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> T | None:
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                return None
            self._kept.move_to_end(key)
            return found[0]

    def keep(self, key: Hashable, value: T, nbytes: int = 0) -> None:
        with self._lock:
            old = self._kept.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._kept[key] = (value, nbytes)
            self._bytes += nbytes
            while len(self._kept) > 1 and (
                (self._max_items is not None and len(self._kept) > self._max_items)
                or (self._max_bytes is not None and self._bytes > self._max_bytes)
            ):
                _, (_, dropped) = self._kept.popitem(last=False)
                self._bytes -= dropped

    @property
    def nbytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._kept)


class KeptByFiles(Generic[T]):
    """Values keyed by a name and the identities of the files they came from (a
    `BoundedLRU`; a value's size is `sizeof(value)` bytes)."""

    def __init__(
        self,
        max_sets: int,
        max_bytes: int | None = None,
        sizeof: Callable[[T], int] = lambda _v: 0,
    ) -> None:
        self._kept: BoundedLRU[T] = BoundedLRU(max_sets, max_bytes)
        self._sizeof = sizeof

    def get(self, name: Hashable, files: Sequence[Any], scan: Callable[[], T]) -> T | None:
        """The value for `name` over `files` (`scan()` on a miss); None when a file has no
        local identity (a remote lake: the caller reads as before). A value scanned while a
        file was rewritten is returned but not kept."""
        ids = [file_identity(f) for f in files]
        if not ids or any(i is None for i in ids):
            return None
        key = (name, tuple(ids))
        found = self._kept.get(key)
        if found is not None:
            return found
        value = scan()
        if [file_identity(f) for f in files] == ids:
            self._kept.keep(key, value, self._sizeof(value))
        return value

    def __len__(self) -> int:
        return len(self._kept)
