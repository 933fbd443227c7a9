"""HTTP faces of the envelope: status codes, validation errors, and the never-500 guard.

Status codes (one rule, documented in the OpenAPI description):
- 200: OK and NO_DATA, and the *data* statuses NOT_READY, UPSTREAM_ERROR, RATE_LIMITED,
  PERMISSION_DENIED, NOT_CONFIGURED, UNKNOWN — the request was fine and the envelope says what
  the lake knows (a retrying agent reads `status` and `retryable`, not the HTTP code);
- 400: INVALID_ARGUMENTS found by pitlake (bad symbol, date, range, pin …);
- 422: INVALID_ARGUMENTS found by FastAPI's parameter validation (wrong type, out of bounds),
  re-shaped into the same envelope;
- 401: missing or wrong bearer token (envelope, status PERMISSION_DENIED);
- 503: the lake itself could not answer (unreadable Parquet file or catalog, any unexpected
  error): an UPSTREAM_ERROR envelope with `meta.fault`, generic message, traceback in the log.
- 404 for unknown routes stays FastAPI's.
The server never answers 500.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pitlake.envelope import Result
from pitlake.serve.api.faults import Fault, fault_envelope
from pitlake.serve.api.service import Answer
from pitlake.statuses import ResultStatus

log = logging.getLogger("pitlake.api")

MAX_ERRORS_SHOWN = 5


def http_status(answer: Answer) -> int:
    if answer.fault is not None:
        return 503
    if answer.status is ResultStatus.INVALID_ARGUMENTS:
        return 400
    return 200


def respond(answer: Answer, status_code: int | None = None) -> Response:
    return Response(
        content=answer.json_bytes(),
        status_code=status_code or http_status(answer),
        media_type="application/json",
    )


def _loc(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("query", "header", "path", "body")]
    return ".".join(parts) or "request"


async def validation_error_handler(request: Request, exc: Exception) -> Response:
    """FastAPI's own 422 → the INVALID_ARGUMENTS envelope (the offending input is not
    echoed: only where and why)."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    shown = [
        {"loc": _loc(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": e.get("type")}
        for e in errors[:MAX_ERRORS_SHOWN]
    ]
    message = "; ".join(f"invalid {e['loc']}: {e['msg']}" for e in shown) or "invalid request"
    if len(errors) > MAX_ERRORS_SHOWN:
        message += f"; … and {len(errors) - MAX_ERRORS_SHOWN} more"
    env = Result.invalid(message).to_dict()
    env["meta"]["errors"] = shown
    return respond(Answer(env), 422)


async def send_envelope(
    send: Send, status_code: int, envelope: dict[str, Any], **headers: str
) -> None:
    body = Answer(envelope).json_bytes()
    raw_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((k.lower().replace("_", "-").encode(), v.encode()) for k, v in headers.items()),
    ]
    await send({"type": "http.response.start", "status": status_code, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})


class NeverFiveHundred:
    """Outermost app middleware: an exception escaping an endpoint becomes a 503 envelope
    with a generic message (the traceback goes to the log, never to the client)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception:
            log.exception("unhandled error answering %s", scope.get("path", "?"))
            if started:  # half a response is on the wire: nothing better to do
                raise
            env = fault_envelope(Fault.INTERNAL)
            await send_envelope(send, 503, env)
