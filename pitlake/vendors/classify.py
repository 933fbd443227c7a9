"""Vendor failures → the typed errors of `pitlake.errors` (docs/design.md §4), one function per vendor.

Vendors signal failure in their own ways: Tushare raises a plain `Exception` carrying a Chinese
server message; AkShare lets `requests`, `curl_cffi`, JSON decoders and pandas raise whatever they
raise, and answers "no rows" with odd shapes (a column-less frame, a `TypeError`, a `ValueError`).
Everything downstream (retry, router, ledger) reacts to the *type* alone, so every native failure
passes through here exactly once, live or replayed. Facts: docs/vendor-reference.md §7.

Library exception classes are recognised by module and name, not imported: importing akshare
costs a second or more, and a missing library must not break classification.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from pitlake.errors import (
    InvalidArgumentsError,
    NoMarketDataError,
    PitlakeError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)

MAX_MESSAGE = 300

# Tushare rate-limit windows: the server says per minute / hour / day.
_PER_MINUTE, _PER_HOUR = 60.0, 3600.0


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "…"


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return _short(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def _lineage(exc: BaseException) -> list[tuple[str, str]]:
    """(module, class name) for every class in the exception's MRO."""
    return [(c.__module__, c.__name__) for c in type(exc).__mro__]


def _is(exc: BaseException, module_prefix: str, name: str | None = None) -> bool:
    return any(
        mod.startswith(module_prefix) and (name is None or cls == name)
        for mod, cls in _lineage(exc)
    )


def _has_name(exc: BaseException, name: str) -> bool:
    return any(cls == name for _, cls in _lineage(exc))


def _where(err: PitlakeError, vendor: str, endpoint: str) -> PitlakeError:
    if isinstance(err, VendorError):
        err.vendor = err.vendor or vendor
        err.endpoint = err.endpoint or endpoint
    return err


def _http_status(exc: BaseException) -> int | None:
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None) or getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


# ---------------------------------------------------------------- Tushare


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
    msg = _short(message)
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
        return _where(exc, "tushare", endpoint)
    kw: dict[str, Any] = {"vendor": "tushare", "endpoint": endpoint}
    if type(exc) is Exception:  # the SDK's (and the server's) only error form
        return tushare_message_error(str(exc), endpoint=endpoint)
    if isinstance(exc, ImportError):
        return VendorNotConfiguredError(_describe(exc), **kw)
    if _has_name(exc, "Timeout") or isinstance(exc, TimeoutError):
        return VendorError(f"timed out: {_describe(exc)}", retryable=True, **kw)
    if _is(exc, "requests") or _is(exc, "urllib3"):
        return VendorError(_describe(exc), retryable=True, **kw)
    if isinstance(exc, ValueError):  # json / simplejson decode of a non-JSON body
        return VendorError(f"reply is not JSON: {_describe(exc)}", retryable=True, **kw)
    if isinstance(exc, KeyError):
        return VendorError(f"reply schema changed: {_describe(exc)}", retryable=False, **kw)
    if isinstance(exc, OSError):
        return VendorError(_describe(exc), retryable=True, **kw)
    return VendorError(_describe(exc), retryable=False, **kw)


# ---------------------------------------------------------------- AkShare

_NONE_SUBSCRIPT = re.compile(r"'NoneType' object is not subscriptable")


