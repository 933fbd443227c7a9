"""Baostock quarterly data → financials, per symbol (docs/vendor-reference.md, Baostock §B.3).

`query_profit_data` (income), `query_balance_data` (balance) and `query_cash_flow_data`
(cashflow) answer one row per (code, year, quarter): `statDate` is the report period, `pubDate`
the announcement date the financials known-at rule dates the row by. Only `netProfit` is a
canonical line item; the balance and cash-flow answers are ratios, kept in `extra` with the
other fields (their canonical amounts stay null). A garbled pubDate rejects the answer; an
absent one is dated by the rule's statutory-deadline fallback.

Baostock cannot say who announced on a day, so the calls are per symbol (the request's symbols,
else the universe), for the periods whose reports can be announced inside the request's window:
quarter ends before its last day whose statutory deadline is not before its first day. A late
filing or a correction announced after its deadline is not found this way.
"""

from __future__ import annotations

from datetime import date
from typing import ClassVar

import pandas as pd

from pitlake.pit import statutory_deadline
from pitlake.vendors.baostock.fetch import VENDOR, BaostockFetcher, bs_code, per_symbol
from pitlake.vendors.baostock.fields import (
    REPORT_TYPE,
    STATEMENT_DATES,
    STATEMENT_ENDPOINTS,
    statement_fields,
)
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery, json_cell
from pitlake.vendors.fetching import concat, window
from pitlake.vendors.statement_rows import StatementColumns, chosen_statements, statement_rows

QUARTER_ENDS = ((3, 31), (6, 30), (9, 30), (12, 31))


def periods(first: date, last: date) -> list[date]:
    """Quarter ends whose reports can be announced in [first, last] (on time)."""
    out = []
    for year in range(first.year - 1, last.year + 1):
        for month, day in QUARTER_ENDS:
            p = date(year, month, day)
            if p < last and statutory_deadline(p) >= first:
                out.append(p)
    return out


def extra_cell(v: object) -> object:
    """A Baostock cell (all text) for `extra`: "" → null, numbers as numbers, else the text."""
    if isinstance(v, str):
        text = v.strip()
        if not text:
            return None
        try:
            return json_cell(float(text))
        except ValueError:
            return text
    return json_cell(v)


BAOSTOCK_STATEMENT = StatementColumns(
    vendor=VENDOR,
    required=STATEMENT_DATES,
    period="statDate",
    announced="pubDate",
    revised=None,  # Baostock keeps one version, dated by its publication
    mapped=STATEMENT_DATES,
    report_type=REPORT_TYPE,
    fields=statement_fields,
    extra_cell=extra_cell,
)


class FinancialsFetcher(BaostockFetcher):
    dataset = "financials"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        ep: STATEMENT_DATES for ep in STATEMENT_ENDPOINTS.values()
    }

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        chosen = chosen_statements(req, STATEMENT_ENDPOINTS)
        first, last = window(req)
        return [
            VendorQuery(
                STATEMENT_ENDPOINTS[st],
                {"code": bs_code(s), "year": str(p.year), "quarter": str((p.month + 2) // 3)},
                symbol=s,
                tag=st,
            )
            for s in per_symbol(req)
            for p in periods(first, last)
            for st in chosen
        ]

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        return concat([statement_rows(r, BAOSTOCK_STATEMENT) for r in raws])


FETCHER = FinancialsFetcher
