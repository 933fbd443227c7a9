"""The lake's ingest runs as known at the cutoff (`Lake.runs`): the one answer `GET /v1/runs`,
`pitlake runs` and the MCP tool `runs` give, as an envelope. A run started after the cutoff is not
shown; one that ended after it is RUNNING, without its end or summary; a RUNNING run whose
process is gone is ABANDONED with when it was last alive (`pitlake.lake.run_liveness`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pitlake.envelope import Result
from pitlake.errors import InvalidArgumentsError
from pitlake.lake.run_liveness import RunAsOf
from pitlake.lake.run_liveness import as_of as run_as_of
from pitlake.pit import iso_beijing
from pitlake.read.cutoff import Ask
from pitlake.statuses import DateStatus, ResultStatus

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

DEFAULT_LIMIT = 20
MAX_LIMIT = 1000
# What a run's summary says per dataset that the answer repeats (its failed units' vendor
# messages and traces stay on the dashboard).
SUMMARY_FIELDS = ("dataset", "status", "units", "rows", "rows_added")


def answer(lake: Lake, ask: Ask, *, limit: int, current: bool) -> Result:
    """The latest `limit` runs started by the cutoff, newest first, each as it stood then;
    `current` (the cutoff is now, not an as-of nor a pin) lets a dead pid count."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgumentsError(f"limit must be a whole number 1..{MAX_LIMIT}")
    found = lake.catalog.runs(limit, started_by=ask.cutoff)
    seen = [s for r in found if (s := run_as_of(r, ask.cutoff, current=current)) is not None]
    rows = [_row(s) for s in seen]
    message = f"{len(rows)} run(s) started by {ask.as_of}, newest first."
    return Result(
        status=ResultStatus.OK if rows else ResultStatus.NO_DATA,
        requested_date=ask.cutoff.date().isoformat(),
        effective_trade_date=None,
        date_status=DateStatus.NOT_APPLICABLE,
        as_of=ask.as_of,
        source="catalog",
        message=" ".join([*ask.notes, message]),
        data=rows,
        meta={"pinned": ask.pinned, "limit": limit},
    )


def _row(seen: RunAsOf) -> dict[str, Any]:
    r = seen.run
    summary = r.summary or {}
    return {
        "run_id": r.run_id,
        "flow": r.flow,
        "status": seen.status,
        "recorded_status": r.status,  # as the row stood at the cutoff
        "started_at": iso_beijing(r.started_at),
        "ended_at": iso_beijing(r.ended_at) if r.ended_at else None,
        "last_alive": iso_beijing(seen.last_alive) if seen.last_alive else None,
        "params": dict(r.params or {}),
        "completed": summary.get("completed") if r.ended_at else None,
        "datasets": [
            {k: d.get(k) for k in SUMMARY_FIELDS} for d in (summary.get("datasets") or [])
        ],
    }
