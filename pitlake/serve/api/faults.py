"""Why an answer vouches for nothing: the faults (not a lake, unreadable storage or catalog,
a bug), their envelopes and messages. Nothing raises out of the service: every failure becomes
one of these (the traceback goes to the log only)."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Any

from pitlake.envelope import Result
from pitlake.errors import LakeCorruptError, LakeError, NotALakeError
from pitlake.statuses import ResultStatus


class Fault(StrEnum):
    """Why an answer vouches for nothing (meta.fault): not a statement about the market."""

    NOT_A_LAKE = "not_a_lake"  # the path holds no pitlake catalog (nothing was created)
    STORAGE = "storage"  # a Parquet file in the lake could not be read (corrupt, truncated, …)
    CATALOG = "catalog"  # the catalog database could not be read
    INTERNAL = "internal"  # a bug: logged with its traceback


FAULT_MESSAGES: dict[Fault, str] = {
    Fault.NOT_A_LAKE: (
        "The path holds no pitlake catalog, and nothing was created there: point --lake or "
        "$PITLAKE_HOME at a lake, or ingest into this one first."
    ),
    Fault.STORAGE: (
        "The lake could not read its stored data for this request (a Parquet file is "
        "unreadable or corrupt). This says nothing about the market: the operator must repair "
        "or re-ingest the affected partition. Details: the server's log, or `pitlake --debug`."
    ),
    Fault.CATALOG: (
        "The lake's catalog (the fetch ledger) could not be read, so no status can be vouched "
        "for. Retry later. Details: the server's log, or `pitlake --debug`."
    ),
    Fault.INTERNAL: (
        "Internal error while answering; nothing is vouched for. Retry later. Details: the "
        "server's log, or `pitlake --debug`."
    ),
}
FAULT_RETRYABLE: dict[Fault, bool] = {
    Fault.NOT_A_LAKE: False,
    Fault.STORAGE: False,
    Fault.CATALOG: True,
    Fault.INTERNAL: True,
}
# Errors of these libraries' classes (module, class name) are faults of the storage or of the
# catalog. Looked up among the modules already loaded: a library that was never imported raised
# nothing, and a read that fails early (a bad argument) need not load SQLAlchemy to say so.
STORAGE_ERRORS: tuple[tuple[str, str], ...] = (("duckdb", "Error"), ("pyarrow", "ArrowException"))
CATALOG_ERRORS: tuple[tuple[str, str], ...] = (("sqlalchemy.exc", "SQLAlchemyError"),)


def _loaded(classes: tuple[tuple[str, str], ...]) -> tuple[type[BaseException], ...]:
    """The classes named whose module is loaded."""
    found = (getattr(sys.modules.get(module), name, None) for module, name in classes)
    return tuple(c for c in found if isinstance(c, type))


def classify(exc: BaseException) -> Fault:
    if isinstance(exc, NotALakeError):
        return Fault.NOT_A_LAKE
    if isinstance(exc, LakeCorruptError):
        return Fault.STORAGE
    if isinstance(exc, LakeError):
        return Fault.CATALOG
    if isinstance(exc, (*_loaded(STORAGE_ERRORS), OSError)):
        return Fault.STORAGE
    if isinstance(exc, _loaded(CATALOG_ERRORS)):
        return Fault.CATALOG
    return Fault.INTERNAL


def _shown_path(path: str, root: object) -> str:
    """A fault's path as an answer may show it: relative to the lake when inside it (an HTTP
    client learns the lake's layout, not the server's directories)."""
    base = str(root).rstrip("/") + "/"
    return path[len(base) :] if path.startswith(base) else path


def fault_envelope(
    fault: Fault, exc: BaseException | None = None, root: object = None
) -> dict[str, Any]:
    """The UPSTREAM_ERROR envelope of a fault. A `LakeError` names what failed (its `path`,
    relative to the lake) in the message and in `meta.fault_path`: a user can act on it."""
    message = FAULT_MESSAGES[fault]
    path = None
    if isinstance(exc, LakeError):
        said = exc.message.rstrip(".")
        if root is not None:  # paths inside the lake, relative to it
            said = said.replace(str(root).rstrip("/") + "/", "")
        message = f"{said}. {message}"
        if exc.path:
            path = _shown_path(str(exc.path), root) if root is not None else str(exc.path)
    env = Result(
        status=ResultStatus.UPSTREAM_ERROR,
        message=message,
        retryable=FAULT_RETRYABLE[fault],
    ).to_dict()
    env["meta"]["fault"] = str(fault)
    if path is not None:
        env["meta"]["fault_path"] = path
    return env
