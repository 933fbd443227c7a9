"""The news key: one id per news item, whichever feed carried it (docs/design.md §3, `news`).

The id hashes the normalised title with the publish instant, so the same item from Tushare and
from an AkShare feed is one row whose `sources` lists both. Every adapter builds ids here.
"""

from __future__ import annotations

import hashlib
import string
import unicodedata
from datetime import datetime

from pitlake.calendar import beijing

# Feeds such as Sina's 7x24 flash carry no title, only text; the headline is then the start of
# the text, cut here so that every adapter cuts it the same way.
HEADLINE_MAX_CHARS = 120

_ASCII_PUNCTUATION = frozenset(string.punctuation)


def normalise_title(title: str) -> str:
    """NFKC, lower case, with whitespace and punctuation removed: feeds differ in full-width
    vs half-width forms, spacing and brackets, not in words."""
    folded = unicodedata.normalize("NFKC", title).lower()
    return "".join(
        ch
        for ch in folded
        if not (
            ch.isspace() or ch in _ASCII_PUNCTUATION or unicodedata.category(ch).startswith("P")
        )
    )


def _instant_text(published_at: datetime | None) -> str:
    """The publish instant as ISO in Beijing time, to the second ("" when unknown). A naive
    value is Beijing wall time, as every vendor time without an offset is."""
    if published_at is None:
        return ""
    return beijing(published_at).replace(microsecond=0).isoformat()


def news_id(title: str, published_at: datetime | None) -> str:
    """sha1 of the normalised title and the publish instant."""
    key = f"{normalise_title(title)}|{_instant_text(published_at)}"
    return hashlib.sha1(key.encode("utf-8")).hexdigest()


def headline(title: object, content: object) -> str | None:
    """The title, or — for feeds without titles — the start of the content; None when the item
    has neither (there is nothing to store)."""
    for text, limit in ((title, None), (content, HEADLINE_MAX_CHARS)):
        if isinstance(text, str) and text.strip():
            s = text.strip()
            return s if limit is None else s[:limit]
    return None
