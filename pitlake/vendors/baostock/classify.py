"""Baostock failures → typed errors (docs/vendor-reference.md, Baostock §B.4).

The library raises nothing: every query answers a `ResultData` whose `error_code` is "0" or one
of its `BSERR_*` codes (baostock/common/contants.py), and transport trouble is printed, not
raised (util/socketutil.py). The client turns a non-zero code into `BaostockReplyError`, which
this module reads by code. The codes are pitlake's copy, so classification needs no library.
"""

from __future__ import annotations

from typing import Any

from pitlake.errors import (
    NoMarketDataError,
    PitlakeError,
    VendorError,
    VendorNotConfiguredError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.vendors.classify import describe, fill_where, is_from

VENDOR = "baostock"

SUCCESS = "0"
NO_LOGIN = "10001001"  # 用户未登陆 (server) / "you don't login." (client, no login yet)
LOGIN_COUNT_LIMIT = "10001005"  # 账号登陆数达到上限
ACCESS_INSUFFICIENT = "10001006"  # 用户权限不足
RECV_FAIL = "10002007"  # 网络接收错误。 (also: no reply at all, a timed-out socket)
CODE_INVALID = "10004011"  # 无效的证券代码
BEYOND_DATE_SUPPORT = "10004013"  # 超出日期支持范围

# Login refused for good: retrying cannot help, the account or the client must change.
_NOT_CONFIGURED = frozenset(
    {
        "10001002",  # 用户名或密码错误
        "10001003",  # 获取用户信息失败
        "10001004",  # 客户端版本号过期
        "10001007",  # 需要登录激活
        "10001008",  # 用户名为空
        "10001009",  # 密码为空
        "10001011",  # 黑名单用户
        "10001012",  # APIKey格式不正确
    }
)
_NO_DATA = frozenset({CODE_INVALID, BEYOND_DATE_SUPPORT})
# Session, network, transfer and server trouble: a later attempt may succeed.
_TRANSIENT_PREFIXES = ("10002",)  # 网络错误 / 连接失败 / 超时 / 连接断开 / 发送 / 接收
_TRANSIENT = frozenset(
    {
        NO_LOGIN,  # the client logs in again once before this reaches anyone
        "10001010",  # 用户登出失败
        "10004001",  # 解析数据错误
        "10004002",  # gzip 解压失败
        "10004003",  # 客户端未知错误
        "10005001",  # 系统级别错误
    }
)


class BaostockReplyError(Exception):
    """A Baostock answer whose `error_code` is not "0" (the library's own codes and texts)."""

    def __init__(self, code: str, message: str, *, endpoint: str = "") -> None:
        super().__init__(f"{code} {message}".strip())
        self.code = str(code)
        self.message = message
        self.endpoint = endpoint


def classify_reply(code: str, text: str, **kw: Any) -> PitlakeError:
    """One `error_code` (and its text) → the typed error."""
    if code in _NO_DATA:
        return NoMarketDataError(text, **kw)
    if code == LOGIN_COUNT_LIMIT:
        return VendorRateLimitError(text, retry_after=None, **kw)
    if code == ACCESS_INSUFFICIENT:
        return VendorPermissionError(text, **kw)
    if code in _NOT_CONFIGURED:
        return VendorNotConfiguredError(text, **kw)
    if code in _TRANSIENT or code.startswith(_TRANSIENT_PREFIXES):
        return VendorError(text, retryable=True, **kw)
    # 10004xxx parameter errors and codes this table does not know: the request is wrong.
    return VendorError(text, retryable=False, **kw)


def classify_baostock(exc: BaseException, *, endpoint: str = "") -> PitlakeError:
    """Any exception met while calling Baostock → a typed error."""
    if isinstance(exc, PitlakeError):
        return fill_where(exc, VENDOR, endpoint)
    kw: dict[str, Any] = {"vendor": VENDOR, "endpoint": endpoint or getattr(exc, "endpoint", "")}
    if isinstance(exc, BaostockReplyError):
        return classify_reply(exc.code, f"baostock {exc}", **kw)
    if isinstance(exc, ImportError):
        return VendorNotConfiguredError(f"baostock is not installed: {describe(exc)}", **kw)
    if isinstance(exc, TimeoutError | OSError):  # socket.timeout, resets, refused connects
        return VendorError(describe(exc), retryable=True, **kw)
    if is_from(exc, "json"):  # a page whose record JSON is cut or garbled
        return VendorError(f"unreadable page: {describe(exc)}", retryable=True, **kw)
    return VendorError(describe(exc), retryable=False, **kw)
