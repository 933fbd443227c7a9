"""What every AkShare fetcher shares: the reply check and the per-unit calls.

AkShare's endpoints are East Money, Sina and Tencent pages behind one library; most are per
symbol. A column-less frame (East Money's "no data") or None is NoMarketDataError, never data;
look-ahead columns (上榜后N日 returns) are dropped before anything keeps the frame. A call for one
unit among many (a symbol, a notice day, one of the news feeds) that answers "no rows" just
contributes nothing; any other failure, and "no rows" from the one call a dataset rests on,
propagates typed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, ClassVar

from pitlake.errors import NoMarketDataError, VendorError
from pitlake.schemas.dragon_tiger import FUTURE_COLUMN_MARKERS
from pitlake.vendors import fetching
from pitlake.vendors.base import Fetcher, FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.parsing import require_columns

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

VENDOR = "akshare"


def yyyymmdd(d: date) -> str:
    return d.strftime("%Y%m%d")


def require(frame: pd.DataFrame, columns: Iterable[str], endpoint: str) -> pd.DataFrame:
    """Missing expected columns = the vendor's schema drifted: a failure, never partial data."""
    return require_columns(frame, columns, vendor=VENDOR, endpoint=endpoint)


def drop_future_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Remove look-ahead columns (上榜后N日 returns) so they reach neither the lake nor raw zone."""
    future = [c for c in frame.columns if any(m in str(c) for m in FUTURE_COLUMN_MARKERS)]
    return frame.drop(columns=future) if future else frame


def per_symbol(req: FetchRequest) -> list[str]:
    return fetching.per_symbol(req, VENDOR)


def extract(client: object, query: VendorQuery) -> pd.DataFrame:
    """One call, its answer checked: None or a column-less frame is "no rows"."""
    import pandas as pd

    frame = client.call(query.endpoint, **query.params)  # type: ignore[attr-defined]
    if frame is None:  # some akshare functions answer "nothing" with None
        raise NoMarketDataError(
            f"no data for {query.params} (None)", vendor=VENDOR, endpoint=query.endpoint
        )
    if not isinstance(frame, pd.DataFrame):
        raise VendorError(
            f"expected a DataFrame, got {type(frame).__name__}",
            vendor=VENDOR,
            endpoint=query.endpoint,
            retryable=False,
        )
    if len(frame.columns) == 0:
        raise NoMarketDataError(
            f"no data for {query.params}", vendor=VENDOR, endpoint=query.endpoint
        )
    return drop_future_columns(frame)


class AkshareFetcher(Fetcher):
    vendor = VENDOR
    # Calls that are not about one symbol but whose "no rows" is still one unit among many
    # (a notice day, the global news feed).
    optional_endpoints: ClassVar[frozenset[str]] = frozenset()

    def extract(self, query: VendorQuery) -> pd.DataFrame:
        return extract(self.client, query)

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        return self.call_all(self.transform_query(req), fetched_at)

    def call_all(self, queries: Sequence[VendorQuery], fetched_at: datetime) -> list[RawResponse]:
        raws = []
        for q in queries:
            try:
                raws.append(RawResponse(VENDOR, q, self.extract(q), fetched_at))
            except NoMarketDataError:
                if q.symbol is None and q.endpoint not in self.optional_endpoints:
                    raise
                log.debug("akshare %s: no rows for %s", q.endpoint, q.params)
        return raws
