"""A garbled announcement date in an AkShare answer is a typed error, never data.

East Money's statements carry NOTICE_DATE (first announcement) and UPDATE_DATE (latest
revision). A statement without either is dated by the documented fallback: its statutory
deadline (or when first seen, if that is earlier). A garbled one used to become None too
(`akshare._day`), which dated a late filer's statement at its deadline, before it was public.
Here the garbage goes through the real akshare library, from a recorded reply.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest

from pitlake.errors import VendorError
from pitlake.pit import KnownAtBasis, end_of_beijing_day, statutory_deadline
from pitlake.statuses import LedgerStatus
from pitlake.vendors.akshare import PLUGIN
from pitlake.vendors.akshare.client import AkshareClient
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.router import Router
from tests.vendors.wire.akshare_wire import (
    FETCHED_AT,
    http_fixture,  # noqa: F401 (the `http` fixture)
    reply_file,
)
from tests.vendors.wire.http_replay import HttpReplay, load_replies

INCOME = "stock_profit_sheet_by_report_em"
REQUEST = FetchRequest("financials", symbols=("600519.SH",), statement="income")


def serve_income(http: HttpReplay, **dates: Any) -> None:
    """The recorded income statement of 600519, its dates replaced by `dates`."""
    for spec in load_replies(reply_file(INCOME, "normal")):
        rows = (spec.get("json") or {}).get("data") or []
        if rows and "NOTICE_DATE" in rows[0]:
            spec = {**spec, "json": {**spec["json"], "data": [{**r, **dates} for r in rows]}}
        http.add(**spec)


def fetch(http: HttpReplay):
    with http.active():
        return PLUGIN.adapter(AkshareClient(timeout=30.0)).fetch(REQUEST, FETCHED_AT)


@pytest.mark.parametrize("garbage", ["2025-04-3O 00:00:00", "2025年4月29日", "--", "N/A"])
def test_a_garbled_notice_date_rejects_the_answer(http: HttpReplay, garbage: str) -> None:
    serve_income(http, NOTICE_DATE=garbage)
    with pytest.raises(VendorError, match="NOTICE_DATE") as err:
        fetch(http)
    assert not err.value.retryable  # the same garbage would come back
    assert err.value.vendor == "akshare" and err.value.endpoint == INCOME


def test_a_garbled_update_date_rejects_the_answer(http: HttpReplay) -> None:
    serve_income(http, UPDATE_DATE="20250-05-01")
    with pytest.raises(VendorError, match="UPDATE_DATE"):
        fetch(http)


def test_the_router_reports_garbage_as_a_failure_with_no_rows(http: HttpReplay) -> None:
    serve_income(http, NOTICE_DATE="2025-04-3O 00:00:00")
    router = Router({"akshare": PLUGIN.adapter(AkshareClient(timeout=30.0))})
    with http.active():
        result = router.route(REQUEST, FETCHED_AT, chain=["akshare"])
    assert result.status is LedgerStatus.UPSTREAM_ERROR
    assert result.frame.empty


def test_a_truly_absent_date_follows_the_documented_rule(http: HttpReplay) -> None:
    """No NOTICE_DATE and no UPDATE_DATE: dated at the period's statutory deadline (the
    fetch is after it), its basis saying so."""
    serve_income(http, NOTICE_DATE=None, UPDATE_DATE=None)
    row = fetch(http).frame.iloc[0]
    assert row["report_period"] == date(2025, 3, 31)
    assert pd.isna(row["ann_date"]) and pd.isna(row["revision_date"])
    assert row["known_at_basis"] == KnownAtBasis.STATUTORY_DEADLINE
    deadline = end_of_beijing_day(statutory_deadline(date(2025, 3, 31)))
    assert row["known_at"] == pd.Timestamp(deadline)


def test_a_readable_notice_date_dates_the_statement(http: HttpReplay) -> None:
    serve_income(http)
    row = fetch(http).frame.iloc[0]
    assert row["ann_date"] == date(2025, 4, 29)
    assert row["known_at_basis"] == KnownAtBasis.ANNOUNCEMENT
