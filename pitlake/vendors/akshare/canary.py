"""AkShare's calls that the canary must ask besides each fetcher's first ones: the Sina and
Tencent bars (fallbacks), the dragon-tiger seats (follow-ups) and csindex's cons list (the
fallback of an index without a weights file), built as the fetchers build them."""

from __future__ import annotations

from datetime import date

from pitlake.vendors.akshare.fetchers.dragon_tiger import SEAT_FLAGS, DragonTigerFetcher, seat_query
from pitlake.vendors.akshare.fetchers.index_members import CONS, IndexMembersFetcher
from pitlake.vendors.akshare.fetchers.quotes import BAR_CHAIN, QuotesFetcher, bar_query
from pitlake.vendors.base import Adapter, FetchRequest, VendorQuery


def canary_queries(adapter: Adapter, session: date, symbol: str) -> list[tuple[str, VendorQuery]]:
    req = FetchRequest(QuotesFetcher.dataset, trade_date=session, symbols=(symbol,))
    out = [(QuotesFetcher.dataset, bar_query(endpoint, symbol, req)) for endpoint in BAR_CHAIN]
    seats = seat_query(symbol, f"{session:%Y%m%d}", next(iter(SEAT_FLAGS)))
    out.append((DragonTigerFetcher.dataset, seats))
    lists = IndexMembersFetcher(adapter.client).transform_query(
        FetchRequest(IndexMembersFetcher.dataset, trade_date=session)
    )
    out.append((IndexMembersFetcher.dataset, VendorQuery(CONS, lists[0].params, lists[0].symbol)))
    return out
