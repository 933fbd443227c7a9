"""AkShare's recorded answers for the fetcher contract test (tests/vendors/contract.py): the
recorded HTTP replies of tests/vendors/wire/akshare/ served to the real installed akshare,
under pitlake's live AkshareClient."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from pitlake.vendors.akshare.client import AkshareClient
from pitlake.vendors.base import FetchRequest
from tests.vendors.contract import Recording
from tests.vendors.wire.akshare_wire import FETCHED_AT, add, begin_time, recent_day
from tests.vendors.wire.http_replay import HttpReplay

D3, D4 = date(2025, 6, 3), date(2025, 6, 4)
STATEMENTS = (
    "stock_profit_sheet_by_report_em",
    "stock_balance_sheet_by_report_em",
    "stock_cash_flow_sheet_by_report_em",
)

LIMIT_POOLS = ("stock_zt_pool_em", "stock_zt_pool_dtgc_em", "stock_zt_pool_zbgc_em")


def _fresh() -> None:
    """akshare caches the F10 company-type page per symbol (stock_three_report_em.py:17)."""
    from akshare.stock_feature import stock_three_report_em

    stock_three_report_em._stock_balance_sheet_by_report_ctype_em.cache_clear()


def _served(*replies: tuple[str, str, dict]) -> Callable[[HttpReplay], None]:
    def serve(http: HttpReplay) -> None:
        _fresh()
        for function, kind, overrides in replies:
            add(http, function, kind, **overrides)

    return serve


def _client() -> AkshareClient:
    return AkshareClient(timeout=30.0)


def _recording(
    request: FetchRequest, *replies: tuple[str, str, dict], at: datetime = FETCHED_AT
) -> Recording:
    return Recording(request, _served(*replies), _client, at)


RECORDED: dict[str, Recording] = {
    "quotes": _recording(
        # 000001.SZ: the symbol Tencent's recorded bars are of (the others answer any symbol)
        FetchRequest("quotes", start=D3, end=D4, symbols=("000001.SZ",)),
        ("stock_zh_a_hist", "normal", {}),
        ("stock_zh_a_daily", "normal", {}),  # the fallbacks, asked when East Money fails
        ("stock_zh_a_hist_tx", "normal", {}),
    ),
    "index_quotes": _recording(
        FetchRequest("index_quotes", start=D3, end=D4, symbols=("000300.SH",)),
        ("stock_zh_index_daily", "normal", {}),
    ),
    "adj_factors": _recording(
        FetchRequest("adj_factors", start=D3, end=D4, symbols=("600519.SH",)),
        ("stock_zh_a_daily@hfq-factor", "normal", {}),
    ),
    "financials": _recording(  # by date: the notice list names whose statements to fetch
        FetchRequest("financials", trade_date=D3),
        ("stock_notice_report", "normal", {"where": begin_time("2025-06-03")}),
        ("stock_notice_report", "empty", {}),
        *((fn, "normal", {}) for fn in STATEMENTS),
        *((fn, "empty", {}) for fn in STATEMENTS),  # 000001 announced; EM has no periods yet
    ),
    "news": _recording(
        FetchRequest("news", start=D3, end=D3, symbols=("600519.SH",)),
        ("stock_news_em", "normal", {}),
        ("stock_info_global_em", "normal", {}),
    ),
    "dragon_tiger": _recording(
        FetchRequest("dragon_tiger", trade_date=date(2025, 6, 18)),
        ("stock_lhb_stock_detail_em", "normal", {}),
        (
            "stock_lhb_detail_em",
            "normal",
            {"params": {"reportName": "RPT_DAILYBILLBOARD_DETAILSNEW"}},
        ),
        at=datetime(2025, 6, 19, 12, 0, tzinfo=UTC),  # the evening after the listing day
    ),
    "announcements": _recording(  # one notice list per day since the previous session
        FetchRequest("announcements", trade_date=D3),
        ("stock_notice_report", "normal", {"params": {"f_node": "0", "begin_time": "2025-06-03"}}),
        ("stock_notice_report", "empty", {"params": {"f_node": "0"}}),
    ),
    "disclosure_schedule": _recording(  # the H1 2025 list, both market segments
        FetchRequest("disclosure_schedule", start=D3, end=D3),
        ("stock_yysj_em", "normal", {}),
    ),
    "securities": _recording(  # a session with a suspension (000002.SZ on 2025-05-12)
        FetchRequest("securities", trade_date=date(2025, 5, 12)),
        ("stock_info_sh_name_code", "normal", {}),
        ("stock_info_sz_name_code", "normal", {"params": {"CATALOGID": "1110"}}),
        ("stock_info_sz_delist", "normal", {"params": {"CATALOGID": "1793_ssgs"}}),
        ("stock_info_bj_name_code", "normal", {}),
        ("stock_info_sh_delist", "normal", {}),
        ("stock_zh_a_st_em", "normal", {}),
        ("stock_tfp_em", "normal", {}),
        at=datetime(2025, 5, 12, 12, 0, tzinfo=UTC),
    ),
    # a recent session: East Money's down and broken pools refuse older dates by the real clock
    "limit_pools": _recording(
        FetchRequest("limit_pools", trade_date=recent_day()),
        *((fn, "normal", {}) for fn in LIMIT_POOLS),
        at=datetime.now(UTC),
    ),
    "calendar": _recording(
        FetchRequest("calendar", start=date(2025, 5, 30), end=D3),
        ("tool_trade_date_hist_sina", "normal", {}),
    ),
    "index_members": _recording(  # the current list, fetched the evening of 2025-06-10
        FetchRequest("index_members", trade_date=date(2025, 6, 10), symbols=("000300.SH",)),
        ("index_stock_cons_weight_csindex", "normal", {}),
        ("index_stock_cons_csindex", "normal", {}),  # the fallback, asked without a weights file
    ),
}
