"""AkShare failures → typed errors (docs/vendor-reference.md §7.2).

AkShare lets `requests`, `curl_cffi`, JSON decoders and pandas raise whatever they raise, and
answers "no rows" with odd shapes (a column-less frame, a `TypeError`, a `ValueError`).
Library exception classes are recognised by module and name, not imported: importing akshare
costs a second or more, and a missing library must not break classification.
"""

from __future__ import annotations

import re
from typing import Any

from pitlake.errors import (
    NoMarketDataError,
    PitlakeError,
    VendorError,
    VendorNotConfiguredError,
    VendorRateLimitError,
)
from pitlake.vendors.classify import describe, fill_where, has_name, http_status, is_from

_NONE_SUBSCRIPT = re.compile(r"'NoneType' object is not subscriptable")


def classify_akshare(exc: BaseException, *, endpoint: str = "") -> PitlakeError:
    """Any exception met while calling AkShare → a typed error (docs/vendor-reference.md §7.2)."""
    if isinstance(exc, PitlakeError):
        return fill_where(exc, "akshare", endpoint)
    kw: dict[str, Any] = {"vendor": "akshare", "endpoint": endpoint}
    text = str(exc)
    if isinstance(exc, ImportError):
        return VendorNotConfiguredError(f"akshare is not installed: {describe(exc)}", **kw)
    if is_from(exc, "akshare.exceptions", "RateLimitError"):
        return VendorRateLimitError(describe(exc), retry_after=None, **kw)
    if is_from(exc, "akshare.exceptions", "APIError"):
        status = http_status(exc)
        if status == 429:
            return VendorRateLimitError(describe(exc), retry_after=None, **kw)
        return VendorError(describe(exc), retryable=status is None or status >= 500, **kw)
    if is_from(exc, "akshare.exceptions", "NetworkError"):
        return VendorError(describe(exc), retryable=True, **kw)
    if is_from(exc, "akshare.exceptions"):  # DataParsingError, InvalidParameterError, …
        return VendorError(describe(exc), retryable=False, **kw)
    if has_name(exc, "Timeout") or isinstance(exc, TimeoutError):
        return VendorError(f"timed out: {describe(exc)}", retryable=True, **kw)
    if is_from(exc, "requests") or is_from(exc, "curl_cffi") or is_from(exc, "urllib3"):
        # Transport (incl. East Money's silent disconnects) or a blocked, non-JSON reply.
        if http_status(exc) == 429:
            return VendorRateLimitError(describe(exc), retry_after=None, **kw)
        return VendorError(describe(exc), retryable=True, **kw)
    if is_from(exc, "akshare.utils.demjson"):  # Sina answered HTML: blocked or changed
        return VendorError(describe(exc), retryable=True, **kw)
    if isinstance(exc, ValueError):
        if "factor not available" in text:  # Sina: no adjustment factors for this symbol
            return NoMarketDataError(describe(exc), **kw)
        if has_name(exc, "JSONDecodeError"):  # stdlib / simplejson: a non-JSON body
            return VendorError(describe(exc), retryable=True, **kw)
        # "Length mismatch" and friends: the upstream format changed.
        return VendorError(f"reply schema changed: {describe(exc)}", retryable=False, **kw)
    if isinstance(exc, KeyError):
        return VendorError(f"reply schema changed: {describe(exc)}", retryable=False, **kw)
    if isinstance(exc, TypeError) and _NONE_SUBSCRIPT.search(text):
        # East Money datacenter answers {"result": null, "message": "返回数据为空"}.
        return NoMarketDataError(f"no data ({describe(exc)})", **kw)
    if isinstance(exc, TypeError | AttributeError):
        # e.g. pandas-3-removed APIs (fillna(method=), applymap): retrying cannot help.
        return VendorError(f"library incompatibility: {describe(exc)}", retryable=False, **kw)
    if isinstance(exc, OSError):
        return VendorError(describe(exc), retryable=True, **kw)
    return VendorError(describe(exc), retryable=False, **kw)
