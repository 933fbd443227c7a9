"""Pydantic models of the answer envelope (docs/design.md §8), for the OpenAPI schema.

They document and type what `pitlake.envelope.Result.to_dict()` produces; the endpoints serve
the service's JSON directly (no per-request model validation on the hot path), and the
schemathesis test checks every response against these models.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pitlake.schemas import Kind
from pitlake.statuses import DateStatus, ResultStatus


class GapItem(BaseModel):
    """A requested scope without rows, and why (one session, or a run of them)."""

    model_config = ConfigDict(extra="forbid")

    symbol: str = Field(description="The symbol, or '*' for the whole market.")
    date: str | None = Field(description="The (first) session; None for an undated answer.")
    status: ResultStatus
    reason: str
    until: str | None = Field(None, description="The run's last session.")
    sessions: int | None = Field(None, description="How many sessions the run covers.")


class GapSummary(BaseModel):
    """The gaps of one status: how many symbol-sessions, over which dates and symbols."""

    model_config = ConfigDict(extra="forbid")

    status: ResultStatus
    count: int
    first: str | None
    last: str | None
    symbols: list[str]
    symbol_count: int
    reason: str


class PinMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(description="The pin's name (None: the server's start-up pin).")
    as_of: str | None
    clamped: bool = Field(description="The requested as_of was later than the pin.")


class Meta(BaseModel):
    """The answer's metadata: always the first four keys; the others when they apply. Every
    key the lake writes is declared here (extra keys are allowed, for forward compatibility)."""

    model_config = ConfigDict(extra="allow")

    rows: int = Field(description="Number of items in `data`.")
    known_at_max: str | None = Field(
        description="The latest `known_at` among the rows (ISO-8601, +08:00)."
    )
    vendor_trace: list[dict[str, Any]] = Field(
        description="The ledger records behind the answer: dataset, date, symbol, status, "
        "vendor, rows, message, trace."
    )
    pinned: bool = Field(
        description="True when the server (or the `X-Pitlake-Pin` header) pins the as-of; "
        "`meta.pin` then gives {name, as_of, clamped}."
    )
    pin: PinMeta | None = None
    as_ingested: str | None = Field(None, description="Rows stored after this are hidden.")
    gaps: list[GapItem] | None = Field(None, description="Itemised gaps, most pressing first.")
    gap_summary: list[GapSummary] | None = None
    gaps_total: int | None = Field(None, description="All gaps, when `gaps` is capped.")
    gaps_capped: bool | None = None
    coverage: dict[str, Any] | None = Field(
        None, description="The sessions (first, last, count) and symbols the answer stands on."
    )
    adjust: dict[str, Any] | None = Field(
        None, description="qfq/hfq: the mode and each symbol's anchor factor."
    )
    window: dict[str, str] | None = Field(None, description="The Beijing days asked about.")
    truncated: bool | None = Field(None, description="`limit` cut the answer.")
    total_rows: int | None = Field(None, description="Rows before `limit`.")
    mismatches: list[dict[str, Any]] | None = Field(
        None, description="Days the stored vendor calendar disagrees with the exchange's."
    )
    page: dict[str, Any] | None = Field(None, description="A JSON page: offset, limit, cursor.")
    fault: str | None = Field(None, description="Why nothing is vouched for (HTTP 503).")
    fault_path: str | None = Field(None, description="The file or catalog that failed.")
    errors: list[dict[str, Any]] | None = Field(None, description="Argument errors (where, why).")
    aligned: bool | None = Field(None, description="Snapshot: sections about one session.")
    sessions: dict[str, str | None] | None = Field(
        None, description="Snapshot: each trade-dated section's session."
    )
    target_session: str | None = None
    fallback: dict[str, Any] | None = Field(
        None, description="Snapshot section: the older session its rows are about."
    )
    stale: list[str] | None = Field(None, description="Status: datasets past the threshold.")
    stale_threshold: int | None = None


class Envelope(BaseModel):
    """Every answer. HTTP 200 carries OK and NO_DATA and also the data statuses (NOT_READY,
    UPSTREAM_ERROR, RATE_LIMITED, PERMISSION_DENIED, NOT_CONFIGURED, UNKNOWN): read `status`,
    never infer success from the HTTP code alone."""

    model_config = ConfigDict(extra="forbid")

    status: ResultStatus
    requested_date: str | None = Field(description="The date asked about (YYYY-MM-DD).")
    effective_trade_date: str | None = Field(
        description="The session the rows are about; may differ from requested_date "
        "(see date_status)."
    )
    date_status: DateStatus
    as_of: str | None = Field(
        description="The cutoff actually applied (ISO-8601, +08:00): no row has known_at after it."
    )
    source: str | None = Field(description="Vendor(s) that served the rows, comma-separated.")
    retryable: bool = Field(description="Asking again later may give a different answer.")
    message: str
    data: list[dict[str, Any]]
    meta: Meta


class SnapshotSection(Envelope):
    """One dataset's envelope inside a snapshot, with its own effective_trade_date."""

    dataset: str


class SnapshotEnvelope(Envelope):
    """`data` holds one section per dataset; `meta.aligned` says whether the trade-dated
    sections answer about the same session (`meta.sessions` lists them)."""

    data: list[SnapshotSection]  # type: ignore[assignment]


class Freshness(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dataset: str
    latest_ok_date: str | None = Field(
        description="Latest session, up to latest_session, with a successful fetch (OK or "
        "NO_DATA) in the ledger."
    )
    latest_session: str = Field(description="The latest XSHG session closed at the as-of.")
    lag_sessions: int | None = Field(description="Sessions between the two (None: never).")
    fresh: bool
    stale: bool = Field(
        description="Past the staleness threshold: lag_sessions greater than "
        "meta.stale_threshold ($PITLAKE_STALE_SESSIONS, default 1), or never fetched."
    )
    latest_session_status: str | None = Field(
        description="The whole-market ledger status of latest_session at the as-of."
    )
    latest_session_recorded_at: str | None = Field(
        description="When that fetch was recorded; null when after the as-of (a later "
        "backfill): no instant past the cutoff is shown."
    )
    latest_session_message: str | None


class StatusEnvelope(Envelope):
    data: list[Freshness]  # type: ignore[assignment]


class CalendarDay(BaseModel):
    model_config = ConfigDict(extra="allow")

    date: str
    is_open: bool
    source: str


class CalendarEnvelope(Envelope):
    data: list[CalendarDay]  # type: ignore[assignment]


# The answer model per dataset kind (the OpenAPI document's and the MCP tools' output schema);
# Envelope for the kinds not named.
ENVELOPES: dict[Kind, type[Envelope]] = {Kind.CALENDAR: CalendarEnvelope}
