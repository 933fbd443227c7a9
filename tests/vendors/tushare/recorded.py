"""Tushare's recorded answers for the fetcher contract test (tests/vendors/contract.py): each
dataset's wire scenario (tests/vendors/wire/tushare_wire.py) with every endpoint it calls
answering its recorded `normal` reply through pitlake's live TushareClient."""

from __future__ import annotations

from datetime import UTC, datetime

from pitlake.vendors.base import FetchRequest
from tests.vendors.contract import Recording
from tests.vendors.wire.http_replay import HttpReplay
from tests.vendors.wire.tushare_wire import SCENARIOS, D, live_client, serve

FETCHED = datetime(2025, 6, 4, 13, 0, tzinfo=UTC)
OPTIONS = {"news_sources": ("sina",), "max_parallel": 1}


def _recording(endpoint: str) -> Recording:
    scenario = SCENARIOS[endpoint]

    def serve_all(http: HttpReplay) -> None:
        for ep in (scenario.endpoint, *scenario.companions):
            serve(http, ep, "normal")

    return Recording(scenario.request, serve_all, live_client, FETCHED, OPTIONS)


# Each dataset's scenario: the endpoint its rows come from (its companions served too).
RECORDED: dict[str, Recording] = {
    SCENARIOS[ep].request.dataset: _recording(ep)
    for ep in (
        "daily",
        "adj_factor",
        "daily_basic",
        "index_daily",
        "index_weight",
        "disclosure_date",
        "news",
        "top_list",
        "trade_cal",
        "anns_d",
        "stock_basic",
        "stk_limit",
        "limit_list_d",
        "new_share",
    )
}

# disclosure_date also serves the schedule (its scenario above is the financials' lookup)
RECORDED["disclosure_schedule"] = Recording(
    FetchRequest("disclosure_schedule", start=D, end=D),
    lambda http: serve(http, "disclosure_date", "normal"),
    live_client,
    FETCHED,
    OPTIONS,
)
