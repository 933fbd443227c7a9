"""The set of symbols a universe-scope fetch asked, as the ledger stores it: compact text.

One ledger entry stands for a whole window of a per-symbol feed asked over the security
master (news); recording which symbols it asked lets a later run ask only the listings stored
since (`pitlake.pipeline.planning`). A 5,000-symbol master is ~50 kB comma-joined; sorted and
deflated it is ~14 kB of base64 text, once per window in the ledger and once per event."""

from __future__ import annotations

import base64
import zlib
from collections.abc import Iterable

PREFIX = "z1:"  # the encoding's version: deflated, base64, sorted and comma-joined


def encode_symbols(symbols: Iterable[str]) -> str:
    """The sorted, de-duplicated symbols as stored text."""
    joined = ",".join(sorted(set(symbols))).encode("ascii")
    return PREFIX + base64.b64encode(zlib.compress(joined, 9)).decode("ascii")


def decode_symbols(text: str | None) -> frozenset[str] | None:
    """The stored symbols; None for NULL (an entry that records none: not a universe fetch,
    a failed one, or one recorded before the column existed)."""
    if text is None:
        return None
    if not text.startswith(PREFIX):
        raise ValueError(f"unknown symbol-set encoding {text[:8]!r}")
    joined = zlib.decompress(base64.b64decode(text[len(PREFIX) :])).decode("ascii")
    return frozenset(s for s in joined.split(",") if s)
