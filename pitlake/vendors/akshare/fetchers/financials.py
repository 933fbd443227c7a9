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

import numpy as np
import pandas as pd

from pitlake.errors import InvalidArgumentsError, VendorNotConfiguredError
from pitlake.pit import is_quarter_end
from pitlake.schemas.financials import STATEMENTS
from pitlake.symbols import to_vendor
from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, require
from pitlake.vendors.akshare.fields import EM_REPORT_TYPE, EM_STATEMENT_MAPPED, statement_fields
from pitlake.vendors.akshare.notices import NOTICE_LIST, notice_queries
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery, json_cell, json_text
from pitlake.vendors.fetching import canonical_symbols, concat
from pitlake.vendors.parsing import (
    garbled,
    parse_dates,
    parse_numbers,
    parse_required_dates,
    symbol_or_none,
)

log = logging.getLogger(__name__)

STATEMENT_ENDPOINTS: dict[str, str] = {
    "income": "stock_profit_sheet_by_report_em",
    "balance": "stock_balance_sheet_by_report_em",
    "cashflow": "stock_cash_flow_sheet_by_report_em",
}
STATEMENT_DATES = ("REPORT_DATE", "NOTICE_DATE", "UPDATE_DATE")


def statements(req: FetchRequest) -> list[str]:
    if req.statement is None:
        return list(STATEMENTS)
    if req.statement not in STATEMENT_ENDPOINTS:
        raise InvalidArgumentsError(
            f"unknown statement {req.statement!r}; expected one of {', '.join(STATEMENTS)}"
        )
    return [req.statement]


def statement_queries(symbols: Sequence[str], req: FetchRequest) -> list[VendorQuery]:
    return [
        VendorQuery(STATEMENT_ENDPOINTS[st], {"symbol": to_vendor(s, "em_f10")}, symbol=s, tag=st)
        for s in symbols
        for st in statements(req)
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


def statement_rows(raw: RawResponse) -> pd.DataFrame:
    frame, endpoint, statement = raw.frame, raw.query.endpoint, raw.query.tag
    require(frame, STATEMENT_DATES, endpoint)
    if frame.empty:
        return pd.DataFrame()
    kw = {"vendor": VENDOR, "endpoint": endpoint}
    periods = parse_required_dates(frame["REPORT_DATE"], column="REPORT_DATE", **kw)
    off = ~periods.map(is_quarter_end).astype(bool)
    if off.any():
        raise garbled(f"REPORT_DATE {periods[off].iloc[0]} is not a quarter end", **kw)
    mapping = statement_fields(statement)
    out = pd.DataFrame(index=frame.index)
    out["symbol"] = raw.query.symbol
    out["statement"] = statement
    out["report_period"] = periods
    out["report_type"] = EM_REPORT_TYPE
    # Missing stays missing (the known-at rule's documented fallback); garbled is an error.
    out["ann_date"] = parse_dates(frame["NOTICE_DATE"], column="NOTICE_DATE", **kw)
    out["revision_date"] = parse_dates(frame["UPDATE_DATE"], column="UPDATE_DATE", **kw)
    out["update_flag"] = None
    out["undated_revision"] = False
    for vendor_field, item in mapping.items():
        # Templates differ (banks, insurers): an item the template lacks is null, not drift.
        out[item] = (
            parse_numbers(frame[vendor_field], column=vendor_field, **kw)
            if vendor_field in frame.columns
            else np.nan
        )
    skip = set(EM_STATEMENT_MAPPED) | set(mapping)
    extra_cols = sorted(c for c in frame.columns if c not in skip)
    out["extra"] = [
        json_text({c: json_cell(v) for c, v in rec.items()})
        for rec in frame[extra_cols].to_dict("records")
    ]
    return out.drop_duplicates(
        subset=["symbol", "statement", "report_period", "ann_date", "revision_date"]
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
        return concat([statement_rows(r) for r in raws if r.query.endpoint != NOTICE_LIST])


FETCHER = FinancialsFetcher
