"""What the fetcher contract test needs of a vendor: one recorded answer per fetcher.

Each vendor's test package has a `recorded.py` whose `RECORDED` maps every dataset its plugin
serves to a `Recording`: the request, the recorded wire replies to serve (through the real
client and, where there is one, the real vendor library), and the client to fetch through.
A new vendor (docs/design.md §2) adds its package, its recorded replies under
tests/vendors/wire/<vendor>/ and this one table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pandas as pd

from pitlake.vendors.base import FetchRequest, VendorClient
from tests.vendors.wire.http_replay import HttpReplay

Mutation = Callable[[str, pd.DataFrame], pd.DataFrame]


@dataclass(frozen=True)
class Recording:
    request: FetchRequest
    serve: Callable[[HttpReplay], None]  # adds the recorded replies the fetch is answered from
    client: Callable[[], VendorClient]  # the vendor's live client (over the replayed HTTP)
    fetched_at: datetime
    options: Mapping[str, Any] = field(default_factory=dict)  # the plugin adapter's options


class MutatingClient:
    """A client whose every answer passes through `mutate(endpoint, frame)` first: the same
    recorded answers, made column-less or drifted."""

    def __init__(self, inner: VendorClient, mutate: Mutation) -> None:
        self.inner = inner
        self.vendor = inner.vendor
        self.mutate = mutate

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        frame = self.inner.call(endpoint, **params)
        return self.mutate(endpoint, frame) if isinstance(frame, pd.DataFrame) else frame
