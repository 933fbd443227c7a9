"""Typed vendor errors: one type per distinct reaction (docs/design.md §4).

The router, the retry policy and the ledger decide what to do from the *type* alone,
so a new failure mode either fits one of these reactions or earns a new type.
"""

from __future__ import annotations

from pitlake.statuses import ResultStatus, wire_kind


class PitlakeError(Exception):
    """Base of every error pitlake raises on purpose."""

    status: ResultStatus = ResultStatus.UPSTREAM_ERROR
    retryable: bool = False


class InvalidArgumentsError(PitlakeError, ValueError):
    """Bad symbol, date or range: fail before any vendor call or read."""

    status = ResultStatus.INVALID_ARGUMENTS
    retryable = False


class CalendarRangeError(InvalidArgumentsError):
    """A date outside what the trading calendar knows: never guessed."""


class LakeError(PitlakeError):
    """The lake itself cannot answer (its path, its catalog, a stored file): not a data status.

    `path` names what failed, so every surface can print one line a user can act on.
    """

    status = ResultStatus.UPSTREAM_ERROR
    retryable = False

    def __init__(self, message: str, *, path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.path = path


class NotALakeError(LakeError):
    """The path holds no pitlake catalog: a read never creates one (CLI exit 4, HTTP 503)."""


class LakeUnwritableError(LakeError):
    """A write cannot proceed here (permission, a regular file in the path, disk full)."""


class LakeCorruptError(LakeError):
    """A stored file (Parquet, catalog) cannot be read: named, never a raw engine error."""


class AnswerUnavailableError(PitlakeError):
    """A read answered a failure status without rows (NOT_READY, UNKNOWN, UPSTREAM_ERROR,
    RATE_LIMITED …) and the caller asked for a frame: raised by `Result.to_arrow/to_pandas/
    to_polars` so a failed fetch never becomes an empty DataFrame. `status`, `retryable` and
    the envelope say what to do (wait, retry, fix the lake)."""

    def __init__(
        self, message: str, *, status: ResultStatus, retryable: bool, envelope: dict
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.envelope = envelope


class VendorError(PitlakeError):
    """A vendor call failed (transport, 5xx, timeout, schema drift): retry a few times."""

    status = ResultStatus.UPSTREAM_ERROR
    retryable = True

    def __init__(
        self,
        message: str,
        *,
        vendor: str = "",
        endpoint: str = "",
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.vendor = vendor
        self.endpoint = endpoint
        if retryable is not None:
            self.retryable = retryable

    def __str__(self) -> str:
        where = ".".join(p for p in (self.vendor, self.endpoint) if p)
        return f"[{where}] {self.message}" if where else self.message


class VendorNotConfiguredError(VendorError):
    """No token, or the library is missing: skip the vendor without calling it."""

    status = ResultStatus.NOT_CONFIGURED
    retryable = False


class VendorPermissionError(VendorError):
    """The token lacks the right for this endpoint: fall through to the next vendor."""

    status = ResultStatus.PERMISSION_DENIED
    retryable = False


class VendorRateLimitError(VendorError):
    """Quota or frequency limit: back off (honouring retry_after) and retry."""

    status = ResultStatus.RATE_LIMITED
    retryable = True

    def __init__(self, message: str, *, retry_after: float | None = None, **kw) -> None:
        super().__init__(message, **kw)
        self.retry_after = retry_after


class NoMarketDataError(VendorError):
    """The vendor answered successfully with no rows."""

    status = ResultStatus.NO_DATA
    retryable = False


class DataNotReadyError(VendorError):
    """The requested date is not published yet (older date returned, partial bar)."""

    status = ResultStatus.NOT_READY
    retryable = True  # later, at flow level — not by the in-call retry policy


# The replay vocabulary for each error type: its status in lowercase (`wire_kind`).
ERROR_BY_KIND: dict[str, type[VendorError]] = {
    wire_kind(cls.status): cls
    for cls in (
        VendorRateLimitError,
        VendorNotConfiguredError,
        VendorPermissionError,
        VendorError,
        NoMarketDataError,
        DataNotReadyError,
    )
}
