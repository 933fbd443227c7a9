"""The HTTP API (`pitlake serve`): task-shaped, read-only GET endpoints over one lake.

Every endpoint answers the envelope of docs/design.md §8 (see `pitlake.serve.api.models`), produced by
`pitlake.serve.api.service.QueryService` — the same code the CLI and the MCP server call. The HTTP
status rules are in `pitlake.serve.api.errors`. The API works offline, /docs included: its assets are
served from installed files (`pitlake.serve.api.docs`; there is no /redoc).
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Query
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from pitlake import __version__
from pitlake.envelope import Result
from pitlake.lake.catalog import Catalog
from pitlake.read.lake import Lake
from pitlake.read.runs import DEFAULT_LIMIT as RUNS_DEFAULT_LIMIT
from pitlake.read.runs import MAX_LIMIT as RUNS_MAX_LIMIT
from pitlake.schemas.query import LimitsQuery, MarketQuery
from pitlake.serve.api import formats, surfaces
from pitlake.serve.api.auth import ENV_TOKEN, OPEN_PATHS, BearerAuth
from pitlake.serve.api.bodies import PostBodies
from pitlake.serve.api.docs import install_docs
from pitlake.serve.api.errors import (
    NeverFiveHundred,
    body_error_handler,
    validation_error_handler,
)
from pitlake.serve.api.formats import (
    respond,  # JSON, or Arrow / Parquet when asked (and JSON pages)
)
from pitlake.serve.api.known_params import (
    UnknownParameterError,
    refuse_unknown_params,
    unknown_parameter_handler,
)
from pitlake.serve.api.models import Envelope, SnapshotEnvelope, StatusEnvelope
from pitlake.serve.api.origins import HostAndSite
from pitlake.serve.api.redact import install_log_redaction
from pitlake.serve.api.routes import Pin, dataset_routes
from pitlake.serve.api.service import Answer, QueryService, lake_missing
from pitlake.serve.api.timing import ServerTiming
from pitlake.statuses import ResultStatus

log = logging.getLogger("pitlake.api")

DESCRIPTION = """\
Point-in-time reads of the pitlake A-share lake for agents and people.

**Every answer is the same envelope**: `status`, `requested_date`, `effective_trade_date`,
`date_status`, `as_of`, `source`, `retryable`, `message`, `data`, `meta`
(`rows`, `known_at_max`, `vendor_trace`, `pinned`, …). Read `status`, not the HTTP code:

| HTTP | when |
|---|---|
| 200 | `OK`, `NO_DATA`, and data statuses `NOT_READY`, `UPSTREAM_ERROR`, `RATE_LIMITED`, `PERMISSION_DENIED`, `NOT_CONFIGURED`, `UNKNOWN` (the question was fine; the envelope says what the lake knows; `retryable` says whether asking later may help) |
| 400 | `INVALID_ARGUMENTS` found by pitlake (symbol, date, range, pin), before any read |
| 422 | `INVALID_ARGUMENTS` from parameter or body validation (type, bounds, unknown field, malformed JSON) |
| 413 | `INVALID_ARGUMENTS`: a POST body over 1 MiB |
| 401 | missing/invalid bearer token, when the server has one (`PITLAKE_API_TOKEN`) |
| 503 | the lake could not answer (unreadable file or catalog, internal error): `UPSTREAM_ERROR` with `meta.fault` |

**as_of** (every endpoint): a date `YYYY-MM-DD` (the end of that Beijing day) or an ISO-8601
timestamp (`2025-06-03T15:00:00+08:00`; encode `+` as `%2B`). Omitted: now. No row with
`known_at` after the cutoff is ever returned. A non-session date answers for the latest session
(`date_status: LATEST_TRADING_DAY`); a session not public yet is `NOT_READY` (`retryable`),
never silently the previous one.

**POST /v1/<dataset>** asks the same question as the GET with the query's fields in a JSON
body (`{"symbols": ["600519.SH", …], "as_of": "2025-06-06"}`): up to 6,000 symbols, where a
query string stops at 500. `format` / `compression` stay in the query string; a POST answer is
not paged (a bulk answer is one Arrow or Parquet body).

