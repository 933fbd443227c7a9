"""`/docs` (Swagger UI) served from installed files, never a CDN (issue 13 item 10).

FastAPI's default pages load their JavaScript, CSS and favicon from jsdelivr, so on a machine
without a network `/docs` is a blank page. The assets here come from the `fastapi-offline`
package (MIT; it ships Swagger UI 5 — which renders OpenAPI 3.1, the version FastAPI emits — as
plain static files): they are mounted under `/docs/assets` and the page points there. There is
no `/redoc`: ReDoc fetches its "powered by" logo from its own CDN whatever it is given.
"""

from __future__ import annotations

import logging
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

log = logging.getLogger("pitlake.api")

ASSETS_URL = "/docs/assets"
SWAGGER_JS = "swagger-ui-bundle.js"
SWAGGER_CSS = "swagger-ui.css"
FAVICON = "favicon.png"


def assets_dir() -> Path | None:
    """The installed directory holding the Swagger UI files, if any."""
    try:
        import fastapi_offline
    except ImportError:
        return None
    directory = Path(fastapi_offline.__file__).parent / "static"
    needed = (SWAGGER_JS, SWAGGER_CSS)
    return directory if all((directory / n).is_file() for n in needed) else None


def install_docs(app: FastAPI, openapi_url: str = "/openapi.json") -> bool:
    """Add `/docs` served from local assets; False (and no page) when the assets are not
    installed — a page that would be blank offline is not offered."""
    directory = assets_dir()
    if directory is None:
        log.warning("Swagger UI assets not installed (fastapi-offline): /docs is off")
        return False
    app.mount(ASSETS_URL, StaticFiles(directory=directory), name="docs-assets")
    title = app.title

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{title} — docs",
            swagger_js_url=f"{ASSETS_URL}/{SWAGGER_JS}",
            swagger_css_url=f"{ASSETS_URL}/{SWAGGER_CSS}",
            swagger_favicon_url=f"{ASSETS_URL}/{FAVICON}",
        )

    return True
