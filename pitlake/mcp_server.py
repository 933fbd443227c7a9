"""The query API as MCP tools (`pitlake mcp`, stdio), for LLM agents.

Same task-shaped questions and the same envelope as the HTTP API and the CLI: every tool calls
`pitlake.api.service.QueryService`. The as-of is the operator's: `create_server(as_of_pin=T)`
clamps every call, and a tool's `as_of` argument (which the model fills) can only move the
cutoff earlier, never past the pin.

One shape for every failure (issue 13 item 7): arguments the tool schema rejects (a value
outside an enum, a missing required argument, an unknown argument, a wrong type) and arguments
pitlake itself refuses both come back as an INVALID_ARGUMENTS envelope with `isError: true`; so
does an answer the lake could not give (`meta.fault`). A data status (NO_DATA, NOT_READY, a
failed fetch) is an answer, `isError: false`. The server reports pitlake's version.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import date, datetime
from typing import Annotated, Any, Literal

from fastmcp import FastMCP
from fastmcp.exceptions import ValidationError as ToolArgumentsError
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from pydantic import Field
from pydantic import ValidationError as PydanticValidationError

from pitlake import __version__
from pitlake.api.models import CalendarEnvelope, Envelope, SnapshotEnvelope, StatusEnvelope
from pitlake.api.service import Answer, QueryService
from pitlake.envelope import Result
from pitlake.schemas import SCHEMAS
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
the as-of: a later as_of is clamped and meta.pinned is true.
"""

Symbols = Annotated[
    list[str] | str,
    Field(
        description="One A-share symbol or a list (at most 6000): 6 digits with the exchange, "
        "e.g. '600519.SH' or ['600519.SH', '000001.SZ']; 600519, sh600519 also accepted."
    ),
]
OptSymbols = Annotated[
    list[str] | str | None,
    Field(
        description="Optional symbol(s) to filter on, same forms as symbols (e.g. "
        "'600519.SH'); omitted: the whole market."
    ),
]
Day = Annotated[
    str | None,
    Field(description="One date, YYYY-MM-DD (Beijing calendar); not with start/end."),
]
Start = Annotated[str | None, Field(description="Range start, YYYY-MM-DD (inclusive).")]
End = Annotated[str | None, Field(description="Range end, YYYY-MM-DD (inclusive).")]
AsOf = Annotated[
    str | None,
    Field(
        description="Cutoff instant: YYYY-MM-DD (= the end of that Beijing day) or ISO-8601 "
        "with offset (e.g. 2025-06-06T15:00:00+08:00). Omitted: now, or the operator's pin. "
        "Never moves past the pin."
    ),
]
Adjust = Annotated[
    Literal["none", "qfq", "hfq"],
    Field(
        description="Price adjustment: 'none' raw CNY prices; 'qfq' forward-adjusted to the "
        "latest factor known at the as-of; 'hfq' backward-adjusted (lowercase)."
    ),
]
Statement = Annotated[
    Literal["income", "balance", "cashflow"] | None,
    Field(description="One statement: 'income', 'balance' or 'cashflow'; omitted: all three."),
]
Periods = Annotated[
    list[str] | None,
    Field(description="Report periods: quarter-end dates YYYY-MM-DD (e.g. '2025-03-31')."),
]
LatestOnly = Annotated[
    bool,
    Field(description="true: only the greatest report period per statement (default false)."),
]
LookbackDays = Annotated[
    int | None,
    Field(description="Calendar days back from end, 1-366 (default 7)."),
]
Limit = Annotated[
    int | None,
    Field(description="At most this many news items, newest first (a count, ≥ 1)."),
]
Datasets = Annotated[
    list[str] | str | None,
    Field(
        description="Among quotes, valuation, dragon_tiger, financials, news (a list or a "
        "comma-separated string; default: all)."
    ),
]

