"""Fail closed: an exception inside GX, a broken metric, or a non-frame batch is a reject."""

from __future__ import annotations

import pandas as pd
import pytest
from pitlake.expectations import validate
from pitlake.expectations.verdict import Outcome

from pitlake.errors import InvalidArgumentsError
from pitlake.statuses import LedgerStatus
from tests.expectations.conftest import BUILDERS, ctx


def test_exception_inside_gx_validation_is_a_reject(monkeypatch: pytest.MonkeyPatch) -> None:
    from great_expectations.validator.validator import Validator

    def boom(*args, **kwargs):
        raise RuntimeError("metric graph exploded")

    monkeypatch.setattr(Validator, "graph_validate", boom)
    v = validate("quotes", BUILDERS["quotes"](), ctx())
    assert v.outcome is Outcome.REJECT and not v.writable
    assert v.ledger_status is LedgerStatus.REJECTED
    assert v.failed_names() == ["gate_error"]
    assert "RuntimeError: metric graph exploded" in v.failed[0].error


def test_a_metric_that_raises_fails_its_expectation_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GX catches a metric's exception and reports it on the expectation; the gate must treat
    it as a blocking failure even for a warning-level expectation."""
    from pitlake.expectations import derive

    def broken(*args, **kwargs):  # the price-limit inputs become unreadable objects
        return {derive.MOVE: [object()] * 6, derive.ALLOWED_MOVE: [object()] * 6}

    monkeypatch.setattr(derive, "price_move_columns", broken)
    v = validate("quotes", BUILDERS["quotes"](), ctx())
    assert v.outcome is Outcome.REJECT
    f = next(f for f in v.failed if f.name == "price_limit")
    assert f.error and f.severity == "blocking"


def test_a_gx_result_without_results_is_a_reject(monkeypatch: pytest.MonkeyPatch) -> None:
    import pitlake.expectations.context as context

    real = context.run_suite

    def empty(*args, **kwargs):
        result = real(*args, **kwargs)
        result.results = []
        return result

    monkeypatch.setattr(context, "run_suite", empty)
    v = validate("quotes", BUILDERS["quotes"](), ctx())
    assert v.outcome is Outcome.REJECT and v.failed_names() == ["gate_error"]


def test_a_batch_that_is_not_a_frame_is_a_reject() -> None:
    v = validate("quotes", None, ctx())  # type: ignore[arg-type]
    assert v.outcome is Outcome.REJECT and v.failed_names() == ["batch_is_frame"]


def test_garbage_columns_are_rejected_not_raised() -> None:
    frame = pd.DataFrame({"symbol": [object(), 3], "trade_date": ["x", None], "known_at": [1, 2]})
    v = validate("quotes", frame, ctx())
    assert v.outcome is Outcome.REJECT
    assert "columns" in v.failed_names()


def test_unknown_dataset_is_a_caller_error() -> None:
    with pytest.raises(InvalidArgumentsError):
        validate("prices", BUILDERS["quotes"](), ctx())
