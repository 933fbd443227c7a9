"""The dataset routes of the HTTP API, generated from the query models (`Dataset.query`): one
GET /v1/<dataset> per model, its query parameters the model's fields in the model's order, with
its defaults and descriptions (a list field also repeatable in its singular spelling, e.g.
`symbol=A&symbol=B` beside `symbols=A,B`), and one POST /v1/<dataset> taking the same fields
as a JSON body (pitlake.serve.api.bodies), for bulk questions up to `MAX_SYMBOLS` symbols.
Both answer through the same `service.read`. Snapshot and status are compositions, not
datasets: app.py writes them out.

No `from __future__ import annotations`: FastAPI reads the generated signatures at run time."""

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, Query
from fastapi.responses import Response

from pitlake.read.arguments import MAX_SYMBOLS
from pitlake.schemas import Dataset
from pitlake.serve.api import surfaces
from pitlake.serve.api.bodies import MAX_BODY_BYTES, body_model
from pitlake.serve.api.formats import respond
from pitlake.serve.api.models import ENVELOPES, Envelope
from pitlake.serve.api.service import QueryService

PIN_HEADER = "X-Pitlake-Pin"
MAX_LIST_TEXT = 8000

Pin = Annotated[
    str | None,
    Header(
        alias=PIN_HEADER,
        max_length=64,
        description="Name of a pin the server allows (--allow-pin name=T).",
    ),
]


def _parameters(spec: Dataset) -> list[inspect.Parameter]:
    """The route's parameters: per model field, the HTTP spelling of it."""
    out = []
    kw = inspect.Parameter.KEYWORD_ONLY
    for name, info in surfaces.model(spec).model_fields.items():
        doc = info.description or ""
        if surfaces.takes_list(info):
            one = surfaces.ONE_AT_A_TIME[name]
            repeated = Annotated[list[str] | None, Query(description=f"{doc} Repeatable.")]
            listed = Annotated[
                str | None, Query(max_length=MAX_LIST_TEXT, description=f"{doc} Comma-separated.")
            ]
            out += [
                inspect.Parameter(one, kw, default=None, annotation=repeated),
                inspect.Parameter(name, kw, default=None, annotation=listed),
            ]
            continue
        if surfaces.takes_text(info):
            top = surfaces.text_cap(info)
            annotation: Any = Annotated[str | None, Query(max_length=top, description=doc)]
        else:
            annotation = Annotated[info.annotation, Query(description=doc, **surfaces.bounds(info))]
        out.append(
            inspect.Parameter(name, kw, default=surfaces.default(info), annotation=annotation)
        )
    out.append(inspect.Parameter("x_pitlake_pin", kw, default=None, annotation=Pin))
    return out


def _endpoint(service: QueryService, spec: Dataset) -> Callable[..., Response]:
    fields = surfaces.model(spec).model_fields

    def endpoint(**given: Any) -> Response:
        pin = given.pop("x_pitlake_pin", None)
        params = {}
        for name, info in fields.items():
            if surfaces.takes_list(info):
                many = [
                    *(given.pop(surfaces.ONE_AT_A_TIME[name]) or []),
                    *filter(None, [given[name]]),
                ]
                params[name] = many or None
            else:
                params[name] = given[name]
        return respond(service.read(spec, pin=pin, **params))

    endpoint.__signature__ = inspect.Signature(_parameters(spec), return_annotation=Response)  # type: ignore[attr-defined]
    endpoint.__name__ = surfaces.name(spec)
    endpoint.__doc__ = surfaces.description(spec)
    return endpoint


def _post_endpoint(service: QueryService, spec: Dataset) -> Callable[..., Response]:
    def endpoint(body: Any, x_pitlake_pin: str | None = None) -> Response:
        params = body.model_dump()
        return respond(service.read(spec, pin=x_pitlake_pin, max_symbols=MAX_SYMBOLS, **params))

    question = Annotated[body_model(spec), Body(description="The question: the query's fields.")]
    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter("body", inspect.Parameter.KEYWORD_ONLY, annotation=question),
            inspect.Parameter(
                "x_pitlake_pin", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Pin
            ),
        ],
        return_annotation=Response,
    )
    endpoint.__name__ = f"{surfaces.name(spec)}_post"
    return endpoint


POST_RESPONSES: dict[int | str, dict[str, Any]] = {
    413: {
        "model": Envelope,
        "description": f"INVALID_ARGUMENTS: a body over {MAX_BODY_BYTES:,} bytes",
    }
}


def dataset_routes(service: QueryService, router: APIRouter) -> None:
    """GET and POST /v1/<dataset> for every dataset with a query model."""
    for spec in surfaces.QUERIES:
        common: dict[str, Any] = {
            "response_model": ENVELOPES.get(spec.kind, Envelope),
            "summary": surfaces.summary(spec),
        }
        path = f"/{surfaces.path(spec)}"
        router.add_api_route(
            path,
            _endpoint(service, spec),
            methods=["GET"],
            description=surfaces.description(spec),
            **common,
        )
        router.add_api_route(
            path,
            _post_endpoint(service, spec),
            methods=["POST"],
            description=f"{surfaces.description(spec)}\n\nThe question in a JSON body (a list "
            f"field: a JSON list, up to {MAX_SYMBOLS:,} symbols); `format` and `compression` "
            "in the query string; not paged.",
            responses=POST_RESPONSES,
            **common,
        )
