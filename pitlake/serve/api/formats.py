"""Answer formats over HTTP: JSON (pages with `limit` + `cursor`), Arrow IPC and Parquet.

The data endpoints answer Arrow IPC for `Accept: application/vnd.apache.arrow.stream` or
`?format=arrow`, and Parquet for `?format=parquet` (or `Accept: application/vnd.apache.parquet`),
streamed in record batches / row groups straight from the Result's Arrow table — no row dicts
are built. The envelope travels with them: in `X-Pitlake-*` response headers (status, dates,
as_of, pinned, rows, a gaps summary) and, whole, as JSON in the Arrow schema metadata (and the
Parquet key-value metadata) under `pitlake.envelope`.

A JSON answer pages when asked (`limit`, then the `cursor` from `meta.page.next_cursor`): the
cursor carries the offset and the first page's as_of, so every page answers at the same
cutoff. Invalid requests and faults answer JSON whatever was asked for (a client must be able
to read why).

How it hooks in: `install(app)` adds the middleware that reads the format and page of each
request into a context variable, the /v1/sql routes, and the OpenAPI description;
`respond(answer)` replaces `pitlake.serve.api.errors.respond` in the routes; the service builds
envelope rows through `rows_for(result)`, which builds none for a columnar answer.
"""

from __future__ import annotations

import base64
import binascii
import contextvars
import hashlib
import itertools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, urlencode

from pitlake.schemas import QUERY_DATASETS, SCHEMAS
from pitlake.serve.api import surfaces
from pitlake.serve.api.streams import COMPRESSIONS, DEFAULT_COMPRESSION
from pitlake.statuses import ResultStatus

if TYPE_CHECKING:
    from fastapi import FastAPI
    from starlette.responses import Response
    from starlette.types import ASGIApp, Receive, Scope, Send

    from pitlake.envelope import Result
    from pitlake.serve.api.service import Answer

ARROW_MEDIA = "application/vnd.apache.arrow.stream"
PARQUET_MEDIA = "application/vnd.apache.parquet"
FORMATS = ("json", "arrow", "parquet")
# Endpoints whose answer is one Result table (snapshot and status are JSON only): every
# dataset's route, generated from the specs, the SQL answer and the panel (POST only).
DATA_PATHS = frozenset(
    {*(f"/v1/{surfaces.path(SCHEMAS[d])}" for d in QUERY_DATASETS), "/v1/sql", "/v1/panel"}
)
# A dataset whose query has its own `limit` (news: the newest N items) does not page.
PAGED_PATHS = (
    DATA_PATHS
    - {
        f"/v1/{surfaces.path(SCHEMAS[d])}"
        for d in QUERY_DATASETS
        if "limit" in surfaces.model(SCHEMAS[d]).model_fields
    }
    - {"/v1/panel"}
)  # POST only: a POST answer is not paged
MAX_PAGE = 100_000
PAGE_KEYS = ("limit", "cursor", "format", "compression")  # how to answer, not which question


@dataclass(frozen=True)
class Wanted:
    """What one request asked for: the format and, for JSON, the page."""

    format: str = "json"
    offset: int = 0
    limit: int | None = None
    fingerprint: str = ""
    compression: str | None = None  # of a columnar body; None: the format's default

    @property
    def columnar(self) -> bool:
        return self.format != "json"

    @property
    def paged(self) -> bool:
        return self.format == "json" and (self.limit is not None or self.offset > 0)


_DEFAULT = Wanted()  # frozen: safe to share
_WANTED: contextvars.ContextVar[Wanted] = contextvars.ContextVar(
    "pitlake_wanted",
    default=_DEFAULT,
)


def columnar_wanted() -> bool:
    """Whether this request asked for Arrow or Parquet (not JSON)."""
    return _WANTED.get().columnar


def rows_for(result: Result) -> list[dict[str, Any]]:
    """The envelope rows this request wants: all, one page (converted alone), or none."""
    wanted = _WANTED.get()
    if wanted.columnar and result.table is not None:
        return []
    if wanted.paged:
        stop = wanted.offset + (wanted.limit or MAX_PAGE)
        if result.table is not None and result._data is None:
            from pitlake.records import to_records

            page = result.table.slice(wanted.offset, stop - wanted.offset)
            return to_records(page, result.columns)
        return result.data[wanted.offset : stop]
    return result.data


