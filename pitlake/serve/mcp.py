"""The query API as MCP tools (`pitlake mcp`, stdio), for LLM agents.

Same task-shaped questions and the same envelope as the HTTP API and the CLI: every tool calls
`pitlake.serve.api.service.QueryService`. The as-of is the operator's: `create_server(as_of_pin=T)`
clamps every call, and a tool's `as_of` argument (which the model fills) can only move the
cutoff earlier, never past the pin.

One shape for every failure (issue 13 item 7): arguments the tool schema rejects (a value
outside an enum, a missing required argument, an unknown argument, a wrong type) and arguments
pitlake itself refuses both come back as an INVALID_ARGUMENTS envelope with `isError: true`; so
does an answer the lake could not give (`meta.fault`). A data status (NO_DATA, NOT_READY, a
failed fetch) is an answer, `isError: false`. The server reports pitlake's version.
"""

from __future__ import annotations

import difflib
import inspect
import json
import os
from collections.abc import Callable
from datetime import date, datetime
from typing import Annotated, Any

from fastmcp import FastMCP
from fastmcp.exceptions import NotFoundError
from fastmcp.exceptions import ValidationError as ToolArgumentsError
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from pydantic import Field
from pydantic import ValidationError as PydanticValidationError

from pitlake import __version__
from pitlake.envelope import Result
from pitlake.schemas import Dataset, limit_pools
from pitlake.schemas.query import AsOf, Day, PoolKind, Symbols
from pitlake.serve.api import surfaces
from pitlake.serve.api.models import ENVELOPES, Envelope, SnapshotEnvelope, StatusEnvelope
from pitlake.serve.api.service import Answer, QueryService
from pitlake.serve.api.snapshot import SNAPSHOT_DATASETS
from pitlake.statuses import ResultStatus

MAX_ERRORS_SHOWN = 5

INSTRUCTIONS = """\
Point-in-time reads of a China A-share data lake. Every tool returns an envelope:
status (OK, NO_DATA, NOT_READY, INVALID_ARGUMENTS, PERMISSION_DENIED, RATE_LIMITED,
NOT_CONFIGURED, UPSTREAM_ERROR, UNKNOWN), requested_date, effective_trade_date, date_status
(CURRENT, LATEST_TRADING_DAY, STALE, NOT_APPLICABLE, UNKNOWN), as_of, source, retryable,
message, data, meta. Check status and date_status before using data: NO_DATA means the vendor
answered with nothing; NOT_READY means not published at the as-of (retryable); a failed fetch is
UPSTREAM_ERROR / RATE_LIMITED / PERMISSION_DENIED, never an empty OK. Invalid arguments come
back as an INVALID_ARGUMENTS envelope with isError true; fix the argument named in message.
Symbols: 600519.SH, 000001.SZ, 430047.BJ (other forms accepted). Dates: YYYY-MM-DD. Units:
prices, amounts, market caps and statement lines in CNY (元; prices per share), volume and share
counts in shares, percent fields (pct_chg, turnover_rate, …) in percent. The operator may pin
the as-of: a later as_of is clamped and meta.pinned is true. The `datasets` tool lists every
dataset (columns, units, key, known-at rule) and what the lake holds of it as of the as-of.
"""

Datasets = Annotated[
    list[str] | str | None,
    Field(
        description=f"Among {', '.join(SNAPSHOT_DATASETS)} (a list or a comma-separated "
        "string; default: all)."
    ),
]

RunsLimit = Annotated[
    int, Field(ge=1, le=1000, description="How many runs, newest first (1..1000; default 20).")
]

READ_ONLY = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}
# The task-shaped pools tool (derived, with the ladder) takes the vendor dataset's name; that
# dataset's generated tool is `vendor_limit_pools` (its spec's `tool`).
DERIVED_POOLS_TOOL = limit_pools.SCHEMA.name


def _schema(model: type[Envelope]) -> dict[str, Any]:
    return model.model_json_schema()


