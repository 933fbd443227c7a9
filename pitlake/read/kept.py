"""Tables kept per file identity: facts of immutable files, read once per process.

A stored Parquet file never changes in place; a rewrite makes a new file (another size,
mtime or inode). So what a scan of a set of files says, before any cutoff, can be kept
under the files' identities and reused until one of them is rewritten. The point-in-time
rules are applied per request to the kept rows by the callers; answers are never kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

from pitlake.read.session_slices import file_identity

T = TypeVar("T")


class KeptByFiles(Generic[T]):
    """A bounded LRU of values keyed by a name and the identities of the files they came
    from; a value's size is `sizeof(value)` (bytes), the bound is on count and bytes."""

    def __init__(
        self, max_sets: int, max_bytes: int, sizeof: Callable[[T], int] = lambda _v: 0
    ) -> None:
        self._max_sets = max_sets
        self._max_bytes = max_bytes
        self._sizeof = sizeof
        self._bytes = 0
        self._kept: OrderedDict[tuple[Any, ...], T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, name: Hashable, files: Sequence[Any], scan: Callable[[], T]) -> T | None:
        """The value for `name` over `files` (`scan()` on a miss); None when a file has no
        local identity (a remote lake: the caller reads as before). A value scanned while a
        file was rewritten is returned but not kept."""
        ids = [file_identity(f) for f in files]
        if not ids or any(i is None for i in ids):
            return None
        key = (name, tuple(ids))
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        value = scan()
        if [file_identity(f) for f in files] == ids:
            with self._lock:
                self._keep(key, value)
        return value

    def _keep(self, key: tuple[Any, ...], value: T) -> None:
        if key in self._kept:
            self._bytes -= self._sizeof(self._kept.pop(key))
        self._kept[key] = value
        self._bytes += self._sizeof(value)
        while len(self._kept) > self._max_sets or (
            self._bytes > self._max_bytes and len(self._kept) > 1
        ):
            _, dropped = self._kept.popitem(last=False)
            self._bytes -= self._sizeof(dropped)

    def __len__(self) -> int:
        return len(self._kept)