# ---------------------------------------------------------------- request → Wanted


class BadPage(ValueError):
    pass


def _fingerprint(path: str, params: list[tuple[str, str]]) -> str:
    """Which question a cursor belongs to (the path and every parameter but the page's)."""
    kept = sorted((k, v) for k, v in params if k not in (*PAGE_KEYS, "as_of"))
    return hashlib.sha256(f"{path}?{urlencode(kept)}".encode()).hexdigest()[:16]


def encode_cursor(offset: int, as_of: str | None, fingerprint: str) -> str:
    raw = json.dumps({"o": offset, "a": as_of, "f": fingerprint}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> dict[str, Any]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
        if not isinstance(data, dict) or not isinstance(data.get("o"), int) or data["o"] < 0:
            raise ValueError
        return data
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise BadPage("invalid cursor: pass meta.page.next_cursor unchanged") from None


def wanted_of(path: str, params: list[tuple[str, str]], accept: str) -> tuple[Wanted, str | None]:
    """The format and page of one request, and the as_of a cursor pins it to."""
    given = dict(params)
    fmt = given["format"].strip().lower() if "format" in given else ""
    if "format" in given and fmt not in FORMATS:  # `format=` too: a typo, not "the default"
        raise BadPage(f"invalid format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if not fmt:
        fmt = "arrow" if ARROW_MEDIA in accept else "parquet" if PARQUET_MEDIA in accept else "json"
    codec = given["compression"].strip().lower() if "compression" in given else None
    if codec is not None and codec not in COMPRESSIONS:
        raise BadPage(f"invalid compression {codec!r}: expected one of {', '.join(COMPRESSIONS)}")
    if path not in PAGED_PATHS or fmt != "json":
        return Wanted(fmt, compression=codec), None
    limit = None
    if "limit" in given:  # `limit=` too: an empty limit is a mistake, not "no limit"
        try:
            limit = int(given["limit"])
        except ValueError:
            limit = 0
        if not 1 <= limit <= MAX_PAGE:
            raise BadPage(f"invalid limit: expected 1..{MAX_PAGE}")
    fingerprint = _fingerprint(path, params)
    if not given.get("cursor"):
        return Wanted(fmt, 0, limit, fingerprint), None
    cur = decode_cursor(given["cursor"])
    if cur.get("f") != fingerprint:
        raise BadPage("this cursor belongs to another question (same path and parameters)")
    as_of = cur.get("a")
    if given.get("as_of") and as_of and given["as_of"] != as_of:
        raise BadPage("give the cursor without as_of: its pages all answer at the first one's")
    return Wanted(fmt, cur["o"], limit, fingerprint), as_of


class FormatsMiddleware:
    """Reads each data request's format and page into the context the service sees; pins a
    cursor's follow-up page to the first page's as_of; refuses columnar formats where the
    answer is not one table."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith("/v1/"):
            await self.app(scope, receive, send)
            return
        params = parse_qsl(scope.get("query_string", b"").decode("latin-1"), True)
        headers = dict(scope.get("headers") or [])
        accept = headers.get(b"accept", b"").decode("latin-1")
        try:
            wanted, as_of = wanted_of(path, params, accept)
            if wanted.columnar and path not in DATA_PATHS:
                raise BadPage(f"{path} answers JSON only (its answer is not one table)")
        except BadPage as e:
            await _send_invalid(send, str(e), 406 if "JSON only" in str(e) else 400)
            return
        if as_of is not None:
            kept = [(k, v) for k, v in params if k != "as_of"] + [("as_of", as_of)]
            scope = dict(scope, query_string=urlencode(kept).encode("latin-1"))
        token = _WANTED.set(wanted)
        try:
            await self.app(scope, receive, send)
        finally:
            _WANTED.reset(token)


async def _send_invalid(send: Send, message: str, status: int) -> None:
    from pitlake.envelope import Result
    from pitlake.serve.api.errors import send_envelope

    await send_envelope(send, status, Result.invalid(message).to_dict())


# ---------------------------------------------------------------- Answer → Response


def respond(answer: Answer, status_code: int | None = None) -> Response:
    """The answer in the format the request asked for (JSON for errors whatever it asked)."""
    from pitlake.serve.api import errors

    wanted = _WANTED.get()
    result = answer.result
    usable = answer.fault is None and answer.status is not ResultStatus.INVALID_ARGUMENTS
    if wanted.columnar and result is not None and result.table is not None and usable:
        return _columnar(answer, result, wanted)
    if wanted.paged and result is not None:
        _page_meta(answer, result, wanted)
    return errors.respond(answer, status_code)


def _page_meta(answer: Answer, result: Result, wanted: Wanted) -> None:
    total = int(result.meta.get("rows", 0))
    served = len(answer.envelope.get("data") or [])
    end = wanted.offset + served
    more = served > 0 and end < total
    answer.envelope["meta"]["page"] = {
        "offset": wanted.offset,
        "limit": wanted.limit,
        "rows": served,
        "total_rows": total,
        "next_cursor": encode_cursor(end, result.as_of, wanted.fingerprint) if more else None,
    }


def _gap_counts(meta: dict[str, Any]) -> dict[str, int]:
    """Missing symbol-sessions per status, from `meta.gap_summary`: the itemised `meta.gaps`
    is capped, and each of its entries is a run of sessions, so counting it undercounts."""
    summary = meta.get("gap_summary")
    if summary is None:  # an envelope from before the summary: count the listed runs
        summary = [
            {"status": g.get("status"), "count": g.get("sessions", 1)}
            for g in meta.get("gaps") or []
        ]
    out: dict[str, int] = {}
    for s in summary:
        out[str(s.get("status"))] = out.get(str(s.get("status")), 0) + int(s.get("count") or 0)
    return out


def envelope_headers(envelope: dict[str, Any]) -> dict[str, str]:
    """The envelope's scalar fields as X-Pitlake-* headers (ASCII: the message is
    percent-encoded), and a gaps summary."""
    meta = envelope.get("meta") or {}
    by_status = _gap_counts(meta)
    fields = {
        "Status": envelope.get("status"),
        "Requested-Date": envelope.get("requested_date"),
        "Effective-Trade-Date": envelope.get("effective_trade_date"),
        "Date-Status": envelope.get("date_status"),
        "As-Of": envelope.get("as_of"),
        "Source": envelope.get("source"),
        "Retryable": "true" if envelope.get("retryable") else "false",
        "Pinned": "true" if meta.get("pinned") else "false",
        "Rows": str(meta.get("rows", "")),
        "Known-At-Max": meta.get("known_at_max"),
        "Gaps": json.dumps(
            {"total": sum(by_status.values()), "by_status": by_status}, separators=(",", ":")
        ),
    }
    out = {f"X-Pitlake-{k}": str(v) for k, v in fields.items() if v not in (None, "")}
    out["X-Pitlake-Message"] = quote(envelope.get("message") or "", safe=" ,.;:()'/")
    return out


def _columnar(answer: Answer, result: Result, wanted: Wanted) -> Response:
    from starlette.responses import StreamingResponse

    from pitlake.envelope import ENVELOPE_METADATA_KEY
    from pitlake.read.column_types import format_refusal
    from pitlake.serve.api.redact import redact_obj
    from pitlake.serve.api.streams import arrow_stream, parquet_stream

    envelope = redact_obj({k: v for k, v in answer.envelope.items() if k != "data"})
    envelope["meta"]["rows"] = result.meta.get("rows")
    table = result.arrow_table()
    refused = format_refusal(table.schema, wanted.format)
    if refused is not None:  # the caller's choice of format, not a lake fault
        from pitlake.envelope import Result
        from pitlake.serve.api import errors
        from pitlake.serve.api.service import Answer

        return errors.respond(Answer(Result.invalid(refused).to_dict()), 400)
    table = table.replace_schema_metadata(
        {ENVELOPE_METADATA_KEY: json.dumps(envelope, ensure_ascii=False)}
    )
    fmt = wanted.format
    codec = wanted.compression or DEFAULT_COMPRESSION[fmt]
    media = ARROW_MEDIA if fmt == "arrow" else PARQUET_MEDIA
    body = arrow_stream(table, codec) if fmt == "arrow" else parquet_stream(table, codec)
    # the first chunk before the headers: a writer that cannot start fails into a 503
    # envelope (NeverFiveHundred), not into a 200 with an empty body
    first = next(body)
    headers = envelope_headers(envelope)
    if fmt == "parquet":
        headers["Content-Disposition"] = 'attachment; filename="pitlake.parquet"'
    return StreamingResponse(itertools.chain([first], body), media_type=media, headers=headers)


# ---------------------------------------------------------------- /v1/sql and OpenAPI


FORMAT_DOC = (
    "Answer format: json (default), arrow (Arrow IPC stream; also "
    f"`Accept: {ARROW_MEDIA}`) or parquet. Arrow and Parquet carry the envelope in "
    "X-Pitlake-* headers and, whole, in the schema metadata key `pitlake.envelope`."
)
COMPRESSION_DOC = (
    "Compression of an arrow or parquet body: "
    + ", ".join(f"{f} {c} by default" for f, c in DEFAULT_COMPRESSION.items())
    + ". Arrow compresses the record batches' buffers (IPC body compression, LZ4_FRAME or "
    "ZSTD): pyarrow reads it transparently to the same table; `none` for a reader without "
    "the codec. Ignored for json."
)


def describe(schema: dict[str, Any]) -> dict[str, Any]:
    """Add the formats, the page parameters and the X-Pitlake-* headers to the OpenAPI
    document of the data endpoints."""
    binary = {"schema": {"type": "string", "format": "binary"}}
    headers = {
        f"X-Pitlake-{h}": {"schema": {"type": "string"}, "description": d}
        for h, d in (
            ("Status", "The envelope's status"),
            ("Effective-Trade-Date", "The session the rows are about"),
            ("Date-Status", "CURRENT, LATEST_TRADING_DAY, STALE, …"),
            ("As-Of", "The cutoff answered at"),
            ("Pinned", "true when a pin set or clamped the cutoff"),
            (
                "Gaps",
                'Missing symbol-sessions, JSON: {"total": n, "by_status": {status: n}}',
            ),
        )
    }
    for path, item in schema.get("paths", {}).items():
        if path not in DATA_PATHS:
            continue
        for method, op in item.items():
            params = op.setdefault("parameters", [])
            if method in ("get", "post"):  # a POST too reads them from the query string
                params.append(
                    _param("format", FORMAT_DOC, {"type": "string", "enum": list(FORMATS)})
                )
                params.append(
                    _param(
                        "compression",
                        COMPRESSION_DOC,
                        {"type": "string", "enum": list(COMPRESSIONS)},
                    )
                )
            if path in PAGED_PATHS and method == "get":
                params.append(
                    _param(
                        "limit",
                        "JSON page size; meta.page says which rows came and gives next_cursor.",
                        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
                    )
                )
                params.append(
                    _param(
                        "cursor",
                        "meta.page.next_cursor of the previous page (answers at its as_of).",
                        {"type": "string"},
                    )
                )
            ok = op.setdefault("responses", {}).setdefault("200", {})
            content = ok.setdefault("content", {})
            content[ARROW_MEDIA] = dict(binary)
            content[PARQUET_MEDIA] = dict(binary)
            ok.setdefault("headers", {}).update(headers)
    return schema


def _param(name: str, doc: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": doc, "schema": schema}


def install(app: FastAPI) -> None:
    """The formats middleware, the /v1/sql routes and their OpenAPI description."""
    from pitlake.serve.api.sql_routes import sql_router

    app.include_router(sql_router(app.state.service))
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None or not app.openapi_schema.get("x-pitlake-formats"):
            app.openapi_schema = None
            schema = describe(build())
            schema["x-pitlake-formats"] = list(FORMATS)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.add_middleware(FormatsMiddleware)
