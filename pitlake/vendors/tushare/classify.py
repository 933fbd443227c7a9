"""Tushare failures → typed errors (docs/vendor-reference.md §7.1).

The SDK and the server signal every failure as a plain `Exception` carrying a Chinese server
message; the message says which failure it is.
"""

from __future__ import annotations

import re
from typing import Any

from pitlake.errors import (
    PitlakeError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.classify import describe, fill_where, has_name, is_from, short

# Tushare rate-limit windows: the server says per minute / hour / day.
_PER_MINUTE, _PER_HOUR = 60.0, 3600.0


_QUOTA_TEXT = re.compile(r"每(分钟|小时|天)最多访问该接口\s*(\d+)\s*次")
_QUOTA_WINDOW = {"分钟": _PER_MINUTE, "小时": _PER_HOUR, "天": 86400.0}


def rate_quota(message: str) -> tuple[int, float] | None:
    """(calls, window seconds) named by a Tushare rate-limit refusal
    (`抱歉，您每分钟最多访问该接口500次…` → (500, 60.0)); None when it names none."""
    m = _QUOTA_TEXT.search(message or "")
    if m is None:
        return None
    return int(m.group(2)), _QUOTA_WINDOW[m.group(1)]


def tushare_message_error(message: str, *, endpoint: str = "") -> VendorError:
    """A Tushare server message (`code != 0`) → typed error. Order matters: the rate-limit
    text also contains 权限 ("权限的具体详情访问…")."""
    msg = short(message)
    kw: dict[str, Any] = {"vendor": "tushare", "endpoint": endpoint}
    if "最多访问该接口" in message or "频率超限" in message:
        if "每天" in message:  # the daily quota is gone for this run: not retryable in-call
            return VendorRateLimitError(msg, retry_after=None, retryable=False, **kw)
        if "每小时" in message:
            return VendorRateLimitError(msg, retry_after=_PER_HOUR, **kw)
        return VendorRateLimitError(msg, retry_after=_PER_MINUTE, **kw)
    if "token不对" in message or "api init error" in message or "请设置tushare" in message:
        # An invalid or missing token is a configuration fault: never retried, vendor skipped.
        return VendorNotConfiguredError(f"Tushare token rejected or missing: {msg}", **kw)
    if "IP数量超限" in message:
        return VendorPermissionError(msg, **kw)
    if "没有" in message and "权限" in message:
        return VendorPermissionError(msg, **kw)
    if "请指定正确的接口名" in message:
        return VendorError(msg, retryable=False, **kw)  # a programming error: retry is futile
    if "系统内部错误" in message:
        return VendorError(msg, retryable=True, **kw)
    # An unknown server message: retry a few times; the policy bounds it.
    return VendorError(msg, retryable=True, **kw)


def classify_tushare(exc: BaseException, *, endpoint: str = "") -> PitlakeError:
    """Any exception met while calling Tushare → a typed error."""
    if isinstance(exc, PitlakeError):
        return fill_where(exc, "tushare", endpoint)
    kw: dict[str, Any] = {"vendor": "tushare", "endpoint": endpoint}
    if type(exc) is Exception:  # the SDK's (and the server's) only error form
        return tushare_message_error(str(exc), endpoint=endpoint)
    if isinstance(exc, ImportError):
        return VendorNotConfiguredError(describe(exc), **kw)
    if has_name(exc, "Timeout") or isinstance(exc, TimeoutError):
        return VendorError(f"timed out: {describe(exc)}", retryable=True, **kw)
    if is_from(exc, "requests") or is_from(exc, "urllib3"):
        return VendorError(describe(exc), retryable=True, **kw)
    if isinstance(exc, ValueError):  # json / simplejson decode of a non-JSON body
        return VendorError(f"reply is not JSON: {describe(exc)}", retryable=True, **kw)
    if isinstance(exc, KeyError):
        return VendorError(f"reply schema changed: {describe(exc)}", retryable=False, **kw)
    if isinstance(exc, OSError):
        return VendorError(describe(exc), retryable=True, **kw)
    return VendorError(describe(exc), retryable=False, **kw)
