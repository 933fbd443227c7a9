"""POST /v1/panel: `Lake.panel` over HTTP, the question in a JSON body (issue 29).

The body is the panel's question (fields, start, end, universe, at, as_of, provenance,
as_ingested), each part checked by `Lake.panel` itself (a bad field, date, time, instant or
universe is a 400 INVALID_ARGUMENTS envelope naming it). The answer is one table: an Arrow IPC stream or a
Parquet file for `Accept: application/vnd.apache.arrow.stream` / `…parquet` or
`?format=arrow|parquet` (the envelope in X-Pitlake-* headers and the schema metadata, as every
data path: formats.py), else the JSON envelope with the rows in `data`.

Bounds, as the other POSTs and beyond (a panel is the largest answer the server gives):
- the body: 1 MiB (PostBodies), a universe of at most `MAX_SYMBOLS` symbols, each field once;
- the span: at most `MAX_SPAN_DAYS` calendar days per request (five years: the issue's
  benchmark size, 5,000 symbols × 5 years ≈ 6M rows, 1.5–3 s and a few hundred MiB of Arrow),
  refused before any file is read; longer panels are asked in parts, or from Python / the CLI;
- a JSON answer: at most `MAX_JSON_ROWS` rows (a JSON row of a panel is ~10× its Arrow
  bytes); past it the answer is a 400 asking for Arrow or Parquet, never a half-built body;
- at most `$PITLAKE_PANEL_CONCURRENCY` panels at once (default 1: a five-year whole-market
  panel holds a core and up to a few GiB while it runs), an excess one waiting
  `$PITLAKE_PANEL_QUEUE_WAIT` seconds (default 5) for its turn and then answered
  RATE_LIMITED, retryable, with Retry-After, as SQL statements are (`pitlake.read.slots`).
The server's pin (`--as-of`, X-Pitlake-Pin) clamps `as_of`, and so every row's cutoff, as on
every read (QueryService.run).

No `from __future__ import annotations`: FastAPI reads the model and route at run time."""

from typing import Annotated, Any

from fastapi import APIRouter, Body
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from pitlake.envelope import Result
from pitlake.read.arguments import MAX_SYMBOLS
from pitlake.read.lake import Lake
from pitlake.read.panel import ALL_FIELDS
from pitlake.read.slots import Slots
from pitlake.serve.api.formats import MAX_PAGE, columnar_wanted, respond
from pitlake.serve.api.models import Envelope
from pitlake.serve.api.routes import POST_RESPONSES, Pin
from pitlake.serve.api.service import Answer, QueryService

PATH = "/panel"
MAX_SPAN_DAYS = 5 * 366
MAX_JSON_ROWS = MAX_PAGE
MAX_TEXT = 64  # a date, an instant, a time of day, an index code
CONCURRENCY_ENV = "PITLAKE_PANEL_CONCURRENCY"
QUEUE_WAIT_ENV = "PITLAKE_PANEL_QUEUE_WAIT"
SLOTS = Slots(CONCURRENCY_ENV, 1, QUEUE_WAIT_ENV, 5.0)


class Names:
    """`Names[n]`: a JSON list of at most n short strings."""

    def __class_getitem__(cls, most: int) -> Any:
        return Annotated[list[Annotated[str, Field(max_length=MAX_TEXT)]], Field(max_length=most)]


class Text:
    """`Text[n]`: one string of at most n characters (a comma-separated list)."""

    def __class_getitem__(cls, most: int) -> Any:
        return Annotated[str, Field(max_length=most)]


