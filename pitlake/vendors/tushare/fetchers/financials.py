"""Tushare statements → financials (docs/vendor-reference.md §4.1–4.2).

With symbols: each symbol's whole statement history, per statement and report type (a
correction to an old period, announced inside a window, is only found that way: the vendor
filters on ann_date). Without: `disclosure_date` says who announced on each day, and those
companies' histories are fetched next (`follow_up`). Answers are normalised in batches while
the paced calls go on (tushare/statements.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar

import pandas as pd

from pitlake.errors import InvalidArgumentsError
from pitlake.schemas.financials import STATEMENTS
from pitlake.symbols import canonical
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.parsing import parse_symbols
from pitlake.vendors.statement_rows import chosen_statements
from pitlake.vendors.tushare.daily import vendor_symbols
from pitlake.vendors.tushare.disclosure import DISCLOSURE
from pitlake.vendors.tushare.fetch import VENDOR, TushareFetcher, every_day, ymd
from pitlake.vendors.tushare.fields import (
    STATEMENT_ENDPOINTS,
    STATEMENT_EXTRA_FIELDS,
    STATEMENT_META,
    statement_fields,
)
from pitlake.vendors.tushare.statements import StatementBatches, financial_rows

# report_type '1' = consolidated (the vendor default); pass more codes to keep adjusted,
# single-quarter or parent-only versions too (one call per code per symbol and statement).
DEFAULT_REPORT_TYPES: tuple[str, ...] = ("1",)
ANNOUNCERS_TAG = "announcers"
STATEMENT_BATCH = 64  # answers per early batch (a reporting night brings ~240 per endpoint)


class FinancialsFetcher(TushareFetcher):
    dataset = "financials"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        **{ep: STATEMENT_META for ep in STATEMENT_ENDPOINTS.values()},
        DISCLOSURE: ("ts_code",),
    }
    row_endpoints = tuple(STATEMENT_ENDPOINTS.values())

    def __init__(
        self, client: Any, *, report_types: Sequence[str] = DEFAULT_REPORT_TYPES, **options: Any
    ) -> None:
        super().__init__(client, **options)
        self.report_types = tuple(report_types)
        # statement rows normalised during a fetch's calls, by id of its raws list, until its
        # transform (one fetcher serves concurrent fetches)
        self._batches: dict[int, tuple[list[RawResponse], StatementBatches]] = {}
        self._batches_lock = threading.Lock()

    # ------------------------------------------------------------ step 1: queries

    @staticmethod
    def statements(req: FetchRequest) -> tuple[str, ...]:
        return tuple(chosen_statements(req, STATEMENTS))

    def statement_queries(self, req: FetchRequest, codes: Iterable[str]) -> list[VendorQuery]:
        """Each symbol's whole statement history, per statement and report type."""
        out = []
        for code in codes:
            for statement in self.statements(req):
                fields = ",".join(
                    dict.fromkeys(
                        (
                            *STATEMENT_META,
                            *statement_fields(statement),
                            *STATEMENT_EXTRA_FIELDS[statement],
                        )
                    )
                )
                for report_type in self.report_types:
                    params = {"ts_code": code, "report_type": report_type, "fields": fields}
                    out.append(
                        VendorQuery(
                            STATEMENT_ENDPOINTS[statement],
                            params,
                            symbol=canonical(code),
                            tag=statement,
                        )
                    )
        return out

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        self.statements(req)  # reject a bad statement before any call
        if req.symbols:
            return self.statement_queries(req, vendor_symbols(req))
        # No symbols: find who announced (follow_up then fetches them).
        if req.trade_date is not None:
            days = [req.trade_date]
        elif req.start is not None and req.end is not None:
            days = every_day(req.start, req.end)
        else:
            raise InvalidArgumentsError(
                "financials from tushare: give symbols, or a trade_date / start and end to find "
                "the companies that announced then"
            )
        return [VendorQuery(DISCLOSURE, {"actual_date": ymd(d)}, tag=ANNOUNCERS_TAG) for d in days]

    # ------------------------------------------------------------ step 2: calls

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        batches = StatementBatches(STATEMENT_BATCH)
        raws = self.staged(req, fetched_at, sink=batches.add)
        with self._batches_lock:
            self._batches[id(raws)] = (raws, batches)
        return raws

    def follow_up(self, req: FetchRequest, stage: list[RawResponse]) -> list[VendorQuery]:
        """The statements of the companies the disclosure lists named."""
        announcers = [r for r in stage if r.query.tag == ANNOUNCERS_TAG]
        if not announcers:
            return []
        codes = pd.concat([r.frame["ts_code"] for r in announcers], ignore_index=True)
        found = parse_symbols(codes, vendor=VENDOR).dropna()
        return self.statement_queries(req, list(dict.fromkeys(found)))

    # ------------------------------------------------------------ step 3: canonical rows

    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        with self._batches_lock:
            held, batches = self._batches.pop(id(raws), (None, None))
        return financial_rows(req, raws, batches if held is raws else None)


FETCHER = FinancialsFetcher
