"""Pydantic models of the answer envelope (docs/design.md §8), for the OpenAPI schema.

They document and type what `pitlake.envelope.Result.to_dict()` produces; the endpoints serve
the service's JSON directly (no per-request model validation on the hot path), and the
schemathesis test checks every response against these models.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pitlake.statuses import DateStatus, ResultStatus


class Meta(BaseModel):
    """Always these four keys; endpoints add more (gaps, adjust, window, pin, aligned, …)."""

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
    latest_session_recorded_at: str | None
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
