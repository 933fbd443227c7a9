"""The vendor lists ⇄ bars cross-check of a backfill (expectations/limit_checks.check_window):
each list batch against the bars of its own sessions, as on a single night, so the sample's
planted vendor error (688981.SH "up" on 2025-06-18 at +16.12 % on a ±20 % board) is a failed
check of that session's batch only."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pandas as pd
from pitlake.expectations.limit_checks import check_window
from pitlake.expectations.verdict import Outcome

from pitlake.calendar import BEIJING, sessions_between
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.registry import build_router

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
FETCHED = datetime(2025, 7, 1, 20, 0, tzinfo=BEIJING)


def _fetch(router, name: str, day: date) -> pd.DataFrame:
    r = router.route(FetchRequest(name, trade_date=day), FETCHED, chain=["tushare"])
    return r.frame


def test_a_backfill_catches_the_planted_pool_error() -> None:
    router = build_router(f"replay:{SAMPLE}")
    days = sessions_between(date(2025, 6, 16), date(2025, 6, 20))
    bars = pd.concat([_fetch(router, "quotes", d) for d in days], ignore_index=True)
    lists = [_fetch(router, "limit_pools", d) for d in days]
    lists = [f for f in lists if not f.empty]
    found = check_window({"limit_pools": lists}, bars, run_id="backfill")["limit_pools"]
    by_day = {
        pd.Timestamp(f["trade_date"].iloc[0]).date(): v for f, v in zip(lists, found, strict=True)
    }
    bad = by_day.pop(date(2025, 6, 18))
    assert bad is not None and bad.outcome is Outcome.WARN
    assert "up 688981.SH 2025-06-18: listed by the vendor, not in the bars" in bad.message
    assert all(v is None or v.outcome is Outcome.PASS for v in by_day.values())
