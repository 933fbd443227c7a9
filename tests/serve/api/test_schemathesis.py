"""Property-based robustness against the OpenAPI spec (issue item 6): schemathesis generates
schema-valid (positive) and schema-invalid (negative) requests for every operation; no answer
may be a 5xx, and every answer must match the documented status codes, content type and
response schema (negative requests must be rejected with a 4xx).

Bounded: EXAMPLES per operation and mode, about 20 s on 2 cores. Marked `slow` for selection,
but part of the default test run. (schemathesis' own `from_fixture` pytest integration relies
on a pytest internal that pytest 9 removed, so each operation's strategy is driven by a plain
hypothesis `@given` here.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode, checks

from pitlake.serve.api.app import create_app
from tests.serve.api.lakebuild import NOW

EXAMPLES = 25
OPERATIONS = [
    "/healthz",
    "/v1/quotes",
    "/v1/valuation",
    "/v1/financials",
    "/v1/news",
    "/v1/dragon-tiger",
    "/v1/calendar",
    "/v1/snapshot",
    "/v1/status",
]
# POST /v1/<dataset>: bodies generated from the request-body schema (the query model).
POST_OPERATIONS = [
    "/v1/quotes",
    "/v1/financials",
    "/v1/universe",
    "/v1/index-members",
    "/v1/panel",
]
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.negative_data_rejection,
]


@pytest.fixture(scope="module")
def api_schema(lake_dir: Path) -> Iterator[Any]:
    app = create_app(
        lake_dir,
        token="",
        clock=lambda: NOW,
        as_of_pin="2025-06-30",
        allowed_pins={"early": "2025-06-04"},
    )
    with TestClient(app):  # the lifespan spans the whole module
        yield schemathesis.openapi.from_asgi("/openapi.json", app)


def _ok(result: Any) -> Any:
    return result.ok()


def operations(api_schema: Any) -> list[str]:
    return sorted(op.ok().path for op in api_schema.get_all_operations())


def test_the_query_api_operations_are_all_in_the_spec(api_schema: Any) -> None:
    assert set(OPERATIONS) <= set(operations(api_schema))


def fuzz(api_schema: Any, path: str, mode: GenerationMode, method: str = "GET") -> None:
    operation = api_schema[path][method]
    if mode is GenerationMode.NEGATIVE and not list(operation.iter_parameters()):
        return  # no parameter to break (/healthz)
    strategy = operation.as_strategy(generation_mode=mode)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: Any) -> None:
        response = case.call_and_validate(checks=CHECKS)
        assert response.status_code < 500, response.text

    run()


@pytest.mark.slow
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
@pytest.mark.parametrize("path", OPERATIONS)
def test_api_conforms_to_its_schema_and_never_5xx(
    api_schema: Any, path: str, mode: GenerationMode
) -> None:
    fuzz(api_schema, path, mode)


@pytest.mark.slow
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
@pytest.mark.parametrize("path", POST_OPERATIONS)
def test_post_bodies_conform_and_never_5xx(
    api_schema: Any, path: str, mode: GenerationMode
) -> None:
    fuzz(api_schema, path, mode, "POST")


@pytest.mark.slow
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_routers_included_through_the_hook_conform_too(
    api_schema: Any, mode: GenerationMode
) -> None:
    """Whatever `_include_optional_routers` adds (the dashboard) is in the same spec. An
    unconstrained string parameter (a path, say) admits no invalid value: nothing to send in
    negative mode there."""
    every = {(o.path, o.method.upper()) for o in map(_ok, api_schema.get_all_operations())}
    others = sorted(p for p, method in every if method == "GET" and p not in OPERATIONS)
    assert {p for p, method in every if method == "POST"} >= set(POST_OPERATIONS)
    for path in others:  # POST bodies: test_post_bodies_conform_and_never_5xx
        try:
            fuzz(api_schema, path, mode)
        except Unsatisfiable:
            if mode is not GenerationMode.NEGATIVE:
                raise