READ_ONLY = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}


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
    """Arguments the tool schema rejects → the INVALID_ARGUMENTS envelope, `isError: true`
    (fastmcp would answer with pydantic's raw text and no envelope)."""

    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> ToolResult:
        try:
            return await call_next(context)
        except ToolArgumentsError as e:
            cause = e.__cause__
            if not isinstance(cause, PydanticValidationError):
                env = Result.invalid(f"{context.message.name}: {e}").to_dict()
                return tool_result(Answer(env))
            return tool_result(invalid_arguments(context.message.name, cause))
        except PydanticValidationError as e:
            return tool_result(invalid_arguments(context.message.name, e))


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
    mcp = FastMCP(
        "pitlake",
        instructions=INSTRUCTIONS,
        version=__version__,
        middleware=[EnvelopeOnBadArguments()],
    )
    envelope = _schema(Envelope)

    @mcp.tool(output_schema=envelope, annotations=READ_ONLY)
    def quotes(
        symbols: Symbols,
        date: Day = None,
        start: Start = None,
        end: End = None,
        adjust: Adjust = "none",
        as_of: AsOf = None,
    ) -> ToolResult:
        """Daily bars (unadjusted, or qfq/hfq from factors known at the as-of) for one session
        (default: the latest session at the as-of) or a date range. Prices in CNY per share,
        volume in shares, amount in CNY."""
        return tool_result(
            svc.read(
                SCHEMAS["quotes"],
                symbols=symbols,
                date=date,
                start=start,
                end=end,
                adjust=adjust,
                as_of=as_of,
            )
        )

    @mcp.tool(output_schema=envelope, annotations=READ_ONLY)
    def valuation(
        symbols: Symbols,
        date: Day = None,
        start: Start = None,
        end: End = None,
        as_of: AsOf = None,
    ) -> ToolResult:
        """Daily valuation (PE, PB, market cap in CNY, turnover in percent) as known at the
        as-of."""
        return tool_result(
            svc.read(
                SCHEMAS["valuation"], symbols=symbols, date=date, start=start, end=end, as_of=as_of
            )
        )

    @mcp.tool(output_schema=envelope, annotations=READ_ONLY)
    def financials(
        symbols: Symbols,
        statement: Statement = None,
        periods: Periods = None,
        latest_only: LatestOnly = False,
        as_of: AsOf = None,
    ) -> ToolResult:
        """Financial statement versions public by the as-of (a later restatement is invisible
        before its own date); latest_only keeps the greatest report period. Lines in CNY."""
        return tool_result(
            svc.read(
                SCHEMAS["financials"],
                symbols=symbols,
                statement=statement,
                periods=periods,
                latest_only=latest_only,
                as_of=as_of,
            )
        )

    @mcp.tool(output_schema=envelope, annotations=READ_ONLY)
    def news(
        symbols: OptSymbols = None,
        date: Day = None,
        start: Start = None,
        end: End = None,
        lookback_days: LookbackDays = None,
        limit: Limit = None,
        as_of: AsOf = None,
    ) -> ToolResult:
        """News public in Beijing-day windows by the as-of, newest first (default: the last 7
        days)."""
        return tool_result(
            svc.read(
                SCHEMAS["news"],
                symbols=symbols,
                date=date,
                start=start,
                end=end,
                lookback_days=lookback_days,
                limit=limit,
                as_of=as_of,
            )
        )

    @mcp.tool(output_schema=envelope, annotations=READ_ONLY)
    def dragon_tiger(
        date: Day = None,
        start: Start = None,
        end: End = None,
        symbols: OptSymbols = None,
        as_of: AsOf = None,
    ) -> ToolResult:
        """Dragon-tiger list (龙虎榜) entries for a session or range (amounts in CNY); the whole
        market unless symbols are given. A symbol not on a fetched session's list is NO_DATA."""
        return tool_result(
            svc.read(
                SCHEMAS["dragon_tiger"],
                symbols=symbols,
                date=date,
                start=start,
                end=end,
                as_of=as_of,
            )
        )

    @mcp.tool(output_schema=_schema(CalendarEnvelope), annotations=READ_ONLY)
    def calendar(
        date: Day = None, start: Start = None, end: End = None, as_of: AsOf = None
    ) -> ToolResult:
        """XSHG trading days (is_open) in a range."""
        return tool_result(
            svc.read(SCHEMAS["calendar"], date=date, start=start, end=end, as_of=as_of)
        )

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

    @mcp.tool(output_schema=_schema(StatusEnvelope), annotations=READ_ONLY)
    def status(as_of: AsOf = None) -> ToolResult:
        """Freshness per dataset: latest successful fetch vs the latest closed session, lag in
        sessions, and whether it is past the staleness threshold."""
        return tool_result(svc.status(as_of=as_of))

    return mcp
