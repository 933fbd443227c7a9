"""POST /v1/<dataset>: the question in a JSON body, for the bulk reads a query string cannot
carry (the statements of 5,000 symbols: GET stops at 500 symbols and 8,000 characters).

The body is the dataset's query model on the wire (`body_model`): the same fields in the same
order, with their defaults, descriptions and required-ness; a list field is a JSON list of
strings or a comma-separated string, a date or instant is text as on GET (`{"date": 0}` is
refused, not read as a Unix time). Unknown fields are refused (422), as the model forbids them.

`PostBodies` (ASGI, inside the bearer check: no unauthenticated body is read) bounds every POST
body under /v1/ to `MAX_BODY_BYTES` (413 envelope, from Content-Length before anything is read,
or as soon as the chunks pass it) — starlette reads any size into memory otherwise. On the
one-table POSTs (the datasets, /v1/sql) the query string carries how to answer (`format`,
`compression`) and nothing else: the question is the body's. So POST does not page: `limit` and
`cursor` are refused (400), since a cursor's fingerprint and its pinned as_of are the query
string's (`formats.wanted_of`), which on a POST is not the question; a bulk answer is one Arrow
or Parquet body.

No `from __future__ import annotations`: FastAPI reads the generated models at run time."""

from typing import Annotated, Any
from urllib.parse import parse_qsl

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, WithJsonSchema, create_model
from pydantic_core import PydanticCustomError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pitlake.envelope import Result
from pitlake.read.arguments import MAX_SYMBOLS
from pitlake.schemas import Dataset
from pitlake.serve.api import surfaces
from pitlake.serve.api.errors import send_envelope
from pitlake.serve.api.formats import DATA_PATHS

# 6,000 symbols of the longest accepted spelling (40 characters) quoted, with commas, fit.
MAX_BODY_BYTES = 1 << 20
HOW_TO_ANSWER = ("format", "compression")  # the only query parameters a POST takes


_MODELS: dict[str, type[BaseModel]] = {}


def body_model(spec: Dataset) -> type[BaseModel]:
    """The dataset's query model as a JSON body: its fields, defaults and descriptions, the
    values typed as they travel (text for dates, a list or a comma-separated string). One
    class per dataset, however many apps are built (the OpenAPI names it once)."""
    if spec.name not in _MODELS:
        _MODELS[spec.name] = _wire(surfaces.model(spec))
    return _MODELS[spec.name]


def _wire(model: type[BaseModel]) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        optional = type(None) in surfaces.types_of(info)
        limits: dict[str, Any] = {}
        if surfaces.takes_list(info):
            annotation, optional = _listed(optional), False
        elif surfaces.takes_text(info):
            annotation = str
            limits["max_length"] = surfaces.text_cap(info)
        else:
            annotation, optional = info.annotation, False  # already as declared
        if optional:
            annotation = annotation | None
        default = ... if info.is_required() else info.default
        field = Field(default, description=info.description, **limits, **surfaces.bounds(info))
        fields[name] = (annotation, field)
    return create_model(  # type: ignore[call-overload,no-any-return]
        model.__name__,
        __config__=ConfigDict(extra="forbid"),
        __doc__=model.__doc__,
        **fields,
    )


def _listed(optional: bool) -> Any:
    """A list field: a JSON list of at most MAX_SYMBOLS strings, or a comma-separated string
    (the read splits and checks each item). One error naming both forms, not one per form."""
    expected = "a JSON list of strings or a comma-separated string" + (" (or null)" * optional)

    def check(value: Any) -> Any:
        if isinstance(value, str) or (value is None and optional):
            return value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise PydanticCustomError("list_or_text", f"expected {expected}")
        if len(value) > MAX_SYMBOLS:
            raise PydanticCustomError(
                "too_long", f"at most {MAX_SYMBOLS:,} items in one request, not {len(value):,}"
            )
        return value

    forms: list[dict[str, Any]] = [
        {"type": "array", "items": {"type": "string"}, "maxItems": MAX_SYMBOLS},
        {"type": "string"},
    ]
    schema = {"anyOf": forms + [{"type": "null"}] * optional}
    return Annotated[list[str] | str | None, PlainValidator(check), WithJsonSchema(schema)]


async def _refuse(send: Send, status: int, message: str) -> None:
    await send_envelope(send, status, Result.invalid(message).to_dict())


def _query_refusal(scope: Scope) -> str | None:
    """Why this POST's query string is refused (None: it only says how to answer)."""
    if scope.get("path") not in DATA_PATHS:
        return None
    given = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    extra = sorted({k for k, _ in given} - set(HOW_TO_ANSWER))
    if not extra:
        return None
    if {"limit", "cursor"} & set(extra):
        return (
            "a POST answer is not paged (limit, cursor): ask it as one Arrow or Parquet body "
            "(format=arrow), or page the GET"
        )
    shown = ", ".join(k[:40] for k in extra[:5])
    return (
        f"unknown query parameter(s) on POST: {shown}; the question goes in the JSON body, "
        "the query string takes only format and compression"
    )


class PostBodies:
    """Bounds each POST body under /v1/ and keeps its query string to how to answer."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if scope.get("method") != "POST" or not path.startswith("/v1/"):
            await self.app(scope, receive, send)
            return
        refusal = _query_refusal(scope)
        if refusal is not None:
            await _refuse(send, 400, refusal)
            return
        too_big = f"request body larger than {self.max_bytes:,} bytes"
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.strip().isdigit():
            if int(declared) > self.max_bytes:
                await _refuse(send, 413, too_big)
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _refuse(send, 413, too_big)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(chunks), receive), send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body read already, then whatever the client sends next (its disconnect)."""
    pending = [body]

    async def replayed() -> Message:
        if pending:
            return {"type": "http.request", "body": pending.pop(), "more_body": False}
        return await receive()

    return replayed
