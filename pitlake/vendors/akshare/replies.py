"""What a failure inside an AkShare function says about the reply it was parsing.

akshare 1.19.5 often answers "no rows" by raising from its own parser: `stock_notice_report` on a
day without notices raises `KeyError('代码')`, `stock_news_em` on a symbol without hits
`KeyError('code')`, a company without periods `KeyError('REPORT_DATE')` (docs/vendor-reference.md
§7a). The same exception types also mean "the vendor changed its format". Two things tell them
apart, and both are used:

1. The **signature**: which exception, with which key or text, each function raises on an empty
   reply (`EMPTY_SIGNS`, read from the installed akshare source; cited per entry).
2. The **reply itself**: a live failure carries the akshare function's frame, whose locals hold
   the parsed reply (`data_json`, `big_df`, …). When that frame is there, the reply's row
   container must really be empty; a non-empty reply that fails to parse is a typed
   `VendorError` naming the field, the function and the akshare line, never "no data".
   A failure without akshare frames (the replay source raising the library's empty-reply
   exception) is judged by the signature alone.

The same frame also holds the HTTP response the parser choked on: an HTTP 429 there is a rate
limit (with the server's Retry-After), any other 4xx/5xx a blocked or failing upstream.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any

from pitlake.errors import (
    NoMarketDataError,
    PitlakeError,
    VendorError,
    VendorRateLimitError,
)
from pitlake.vendors.akshare.classify import classify_akshare

if TYPE_CHECKING:
    pass

VENDOR = "akshare"
_NONE_SUBSCRIPT = "'NoneType' object is not subscriptable"
_PARSER_ERRORS = (KeyError, IndexError, TypeError, ValueError, AttributeError)
_RESPONSE_LOCALS = ("r", "res", "resp", "response")
DEFAULT_RETRY_AFTER = 60.0


@dataclass(frozen=True)
class EmptySign:
    """How one akshare function fails on an empty reply.

    `raises`: (exception type, key or text fragment) pairs; a KeyError matches on its key (or
    a fragment of pandas' "None of [...] are in the [columns]" text), others on their text.
    `rows`: the frame local holding the reply's rows and the path to them inside it; a missing
    key or a None on the way means "no rows" too (East Money drops empty containers)."""

    raises: tuple[tuple[type[BaseException], str], ...]
    rows: tuple[str, tuple[str, ...]]
    source: str  # the akshare lines that define it


_STATEMENT = EmptySign(
    raises=((KeyError, "REPORT_DATE"), (KeyError, "data")),
    rows=("data_json", ("data",)),
    source="stock_feature/stock_three_report_em.py:53-54,160-161,311-312",
)

EMPTY_SIGNS: dict[str, EmptySign] = {
    "stock_notice_report": EmptySign(
        raises=((KeyError, "代码"), (TypeError, _NONE_SUBSCRIPT)),
        rows=("data_json", ("data", "list")),
        source="stock_fundamental/stock_notice.py:63-65,76,118 (akfamily/akshare#6853)",
    ),
    "stock_news_em": EmptySign(
        raises=((KeyError, "code"), (KeyError, "cmsArticleWebOld")),
        rows=("data_json", ("result", "cmsArticleWebOld")),
        source="news/news_stock.py:67-72",
    ),
    "stock_info_global_em": EmptySign(
        raises=((KeyError, "are in the [columns]"),),
        rows=("data_json", ("data", "fastNewsList")),
        source="stock_feature/stock_info.py:79-81",
    ),
    "stock_profit_sheet_by_report_em": _STATEMENT,
    "stock_balance_sheet_by_report_em": _STATEMENT,
    "stock_cash_flow_sheet_by_report_em": _STATEMENT,
    "stock_lhb_detail_em": EmptySign(
        raises=((TypeError, _NONE_SUBSCRIPT),),
        rows=("data_json", ("result", "data")),
        source="stock_feature/stock_lhb_em.py:44-46",
    ),
    "stock_lhb_stock_detail_em": EmptySign(
        raises=((TypeError, _NONE_SUBSCRIPT), (ValueError, "Length mismatch")),
        rows=("data_json", ("result", "data")),
        source="stock_feature/stock_lhb_em.py:801-808",
    ),
    "stock_yysj_em": EmptySign(
        raises=((TypeError, _NONE_SUBSCRIPT), (KeyError, "are in the [columns]")),
        rows=("data_json", ("result", "data")),
        source="stock_feature/stock_yjyg_em.py:289-329",
    ),
    "stock_zh_a_hist_tx": EmptySign(
        raises=((IndexError, "out-of-bounds"),),
        rows=("big_df", ()),
        source="stock_feature/stock_hist_tx.py:83-93",
    ),
    "tool_trade_date_hist_sina": EmptySign(
        raises=((ValueError, "Length mismatch"),),
        rows=("dict_list", ()),
        source="tool/trade_date_hist.py:30-32",
    ),
    "stock_zh_a_daily": EmptySign(
        raises=((KeyError, "date"),),
        rows=("dict_list", ()),
        source="stock/stock_zh_a_sina.py:186-190",
    ),
    # the SSE lists: `result: []` makes a column-less frame whose columns then fail
    "stock_info_sh_name_code": EmptySign(
        raises=((KeyError, "are in the [columns]"),),
        rows=("data_json", ("result",)),
        source="stock/stock_info.py:165-183",
    ),
    "stock_info_sh_delist": EmptySign(
        raises=((KeyError, "are in the [columns]"),),
        rows=("data_json", ("result",)),
        source="stock/stock_info.py:327-346",
    ),
    # no pages: an empty frame that cannot take the 48 names
    "stock_info_bj_name_code": EmptySign(
        raises=((ValueError, "Length mismatch"),),
        rows=("big_df", ()),
        source="stock/stock_info.py:206-224",
    ),
    "stock_zh_a_st_em": EmptySign(
        raises=((TypeError, _NONE_SUBSCRIPT),),
        rows=("data_json", ("data", "diff")),
        source="utils/func.py:35-37 (fetch_paginated_data)",
    ),
    "stock_tfp_em": EmptySign(
        raises=((TypeError, _NONE_SUBSCRIPT),),
        rows=("data_json", ("result", "data")),
        source="stock_feature/stock_tfp_em.py:36-38",
    ),
    "stock_zh_index_daily": EmptySign(
        raises=((KeyError, "date"),),
        rows=("dict_list", ()),
        source="index/index_stock_zh.py:305-310",
    ),
    # `data_json["data"]["pool"]` without the None check its sibling pools have
    "stock_zt_pool_dtgc_em": EmptySign(
        raises=((TypeError, _NONE_SUBSCRIPT),),
        rows=("data_json", ("data", "pool")),
        source="stock_feature/stock_ztb_em.py:462-465",
    ),
}


# ---------------------------------------------------------------- the failing akshare frame


def _frames(tb: TracebackType | None) -> Iterator[tuple[FrameType, int]]:
    while tb is not None:
        yield tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next


def _akshare_frames(exc: BaseException) -> list[tuple[FrameType, int]]:
    """akshare's own frames of the traceback, outermost first."""
    return [
        (f, line)
        for f, line in _frames(exc.__traceback__)
        if str(f.f_globals.get("__name__", "")).startswith("akshare.")
    ]


def _local(frames: list[tuple[FrameType, int]], name: str) -> tuple[bool, Any]:
    for frame, _ in reversed(frames):  # the innermost frame that has it
        if name in frame.f_locals:
            return True, frame.f_locals[name]
    return False, None


def _no_rows_at(value: Any, path: tuple[str, ...]) -> bool:
    import pandas as pd

    for key in path:
        if not isinstance(value, dict) or value.get(key) is None:
            return True
        value = value[key]
    if isinstance(value, pd.DataFrame):
        return value.empty
    if isinstance(value, list | tuple | dict | str):
        return len(value) == 0
    return value is None


def _signature_matches(sign: EmptySign, exc: BaseException) -> bool:
    for kind, fragment in sign.raises:
        if not isinstance(exc, kind):
            continue
        if isinstance(exc, KeyError) and exc.args and exc.args[0] == fragment:
            return True
        if fragment in str(exc):
            return True
    return False


def empty_reply(endpoint: str, exc: BaseException) -> bool:
    """True when `exc` is how akshare's `endpoint` answers a reply without rows."""
    sign = EMPTY_SIGNS.get(endpoint)
    if sign is None or not _signature_matches(sign, exc):
        return False
    frames = _akshare_frames(exc)
    if not frames:
        return True  # raised as the library raises it, by a replay or a stub
    name, path = sign.rows
    found, value = _local(frames, name)
    return found and _no_rows_at(value, path)


def _where(frames: list[tuple[FrameType, int]]) -> str:
    frame, line = frames[-1]
    path = frame.f_code.co_filename.replace("\\", "/")
    rel = path.split("/akshare/", 1)[-1] if "/akshare/" in path else path
    return f"akshare/{rel}:{line} in {frame.f_code.co_name}"


def _field(exc: BaseException) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return f"field {exc.args[0]!r}"
    return "its reply"


# Replies that are scripts, not JSON: Sina's `var name="…"` / `var name={…}`. Anything else
# (an HTML page, an error text) is not the vendor's answer, whatever the parser made of it.
SCRIPT_REPLIES: dict[str, re.Pattern[str]] = {
    "stock_zh_a_daily": re.compile(r"^\s*var\s+\w+\s*="),
    "stock_zh_index_daily": re.compile(r"^\s*var\s+\w+\s*="),
    "tool_trade_date_hist_sina": re.compile(r"^\s*var\s+\w+\s*="),
    # BSE's list: a JSON array inside a callback, `name([...])` (stock_info.py:205-206)
    "stock_info_bj_name_code": re.compile(r"^\s*[\w$.]*\(\s*\["),
}
# Replies that are spreadsheets (SZSE's report pages, read by pd.read_excel): an .xlsx is a
# zip archive; an HTML page in its place is a blocked or failing upstream.
SPREADSHEET_REPLIES: frozenset[str] = frozenset({"stock_info_sz_name_code", "stock_info_sz_delist"})


# Replies that are files (csindex's constituent lists: Excel workbooks, read by pd.read_excel):
# their first bytes, xlsx (zip) or BIFF .xls (OLE2). Anything else (an anti-bot HTML page) is
# unreadable, perhaps blocked: retryable, never "no rows".
FILE_REPLIES: dict[str, tuple[bytes, ...]] = {
    "index_stock_cons_weight_csindex": (b"PK\x03\x04", b"\xd0\xcf\x11\xe0"),
    "index_stock_cons_csindex": (b"PK\x03\x04", b"\xd0\xcf\x11\xe0"),
}
# Endpoints whose HTTP 404 means "no such list": csindex's object store answers NoSuchKey for
# an index it publishes no such file for (index_cons.py:135-139, 169-172) [UNVERIFIED live].
NOT_FOUND_IS_NO_ROWS = frozenset(FILE_REPLIES)


def _not_a_file(endpoint: str, frames: list[tuple[FrameType, int]]) -> VendorError | None:
    magic = FILE_REPLIES.get(endpoint)
    if magic is None:
        return None
    for name in _RESPONSE_LOCALS:
        found, resp = _local(frames, name)
        content = getattr(resp, "content", None) if found else None
        if isinstance(content, bytes) and not content.startswith(magic):
            return VendorError(
                f"the reply is not the vendor's file (blocked or changed?): {content[:60]!r}",
                vendor=VENDOR,
                endpoint=endpoint,
                retryable=True,
            )
    return None


def _not_a_script(endpoint: str, frames: list[tuple[FrameType, int]]) -> VendorError | None:
    if endpoint in SPREADSHEET_REPLIES:
        return _not_a_spreadsheet(endpoint, frames)
    pattern = SCRIPT_REPLIES.get(endpoint)
    if pattern is None:
        return _not_a_file(endpoint, frames)
    for name in _RESPONSE_LOCALS:
        found, resp = _local(frames, name)
        text = getattr(resp, "text", None) if found else None
        if isinstance(text, str) and not pattern.match(text):
            return VendorError(
                f"the reply is not the vendor's script (blocked or changed?): {text[:60]!r}",
                vendor=VENDOR,
                endpoint=endpoint,
                retryable=True,
            )
    return None


def _not_a_spreadsheet(endpoint: str, frames: list[tuple[FrameType, int]]) -> VendorError | None:
    for name in _RESPONSE_LOCALS:
        found, resp = _local(frames, name)
        content = getattr(resp, "content", None) if found else None
        if isinstance(content, bytes) and not content.startswith(b"PK"):
            return VendorError(
                f"the reply is not a spreadsheet (blocked or changed?): {content[:60]!r}",
                vendor=VENDOR,
                endpoint=endpoint,
                retryable=True,
            )
    return None


def _status_error(endpoint: str, frames: list[tuple[FrameType, int]]) -> PitlakeError | None:
    """The HTTP status of the reply the parser was reading, when it is an error status."""
    for name in _RESPONSE_LOCALS:
        found, resp = _local(frames, name)
        err = _error_status(endpoint, resp) if found else None
        if err is not None:
            return err
    return None


def _error_status(endpoint: str, resp: Any) -> PitlakeError | None:
    """An HTTP error status → rate limit (with the server's wait) or upstream error; a 404
    where it means "no such list" → no rows."""
    status = getattr(resp, "status_code", None)
    if not isinstance(status, int) or status < 400:
        return None
    kw: dict[str, Any] = {"vendor": VENDOR, "endpoint": endpoint}
    if status == 404 and endpoint in NOT_FOUND_IS_NO_ROWS:
        return NoMarketDataError(f"no such list at {_host(resp)} (HTTP 404)", **kw)
    if status == 429:
        return VendorRateLimitError(
            f"HTTP 429 from {_host(resp)}", retry_after=_retry_after(resp), **kw
        )
    return VendorError(
        f"HTTP {status} from {_host(resp)} (blocked or failing upstream)",
        retryable=status >= 500 or status in (403, 408),
        **kw,
    )


def _host(resp: Any) -> str:
    url = str(getattr(resp, "url", "") or "")
    return url.split("/")[2] if url.count("/") >= 2 else "the vendor"


def _retry_after(resp: Any) -> float:
    headers = getattr(resp, "headers", None) or {}
    try:
        return max(0.0, float(headers.get("Retry-After", DEFAULT_RETRY_AFTER)))
    except (TypeError, ValueError):
        return DEFAULT_RETRY_AFTER


def classify_failure(endpoint: str, exc: BaseException) -> PitlakeError:
    """An exception raised by (or on behalf of) akshare's `endpoint` → a typed error.

    Empty reply → NoMarketDataError for this call only. A parser failure on a reply with an
    HTTP error status → rate limit / upstream error. A parser failure on a real reply → the
    classifier's VendorError, its message naming the field, the function and the akshare line.
    Everything else → `classify` unchanged."""
    if isinstance(exc, PitlakeError):
        return classify_akshare(exc, endpoint=endpoint)
    # requests' raise_for_status (akshare's request_with_retry): the reply rides on the error
    answered = _error_status(endpoint, getattr(exc, "response", None))
    if answered is not None:
        return answered
    frames = _akshare_frames(exc)
    transport = isinstance(exc, OSError) and not isinstance(exc, ValueError)
    if frames and not transport:  # the parser met a reply: was it an HTTP error page?
        status = _status_error(endpoint, frames) or _not_a_script(endpoint, frames)
        if status is not None:
            return status
    if empty_reply(endpoint, exc):
        return NoMarketDataError(
            f"no rows ({type(exc).__name__} {exc} on an empty reply)",
            vendor=VENDOR,
            endpoint=endpoint,
        )
    err = classify_akshare(exc, endpoint=endpoint)
    if frames and isinstance(exc, SyntaxError):  # akshare eval()s Sina's object literals
        return VendorError(
            f"unreadable reply ({type(exc).__name__}): {endpoint} at {_where(frames)}",
            vendor=VENDOR,
            endpoint=endpoint,
            retryable=True,
        )
    if not (frames and isinstance(exc, _PARSER_ERRORS)):
        return err
    where = f"{endpoint} could not read {_field(exc)} ({_where(frames)})"
    if isinstance(err, NoMarketDataError) and isinstance(exc, TypeError):
        # The classifier's generic "None is not subscriptable = no data", on a reply whose
        # rows are not known to be empty (an anti-bot page without the expected element):
        # unreadable, perhaps blocked — never "no rows".
        return VendorError(f"unreadable reply: {where}", vendor=VENDOR, endpoint=endpoint)
    if isinstance(err, VendorError) and not isinstance(err, NoMarketDataError):
        err.message = f"{err.message} — {where}"
        err.args = (err.message,)
    return err
