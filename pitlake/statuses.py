"""Every status vocabulary pitlake speaks, and every set and order derived from them, once.

The ledger records a `LedgerStatus` per fetch unit, an answer carries a `ResultStatus` and a
`DateStatus`; the router, the ingest run, the read path, the CLI and the dashboard import the
sets and orders below instead of spelling statuses again (tests/core/test_statuses.py fails on
a status string literal anywhere else in production code).
"""

from __future__ import annotations

from enum import StrEnum


class ResultStatus(StrEnum):
    """What an answer (a read, a status question) says about its rows."""

    OK = "OK"
    NO_DATA = "NO_DATA"
    NOT_READY = "NOT_READY"
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    RATE_LIMITED = "RATE_LIMITED"
    NOT_CONFIGURED = "NOT_CONFIGURED"
    UPSTREAM_ERROR = "UPSTREAM_ERROR"
    UNKNOWN = "UNKNOWN"


class LedgerStatus(StrEnum):
    """What the ledger records for one fetch unit (dataset × session/period × symbol)."""

    OK = "OK"
    NO_DATA = "NO_DATA"
    NOT_READY = "NOT_READY"
    RATE_LIMITED = "RATE_LIMITED"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    NOT_CONFIGURED = "NOT_CONFIGURED"
    UPSTREAM_ERROR = "UPSTREAM_ERROR"
    # The vendor answered, but this lake could not store it (permission, read-only file
    # system, disk full): a local fault, never the vendor's (decision 38).
    LAKE_UNWRITABLE = "LAKE_UNWRITABLE"
    REJECTED = "REJECTED"
    SKIPPED = "SKIPPED"


class DateStatus(StrEnum):
    """How the answer's effective trade date relates to the requested date."""

    CURRENT = "CURRENT"
    LATEST_TRADING_DAY = "LATEST_TRADING_DAY"
    STALE = "STALE"
    NOT_APPLICABLE = "NOT_APPLICABLE"
    UNKNOWN = "UNKNOWN"


# ---------------------------------------------------------------- sets

# What a run counts as done: a run is Completed only if every dataset ended in one of these
# (NOT_CONFIGURED: a vendor nobody set up is not this run's failure; SKIPPED: not a session).
# The CLI and the dashboard colour these green, the rest red.
RUN_DONE: frozenset[LedgerStatus] = frozenset(
    {LedgerStatus.OK, LedgerStatus.NO_DATA, LedgerStatus.NOT_CONFIGURED, LedgerStatus.SKIPPED}
)

# What counts as a successful fetch: the vendor answered, with rows or with none.
SUCCESSFUL_FETCH: frozenset[LedgerStatus] = frozenset({LedgerStatus.OK, LedgerStatus.NO_DATA})

# An answer that needs no action: rows, or a vendor's honest "none".
BENIGN_ANSWER: frozenset[ResultStatus] = frozenset({ResultStatus.OK, ResultStatus.NO_DATA})

# An answer worth asking again later (the envelope's `retryable` default).
RETRYABLE_STATUSES: frozenset[ResultStatus] = frozenset(
    {ResultStatus.NOT_READY, ResultStatus.RATE_LIMITED, ResultStatus.UPSTREAM_ERROR}
)

# How a ledger status reads to an agent asking for that data.
RESULT_FOR_LEDGER: dict[LedgerStatus, ResultStatus] = {
    LedgerStatus.OK: ResultStatus.OK,
    LedgerStatus.NO_DATA: ResultStatus.NO_DATA,
    LedgerStatus.NOT_READY: ResultStatus.NOT_READY,
    LedgerStatus.RATE_LIMITED: ResultStatus.RATE_LIMITED,
    LedgerStatus.PERMISSION_DENIED: ResultStatus.PERMISSION_DENIED,
    LedgerStatus.NOT_CONFIGURED: ResultStatus.NOT_CONFIGURED,
    LedgerStatus.UPSTREAM_ERROR: ResultStatus.UPSTREAM_ERROR,
    # A rejected batch was stale or bad: nothing for that date is servable yet.
    LedgerStatus.REJECTED: ResultStatus.NOT_READY,
    # Fetched but never stored: the lake does not know that data (not a vendor failure).
    LedgerStatus.LAKE_UNWRITABLE: ResultStatus.UNKNOWN,
    LedgerStatus.SKIPPED: ResultStatus.NO_DATA,
}


