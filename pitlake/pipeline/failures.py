"""What a failure ends a unit with: retryable or not, its ledger status and its one-line
message; one broken unit never takes its run's other units or summary down with it."""

from __future__ import annotations

import errno
import logging
from collections.abc import Sequence
from datetime import date

from pitlake.errors import (
    InvalidArgumentsError,
    LakeUnwritableError,
    PitlakeError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
)
from pitlake.pipeline.ledger import record_ledger
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Unit, UnitOutcome
from pitlake.statuses import SUCCESSFUL_FETCH, LedgerStatus

log = logging.getLogger(__name__)

MAX_FAILURE_MESSAGE = 500


def retryable(exc: BaseException) -> bool:
    """Can a second try succeed? A transient vendor or storage failure can; invalid arguments,
    a missing configuration, a permission denial or a bug cannot. Prefect's task retries and
    the unit guards below both ask this."""
    if isinstance(exc, InvalidArgumentsError | VendorNotConfiguredError | VendorPermissionError):
        return False
    if isinstance(exc, VendorError):
        return bool(exc.retryable)
    if isinstance(exc, PitlakeError):
        return False
    if isinstance(exc, OSError):
        return True
    # a locked SQLite catalog, a dropped PostgreSQL connection
    return type(exc).__name__ in {"OperationalError", "InterfaceError"}


# What an OSError's errno says about a local write: this lake cannot store anything here.
LOCAL_WRITE_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT})


def local_write_failure(exc: BaseException) -> bool:
    """Is this the lake refusing a write (permission, read-only, disk full), not a vendor?"""
    if isinstance(exc, LakeUnwritableError):
        return True
    return (
        isinstance(exc, OSError)
        and not isinstance(exc, ConnectionError)
        and exc.errno in LOCAL_WRITE_ERRNOS
    )


def failure_status(exc: BaseException) -> LedgerStatus:
    """The ledger status an exception ends a unit with: LAKE_UNWRITABLE for a local write
    the lake refused, the one a pitlake error names (rate limited, permission denied, ...),
    else UPSTREAM_ERROR; never a success."""
    if local_write_failure(exc):
        return LedgerStatus.LAKE_UNWRITABLE
    try:
        status = LedgerStatus(str(getattr(exc, "status", "")))
    except ValueError:
        return LedgerStatus.UPSTREAM_ERROR
    return LedgerStatus.UPSTREAM_ERROR if status in SUCCESSFUL_FETCH else status


def failure_message(exc: BaseException, step: str) -> str:
    """One line for the ledger and the summary (the whole text is in the log)."""
    lines = str(exc).strip().splitlines()
    text = f"{step} failed: {type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    return text if len(text) <= MAX_FAILURE_MESSAGE else text[: MAX_FAILURE_MESSAGE - 1] + "…"


def fail_units(
    env: RunEnv, units: Sequence[Unit], exc: BaseException, *, step: str
) -> list[UnitOutcome]:
    """End units with the exception's ledger status and message (the traceback goes to the
    log): one broken unit must not take the other datasets of its run, or the run's summary,
    down with it."""
    status, message = failure_status(exc), failure_message(exc, step)
    log.error("%s: %s", "; ".join(u.label for u in units), message, exc_info=exc)
    outcomes = []
    for u in units:
        out = UnitOutcome(
            dataset=u.dataset,
            date_key=u.date_key.isoformat(),
            status=str(status),
            message=message,
            symbols=list(u.symbols) if u.symbols else None,
        )
        try:
            record_ledger(env, u, status, counts=None, vendor=None, trace=[], message=message)
        except Exception as e:  # the catalog itself is failing: the summary still says why
            log.error("%s: its ledger entry was not recorded", u.label, exc_info=e)
            out.message = f"{message}; ledger not recorded: {type(e).__name__}: {e}"
        outcomes.append(out)
    return outcomes


def unless_retryable(
    env: RunEnv, units: Sequence[Unit], exc: BaseException, *, step: str
) -> list[UnitOutcome]:
    """A transient failure goes up to the task's retries (which end, at worst, in
    `fail_chunk`); anything else ends these units here."""
    if retryable(exc):
        raise exc
    return fail_units(env, units, exc, step=step)


def chunk_failed(
    dataset: str,
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    exc: BaseException,
    *,
    step: str,
) -> UnitOutcome:
    """A chunk that failed before its units were known: the summary says so (there is no
    unit to give a ledger entry; the ledger keeps what it had, so a rerun tries again)."""
    log.error("%s %s..%s: %s", dataset, start, end, failure_message(exc, step), exc_info=exc)
    return UnitOutcome(
        dataset=dataset,
        date_key=end.isoformat(),
        status=str(failure_status(exc)),
        message=f"{start if start == end else f'{start}..{end}'}: {failure_message(exc, step)}",
        symbols=list(symbols) if symbols else None,
    )