**Pins**: a server started with `--as-of T` clamps every request to T; a request may name a
pin the server allows (`--allow-pin name=T`) in the `X-Pitlake-Pin` header. A later `as_of` is
reduced to the pin, and `meta.pinned` / `meta.pin` say so.
"""

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": Envelope, "description": "INVALID_ARGUMENTS (pitlake's validation)"},
    401: {"model": Envelope, "description": "Missing or invalid bearer token"},
    422: {"model": Envelope, "description": "INVALID_ARGUMENTS (parameter validation)"},
    503: {"model": Envelope, "description": "The lake could not answer (meta.fault)"},
}

# ---------------------------------------------------------------- parameter types

AsOf = Annotated[
    str | None,
    Query(
        max_length=64,
        description="Cutoff: YYYY-MM-DD (end of that Beijing day) or an ISO-8601 timestamp. "
        "Omitted: now (or the server's pin).",
        examples=["2025-06-06", "2025-06-06T15:00:00+08:00"],
    ),
]
SymbolRepeated = Annotated[
    list[str] | None,
    Query(
        description="A symbol in any vendor form (600519, 600519.SH, sh600519); repeatable.",
        examples=["600519.SH"],
    ),
]
SymbolList = Annotated[
    str | None,
    Query(
        max_length=8000, description="Comma-separated symbols.", examples=["600519.SH,000001.SZ"]
    ),
]
Day = Annotated[
    str | None,
    Query(
        max_length=32,
        description="One session (YYYY-MM-DD or YYYYMMDD); not with start/end.",
        examples=["2025-06-06"],
    ),
]


_KIND = LimitsQuery.model_fields["kind"]  # the choices and their text, declared once
PoolKind = Annotated[_KIND.annotation, Query(description=_KIND.description)]


def _symbols(symbol: list[str] | None, symbols: str | None) -> list[str] | None:
    out = [*(symbol or []), *([symbols] if symbols else [])]
    return out or None


# ---------------------------------------------------------------- routes


def _router(service: QueryService) -> APIRouter:
    r = APIRouter(prefix="/v1", tags=["v1"], responses=ERROR_RESPONSES)

    dataset_routes(service, r)  # GET /v1/<dataset>, from the query models

    @r.get("/snapshot", response_model=SnapshotEnvelope, summary="Several datasets at once")
    def snapshot(
        symbol: SymbolRepeated = None,
        symbols: SymbolList = None,
        datasets: Annotated[
            str | None,
            Query(
                max_length=200,
                description="Comma-separated: quotes, valuation, dragon-tiger, financials, "
                "news (default: all).",
            ),
        ] = None,
        date: Day = None,
        as_of: AsOf = None,
        x_pitlake_pin: Pin = None,
    ) -> Response:
        """One section per dataset, each its own envelope with its own
        `effective_trade_date`. `meta.aligned` is true only when every trade-dated section
        answers about the same session; misaligned sections are reported side by side (a
        section whose session is not available shows the latest older session's rows flagged
        STALE), never merged into one "today"."""
        return respond(
            service.snapshot(
                _symbols(symbol, symbols),
                datasets=datasets,
                date=date,
                as_of=as_of,
                pin=x_pitlake_pin,
            )
        )

    @r.get("/market", response_model=Envelope, summary=surfaces.summary(MarketQuery))
    def market(date: Day = None, as_of: AsOf = None, x_pitlake_pin: Pin = None) -> Response:
        """Breadth (advancers, decliners, unchanged, turnover in CNY) and the sizes of the
        limit-up / limit-down / broken pools and the ladder of one session, derived from the
        bars known at the as-of. `effective_trade_date` / `date_status` say which session."""
        return respond(service.market(date=date, as_of=as_of, pin=x_pitlake_pin))

    @r.get("/limits", response_model=Envelope, summary=surfaces.summary(LimitsQuery))
    def limits(
        date: Day = None,
        kind: PoolKind = "up",
        as_of: AsOf = None,
        x_pitlake_pin: Pin = None,
    ) -> Response:
        """One session's pool, each code with its consecutive-limit count (`consecutive`);
        meta.ladder maps each height to its codes. Derived from the bars known at the as-of
        by the exchange's rule of that session (board, listing age, ST, delisting period:
        pitlake.limit_rules; the vendor's published limit prices where stored)."""
        return respond(service.limits(date=date, kind=kind, as_of=as_of, pin=x_pitlake_pin))

    @r.get("/status", response_model=StatusEnvelope, summary="Freshness per dataset")
    def status(as_of: AsOf = None, x_pitlake_pin: Pin = None) -> Response:
        """Per dataset: the latest successful fetch in the ledger (as recorded by the as-of)
        against the latest closed session, and the lag in sessions."""
        return respond(service.status(as_of=as_of, pin=x_pitlake_pin))

    @r.get("/catalog", response_model=Envelope, summary="What is in the lake (the catalogue)")
    def catalog(as_of: AsOf = None, x_pitlake_pin: Pin = None) -> Response:
        """Every dataset: its columns (Arrow type, unit, description), key, known-at rule and
        bases, vendors and default chain, load rules — generated from the dataset specs —
        and what this lake holds of it as of the as-of (`held`: rows public by then, first
        and last date, the last successful fetch recorded by then)."""
        return respond(service.catalogue(as_of=as_of, pin=x_pitlake_pin))

    @r.get("/runs", response_model=Envelope, summary="Ingest runs as of the cutoff")
    def runs(
        as_of: AsOf = None,
        x_pitlake_pin: Pin = None,
        limit: Annotated[
            int, Query(ge=1, le=RUNS_MAX_LIMIT, description="How many runs (newest first).")
        ] = RUNS_DEFAULT_LIMIT,
    ) -> Response:
        """The latest runs started by the as-of, each as it stood then: one that ended after
        it is RUNNING, without its end; a RUNNING run whose process is gone is ABANDONED, with
        `last_alive`. `recorded_status` is what the run's row said at the as-of."""
        return respond(service.runs(as_of=as_of, pin=x_pitlake_pin, limit=limit))

    return r


