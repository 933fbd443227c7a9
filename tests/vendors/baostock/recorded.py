"""Baostock's recorded answers for the fetcher contract test (tests/vendors/contract.py): the
replies of tests/vendors/wire/baostock/ sent as protocol bytes by a local Baostock server
(tests/vendors/wire/baostock_wire.py) to the real installed baostock library, under pitlake's
live BaostockClient."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from pitlake.vendors.baostock.client import BaostockClient
from pitlake.vendors.base import FetchRequest
from tests.vendors.contract import Recording
from tests.vendors.wire.baostock_wire import replies, server
from tests.vendors.wire.http_replay import HttpReplay

D3, D4 = date(2025, 6, 3), date(2025, 6, 4)
FETCHED_AT = datetime(2025, 6, 4, 12, 0, tzinfo=UTC)  # 20:00 Beijing, after the close


def served(*names: str) -> Callable[[HttpReplay], None]:
    def serve(_http: HttpReplay) -> None:  # Baostock speaks no HTTP: its own socket server
        server().serve(replies(*names))

    return serve


def client() -> BaostockClient:
    return BaostockClient(server=server().address, timeout=10.0)


def _recording(request: FetchRequest, *names: str) -> Recording:
    return Recording(request, served(*names), client, FETCHED_AT)


STATEMENTS = ("query_profit_data", "query_balance_data", "query_cash_flow_data")

RECORDED: dict[str, Recording] = {
    "quotes": _recording(
        FetchRequest("quotes", start=D3, end=D4, symbols=("600519.SH",)),
        "query_history_k_data_plus.normal",
    ),
    "adj_factors": _recording(
        FetchRequest("adj_factors", start=D3, end=D4, symbols=("600519.SH",)),
        "query_adjust_factor.normal",
    ),
    "financials": _recording(
        # April: the 2024 annual and 2025 Q1 reports are due (periods 2024-12-31, 2025-03-31)
        FetchRequest(
            "financials", start=date(2025, 4, 1), end=date(2025, 4, 30), symbols=("600519.SH",)
        ),
        *(f"{q}.normal" for q in STATEMENTS),
    ),
}
