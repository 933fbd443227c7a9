"""Every stored version of one session, read once per file identity.

A year file is sorted by symbol, so a handful of symbols spread over the market on one
session (a snapshot's quotes) touch every row group: the scan decompresses the whole year's
price columns to keep 50 rows (measured ~300 ms on 5,000 symbols × 243 sessions, the same
as the whole session). The session's rows — all versions, every column, no cutoff applied —
are a fact of the immutable files, so they are kept per (files' path, size, mtime, inode):
a rewritten partition has another identity and is read again. The point-in-time rules are
still applied per request, by the same SQL over the kept rows; answers are never cached.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa

# Sessions kept per Lake: a session of 5,000 quotes is ~1 MB in Arrow.
MAX_SLICES = 16

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


class SessionSlices:
    """A bounded LRU of one-session tables keyed by dataset, session and file identities."""

    def __init__(self, max_slices: int = MAX_SLICES) -> None:
        self._max = max_slices
        self._slices: OrderedDict[tuple[Any, ...], pa.Table] = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self,
        dataset: str,
        day: date,
        files: Sequence[Any],
        read: Callable[[], pa.Table],
    ) -> pa.Table | None:
        """The session's stored rows (`read()` on a miss); None when a file has no local
        identity (an s3:// lake: the caller scans as before)."""
        ids = [file_identity(f) for f in files]
        if not ids or any(i is None for i in ids):
            return None
        key = (dataset, day, tuple(ids))
        with self._lock:
            found = self._slices.get(key)
            if found is not None:
                self._slices.move_to_end(key)
                return found
        table = read()
        if [file_identity(f) for f in files] != ids:
            return table  # rewritten while read: serve it, keep nothing
        with self._lock:
            self._slices[key] = table
            self._slices.move_to_end(key)
            while len(self._slices) > self._max:
                self._slices.popitem(last=False)
        return table

    def __len__(self) -> int:
        return len(self._slices)
