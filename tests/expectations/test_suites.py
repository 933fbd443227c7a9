"""The suites are reviewable GX definitions, loaded once into one long-lived context."""

from __future__ import annotations

import json
import os

import great_expectations as gx
import pytest
from pitlake.expectations import validate
from pitlake.expectations.expect import BLOCKING, WARNING
from pitlake.expectations.suites import build_suite, expectations_for, suite_json
from pitlake.schemas import SCHEMAS

from tests.expectations.conftest import BUILDERS, ctx


@pytest.mark.parametrize("dataset", list(SCHEMAS))
def test_every_expectation_is_named_described_and_graded(dataset: str) -> None:
    exps = expectations_for(dataset)
    names = [e.meta["check"] for e in exps]
    assert len(names) == len(set(names)), names
    for e in exps:
        assert e.description and "column" in e.meta
        assert e.severity in (BLOCKING, WARNING)


@pytest.mark.parametrize("dataset", list(SCHEMAS))
def test_suite_survives_a_json_round_trip(dataset: str) -> None:
    """Reloading drops expectations whose class is not registered (docs/stack-notes.md); ours,
    including the custom Arrow-schema one, are registered by importing expectations."""
    text = json.dumps(suite_json(dataset), default=str)
    reloaded = gx.ExpectationSuite(**json.loads(text))
    assert [e.expectation_type for e in reloaded.expectations] == [
        e.expectation_type for e in build_suite(dataset).expectations
    ]
    assert "expect_table_columns_to_match_arrow_schema" in [
        e.expectation_type for e in reloaded.expectations
    ]


def test_one_context_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    from pitlake.expectations.context import gx_context, suite

    first = gx_context()
    assert gx_context() is first
    assert suite("quotes") is suite("quotes")

    def no_new_contexts(*args, **kwargs):
        raise AssertionError("a new GX context was created for a batch")

    monkeypatch.setattr(gx, "get_context", no_new_contexts)
    for dataset, build in BUILDERS.items():
        assert validate(dataset, build(), ctx()).outcome.value == "pass"
    assert gx_context() is first


def test_analytics_progress_bars_and_fingerprinting_are_off() -> None:
    from great_expectations.execution_engine import pandas_execution_engine
    from pitlake.expectations.context import gx_context

    assert os.environ["GX_ANALYTICS_ENABLED"] == "false"
    assert gx_context().variables.progress_bars.globally is False
    assert pandas_execution_engine.HASH_THRESHOLD == 0
