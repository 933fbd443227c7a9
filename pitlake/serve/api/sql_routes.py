"""GET/POST /v1/sql: point-in-time SQL over HTTP (`Lake.sql` through the pinned service).

No `from __future__ import annotations` here: FastAPI reads these routes' annotations at run
time, and the CLI-light `pitlake.serve.api.formats` must not import FastAPI at module level."""

import threading
from collections.abc import Callable
from typing import Annotated

import anyio
from fastapi import APIRouter, Body, Header, Query, Request
from fastapi.responses import Response
from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from pitlake.serve.api.formats import respond
from pitlake.serve.api.models import Envelope
from pitlake.serve.api.routes import POST_RESPONSES
from pitlake.serve.api.service import Answer, QueryService

DISCONNECT_POLL_S = 0.2  # how often a running statement's client is checked for being gone


class SqlRequest(BaseModel):
    """The GET's parameters as a body: `q` (as on GET; `query` is accepted too), `as_of`.
    Any other field is a 422 naming it, never silently dropped."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    q: str = Field(
        max_length=100_000,
        description="One SQL statement over the views (also accepted as `query`).",
        validation_alias=AliasChoices("q", "query"),
    )
    as_of: str | None = Field(default=None, max_length=64, description="The cutoff.")


def sql_router(service: QueryService) -> APIRouter:
    """GET/POST /v1/sql: one statement over the point-in-time views (`Lake.sql`), clamped by
    the server's pin like every read."""
    from pitlake.serve.api.app import ERROR_RESPONSES  # app.py installs this router: loaded by now

    r = APIRouter(prefix="/v1", tags=["v1"], responses=ERROR_RESPONSES)
    summary = "Point-in-time SQL over views of what was public at the as-of"
    doc = (
        "Views: quotes, adj_factors, valuation, financials, news, dragon_tiger (the newest "
        "version per key public at the as-of), <dataset>_versions (every version public by "
        "then), quotes_qfq / quotes_hfq (anchored at the as-of) and calendar. The lake's files "
        "are not reachable from the statement; a pinned server clamps the as-of."
    )
    pin_header = Header(alias="X-Pitlake-Pin", max_length=64)

    @r.get("/sql", response_model=Envelope, summary=summary, description=doc)
    async def sql_get(
        request: Request,
        q: Annotated[str, Query(max_length=100_000, description="One SQL statement.")],
        as_of: Annotated[str | None, Query(max_length=64)] = None,
        x_pitlake_pin: Annotated[str | None, pin_header] = None,
    ) -> Response:
        return respond(
            await until_disconnected(
                request,
                lambda cancel: service.sql(q, as_of=as_of, pin=x_pitlake_pin, cancel=cancel),
            )
        )

    @r.post(
        "/sql",
        response_model=Envelope,
        summary=summary,
        description=doc,
        responses=POST_RESPONSES,  # a body over the cap: 413
    )
    async def sql_post(
        request: Request,
        body: Annotated[SqlRequest, Body()],
        x_pitlake_pin: Annotated[str | None, pin_header] = None,
    ) -> Response:
        return respond(
            await until_disconnected(
                request,
                lambda cancel: service.sql(
                    body.q, as_of=body.as_of, pin=x_pitlake_pin, cancel=cancel
                ),
            )
        )

    return r


async def until_disconnected(request: Request, work: Callable[[threading.Event], Answer]) -> Answer:
    """Run `work` in a worker thread, setting its cancel event as soon as the client
    disconnects: a statement nobody waits for any more is interrupted, its core freed."""
    cancel = threading.Event()

    async def watch() -> None:
        while not await request.is_disconnected():
            await anyio.sleep(DISCONNECT_POLL_S)
        cancel.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch)
        answer = await anyio.to_thread.run_sync(work, cancel)
        tg.cancel_scope.cancel()
    return answer
