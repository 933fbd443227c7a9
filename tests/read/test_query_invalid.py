"""Bad input → INVALID_ARGUMENTS before any read (no DuckDB, no catalog), for every method."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus
from tests.lake.conftest import NOW


class Untouchable:
    """Stands in for the DuckDB reader and the catalog: any use fails the test."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"read attempted ({name}) before validation finished")


@pytest.fixture
def guarded(lake_root: Path) -> Lake:
    lk = Lake(lake_root, catalog=Untouchable(), clock=lambda: NOW)  # type: ignore[arg-type]
    lk.reader = Untouchable()  # type: ignore[assignment]
    return lk


HOSTILE_SYMBOLS = [
    "'; DROP TABLE quotes; --",
    "600519.SH' OR '1'='1",
    "../../etc/passwd",
    "..\\..\\windows",
    "600519.SH/../../x",
    "600519.SH; SELECT 1",
    "*",
    "600519.XX",
    "999999",
    "60051",
    "6005190",
    "\x00600519",
    " ",
    "",
]


@pytest.mark.parametrize("bad", HOSTILE_SYMBOLS[:-2])
@pytest.mark.parametrize("method", ["quotes", "valuation", "financials", "news", "dragon_tiger"])
def test_hostile_symbols(guarded: Lake, method: str, bad: str) -> None:
    if method == "dragon_tiger":
        r = guarded.dragon_tiger(symbols=[bad], as_of="2025-06-03")
    else:
        r = getattr(guarded, method)([bad], as_of="2025-06-03")
    assert r.status is ResultStatus.INVALID_ARGUMENTS and r.retryable is False
    assert r.data == [] and r.message


def test_a_bad_symbol_among_good_ones_fails_the_request(guarded: Lake) -> None:
    r = guarded.quotes(["600519.SH", "../x"], end="2025-06-03")
    assert r.status is ResultStatus.INVALID_ARGUMENTS and "../x" in r.message


@pytest.mark.parametrize("symbols", [None, "", " ", [], 600519, {"a": 1}])
def test_required_symbols(guarded: Lake, symbols: Any) -> None:
    for method in (guarded.quotes, guarded.valuation, guarded.financials):
        r = method(symbols)
        assert r.status is ResultStatus.INVALID_ARGUMENTS, method


CALLS: list[tuple[str, Callable[[Lake], Any]]] = [
    ("bad end", lambda lk: lk.quotes("600519", end="2025-13-01")),
    ("sql in date", lambda lk: lk.quotes("600519", end="2025-06-03'; DROP TABLE x")),
    ("words as date", lambda lk: lk.quotes("600519", start="yesterday")),
    ("start after end", lambda lk: lk.quotes("600519", start="2025-06-05", end="2025-06-03")),
    ("bad as_of", lambda lk: lk.quotes("600519", as_of="not a date")),
    ("bad hour", lambda lk: lk.quotes("600519", as_of="2025-06-03T25:00")),
    ("live", lambda lk: lk.quotes("600519", as_of="live")),
    ("bad as_ingested", lambda lk: lk.quotes("600519", as_ingested="soon")),
    ("adjust", lambda lk: lk.quotes("600519", adjust="qfq; DROP")),
    ("adjust type", lambda lk: lk.quotes("600519", adjust=1)),
    ("pre-1990", lambda lk: lk.quotes("600519", start="1980-01-01", end="1990-01-05")),
    ("statement", lambda lk: lk.financials("600519", statement="../income")),
    ("period not quarter end", lambda lk: lk.financials("600519", periods="2025-05-31")),
    ("periods garbage", lambda lk: lk.financials("600519", periods=["2025-03-31", "Q1"])),
    ("periods type", lambda lk: lk.financials("600519", periods=20250331)),
    ("latest_only", lambda lk: lk.financials("600519", latest_only="yes")),
    ("lookback 0", lambda lk: lk.news(lookback_days=0)),
    ("lookback str", lambda lk: lk.news(lookback_days="7")),
    ("lookback bool", lambda lk: lk.news(lookback_days=True)),
    ("lookback huge", lambda lk: lk.news(lookback_days=10_000)),
    ("start and lookback", lambda lk: lk.news(start="2025-06-01", lookback_days=3)),
    ("news window reversed", lambda lk: lk.news(start="2025-06-05", end="2025-06-01")),
    ("news limit", lambda lk: lk.news(limit=0)),
    ("lhb date and range", lambda lk: lk.dragon_tiger(date="2025-06-03", start="2025-06-01")),
    ("lhb bad date", lambda lk: lk.dragon_tiger(date="2025/06/03")),
    ("calendar reversed", lambda lk: lk.calendar(start="2025-06-05", end="2025-06-01")),
    ("calendar too long", lambda lk: lk.calendar(start="1990-01-01", end="2025-06-01")),
    ("calendar bad as_of", lambda lk: lk.calendar(as_of="tomorrow")),
]


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_invalid_arguments(guarded: Lake, name: str, call: Callable[[Lake], Any]) -> None:
    r = call(guarded)
    assert r.status is ResultStatus.INVALID_ARGUMENTS, name
    assert r.retryable is False and r.data == [] and r.message
    assert r.to_dict()["status"] == "INVALID_ARGUMENTS"


def test_echoed_input_is_bounded(guarded: Lake) -> None:
    r = guarded.quotes(["x" * 10_000])
    assert r.status is ResultStatus.INVALID_ARGUMENTS and len(r.message) < 300


def test_dates_past_the_known_calendar_are_refused_not_guessed(lake_root: Path) -> None:
    later = NOW.replace(year=2030)
    lk = Lake(lake_root, catalog=Untouchable(), clock=lambda: later)  # type: ignore[arg-type]
    lk.reader = Untouchable()  # type: ignore[assignment]
    r = lk.quotes("600519", end="2030-01-02", as_of="2030-01-02")
    assert r.status is ResultStatus.INVALID_ARGUMENTS and "calendar" in r.message