# ---------------------------------------------------------------- orders
# The router's and the answer's orders differ on purpose: the router picks the status that
# decides what the *flow* does next, the answer the one a *reader* must act on first.

# Which failure a route reports when no vendor served and several failed. Why: statuses that
# promise data on a later try come first (NOT_READY: not out yet, the flow retries;
# RATE_LIMITED: back off; UPSTREAM_ERROR: transient), PERMISSION_DENIED last, since it only
# says *this* vendor will never serve, which must not stop a retry another vendor could answer.
ROUTE_FAILURE_ORDER: tuple[LedgerStatus, ...] = (
    LedgerStatus.NOT_READY,
    LedgerStatus.RATE_LIMITED,
    LedgerStatus.UPSTREAM_ERROR,
    LedgerStatus.PERMISSION_DENIED,
)

# Which gap an answer reports first when several scopes fail differently. Why: failed fetches
# first (someone must act), then "not yet", then "never fetched".
ANSWER_GAP_ORDER: tuple[ResultStatus, ...] = (
    ResultStatus.UPSTREAM_ERROR,
    ResultStatus.RATE_LIMITED,
    ResultStatus.PERMISSION_DENIED,
    ResultStatus.NOT_CONFIGURED,
    ResultStatus.NOT_READY,
    ResultStatus.UNKNOWN,
)

# Which status a dashboard cell shows when several ledger entries fall on it. Why: the answer's
# order, with the gate's REJECTED first (then a lake that could not store), and NOT_CONFIGURED moved after NOT_READY (a run counts
# it done), then the benign statuses (data before "none" before "not a session").
DASHBOARD_CELL_ORDER: tuple[LedgerStatus, ...] = (
    LedgerStatus.REJECTED,
    LedgerStatus.LAKE_UNWRITABLE,
    LedgerStatus.UPSTREAM_ERROR,
    LedgerStatus.RATE_LIMITED,
    LedgerStatus.PERMISSION_DENIED,
    LedgerStatus.NOT_READY,
    LedgerStatus.NOT_CONFIGURED,
    LedgerStatus.OK,
    LedgerStatus.NO_DATA,
    LedgerStatus.SKIPPED,
)

# Which ledger status two gate verdicts on one batch record together: the weightier one. Why:
# NOT_READY (the date is not out: refetch later) outranks REJECTED (bad rows), which outranks OK.
GATE_LEDGER_ORDER: tuple[LedgerStatus, ...] = (
    LedgerStatus.OK,
    LedgerStatus.REJECTED,
    LedgerStatus.NOT_READY,
)

# The letter a dashboard cell shows for a ledger status (readable in greyscale and for
# colour-blind readers); RUN_DONE decides its colour.
DASHBOARD_CELL_CODE: dict[LedgerStatus, str] = {
    LedgerStatus.OK: "✓",
    LedgerStatus.NO_DATA: "N",
    LedgerStatus.NOT_READY: "W",
    LedgerStatus.RATE_LIMITED: "R",
    LedgerStatus.PERMISSION_DENIED: "P",
    LedgerStatus.UPSTREAM_ERROR: "E",
    LedgerStatus.REJECTED: "X",
    LedgerStatus.LAKE_UNWRITABLE: "L",
    LedgerStatus.NOT_CONFIGURED: "C",
    LedgerStatus.SKIPPED: "S",
}


def wire_kind(status: ResultStatus | LedgerStatus) -> str:
    """The lowercase spelling the replay `.error.json` files use for a status ("rate_limited")."""
    return status.value.lower()