def classify_akshare(exc: BaseException, *, endpoint: str = "") -> PitlakeError:
    """Any exception met while calling AkShare → a typed error (docs/vendor-reference.md §7.2)."""
    if isinstance(exc, PitlakeError):
        return _where(exc, "akshare", endpoint)
    kw: dict[str, Any] = {"vendor": "akshare", "endpoint": endpoint}
    text = str(exc)
    if isinstance(exc, ImportError):
        return VendorNotConfiguredError(f"akshare is not installed: {_describe(exc)}", **kw)
    if _is(exc, "akshare.exceptions", "RateLimitError"):
        return VendorRateLimitError(_describe(exc), retry_after=None, **kw)
    if _is(exc, "akshare.exceptions", "APIError"):
        status = _http_status(exc)
        if status == 429:
            return VendorRateLimitError(_describe(exc), retry_after=None, **kw)
        return VendorError(_describe(exc), retryable=status is None or status >= 500, **kw)
    if _is(exc, "akshare.exceptions", "NetworkError"):
        return VendorError(_describe(exc), retryable=True, **kw)
    if _is(exc, "akshare.exceptions"):  # DataParsingError, InvalidParameterError, …
        return VendorError(_describe(exc), retryable=False, **kw)
    if _has_name(exc, "Timeout") or isinstance(exc, TimeoutError):
        return VendorError(f"timed out: {_describe(exc)}", retryable=True, **kw)
    if _is(exc, "requests") or _is(exc, "curl_cffi") or _is(exc, "urllib3"):
        # Transport (incl. East Money's silent disconnects) or a blocked, non-JSON reply.
        if _http_status(exc) == 429:
            return VendorRateLimitError(_describe(exc), retry_after=None, **kw)
        return VendorError(_describe(exc), retryable=True, **kw)
    if _is(exc, "akshare.utils.demjson"):  # Sina answered HTML: blocked or changed
        return VendorError(_describe(exc), retryable=True, **kw)
    if isinstance(exc, ValueError):
        if "factor not available" in text:  # Sina: no adjustment factors for this symbol
            return NoMarketDataError(_describe(exc), **kw)
        if _has_name(exc, "JSONDecodeError"):  # stdlib / simplejson: a non-JSON body
            return VendorError(_describe(exc), retryable=True, **kw)
        # "Length mismatch" and friends: the upstream format changed.
        return VendorError(f"reply schema changed: {_describe(exc)}", retryable=False, **kw)
    if isinstance(exc, KeyError):
        return VendorError(f"reply schema changed: {_describe(exc)}", retryable=False, **kw)
    if isinstance(exc, TypeError) and _NONE_SUBSCRIPT.search(text):
        # East Money datacenter answers {"result": null, "message": "返回数据为空"}.
        return NoMarketDataError(f"no data ({_describe(exc)})", **kw)
    if isinstance(exc, TypeError | AttributeError):
        # e.g. pandas-3-removed APIs (fillna(method=), applymap): retrying cannot help.
        return VendorError(f"library incompatibility: {_describe(exc)}", retryable=False, **kw)
    if isinstance(exc, OSError):
        return VendorError(_describe(exc), retryable=True, **kw)
    return VendorError(_describe(exc), retryable=False, **kw)


# ---------------------------------------------------------------- dispatch

CLASSIFIERS = {"tushare": classify_tushare, "akshare": classify_akshare}


def classify(vendor: str, exc: BaseException, *, endpoint: str = "") -> PitlakeError:
    """Native exception → typed error. Typed errors pass through (with vendor/endpoint filled),
    so classifying twice is harmless. InvalidArgumentsError is kept as it is."""
    if isinstance(exc, InvalidArgumentsError):
        return exc
    classifier = CLASSIFIERS.get(vendor)
    if classifier is not None:
        return classifier(exc, endpoint=endpoint)
    if isinstance(exc, PitlakeError):
        return _where(exc, vendor, endpoint)
    return VendorError(_describe(exc), vendor=vendor, endpoint=endpoint, retryable=False)


def check_reply(vendor: str, endpoint: str, frame: object) -> pd.DataFrame:
    """A vendor *answer* that is not data → typed error; real frames pass through unchanged.

    A frame with no columns is AkShare's East Money "no data" reply (never data). From Tushare
    the server always names its fields, so a column-less frame there is a broken reply.
    An empty frame *with* columns is returned: the adapter decides (one call of many may be
    empty), and `Adapter.fetch` turns an empty result into NoMarketDataError."""
    kw: dict[str, Any] = {"vendor": vendor, "endpoint": endpoint}
    if not isinstance(frame, pd.DataFrame):
        return_type = "None" if frame is None else type(frame).__name__
        raise VendorError(f"expected a table, got {return_type}", retryable=False, **kw)
    if len(frame.columns) == 0:
        if vendor == "akshare":
            raise NoMarketDataError("no data (the vendor answered a frame with no columns)", **kw)
        raise VendorError("reply without fields", retryable=True, **kw)
    return frame
