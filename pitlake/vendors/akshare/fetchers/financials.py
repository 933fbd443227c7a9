"""East Money statements (`*_by_report_em`) → financials (docs/vendor-reference.md §4.3, §4.6).

Per symbol: given symbols, or the universe. By date: the financial-report notice lists
(`stock_notice_report`) of each announcement day name the companies, whose statements are
fetched next. NOTICE_DATE is the first announcement, UPDATE_DATE the latest revision; a garbled
one rejects the answer (a statement dated by "no date" would be dated at its statutory
deadline, maybe before it was public).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar

import pandas as pd

from pitlake.errors import VendorNotConfiguredError
from pitlake.symbols import to_vendor
from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, require
from pitlake.vendors.akshare.fields import EM_REPORT_TYPE, EM_STATEMENT_MAPPED, statement_fields
from pitlake.vendors.akshare.notices import NOTICE_LIST, notice_queries
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.fetching import canonical_symbols, concat
from pitlake.vendors.parsing import symbol_or_none
from pitlake.vendors.statement_rows import StatementColumns, chosen_statements, statement_rows

log = logging.getLogger(__name__)

STATEMENT_ENDPOINTS: dict[str, str] = {
    "income": "stock_profit_sheet_by_report_em",
    "balance": "stock_balance_sheet_by_report_em",
    "cashflow": "stock_cash_flow_sheet_by_report_em",
}
STATEMENT_DATES = ("REPORT_DATE", "NOTICE_DATE", "UPDATE_DATE")


def statement_queries(symbols: Sequence[str], req: FetchRequest) -> list[VendorQuery]:
    return [
        VendorQuery(STATEMENT_ENDPOINTS[st], {"symbol": to_vendor(s, "em_f10")}, symbol=s, tag=st)
        for s in symbols
        for st in chosen_statements(req, STATEMENT_ENDPOINTS)
    ]


def announcers(raws: Sequence[RawResponse]) -> list[str]:
    """Canonical codes of the companies on the financial-report notice lists."""
    out: list[str] = []
    for r in raws:
        if r.query.endpoint != NOTICE_LIST or r.frame.empty:
            continue
        require(r.frame, ("代码",), NOTICE_LIST)
        for code in r.frame["代码"]:
            sym = symbol_or_none(code)
            if sym is None:
                log.debug("akshare notice list: skipping non-A-share code %r", code)
            elif sym not in out:
                out.append(sym)
    return out


EM_STATEMENT = StatementColumns(
    vendor=VENDOR,
    required=STATEMENT_DATES,
    period="REPORT_DATE",
    announced="NOTICE_DATE",
    revised="UPDATE_DATE",
    mapped=EM_STATEMENT_MAPPED,
    report_type=EM_REPORT_TYPE,
    fields=statement_fields,
    one_row_per_version=True,
)


class FinancialsFetcher(AkshareFetcher):
    dataset = "financials"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        **{ep: STATEMENT_DATES for ep in STATEMENT_ENDPOINTS.values()},
        NOTICE_LIST: ("代码",),
    }
    optional_endpoints = frozenset({NOTICE_LIST})

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        if req.symbols:
            return statement_queries(canonical_symbols(req.symbols), req)
        if req.first_day is not None:
            return notice_queries(req)
        if req.universe:
            return statement_queries(canonical_symbols(req.universe), req)
        raise VendorNotConfiguredError(
            "akshare financials are per symbol: give symbols, a universe or an announcement date",
            vendor=VENDOR,
        )

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        queries = self.transform_query(req)
        raws = self.call_all(queries, fetched_at)
        if queries and queries[0].endpoint == NOTICE_LIST:
            raws += self.call_all(statement_queries(announcers(raws), req), fetched_at)
        return raws

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return concat(
            [statement_rows(r, EM_STATEMENT) for r in raws if r.query.endpoint != NOTICE_LIST]
        )


FETCHER = FinancialsFetcher
