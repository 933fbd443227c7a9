"""Every query parameter a route does not take is a 400, never silently ignored.

A caller who types `as_0f=2025-04-01` or `asof=` believes they asked as of April; ignoring the
parameter would answer as of now — the future, from their point of view. So each request's
query keys are checked against what its route declares (FastAPI's own parameter list, read
once per route) plus how to answer (`format`, `compression`; `limit`, `cursor` where a path
pages). A POST to a data path is PostBodies' to judge (its question is the body)."""

from __future__ import annotations

import difflib

from fastapi import Request, params
from fastapi.dependencies.utils import get_flat_params
from fastapi.responses import Response
from fastapi.routing import APIRoute

from pitlake.envelope import Result
from pitlake.serve.api.errors import respond, server_pinned
from pitlake.serve.api.formats import DATA_PATHS, PAGE_KEYS, PAGED_PATHS
from pitlake.serve.api.service import Answer

HOW_TO_ANSWER = frozenset(k for k in PAGE_KEYS if k in ("format", "compression"))
PAGING = frozenset(PAGE_KEYS) - HOW_TO_ANSWER
MAX_SHOWN = 40  # characters of a caller's key echoed back


def route_params(route: APIRoute) -> frozenset[str]:
    """The query parameter names (aliases, as they travel) a route declares."""
    flat = get_flat_params(route.dependant)
    return frozenset(f.alias for f in flat if isinstance(f.field_info, params.Query))


def unknown_message(path: str, unknown: list[str], known: frozenset[str]) -> str:
    """One line: which keys, the nearest known one for the first, and what the route takes."""
    shown = ", ".join(repr(k[:MAX_SHOWN]) for k in unknown[:5])
    near = difflib.get_close_matches(unknown[0], sorted(known), n=1, cutoff=0.6)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    takes = ", ".join(sorted(known)) or "none"
    return f"unknown query parameter {shown} on {path}{hint}; it takes: {takes}"


class UnknownParameterError(Exception):
    """A query key the route does not take (answered 400 INVALID_ARGUMENTS)."""


def refuse_unknown_params(request: Request) -> None:
    """An app-wide dependency: runs after routing, so it knows the route's own parameters."""
    route = request.scope.get("route")
    path = request.url.path
    if not isinstance(route, APIRoute) or not request.query_params:
        return
    if request.method == "POST" and path in DATA_PATHS:
        return  # PostBodies: the question is the body, the query string only how to answer
    known = _allowed(route)
    unknown = sorted(set(request.query_params.keys()) - known)
    if unknown:
        raise UnknownParameterError(unknown_message(path, unknown, known))


_CACHE = "_pitlake_query_names"  # kept on the route itself: it lives and dies with its app


def _allowed(route: APIRoute) -> frozenset[str]:
    known: frozenset[str] | None = getattr(route, _CACHE, None)
    if known is None:
        extra = HOW_TO_ANSWER if route.path.startswith("/v1/") else frozenset()
        if route.path in PAGED_PATHS:
            extra |= PAGING
        known = route_params(route) | extra
        setattr(route, _CACHE, known)
    return known


async def unknown_parameter_handler(request: Request, exc: Exception) -> Response:
    env = Result.invalid(str(exc)).to_dict()
    env["meta"]["pinned"] = server_pinned(request.app)
    return respond(Answer(env), 400)
