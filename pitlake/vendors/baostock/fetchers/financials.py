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

import numpy as np
import pandas as pd

from pitlake.errors import InvalidArgumentsError
from pitlake.pit import is_quarter_end, statutory_deadline
from pitlake.schemas.financials import STATEMENTS
from pitlake.vendors.baostock.fetch import VENDOR, BaostockFetcher, bs_code, per_symbol, require
from pitlake.vendors.baostock.fields import (
    REPORT_TYPE,
    STATEMENT_DATES,
    STATEMENT_ENDPOINTS,
    statement_fields,
)
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery, json_cell, json_text
from pitlake.vendors.fetching import concat, window
from pitlake.vendors.parsing import garbled, parse_dates, parse_numbers, parse_required_dates

QUARTER_ENDS = ((3, 31), (6, 30), (9, 30), (12, 31))


def statements(req: FetchRequest) -> list[str]:
    if req.statement is None:
        return list(STATEMENTS)
    if req.statement not in STATEMENT_ENDPOINTS:
        raise InvalidArgumentsError(
            f"unknown statement {req.statement!r}; expected one of {', '.join(STATEMENTS)}"
        )
    return [req.statement]


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


def statement_rows(raw: RawResponse) -> pd.DataFrame:
    frame, endpoint, statement = raw.frame, raw.query.endpoint, raw.query.tag
    require(frame, STATEMENT_DATES, endpoint)
    if frame.empty:
        return pd.DataFrame()
    kw = {"vendor": VENDOR, "endpoint": endpoint}
    report_periods = parse_required_dates(frame["statDate"], column="statDate", **kw)
    off = ~report_periods.map(is_quarter_end).astype(bool)
    if off.any():
        raise garbled(f"statDate {report_periods[off].iloc[0]} is not a quarter end", **kw)
    mapping = statement_fields(statement)
    out = pd.DataFrame(index=frame.index)
    out["symbol"] = raw.query.symbol
    out["statement"] = statement
    out["report_period"] = report_periods
    out["report_type"] = REPORT_TYPE
    out["ann_date"] = parse_dates(frame["pubDate"], column="pubDate", **kw)
    out["revision_date"] = None  # Baostock keeps one version, dated by its publication
    out["update_flag"] = None
    out["undated_revision"] = False
    for vendor_field, item in mapping.items():
        out[item] = (
            parse_numbers(frame[vendor_field], column=vendor_field, **kw)
            if vendor_field in frame.columns
            else np.nan
        )
    skip = set(STATEMENT_DATES) | set(mapping)
    extra_cols = sorted(c for c in frame.columns if c not in skip)
    out["extra"] = [
        json_text({c: extra_cell(v) for c, v in rec.items()})
        for rec in frame[extra_cols].to_dict("records")
    ]
    return out


class FinancialsFetcher(BaostockFetcher):
    dataset = "financials"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        ep: STATEMENT_DATES for ep in STATEMENT_ENDPOINTS.values()
    }

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        chosen = statements(req)
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
        return concat([statement_rows(r) for r in raws])


FETCHER = FinancialsFetcher