def _failed(env: dict[str, Any]) -> bool:
    """A call that failed (bad arguments, or a lake that could not answer), not a data status."""
    return env["status"] == ResultStatus.INVALID_ARGUMENTS or "fault" in env["meta"]


def tool_result(answer: Answer) -> ToolResult:
    """The envelope as the tool's structured content, `isError` set for a failed call."""
    env = answer.public()
    return ToolResult(
        content=json.dumps(env, ensure_ascii=False, separators=(",", ":")),
        structured_content=env,
        is_error=_failed(env),
    )


def _where(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "arguments"


def invalid_arguments(tool: str, exc: PydanticValidationError) -> Answer:
    """The schema's refusal as pitlake's INVALID_ARGUMENTS envelope: where and why, without
    echoing the offending value (as the HTTP API's 422)."""
    errors = exc.errors()
    shown = [
        {"loc": _where(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": e.get("type")}
        for e in errors[:MAX_ERRORS_SHOWN]
    ]
    message = "; ".join(f"invalid {e['loc']}: {e['msg']}" for e in shown) or "invalid arguments"
    if len(errors) > MAX_ERRORS_SHOWN:
        message += f"; … and {len(errors) - MAX_ERRORS_SHOWN} more"
    env = Result.invalid(f"{tool}: {message}").to_dict()
    env["meta"]["errors"] = shown
    return Answer(env)


class EnvelopeOnBadArguments(Middleware):
    """Arguments the tool schema rejects, or a tool name the server does not have → the
    INVALID_ARGUMENTS envelope, `isError: true`, saying whether the server is pinned (fastmcp
    would answer with pydantic's raw text, or "Unknown tool", and no envelope)."""

    def __init__(self, pinned: bool) -> None:
        self.pinned = pinned
        self.tool_names: list[str] = []  # filled once the server's tools are registered

    def _answer(self, answer: Answer) -> ToolResult:
        answer.envelope["meta"]["pinned"] = self.pinned
        return tool_result(answer)

    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> ToolResult:
        name = context.message.name
        try:
            return await call_next(context)
        except NotFoundError:
            near = difflib.get_close_matches(name, self.tool_names, n=1, cutoff=0.6)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            message = f"unknown tool {name[:60]!r}{hint}; the tools: {', '.join(self.tool_names)}"
            return self._answer(Answer(Result.invalid(message).to_dict()))
        except ToolArgumentsError as e:
            cause = e.__cause__
            if not isinstance(cause, PydanticValidationError):
                return self._answer(Answer(Result.invalid(f"{name}: {e}").to_dict()))
            return self._answer(invalid_arguments(name, cause))
        except PydanticValidationError as e:
            return self._answer(invalid_arguments(name, e))


def _tool(svc: QueryService, spec: Dataset) -> Callable[..., ToolResult]:
    """The MCP tool of one dataset: the query model's fields as its arguments (same names,
    order, defaults and descriptions; the schema's bounds checked by the MCP layer)."""
    fields = surfaces.model(spec).model_fields
    parameters = []
    for name, info in fields.items():
        annotation = Annotated[
            info.annotation, Field(description=info.description, **surfaces.bounds(info))
        ]
        default = inspect.Parameter.empty if info.is_required() else info.default
        parameters.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
            )
        )

    def tool(**params: Any) -> ToolResult:
        return tool_result(svc.read(spec, **params))

    tool.__signature__ = inspect.Signature(parameters, return_annotation=ToolResult)  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": ToolResult}
    tool.__name__ = spec.tool or surfaces.name(spec)
    tool.__doc__ = " ".join(
        part for part in (surfaces.summary(spec), surfaces.description(spec)) if part
    )
    return tool


def create_server(
    lake_path: str | os.PathLike[str],
    *,
    as_of_pin: str | date | datetime | None = None,
    catalog_url: str | None = None,
    clock: Callable[[], datetime] | None = None,
    service: QueryService | None = None,
) -> FastMCP:
    """An MCP server answering from one lake, pinned to `as_of_pin` when given."""
    svc = service or QueryService(
        lake_path, as_of_pin=as_of_pin, catalog_url=catalog_url, clock=clock
    )
    guard = EnvelopeOnBadArguments(pinned=svc.base_pin is not None)
    mcp = FastMCP(
        "pitlake",
        instructions=INSTRUCTIONS,
        version=__version__,
        middleware=[guard],
    )

    for spec in surfaces.QUERIES:  # one tool per dataset, from its query model
        schema = _schema(ENVELOPES.get(spec.kind, Envelope))
        name = spec.tool or surfaces.name(spec)  # a spec's `tool` names its MCP tool alone
        mcp.tool(_tool(svc, spec), name=name, output_schema=schema, annotations=READ_ONLY)

    @mcp.tool(output_schema=_schema(SnapshotEnvelope), annotations=READ_ONLY)
    def snapshot(
        symbols: Symbols,
        datasets: Datasets = None,
        date: Day = None,
        as_of: AsOf = None,
    ) -> ToolResult:
        """Several datasets at once; each section has its own effective_trade_date and
        meta.aligned says whether the trade-dated sections are about the same session. Never
        treat misaligned sections as one day."""
        return tool_result(svc.snapshot(symbols, datasets=datasets, date=date, as_of=as_of))

    @mcp.tool(output_schema=_schema(Envelope), annotations=READ_ONLY)
    def market_overview(date: Day = None, as_of: AsOf = None) -> ToolResult:
        """One session's market: advancers, decliners, unchanged, turnover (CNY), the number
        of limit-up / limit-down / broken-board stocks and the ladder's height, derived from
        the bars known at the as-of. Check effective_trade_date and date_status: a weekend
        answers the latest session (LATEST_TRADING_DAY); before the close it is NOT_READY."""
        return tool_result(svc.market(date=date, as_of=as_of))

    @mcp.tool(name=DERIVED_POOLS_TOOL, output_schema=_schema(Envelope), annotations=READ_ONLY)
    def derived_limit_pools(
        date: Day = None, kind: PoolKind = "up", as_of: AsOf = None
    ) -> ToolResult:
        """One session's limit-up (up), limit-down (down) or broken-board (broken, 炸板)
        pool, each stock with `consecutive` (连板: limit closes in a row; for a broken board,
        the run it ended), highest first; meta.ladder maps each height to its codes. Derived
        from the bars known at the as-of; the vendors' own lists are vendor_limit_pools."""
        return tool_result(svc.limits(date=date, kind=kind, as_of=as_of))

    @mcp.tool(output_schema=_schema(StatusEnvelope), annotations=READ_ONLY)
    def status(as_of: AsOf = None) -> ToolResult:
        """Freshness per dataset: latest successful fetch vs the latest closed session, lag in
        sessions, and whether it is past the staleness threshold."""
        return tool_result(svc.status(as_of=as_of))

    @mcp.tool(output_schema=_schema(Envelope), annotations=READ_ONLY)
    def datasets(as_of: AsOf = None) -> ToolResult:
        """What is in the lake: every dataset with its columns (type, unit), key, known-at
        rule and its bases, vendors and default chain, and what the lake holds of it as of
        the as-of (held: rows public by then, first and last date, last successful fetch).
        Call it first to learn which datasets and dates a question can be answered from."""
        return tool_result(svc.catalogue(as_of=as_of))

    @mcp.tool(output_schema=_schema(Envelope), annotations=READ_ONLY)
    def runs(as_of: AsOf = None, limit: RunsLimit = 20) -> ToolResult:
        """The latest ingest runs started by the as-of (newest first, 1..1000), each as it
        stood then: status (COMPLETED, FAILED, RUNNING, ABANDONED), start, end, per-dataset
        units and rows. Use it to tell a dataset never fetched from one whose fetch failed."""
        return tool_result(svc.runs(as_of=as_of, limit=limit))

    guard.tool_names = sorted(
        [*(spec.tool or surfaces.name(spec) for spec in surfaces.QUERIES)]
        + [
            getattr(t, "name", None) or t.__name__
            for t in (snapshot, market_overview, status, datasets, runs)
        ]
        + [DERIVED_POOLS_TOOL]
    )
    return mcp
