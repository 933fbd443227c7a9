"""The XSHG sessions snapshot (`pitlake.calendar_sessions`, decision 54) is exchange-calendars'
own list, of the installed version; a calendar whose snapshot is of another version asks the
library itself."""

from __future__ import annotations

import importlib.util
import sys
from datetime import date
from pathlib import Path

import pytest

from pitlake import calendar as cal
from pitlake import calendar_sessions

REPO = Path(__file__).resolve().parents[2]


def _script():  # scripts/ is no package: load the generator by path
    spec = importlib.util.spec_from_file_location(
        "calendar_snapshot", REPO / "scripts" / "calendar_snapshot.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_snapshot_is_of_the_installed_exchange_calendars() -> None:
    """Fails after an upgrade of exchange-calendars until scripts/calendar_snapshot.py is rerun
    (until then the calendar is right, only slower: it asks the library)."""
    import exchange_calendars as xc

    assert calendar_sessions.EXCHANGE_CALENDARS == xc.__version__


def test_the_snapshot_lists_the_librarys_sessions() -> None:
    version, sessions = _script().library_sessions()
    assert cal.snapshot_sessions() == sessions
    # and the module is exactly what the generator writes for them (nothing edited by hand)
    assert Path(calendar_sessions.__file__).read_text() == _script().render(version, sessions)


def test_the_offline_calendar_reads_the_snapshot_without_the_library(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "exchange_calendars", None)  # any import of it fails
    fresh = cal.TradingCalendar()
    assert fresh.offline_last == date.fromisoformat(calendar_sessions.LAST)
    assert fresh.is_session("2025-06-03") and not fresh.is_session("2025-06-02")


def test_another_version_asks_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot of another version than the installed one is not used: a holiday it lacks
    (planted here) does not reach the calendar."""
    monkeypatch.setattr(calendar_sessions, "EXCHANGE_CALENDARS", "0.0.0-not-installed")
    monkeypatch.setattr(
        calendar_sessions, "CLOSED_WEEKDAYS", calendar_sessions.CLOSED_WEEKDAYS + " 2025-06-03"
    )
    fresh = cal.TradingCalendar()
    assert fresh.is_session("2025-06-03")
    assert "exchange_calendars" in sys.modules