class PanelRequest(BaseModel):
    """The panel's question, as `Lake.panel` takes it. Any other field is a 422 naming it."""

    model_config = ConfigDict(extra="forbid")

    fields: Names[len(ALL_FIELDS)] | Text[len(ALL_FIELDS) * MAX_TEXT] = Field(
        description="Field names (a JSON list or one comma-separated string): bars, valuation "
        "and statement items with their derivations (x, x_q, x_ttm, x_yoy).",
        examples=[["close", "pe", "net_profit_q"]],
    )
    start: str = Field(max_length=MAX_TEXT, description="First day (YYYY-MM-DD).")
    end: str = Field(max_length=MAX_TEXT, description="Last day (YYYY-MM-DD).")
    universe: Names[MAX_SYMBOLS] | Text[MAX_SYMBOLS * MAX_TEXT] = Field(
        default="all",
        description="'all' (every listed security of each session, survivorship-free), an "
        "index code (its members on each session) or symbols (a JSON list).",
    )
    at: str = Field(
        default="15:00",
        max_length=MAX_TEXT,
        description="Each session's cutoff, Beijing time of day (15:00; open, close, eod).",
    )
    as_of: str | None = Field(
        default=None,
        max_length=MAX_TEXT,
        description="Cap on every cutoff (the server's pin caps it in turn).",
    )
    provenance: bool = Field(
        default=False, description="Add each statement's report period and known_at used."
    )
    as_ingested: str | None = Field(
        default=None,
        max_length=MAX_TEXT,
        description="Hide every row stored after this instant (the lake as it was then; "
        "the pin clamps as_of, not this).",
    )


def _span_refusal(start: str, end: str) -> str | None:
    """Why this span is refused before any read (None: within the bound, or not dates: then
    `Lake.panel` names what is wrong with them)."""
    from pitlake.calendar import to_date

    try:
        lo, hi = to_date(start), to_date(end)
    except (TypeError, ValueError):
        return None
    if (hi - lo).days + 1 > MAX_SPAN_DAYS:
        return (
            f"a panel over HTTP spans at most {MAX_SPAN_DAYS:,} days (five years), not "
            f"{start} … {end}: ask it in parts, or use Lake.panel / `pitlake panel`"
        )
    return None


def _read(body: PanelRequest) -> Any:
    def read(lake: Lake, as_of: Any) -> Result:
        refused = _span_refusal(body.start, body.end)
        if refused is not None:
            return Result.invalid(refused)
        slots = SLOTS  # one object for the acquire and the release
        if not slots.acquire():
            return slots.busy("The panel")
        try:
            result = lake.panel(
                body.fields,
                body.start,
                body.end,
                universe=body.universe,
                at=body.at,
                as_of=as_of,
                provenance=body.provenance,
                as_ingested=body.as_ingested,
            )
        finally:
            slots.release()
        rows = result.table.num_rows if result.table is not None else 0
        if rows > MAX_JSON_ROWS and not columnar_wanted():
            return Result.invalid(
                f"the panel has {rows:,} rows; a JSON answer stops at {MAX_JSON_ROWS:,}: ask "
                "for Arrow or Parquet (?format=arrow, Accept: "
                "application/vnd.apache.arrow.stream) or a narrower question"
            )
        return result

    return read


def panel_router(service: QueryService) -> APIRouter:
    """POST /v1/panel (see the module docstring)."""
    from pitlake.serve.api.app import ERROR_RESPONSES  # app.py installs this router: loaded by now

    r = APIRouter(prefix="/v1", tags=["v1"], responses=ERROR_RESPONSES)

    @r.post(
        PATH,
        response_model=Envelope,
        summary="Walk-forward panel: every session's question at once",
        responses=POST_RESPONSES,
    )
    def panel(
        body: Annotated[PanelRequest, Body(description="The panel's question.")],
        x_pitlake_pin: Pin = None,
    ) -> Response:
        """One row per (session D in [start, end], symbol in D's universe as known at D's
        cutoff — D at `at`, Beijing time, capped by `as_of` and the server's pin): bars,
        valuation and statement items each from the versions known at that cutoff
        (`Lake.panel`). Arrow or Parquet by `Accept` or `?format=`; JSON up to 100,000 rows;
        at most five years per request."""
        answer: Answer = service.run("panel", x_pitlake_pin, body.as_of, _read(body))
        return respond(answer)

    return r
