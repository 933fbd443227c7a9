"""What every Baostock fetcher shares: codes, the reply check, per-symbol calls.

Baostock answers per security (`sh.600519`); a whole-market request is asked over the run's
universe. An empty answer for one symbol among many contributes nothing; when no symbol has
rows, the fetch is NoMarketDataError (`stamped`), never an empty frame passed off as data. A
frame without the columns a fetcher reads is schema drift (a typed error). The request's window
and the concatenation of the parts are every vendor's (`pitlake.vendors.fetching`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import date, datetime

import pandas as pd

from pitlake.errors import NoMarketDataError
from pitlake.symbols import canonical, parse, to_vendor
from pitlake.vendors import fetching
from pitlake.vendors.base import Fetcher, FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.classify import check_reply
from pitlake.vendors.parsing import require_columns

log = logging.getLogger(__name__)

VENDOR = "baostock"
SERVED_EXCHANGES = ("SH", "SZ")  # Baostock carries no Beijing Stock Exchange shares


def bs_code(symbol: str) -> str:
    """`600519.SH` → `sh.600519` (Baostock's form)."""
    sina = to_vendor(symbol, "sina")  # sh600519
    return f"{sina[:2]}.{sina[2:]}"


def from_bs_code(code: object) -> str:
    """`sh.600519` → `600519.SH`."""
    return canonical(str(code).strip().replace(".", "", 1))


def bs_date(d: date) -> str:
    return d.isoformat()  # Baostock's dates are YYYY-MM-DD


def require(frame: pd.DataFrame, columns: Iterable[str], endpoint: str) -> pd.DataFrame:
    return require_columns(frame, columns, vendor=VENDOR, endpoint=endpoint)


def per_symbol(req: FetchRequest) -> list[str]:
    """The request's symbols (else its universe), canonical, those Baostock carries."""
    return fetching.per_symbol(req, VENDOR, keep=lambda s: parse(s).exchange in SERVED_EXCHANGES)


class BaostockFetcher(Fetcher):
    """Per-symbol calls; "no rows" for one symbol is one unit among many."""

    vendor = VENDOR

    def extract(self, query: VendorQuery) -> pd.DataFrame:
        frame = check_reply(
            VENDOR, query.endpoint, self.client.call(query.endpoint, **query.params)
        )
        return require(frame, self.required.get(query.endpoint, ()), query.endpoint)

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        raws = []
        for q in self.transform_query(req):
            try:
                raws.append(RawResponse(VENDOR, q, self.extract(q), fetched_at))
            except NoMarketDataError:
                log.debug("baostock %s: no rows for %s", q.endpoint, q.params)
        return raws
