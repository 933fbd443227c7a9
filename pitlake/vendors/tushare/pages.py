"""Paging a Tushare endpoint past its row cap: the server answers at most N rows a call and
says nothing of the rest (the SDK ignores `has_more`), so a full page asks for the next one
with `offset` (the DataApi's paging parameter, with `limit`) until a short page comes.
[`offset` per endpoint: UNVERIFIED against a live reply; docs/vendor-reference.md §7.1.]"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pitlake.vendors.base import RawResponse, VendorQuery


def next_pages(
    stage: Sequence[RawResponse], endpoint: str, cap: Callable[[], int]
) -> list[VendorQuery]:
    """For each full page of `endpoint` in `stage`, the call for the page after it."""
    out = []
    for raw in stage:
        if raw.query.endpoint == endpoint and len(raw.frame) >= cap():
            params: dict[str, Any] = dict(raw.query.params)
            params["offset"] = int(params.get("offset", 0)) + len(raw.frame)
            out.append(VendorQuery(endpoint, params, symbol=raw.query.symbol, tag=raw.query.tag))
    return out
