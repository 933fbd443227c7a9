"""Vendor failures → the typed errors of `pitlake.errors` (docs/design.md §4): each vendor's
plugin brings its classifier; this module dispatches to it and holds what they share.

Vendors signal failure in their own ways: Tushare raises a plain `Exception` carrying a Chinese
server message; AkShare lets `requests`, `curl_cffi`, JSON decoders and pandas raise whatever they
raise, and answers "no rows" with odd shapes (a column-less frame, a `TypeError`, a `ValueError`).
Everything downstream (retry, router, ledger) reacts to the *type* alone, so every native failure
passes through here exactly once, live or replayed. Facts: docs/vendor-reference.md §7.

Library exception classes are recognised by module and name, not imported: importing akshare
costs a second or more, and a missing library must not break classification.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pitlake.errors import (
    InvalidArgumentsError,
    NoMarketDataError,
    PitlakeError,
    VendorError,
)

if TYPE_CHECKING:
    import pandas as pd

MAX_MESSAGE = 300


def short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "…"


def describe(exc: BaseException) -> str:
    text = str(exc)
    return short(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def lineage(exc: BaseException) -> list[tuple[str, str]]:
    """(module, class name) for every class in the exception's MRO."""
    return [(c.__module__, c.__name__) for c in type(exc).__mro__]


def is_from(exc: BaseException, module_prefix: str, name: str | None = None) -> bool:
    return any(
        mod.startswith(module_prefix) and (name is None or cls == name) for mod, cls in lineage(exc)
    )


def has_name(exc: BaseException, name: str) -> bool:
    return any(cls == name for _, cls in lineage(exc))


def fill_where(err: PitlakeError, vendor: str, endpoint: str) -> PitlakeError:
    if isinstance(err, VendorError):
        err.vendor = err.vendor or vendor
        err.endpoint = err.endpoint or endpoint
    return err


def http_status(exc: BaseException) -> int | None:
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None) or getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


# ---------------------------------------------------------------- dispatch


def classify(vendor: str, exc: BaseException, *, endpoint: str = "") -> PitlakeError:
    """Native exception → typed error. Typed errors pass through (with vendor/endpoint filled),
    so classifying twice is harmless. InvalidArgumentsError is kept as it is."""
    if isinstance(exc, InvalidArgumentsError):
        return exc
    from pitlake.vendors.plugins import find

    plugin = find(vendor)
    if plugin is not None:
        return plugin.classify(exc, endpoint=endpoint)
    if isinstance(exc, PitlakeError):
        return fill_where(exc, vendor, endpoint)
    return VendorError(describe(exc), vendor=vendor, endpoint=endpoint, retryable=False)


def check_reply(vendor: str, endpoint: str, frame: object) -> pd.DataFrame:
    """A vendor *answer* that is not data → typed error; real frames pass through unchanged.

    A frame with no columns is "no data" from a vendor whose plugin says so (AkShare's East Money
    reply); from the others (Tushare always names its fields) it is a broken reply.
    An empty frame *with* columns is returned: the adapter decides (one call of many may be
    empty), and `Adapter.fetch` turns an empty result into NoMarketDataError."""
    import pandas as pd

    kw: dict[str, Any] = {"vendor": vendor, "endpoint": endpoint}
    if not isinstance(frame, pd.DataFrame):
        return_type = "None" if frame is None else type(frame).__name__
        raise VendorError(f"expected a table, got {return_type}", retryable=False, **kw)
    if len(frame.columns) == 0:
        from pitlake.vendors.plugins import find

        plugin = find(vendor)
        if plugin is not None and plugin.columnless_is_no_rows:
            raise NoMarketDataError("no data (the vendor answered a frame with no columns)", **kw)
        raise VendorError("reply without fields", retryable=True, **kw)
    return frame
