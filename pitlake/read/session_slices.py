"""Every stored version of a session, read once per file identity.

A year file is sorted by symbol, so a handful of symbols spread over the market on one
session (a snapshot's quotes) touch every row group: the scan decompresses the whole year's
price columns to keep 50 rows (measured ~300 ms on 5,000 symbols × 243 sessions, the same
as the whole session). The session's rows — all versions, every column, no cutoff applied —
are a fact of the immutable files, so they are kept per (files' path, size, mtime, inode):
a rewritten partition has another identity and is read again. The point-in-time rules are
still applied per request, by the same rule over the kept rows; answers are never cached.

Whole-market reads of a few weeks (the market's ladder window, a session's cross-section)
keep one slice per calendar day too, the missing days read by one scan and split.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pitlake.read.kept import BoundedLRU, file_identity

# Sessions kept per Lake: a session of 5,000 quotes is ~1 MB in Arrow; a day without rows
# (a weekend in a kept window) costs nothing, so the bound that matters is the bytes.
MAX_SLICES = 512
MAX_BYTES = 256 * 1024 * 1024


class SessionSlices:
    """A bounded LRU of one-session tables keyed by dataset, session and file identities."""

    def __init__(self, max_slices: int = MAX_SLICES, max_bytes: int = MAX_BYTES) -> None:
        self._slices: BoundedLRU[pa.Table] = BoundedLRU(max_slices, max_bytes)

    def get(
        self,
        dataset: str,
        day: date,
        files: Sequence[Any],
        read: Callable[[], pa.Table],
    ) -> pa.Table | None:
        """The session's stored rows (`read()` on a miss); None when a file has no local
        identity (an s3:// lake: the caller scans as before)."""
        found = self.get_days(dataset, [day], files, lambda _days: read(), None)
        return None if found is None else found[day]

    def get_days(
        self,
        dataset: str,
        days: Sequence[date],
        files: Sequence[Any],
        read: Callable[[list[date]], pa.Table],
        date_column: str | None,
    ) -> dict[date, pa.Table] | None:
        """Each day's stored rows; the missing days come from one `read(missing)`, split by
        `date_column` (None: a single day, the whole table). None when a file has no local
        identity (an s3:// lake: the caller scans as before)."""
        ids = [file_identity(f) for f in files]
        if not ids or any(i is None for i in ids):
            return None
        keys = {d: (dataset, d, tuple(ids)) for d in days}
        found: dict[date, pa.Table] = {}
        for d, key in keys.items():
            kept = self._slices.get(key)
            if kept is not None:
                found[d] = kept
        missing = [d for d in days if d not in found]
        if not missing:
            return found
        table = read(missing)
        fresh = (
            {missing[0]: table}
            if date_column is None or len(missing) == 1
            else split_by_day(table, date_column, missing)
        )
        found.update(fresh)
        if [file_identity(f) for f in files] != ids:
            return found  # rewritten while read: serve it, keep nothing
        for d, part in fresh.items():
            self._slices.keep(keys[d], part, part.nbytes)
        return found

    def __len__(self) -> int:
        return len(self._slices)


def split_by_day(table: pa.Table, date_column: str, days: Sequence[date]) -> dict[date, pa.Table]:
    """The rows of each day (a day without rows gets an empty table)."""
    column = table.column(date_column)
    return {d: table.filter(pc.equal(column, pa.scalar(d, type=column.type))) for d in days}
