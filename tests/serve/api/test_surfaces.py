"""Every query surface is generated from the dataset's query model (issue 15 item 3): for every
dataset with one, `Lake`'s method, the HTTP route (OpenAPI), the MCP tool and the CLI options
take the same parameters, in the same order, with the same defaults. Any drift fails here.
The reads derived from several datasets (market, limits; issue 18) likewise, from theirs."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import click
import pytest
import typer.main
from fastmcp import Client
from pitlake.schemas import SCHEMAS, Dataset, Kind
from pitlake.schemas.query import choices

from pitlake import limits
from pitlake.cli import app as cli_app
from pitlake.commands import query_options
from pitlake.read.lake import Lake
from pitlake.serve.api import params, surfaces
from pitlake.serve.api.app import create_app
from pitlake.serve.mcp import create_server

REQUIRED = "<required>"
LAKE_ONLY = {"as_ingested"}  # the audit instant: Python callers only
NOT_FIELDS = {
    "x_pitlake_pin",
    "X-Pitlake-Pin",
    "format",
    "compression",
    "cursor",
}  # transport, not the question


def expected(spec: Dataset) -> list[tuple[str, Any]]:
    model = surfaces.model(spec)
    return [(n, REQUIRED if f.is_required() else f.default) for n, f in model.model_fields.items()]


def test_every_queryable_dataset_has_a_model() -> None:
    assert [s.name for s in surfaces.QUERIES] == [
        n for n, s in SCHEMAS.items() if s.queryable and s.query is not None
    ]
    assert all(s.query is not None for s in SCHEMAS.values() if s.queryable)


@pytest.mark.parametrize("spec", surfaces.QUERIES, ids=lambda s: s.name)
def test_lake_methods_take_the_model_parameters(spec: Dataset) -> None:
    method = getattr(Lake, surfaces.name(spec))
    params = [p for p in inspect.signature(method).parameters.values() if p.name != "self"]
    got = [
        (p.name, REQUIRED if p.default is inspect.Parameter.empty else p.default)
        for p in params
        if p.name not in LAKE_ONLY
    ]
    assert got == expected(spec)
    # keyword-only after the subject: the symbols, a required first field such as a snapshot
    # list's index, or a state query's instant (its as_of: Lake.universe("2025-06-03"))
    first, info = next(iter(surfaces.model(spec).model_fields.items()))
    positional = {"symbols", *([first] if info.is_required() else [])}
    positional |= {"as_of"} if spec.kind is Kind.STATE else set()
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params if p.name not in positional)


@pytest.fixture(scope="module")
def openapi(lake_dir: Path) -> dict[str, Any]:
    return create_app(lake_dir).openapi()


@pytest.mark.parametrize("spec", surfaces.QUERIES, ids=lambda s: s.name)
def test_http_routes_take_the_model_parameters(spec: Dataset, openapi: dict[str, Any]) -> None:
    op = openapi["paths"][f"/v1/{surfaces.path(spec)}"]["get"]
    fields = surfaces.model(spec).model_fields
    spelled = {surfaces.ONE_AT_A_TIME[n] for n, f in fields.items() if surfaces.takes_list(f)}
    params = [
        p
        for p in op["parameters"]
        if p["name"] not in NOT_FIELDS | spelled
        and not (p["name"] == "limit" and "limit" not in fields)
    ]
    got = [(p["name"], p["schema"].get("default")) for p in params]
    # a required field cannot be required over HTTP (it may come in either spelling): the
    # read refuses its absence with a 400 INVALID_ARGUMENTS envelope
    want = [(n, None if d == REQUIRED else d) for n, d in expected(spec)]
    assert got == want
    assert op["summary"] == surfaces.summary(spec)


@pytest.mark.parametrize("spec", surfaces.QUERIES, ids=lambda s: s.name)
def test_http_posts_take_the_model_as_their_body(spec: Dataset, openapi: dict[str, Any]) -> None:
    """POST /v1/<dataset>'s request body is the query model: its fields in order, with their
    defaults, descriptions and required-ness, and nothing else; the query string only
    `format` and `compression` (a POST is not paged)."""
    op = openapi["paths"][f"/v1/{surfaces.path(spec)}"]["post"]
    ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    body = openapi["components"]["schemas"][ref.rsplit("/", 1)[1]]
    fields = surfaces.model(spec).model_fields
    got = [
        (n, REQUIRED if n in body.get("required", []) else p.get("default"))
        for n, p in body["properties"].items()
    ]
    assert got == expected(spec)
    assert [p.get("description") for p in body["properties"].values()] == [
        f.description for f in fields.values()
    ]
    assert body["additionalProperties"] is False and op["requestBody"]["required"] is True
    for name, f in fields.items():  # a list field: a JSON list (bounded) or comma-separated text
        if surfaces.takes_list(f):
            forms = body["properties"][name]["anyOf"]
            assert {"type": "string"} in forms
            assert {"type": "array", "items": {"type": "string"}, "maxItems": 6000} in forms
    query = sorted(p["name"] for p in op["parameters"] if p["in"] == "query")
    assert query == ["compression", "format"]
    assert {"413", "422", "401"} <= set(op["responses"])
    assert op["summary"] == surfaces.summary(spec)


@pytest.mark.parametrize("spec", surfaces.QUERIES, ids=lambda s: s.name)
def test_mcp_tools_take_the_model_parameters(spec: Dataset, lake_dir: Path) -> None:
    async def go() -> Any:
        async with Client(create_server(lake_dir)) as client:
            return {t.name: t for t in await client.list_tools()}

    schema = asyncio.run(go())[spec.tool or surfaces.name(spec)].input_schema
    required = set(schema.get("required", []))
    got = [
        (n, REQUIRED if n in required else p.get("default"))
        for n, p in schema["properties"].items()
    ]
    assert got == expected(spec)


def test_cli_options_are_the_model_parameters() -> None:
    group = typer.main.get_command(cli_app)
    command = group.get_command(click.Context(group), "query")  # type: ignore[attr-defined]
    options = {p.name: p for p in command.params}
    order = [n for n in options if n in query_options.FIELDS]
    for spec in surfaces.QUERIES:
        fields = expected(spec)
        assert query_options.APPLIES[surfaces.name(spec)] == {n for n, _ in fields}
        assert [n for n in order if n in dict(fields)] == [n for n, _ in fields]  # same order
        for name, default in fields:
            got = options[name].default
            assert got == (None if default == REQUIRED else default), (spec.name, name)
            assert query_options.flag(name) in options[name].opts


# The reads derived from several datasets (issue 18): each surface takes its model's fields.
DERIVED_TOOLS = {"market": "market_overview", "limits": "limit_pools"}


def derived_expected(name: str) -> list[tuple[str, Any]]:
    fields = surfaces.DERIVED[name].model_fields
    return [(n, REQUIRED if f.is_required() else f.default) for n, f in fields.items()]


def test_every_derived_read_is_on_every_surface() -> None:
    assert set(DERIVED_TOOLS) == set(surfaces.DERIVED)
    assert set(surfaces.DERIVED) <= set(params.QUERY_DATASETS)  # a `pitlake query` word
    pools = surfaces.DERIVED["limits"]
    assert choices(pools, "kind") == limits.POOLS  # the rule's pools, declared once


@pytest.mark.parametrize("name", sorted(surfaces.DERIVED))
def test_derived_reads_take_their_model_parameters_everywhere(
    name: str, openapi: dict[str, Any], lake_dir: Path
) -> None:
    want = derived_expected(name)
    method = getattr(Lake, name)
    got = [
        (p.name, REQUIRED if p.default is inspect.Parameter.empty else p.default)
        for p in inspect.signature(method).parameters.values()
        if p.name != "self"
    ]
    assert got == want
    op = openapi["paths"][f"/v1/{name}"]["get"]
    http = [(p["name"], p["schema"].get("default")) for p in op["parameters"]]
    assert [p for p in http if p[0] not in NOT_FIELDS] == want
    assert op["summary"] == surfaces.summary(surfaces.DERIVED[name])

    async def go() -> Any:
        async with Client(create_server(lake_dir)) as client:
            return {t.name: t for t in await client.list_tools()}

    schema = asyncio.run(go())[DERIVED_TOOLS[name]].input_schema
    assert [(n, p.get("default")) for n, p in schema["properties"].items()] == want
    if "kind" in dict(want):  # the same choices on both wires
        kinds = list(choices(surfaces.DERIVED[name], "kind"))
        assert schema["properties"]["kind"]["enum"] == kinds
        assert next(p for p in op["parameters"] if p["name"] == "kind")["schema"]["enum"] == kinds
    group = typer.main.get_command(cli_app)
    command = group.get_command(click.Context(group), "query")  # type: ignore[attr-defined]
    options = {p.name: p for p in command.params}
    assert query_options.APPLIES[name] == {n for n, _ in want}
    order = [n for n in options if n in query_options.FIELDS]
    assert [n for n in order if n in dict(want)] == [n for n, _ in want]
    for field, default in want:
        assert (
            options[field].default == default and query_options.flag(field) in options[field].opts
        )


def test_the_readme_names_every_http_endpoint(openapi: dict[str, Any]) -> None:
    """The README's HTTP bullet lists the `/v1/` endpoints: each one the server has is named
    there (a new route without its line fails here)."""
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    bullet = readme[readme.index("- **HTTP**") :].split("\n- ", 1)[0]
    routes = {p.removeprefix("/v1/") for p in openapi["paths"] if p.startswith("/v1/")}
    missing = sorted(r for r in routes if f"`{r}`" not in bullet)
    assert not missing, f"README's HTTP bullet does not name: {missing}"
