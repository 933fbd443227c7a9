"""Shared pieces of the AkShare wire tests: the recorded replies, the live client over them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pitlake.vendors.akshare import PLUGIN
from pitlake.vendors.akshare.client import AkshareClient
from pitlake.vendors.base import VendorAdapter
from tests.vendors.wire.http_replay import Call, HttpReplay

REPLIES = Path(__file__).resolve().parent / "akshare"
FETCHED_AT = datetime(2025, 6, 10, 12, 0, tzinfo=UTC)


def recent_day() -> date:
    """A weekday within akshare's 30-day window of East Money's down and broken pools, by the
    real clock akshare reads (stock_ztb_em.py:366-369, 448-451)."""
    day = datetime.now(UTC).date() - timedelta(days=2)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


def akshare_clock_at(now: datetime) -> tuple[object, str, type[datetime]]:
    """(module, name, value) for monkeypatch.setattr: the clock akshare's limit pools read
    (`datetime.now()` in stock_ztb_em.py) stopped at `now` (naive Beijing wall time)."""
    from akshare.stock_feature import stock_ztb_em

    class Stopped(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
            return now

    return stock_ztb_em, "datetime", Stopped


def reply_file(function: str, kind: str) -> Path:
    path = REPLIES / f"{function}.{kind}.json"
    assert path.is_file(), f"no recorded {kind} reply for {function}"
    return path


def keyword(symbol: str) -> Callable[[Call], bool]:
    """stock_news_em sends its keyword inside the JSON `param` (news_stock.py:24-47)."""
    return lambda call: f'"keyword": "{symbol}"' in call.params.get("param", "")


def begin_time(day: str) -> Callable[[Call], bool]:
    """stock_notice_report asks one day as begin_time = end_time (stock_notice.py:58-61)."""
    return lambda call: call.params.get("begin_time") == day


@pytest.fixture(name="http")
def http_fixture() -> HttpReplay:
    """An HttpReplay with akshare's per-process caches cleared (the F10 company-type page is
    lru_cached per symbol: stock_three_report_em.py:17)."""
    from akshare.stock_feature import stock_three_report_em

    stock_three_report_em._stock_balance_sheet_by_report_ctype_em.cache_clear()
    replay = HttpReplay()
    yield replay
    stock_three_report_em._stock_balance_sheet_by_report_ctype_em.cache_clear()


def live_adapter(timeout: float = 30.0) -> VendorAdapter:
    """pitlake's live AkShare client (the real installed akshare) under its adapter."""
    return PLUGIN.adapter(AkshareClient(timeout=timeout))


def add(http: HttpReplay, function: str, kind: str, **overrides: Any) -> None:
    http.add_file(reply_file(function, kind), **overrides)
