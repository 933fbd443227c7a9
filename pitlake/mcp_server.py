"""The query API as MCP tools (`pitlake mcp`, stdio), for LLM agents.

Same task-shaped questions and the same envelope as the HTTP API and the CLI: every tool calls
`pitlake.api.service.QueryService`. The as-of is the operator's: `create_server(as_of_pin=T)`
clamps every call, and a tool's `as_of` argument (which the model fills) can only move the
cutoff earlier, never past the pin.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import date, datetime
from typing import Annotated, Any, Literal

from fastmcp import FastMCP
from pydantic import Field

from pitlake.api.models import CalendarEnvelope, Envelope, SnapshotEnvelope, StatusEnvelope
from pitlake.api.service import QueryService

INSTRUCTIONS = """\
Point-in-time reads of a China A-share data lake. Every tool returns an envelope:
status (OK, NO_DATA, NOT_READY, INVALID_ARGUMENTS, PERMISSION_DENIED, RATE_LIMITED,
NOT_CONFIGURED, UPSTREAM_ERROR, UNKNOWN), requested_date, effective_trade_date, date_status
(CURRENT, LATEST_TRADING_DAY, STALE, NOT_APPLICABLE, UNKNOWN), as_of, source, retryable,
message, data, meta. Check status and date_status before using data: NO_DATA means the vendor
answered with nothing; NOT_READY means not published at the as-of (retryable); a failed fetch is
UPSTREAM_ERROR / RATE_LIMITED / PERMISSION_DENIED, never an empty OK. Symbols: 600519.SH,
000001.SZ, 430047.BJ (other forms accepted). Dates: YYYY-MM-DD. The operator may pin the as-of:
a later as_of is clamped and meta.pinned is true.
"""

Symbols = Annotated[
    list[str] | str,
    Field(description="One symbol or a list, e.g. '600519.SH' or ['600519.SH', '000001.SZ']."),
]
OptSymbols = Annotated[
    list[str] | str | None, Field(description="Optional symbol(s) to filter on.")
]
Day = Annotated[str | None, Field(description="One session (YYYY-MM-DD); not with start/end.")]
Start = Annotated[str | None, Field(description="Range start (YYYY-MM-DD).")]
End = Annotated[str | None, Field(description="Range end (YYYY-MM-DD).")]
AsOf = Annotated[
    str | None,
    Field(
        description="Cutoff (YYYY-MM-DD = end of that Beijing day, or ISO-8601). Omitted: now, "
        "or the operator's pin. Never moves past the pin."
    ),
]

READ_ONLY = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}


def _schema(model: type[Envelope]) -> dict[str, Any]:
    return model.model_json_schema()


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
    mcp = FastMCP("pitlake", instructions=INSTRUCTIONS)
    envelope = _schema(Envelope)

    @mcp.tool(output_schema=envelope, annotations=READ_ONLY)
    def quotes(
        symbols: Symbols,
        date: Day = None,
        start: Start = None,
        end: End = None,
        adjust: Literal["none", "qfq", "hfq"] = "none",
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        """Daily bars (unadjusted, or qfq/hfq from factors known at the as-of) for one session
        (default: the latest session at the as-of) or a date range."""
        return svc.quotes(
            symbols, date=date, start=start, end=end, adjust=adjust, as_of=as_of
        ).public()

    @mcp.tool(output_schema=envelope, annotations=READ_ONLY)
    def valuation(
        symbols: Symbols,
        date: Day = None,
        start: Start = None,
        end: End = None,
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        """Daily valuation (PE, PB, market cap, turnover) as known at the as-of."""
        return svc.valuation(symbols, date=date, start=start, end=end, as_of=as_of).public()

    @mcp.tool(output_schema=envelope, annotations=READ_ONLY)
    def financials(
        symbols: Symbols,
        statement: Literal["income", "balance", "cashflow"] | None = None,
        periods: Annotated[
            list[str] | None, Field(description="Report periods (quarter ends, YYYY-MM-DD).")
        ] = None,
        latest_only: bool = False,
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        """Financial statement versions public by the as-of (a later restatement is invisible
        before its own date); latest_only keeps the greatest report period."""
        return svc.financials(
            symbols, statement=statement, periods=periods, latest_only=latest_only, as_of=as_of
        ).public()

    @mcp.tool(output_schema=envelope, annotations=READ_ONLY)
    def news(
        symbols: OptSymbols = None,
        date: Day = None,
        start: Start = None,
        end: End = None,
        lookback_days: Annotated[int | None, Field(description="Days back (1-366).")] = None,
        limit: Annotated[int | None, Field(description="Newest N items.")] = None,
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        """News public in Beijing-day windows by the as-of, newest first (default: the last 7
        days)."""
        return svc.news(
            symbols,
            date=date,
            start=start,
            end=end,
            lookback_days=lookback_days,
            limit=limit,
            as_of=as_of,
        ).public()

    @mcp.tool(output_schema=envelope, annotations=READ_ONLY)
    def dragon_tiger(
        date: Day = None,
        start: Start = None,
        end: End = None,
        symbols: OptSymbols = None,
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        """Dragon-tiger list (龙虎榜) entries for a session or range; the whole market unless
        symbols are given. A symbol not on a fetched session's list is NO_DATA."""
        return svc.dragon_tiger(symbols, date=date, start=start, end=end, as_of=as_of).public()

    @mcp.tool(output_schema=_schema(CalendarEnvelope), annotations=READ_ONLY)
    def calendar(
        date: Day = None, start: Start = None, end: End = None, as_of: AsOf = None
    ) -> dict[str, Any]:
        """XSHG trading days (is_open) in a range."""
        return svc.calendar(date=date, start=start, end=end, as_of=as_of).public()

    @mcp.tool(output_schema=_schema(SnapshotEnvelope), annotations=READ_ONLY)
    def snapshot(
        symbols: Symbols,
        datasets: Annotated[
            list[str] | str | None,
            Field(
                description="Among quotes, valuation, dragon_tiger, financials, news "
                "(default: all)."
            ),
        ] = None,
        date: Day = None,
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        """Several datasets at once; each section has its own effective_trade_date and
        meta.aligned says whether the trade-dated sections are about the same session. Never
        treat misaligned sections as one day."""
        return svc.snapshot(symbols, datasets=datasets, date=date, as_of=as_of).public()

    @mcp.tool(output_schema=_schema(StatusEnvelope), annotations=READ_ONLY)
    def status(as_of: AsOf = None) -> dict[str, Any]:
        """Freshness per dataset: latest successful fetch vs the latest closed session."""
        return svc.status(as_of=as_of).public()

    return mcp
