"""Statuses live once, in pitlake/statuses.py: the guard against a literal creeping back, and the
derived sets and orders checked against the enums they are derived from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pitlake import errors, statuses
from pitlake.serve.dashboard.styles import STYLE_OF, worst_status
from pitlake.statuses import (
    ANSWER_GAP_ORDER,
    BENIGN_ANSWER,
    DASHBOARD_CELL_CODE,
    DASHBOARD_CELL_ORDER,
    GATE_LEDGER_ORDER,
    RESULT_FOR_LEDGER,
    RETRYABLE_STATUSES,
    ROUTE_FAILURE_ORDER,
    RUN_DONE,
    SUCCESSFUL_FETCH,
    DateStatus,
    LedgerStatus,
    ResultStatus,
    wire_kind,
)

REPO = Path(__file__).resolve().parents[2]
PRODUCTION_ROOTS = ("pitlake", "schemas", "expectations", "tasks", "flows")
HOME = REPO / "pitlake" / "statuses.py"

_WORDS = sorted({s.value for enum in (ResultStatus, LedgerStatus, DateStatus) for s in enum})
# The replay's lowercase spellings that can mean nothing but a status ("no_data", "not_ready"…).
_WIRE = sorted({wire_kind(s) for s in (*ResultStatus, *LedgerStatus) if "_" in s.value})
_ALTERNATIVES = "|".join(map(re.escape, _WORDS + _WIRE))
STATUS_LITERAL = re.compile(rf"""(["'])({_ALTERNATIVES})\1""")


def _production_files() -> list[Path]:
    files = [p for root in PRODUCTION_ROOTS for p in sorted((REPO / root).rglob("*.py"))]
    return [p for p in files if p != HOME]


def status_literals(text: str) -> list[str]:
    return [m.group(2) for m in STATUS_LITERAL.finditer(text)]


def test_the_guard_sees_a_literal_in_either_quote_and_in_the_wire_spelling():
    assert status_literals("if s == \"NOT_READY\": x = 'OK'") == ["NOT_READY", "OK"]
    assert status_literals('kind = "rate_limited"') == ["rate_limited"]
    assert status_literals('"OKAY" "not ready" LedgerStatus.OK') == []


def test_no_status_is_spelled_as_a_string_literal_in_production_code():
    files = _production_files()
    assert len(files) > 50  # the walk found the tree
    found = [
        f"{p.relative_to(REPO)}:{n}: {word}"
        for p in files
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        for word in status_literals(line)
    ]
    assert found == [], "use the enum member from pitlake/statuses.py:\n" + "\n".join(found)


def test_the_enums_are_defined_once():
    from pitlake import envelope

    assert envelope.ResultStatus is statuses.ResultStatus
    assert envelope.DateStatus is statuses.DateStatus
    assert not hasattr(envelope, "LedgerStatus")
    assert not hasattr(envelope, "LEDGER_SUCCESS")


def test_every_ledger_status_maps_to_an_answer_status_and_has_a_dashboard_cell():
    assert set(RESULT_FOR_LEDGER) == set(LedgerStatus)
    assert set(DASHBOARD_CELL_CODE) == set(LedgerStatus)
    assert len(set(DASHBOARD_CELL_CODE.values())) == len(LedgerStatus)  # letters tell them apart
    assert sorted(DASHBOARD_CELL_ORDER) == sorted(LedgerStatus)  # each ranked exactly once
    for s in LedgerStatus:
        assert STYLE_OF[s].code == DASHBOARD_CELL_CODE[s]
        assert STYLE_OF[s].label and STYLE_OF[s].meaning


def test_the_success_sets_nest():
    assert SUCCESSFUL_FETCH < RUN_DONE
    assert {RESULT_FOR_LEDGER[s] for s in SUCCESSFUL_FETCH} == BENIGN_ANSWER
    assert not BENIGN_ANSWER & RETRYABLE_STATUSES
    assert LedgerStatus.REJECTED not in RUN_DONE
    # what a run counts done reads as benign or as "not set up", never as a failure to retry
    assert {RESULT_FOR_LEDGER[s] for s in RUN_DONE} == BENIGN_ANSWER | {ResultStatus.NOT_CONFIGURED}


@pytest.mark.parametrize(
    "order", [ROUTE_FAILURE_ORDER, ANSWER_GAP_ORDER, DASHBOARD_CELL_ORDER, GATE_LEDGER_ORDER]
)
def test_orders_rank_each_status_once(order):
    assert len(set(order)) == len(order)


def test_failure_orders_hold_failures_only():
    assert not set(ROUTE_FAILURE_ORDER) & SUCCESSFUL_FETCH
    assert not set(ANSWER_GAP_ORDER) & BENIGN_ANSWER
    # every failure a ledger entry can read as, plus "never fetched", is ranked for an answer
    failures = {RESULT_FOR_LEDGER[s] for s in LedgerStatus} - BENIGN_ANSWER
    assert set(ANSWER_GAP_ORDER) == failures | {ResultStatus.UNKNOWN}


def test_the_router_and_the_answer_order_differ_on_purpose():
    # the router reports what the flow should do next (a later try may serve) ...
    assert ROUTE_FAILURE_ORDER[0] is LedgerStatus.NOT_READY
    assert ROUTE_FAILURE_ORDER[-1] is LedgerStatus.PERMISSION_DENIED
    # ... the answer what a reader must act on first (a failed fetch before "not yet")
    assert ANSWER_GAP_ORDER.index(ResultStatus.UPSTREAM_ERROR) < ANSWER_GAP_ORDER.index(
        ResultStatus.NOT_READY
    )


def test_the_dashboard_cell_shows_a_failure_before_data_and_data_before_none():
    ranked = [s.value for s in DASHBOARD_CELL_ORDER]
    assert worst_status([LedgerStatus.OK, LedgerStatus.RATE_LIMITED]) == "RATE_LIMITED"
    assert worst_status([LedgerStatus.NO_DATA, LedgerStatus.OK]) == "OK"
    assert worst_status(reversed(ranked)) == ranked[0]
    # among the fetch failures the dashboard follows the answer's order (REJECTED, the gate's,
    # comes first; NOT_CONFIGURED, which a run counts done, after NOT_READY)
    fetch_failures = [ResultStatus.UPSTREAM_ERROR, ResultStatus.RATE_LIMITED]
    fetch_failures += [ResultStatus.PERMISSION_DENIED, ResultStatus.NOT_READY]
    assert [s for s in ANSWER_GAP_ORDER if s in fetch_failures] == fetch_failures
    assert [s for s in ranked if s in fetch_failures] == fetch_failures
    assert ranked[0] == LedgerStatus.REJECTED
    assert ranked.index(LedgerStatus.NOT_CONFIGURED) > ranked.index(LedgerStatus.NOT_READY)


def test_the_replay_kinds_are_the_statuses_in_lowercase():
    assert {kind: cls.status for kind, cls in errors.ERROR_BY_KIND.items()} == {
        wire_kind(cls.status): cls.status for cls in errors.ERROR_BY_KIND.values()
    }
    assert set(errors.ERROR_BY_KIND) == {
        "rate_limited",
        "not_configured",
        "permission_denied",
        "upstream_error",
        "no_data",
        "not_ready",
    }  # the `.error.json` wire spelling, unchanged
    assert wire_kind(LedgerStatus.NOT_READY) == "not_ready"