# ---------------------------------------------------------------- app


def _include_optional_routers(app: FastAPI, lake: Lake) -> None:
    """HOOK for routers other parts of pitlake provide. The dashboard
    (`pitlake.serve.dashboard.routes.router`) is included when that module exists; it finds the lake
    as `request.app.state.lake` (also `.service`, `.catalog`, `.lake_path`)."""
    try:
        from pitlake.serve.dashboard.routes import router as dashboard_router
    except ImportError:
        return
    app.include_router(dashboard_router)


def _openapi(app: FastAPI, token_required: bool) -> Callable[[], dict[str, Any]]:
    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            if token_required:
                schema.setdefault("components", {})["securitySchemes"] = {
                    "bearer": {"type": "http", "scheme": "bearer"}
                }
                schema["security"] = [{"bearer": []}]
                for path in OPEN_PATHS:
                    for op in schema.get("paths", {}).get(path, {}).values():
                        op["security"] = []
            app.openapi_schema = schema
        return app.openapi_schema

    return build


def create_app(
    lake_path: str | os.PathLike[str],
    *,
    as_of_pin: str | date | datetime | None = None,
    allowed_pins: dict[str, Any] | list[str] | None = None,
    token: str | None = None,
    catalog_url: str | None = None,
    clock: Callable[[], datetime] | None = None,
    allowed_hosts: list[str] | None = None,
) -> FastAPI:
    """The FastAPI app for one lake. `as_of_pin` clamps every request; `allowed_pins`
    ({name: T} or ['name=T']) are pins a request may choose with the X-Pitlake-Pin header;
    `token` (default: $PITLAKE_API_TOKEN; "" for none) requires a bearer token on every path
    but /healthz; `clock` returns "now" (tests); `allowed_hosts` (None: any; `pitlake serve`
    passes `origins.serving_hosts`) are the Host names answered (origins.py).

    A path that holds no pitlake catalog raises `NotALakeError` here (`pitlake serve` exits 4):
    the server never starts over, or creates, a catalog. A catalog that disappears later is
    answered per request: 503, UPSTREAM_ERROR, `meta.fault` "not_a_lake"."""
    root = lake_path
    service = QueryService(
        root,
        as_of_pin=as_of_pin,
        allowed_pins=allowed_pins,
        catalog_url=catalog_url,
        clock=clock,
    )
    service.require_lake()  # NotALakeError: no app over a path that holds no lake
    lake = service.lake(service.base_pin)
    # An explicit token="" turns the check off whatever the environment says.
    token = (token if token is not None else os.environ.get(ENV_TOKEN, "")).strip() or None
    install_log_redaction("pitlake.api", "uvicorn.error", "uvicorn.access")

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        service.close()

    app = FastAPI(
        title="pitlake query API",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # FastAPI's pages load from a CDN: pitlake.serve.api.docs serves local ones
        redoc_url=None,
        # a misspelled as_of is a 400 naming it, never an answer as of now
        dependencies=[Depends(refuse_unknown_params)],
    )
    install_docs(app)
    app.state.service = service
    app.state.lake = lake
    # The shared catalog, when it opens (None: a broken catalog is reported per request).
    app.state.catalog = _warm_up(service)
    app.state.lake_path = root
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, body_error_handler)
    app.add_exception_handler(UnknownParameterError, unknown_parameter_handler)

    @app.get(
        "/healthz",
        response_model=Envelope,
        tags=["health"],
        summary="Liveness (no token needed)",
        responses={503: ERROR_RESPONSES[503]},
    )
    def healthz() -> Response:
        alive = not lake_missing(root)
        env = Result(
            status=ResultStatus.OK if alive else ResultStatus.NOT_CONFIGURED,
            message="ok" if alive else "the lake directory is gone",
            meta={"pinned": service.base_pin is not None},
        ).to_dict()
        return respond(Answer(env), 200 if alive else 503)

    app.include_router(_router(service))
    _include_optional_routers(app, lake)
    app.openapi = _openapi(app, token is not None)  # type: ignore[method-assign]
    formats.install(app)  # Arrow / Parquet / JSON pages, /v1/sql, and their OpenAPI
    app.add_middleware(PostBodies)  # inside the token check: no stranger's body is read
    if token is not None:
        app.add_middleware(BearerAuth, token=token)
    app.add_middleware(HostAndSite, allowed_hosts=allowed_hosts)  # before the token is looked at
    app.add_middleware(NeverFiveHundred)  # outside auth, so it guards auth too
    app.add_middleware(ServerTiming)
    return app


def _warm_up(service: QueryService) -> Catalog | None:
    """Load the exchange calendar and open the catalog now, not on the first request."""
    from pitlake.calendar import XSHG

    try:
        _ = XSHG.first
        return service.catalog
    except Exception:  # the request that needs them will report it properly
        log.exception("warm-up failed")
        return None
