"""The announcement key: one id per company announcement, whichever feed carried it.

The id hashes the company, the Beijing announcement day and the normalised title (the news
normalisation: NFKC, case, spacing and punctuation folded), after dropping the "名称:" prefix
East Money writes before each title, so Tushare's and East Money's copies of one announcement
are one row. Every adapter builds ids here.
"""

from __future__ import annotations

import hashlib
from datetime import date

from pitlake.vendors.news_id import normalise_title

_PREFIX_SEPARATORS = (":", "：")


def bare_title(title: str, name: str | None) -> str:
    """The title without a leading "<name>:" (East Money's form, e.g. '贵州茅台:2024年年度报告')."""
    text = title.strip()
    if name:
        for sep in _PREFIX_SEPARATORS:
            prefix = f"{name.strip()}{sep}"
            if text.startswith(prefix) and len(text) > len(prefix):
                return text[len(prefix) :].strip()
    return text


def announcement_id(symbol: str, day: date, title: str, name: str | None) -> str:
    """sha1 of the canonical symbol, the announcement day and the normalised bare title."""
    key = f"{symbol}|{day.isoformat()}|{normalise_title(bare_title(title, name))}"
    return hashlib.sha1(key.encode("utf-8")).hexdigest()
