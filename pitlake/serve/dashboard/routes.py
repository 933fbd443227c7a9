"""The dashboard's routes: `/dashboard` (HTML), `/dashboard/data.json`, its bundled static files
and the Data Docs site (`/dq/`), served by `pitlake serve` through `create_app`'s
optional-router hook.

The content comes from `pitlake.serve.dashboard.model` and the HTML from its templates
(`render`). Everything is server-side HTML and SVG plus one small bundled script and stylesheet
(the grid's click-to-expand panel): no CDN, no external URL, so it works offline. A
Content-Security-Policy header holds the page to that. Every answer passes through the API's
secret redaction.
"""

from __future__ import annotations

import threading
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response

from pitlake.errors import InvalidArgumentsError
from pitlake.lake.catalog import Catalog
from pitlake.serve.api.redact import redact_obj
from pitlake.serve.dashboard.model import build_dashboard
from pitlake.serve.dashboard.render import render_error, render_no_docs, render_page
from pitlake.statuses import ResultStatus

STATIC_DIR = Path(__file__).with_name("static")
STATIC_FILES: dict[str, str] = {
    "dashboard.css": "text/css; charset=utf-8",
    "dashboard.js": "text/javascript; charset=utf-8",
}
# The dashboard loads only its own stylesheet and script; inline SVG needs no source.
PAGE_CSP = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
# Data Docs pages carry their CSS inline and no scripts.
DQ_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
DQ_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
}

router = APIRouter(tags=["dashboard"])
_catalog_lock = threading.Lock()

AsOf = Query(
    None,
    max_length=64,
    description="Reference instant: YYYY-MM-DD (end of that Beijing day) or an ISO-8601 "
    "timestamp. Lag is measured against the latest session closed by then. Default: now.",
)


# ---------------------------------------------------------------- app state


def _lake_path(request: Request) -> Path:
    return Path(request.app.state.lake_path)


def _catalog(request: Request) -> Catalog:
    """The app's catalog (`create_app` sets it); else one opened once on the lake."""
    state = request.app.state
    cat = getattr(state, "catalog", None)
    if cat is None:
        with _catalog_lock:
            cat = getattr(state, "dashboard_catalog", None)
            if cat is None:
                cat = Catalog(lake_root=_lake_path(request), read_only=True)
                state.dashboard_catalog = cat
    return cat


def _now_and_pin(request: Request) -> tuple[datetime | None, datetime | None]:
    service = getattr(request.app.state, "service", None)
    if service is None:
        return None, None
    return service.now(), getattr(service, "base_pin", None)


def dashboard_content(request: Request, as_of: str | None) -> dict[str, Any]:
    now, pin = _now_and_pin(request)
    data = build_dashboard(
        _catalog(request), lake_root=_lake_path(request), as_of=as_of, now=now, pin=pin
    )
    return redact_obj(data)


# ---------------------------------------------------------------- routes


BAD_AS_OF = {400: {"description": "INVALID_ARGUMENTS: an unreadable or out-of-range as_of"}}


@router.get(
    "/dashboard",
    response_class=HTMLResponse,
    summary="Data-quality dashboard",
    responses=BAD_AS_OF,
)
def dashboard(request: Request, as_of: str | None = AsOf) -> Response:
    """Freshness, coverage grid, validation pass rates, quarantine and runs (HTML)."""
    try:
        data = dashboard_content(request, as_of)
    except InvalidArgumentsError as e:
        return _html(render_error(str(e)), status=400)
    return _html(render_page(data))


@router.get("/dashboard/data.json", summary="The dashboard's content as JSON", responses=BAD_AS_OF)
def dashboard_json(request: Request, as_of: str | None = AsOf) -> Response:
    """Exactly what /dashboard renders. An empty lake answers `empty: true` and empty lists."""
    try:
        data = dashboard_content(request, as_of)
    except InvalidArgumentsError as e:
        return JSONResponse(
            {"error": ResultStatus.INVALID_ARGUMENTS.value, "message": str(e)},
            400,
            headers=SECURITY_HEADERS,
        )
    return JSONResponse(data, headers=SECURITY_HEADERS)


@router.get("/dashboard/static/{name}", include_in_schema=False)
def dashboard_static(name: str) -> Response:
    """The bundled stylesheet and script (a fixed list: nothing else is reachable)."""
    if name not in STATIC_FILES:
        return Response("not found", 404, media_type="text/plain")
    return Response(
        _static_bytes(name),
        media_type=STATIC_FILES[name],
        headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"},
    )


@cache
def _static_bytes(name: str) -> bytes:
    return (STATIC_DIR / name).read_bytes()


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> Response:
    """No icon (204): browsers ask for one on every page, the Data Docs' included, and a 404
    would show up as a console error."""
    return Response(status_code=204, headers={"Cache-Control": "max-age=86400"})


@router.get("/dq", include_in_schema=False)
def data_docs_root() -> Response:
    return RedirectResponse("/dq/", status_code=307)


@router.get(
    "/dq/{path:path}",
    summary="Data Docs (static site under <lake>/dq/)",
    response_class=HTMLResponse,
    responses={404: {"description": "No such file inside <lake>/dq/ (or no Data Docs yet)"}},
)
def data_docs(request: Request, path: str) -> Response:
    """Files of `<lake>/dq/` only: a path that resolves outside it (.., symlinks, absolute
    paths) is 404, as is any file type a static site does not need."""
    root = (_lake_path(request) / "dq").resolve()
    target = resolve_inside(root, path)
    if target is not None and target.is_dir():
        target = target / "index.html"
    if target is None or not target.is_file() or target.suffix.lower() not in DQ_TYPES:
        if not path and not (root / "index.html").is_file():
            return _html(render_no_docs(), status=404)
        return Response("not found", 404, media_type="text/plain", headers=SECURITY_HEADERS)
    return FileResponse(
        target,
        media_type=DQ_TYPES[target.suffix.lower()],
        headers={**SECURITY_HEADERS, "Content-Security-Policy": DQ_CSP},
    )


def resolve_inside(root: Path, path: str) -> Path | None:
    """`root/path` if it stays inside `root` after resolving '..' and symlinks, else None."""
    if "\x00" in path or "\\" in path:
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if any(p == ".." or p.startswith(".") for p in parts):
        return None
    try:
        target = root.joinpath(*parts).resolve()
    except (OSError, ValueError):
        return None
    return target if target == root or target.is_relative_to(root) else None


def _html(body: str, *, status: int = 200, csp: str = PAGE_CSP) -> HTMLResponse:
    return HTMLResponse(body, status, headers={**SECURITY_HEADERS, "Content-Security-Policy": csp})
