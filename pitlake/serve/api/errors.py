"""HTTP faces of the envelope: status codes, validation errors, and the never-500 guard.

Status codes (one rule, documented in the OpenAPI description):
- 200: OK and NO_DATA, and the *data* statuses NOT_READY, UPSTREAM_ERROR, RATE_LIMITED,
  PERMISSION_DENIED, NOT_CONFIGURED, UNKNOWN — the request was fine and the envelope says what
  the lake knows (a retrying agent reads `status` and `retryable`, not the HTTP code; a busy
  SQL statement also carries `Retry-After`);
- 400: INVALID_ARGUMENTS found by pitlake (bad symbol, date, range, pin, a query parameter
  the route does not take …);
- 422: INVALID_ARGUMENTS found by FastAPI's parameter or body validation (wrong type, out of
  bounds, an unknown body field, malformed JSON), re-shaped into the same envelope;
- 413: INVALID_ARGUMENTS, a POST body over its cap (pitlake.serve.api.bodies);
- 401: missing or wrong bearer token (envelope, status PERMISSION_DENIED);
- 503: the lake itself could not answer (unreadable Parquet file or catalog, any unexpected
  error): an UPSTREAM_ERROR envelope with `meta.fault`, generic message, traceback in the log.
- 404 (no such route) and 405 (a method the route does not take): INVALID_ARGUMENTS
  envelopes naming the nearest route or the methods it takes.
Every envelope here says `meta.pinned` as the server is.
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
        headers=retry_after(answer.envelope),
    )


def retry_after(envelope: dict[str, Any]) -> dict[str, str] | None:
    """`Retry-After` for a retryable answer that says how long to wait (`meta.retry_after_s`:
    a busy or interrupted SQL statement), so a plain HTTP client backs off too."""
    wait = (envelope.get("meta") or {}).get("retry_after_s")
    if not envelope.get("retryable") or not isinstance(wait, int | float):
        return None
    return {"Retry-After": str(max(1, round(wait)))}


def _loc(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("query", "header", "path", "body")]
    return ".".join(parts) or ("body" if loc and loc[0] == "body" else "request")


def _shown(error: dict[str, Any]) -> dict[str, Any]:
    """Where and why, for one error; a POST body that is not a JSON object says so (FastAPI
    locates malformed JSON at a character position, not at a field)."""
    kind, loc, msg = error.get("type"), error.get("loc", ()), str(error.get("msg", ""))
    if kind == "json_invalid":
        why = (error.get("ctx") or {}).get("error")
        at = loc[1] if len(loc) > 1 else "?"
        return {"loc": "body", "msg": f"malformed JSON ({why} at character {at})", "type": kind}
    if tuple(loc) == ("body",):
        msg = "expected a JSON object of the question's fields (Content-Type: application/json)"
    return {"loc": _loc(loc), "msg": msg, "type": kind}


async def validation_error_handler(request: Request, exc: Exception) -> Response:
    """FastAPI's own 422 → the INVALID_ARGUMENTS envelope (the offending input is not
    echoed: only where and why)."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    shown = [_shown(e) for e in errors[:MAX_ERRORS_SHOWN]]
    message = "; ".join(f"invalid {e['loc']}: {e['msg']}" for e in shown) or "invalid request"
    if len(errors) > MAX_ERRORS_SHOWN:
        message += f"; … and {len(errors) - MAX_ERRORS_SHOWN} more"
    env = Result.invalid(message).to_dict()
    env["meta"]["errors"] = shown
    env["meta"]["pinned"] = server_pinned(request.app)
    return respond(Answer(env), 422)


def server_pinned(app: Any) -> bool:
    """Whether the app's service is pinned (False for an app without one)."""
    service = getattr(getattr(app, "state", None), "service", None)
    return getattr(service, "base_pin", None) is not None


def _route_refusal(request: Request, status_code: int, headers: dict[str, str] | None) -> str:
    import difflib

    path = request.url.path[:200]
    if status_code == 405:
        allowed = (headers or {}).get("Allow") or (headers or {}).get("allow") or "?"
        return f"method {request.method} not allowed on {path}; it takes {allowed}"
    paths = sorted(request.app.openapi().get("paths", {}))
    near = difflib.get_close_matches(path, paths, n=1, cutoff=0.6)
    hint = f" (did you mean {near[0]}?)" if near else ""
    return f"no route {path}{hint}; the routes are listed at /openapi.json and /docs"


async def body_error_handler(request: Request, exc: Exception) -> Response:
    """FastAPI's bare 400 for a body it could not parse at all (not UTF-8, JSON nested past
    the recursion limit) → the INVALID_ARGUMENTS envelope, like malformed JSON (422). Every
    other HTTP error (404, 405) stays FastAPI's."""
    from fastapi.exception_handlers import http_exception_handler
    from starlette.exceptions import HTTPException

    if isinstance(exc, HTTPException) and exc.status_code in (404, 405):
        env = Result.invalid(_route_refusal(request, exc.status_code, exc.headers)).to_dict()
        env["meta"]["pinned"] = server_pinned(request.app)
        response = respond(Answer(env), exc.status_code)
        if exc.headers:
            response.headers.update(exc.headers)
        return response
    if not isinstance(exc, HTTPException) or exc.status_code != 400:
        return await http_exception_handler(request, exc)  # type: ignore[arg-type]
    cause = exc.__cause__
    why = (
        "not UTF-8 JSON"
        if isinstance(cause, UnicodeError)
        else "JSON nested too deeply"
        if isinstance(cause, RecursionError)
        else "could not be parsed"
    )
    env = Result.invalid(f"invalid body: {why}").to_dict()
    env["meta"]["errors"] = [{"loc": "body", "msg": why, "type": "body_unreadable"}]
    env["meta"]["pinned"] = server_pinned(request.app)
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
