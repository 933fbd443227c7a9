"""Recorded HTTP replies served under the real vendor libraries (wire-level contract tests).

Only the transport is replaced: `requests.adapters.HTTPAdapter.send` (so `requests.get/post`,
`Session.request`, hooks, redirects, encodings and `.json()` all run for real) and
`curl_cffi.requests.Session.request` (East Money's search API is fetched with curl_cffi).
Everything above it — akshare's parser, pitlake's client and adapter — is the installed code.

    replay = HttpReplay()
    replay.add(r"push2his\\.eastmoney\\.com/api/qt/stock/kline/get", json={...})
    replay.add_file(WIRE / "akshare" / "em_kline_normal.json")
    with replay.active():
        frame = akshare.stock_zh_a_hist(symbol="600519", ...)
    assert replay.calls[0].params["secid"] == "1.600519"

A request no route matches raises the library's ConnectionError ("no recorded reply for …")
and is kept in `replay.unmatched`, so a test never reaches the network and says what it missed.

Recorded reply files (`*.json`) hold one reply object or a list of them:

    {"cites": ["akshare/stock_fundamental/stock_notice.py:56-71"],   # where the shape is defined
     "url": "np-anotice-stock\\.eastmoney\\.com/api/security/ann",   # regex, searched in the URL
     "params": {"page_index": "1"},          # optional: query parameters that must match
     "status": 200, "headers": {"Content-Type": "..."},             # optional
     "json": {...}  |  "body": "text as the server sends it"  |  "body_base64": "binary body",
     "times": 1,                             # optional: serve this reply N times, then the next
     "error": "connection"}                  # optional instead of a body: the socket fails
"""

from __future__ import annotations

import http.client
import json as jsonlib
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import parse_qsl, urlencode, urlsplit

import requests
import requests.adapters
from requests.structures import CaseInsensitiveDict

JSON_TYPE = "application/json; charset=utf-8"
TEXT_TYPE = "text/html; charset=utf-8"


@dataclass
class Call:
    """One request as the library sent it."""

    method: str
    url: str  # without the query string
    params: dict[str, str]  # the query string, decoded (last value wins)
    body: bytes | None
    transport: str  # "requests" | "curl_cffi"

    def json_body(self) -> Any:
        return jsonlib.loads(self.body) if self.body else None


@dataclass
class Route:
    """A URL pattern and the reply it gets."""

    pattern: re.Pattern[str]
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    params: dict[str, str] | None = None
    method: str | None = None
    times: int | None = None  # None = every matching call
    error: str | None = None  # "connection" | "timeout": no reply at all
    where: Callable[[Call], bool] | None = None
    source: str = ""  # the reply file it came from
    served: int = 0

    def matches(self, call: Call) -> bool:
        if self.times is not None and self.served >= self.times:
            return False
        if self.method and self.method.upper() != call.method.upper():
            return False
        if not self.pattern.search(call.url):
            return False
        if self.params and any(call.params.get(k) != str(v) for k, v in self.params.items()):
            return False
        return self.where is None or bool(self.where(call))


def _encode(
    body: str | bytes | None, payload: Any, headers: dict[str, str]
) -> tuple[bytes, dict[str, str]]:
    headers = dict(headers)
    ctype = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
    if payload is not None:
        text = jsonlib.dumps(payload, ensure_ascii=False)
        ctype = ctype or JSON_TYPE
    else:
        text = body if body is not None else ""
        ctype = ctype or TEXT_TYPE
    headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
    headers["Content-Type"] = ctype
    if isinstance(text, bytes):
        return text, headers
    match = re.search(r"charset=([\w-]+)", ctype, re.I)
    return text.encode(match.group(1) if match else "utf-8"), headers


class HttpReplay:
    """URL patterns → recorded replies, installed under requests and curl_cffi."""

    def __init__(self) -> None:
        self.routes: list[Route] = []
        self.calls: list[Call] = []
        self.unmatched: list[Call] = []

    # ------------------------------------------------------------ routes

    def add(
        self,
        url: str,
        *,
        body: str | bytes | None = None,
        json: Any = None,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, Any] | None = None,
        method: str | None = None,
        times: int | None = None,
        error: str | None = None,
        where: Callable[[Call], bool] | None = None,
        source: str = "",
    ) -> Route:
        """Answer requests whose URL matches the regex `url` (searched, query excluded)."""
        raw, hdrs = _encode(body, json, dict(headers or {}))
        route = Route(
            pattern=re.compile(url),
            status=status,
            body=raw,
            headers=hdrs,
            params={k: str(v) for k, v in params.items()} if params else None,
            method=method,
            times=times,
            error=error,
            where=where,
            source=source,
        )
        self.routes.append(route)
        return route

    def add_file(self, path: str | Path, **overrides: Any) -> list[Route]:
        """The reply (or list of replies) of a recorded reply file; `overrides` replace keys
        (e.g. `params=` to bind a generic reply to one request)."""
        return [self.add(**{**spec, **overrides}, source=str(path)) for spec in load_replies(path)]

    # ------------------------------------------------------------ serving

    def _route(self, call: Call) -> Route | None:
        self.calls.append(call)
        for route in self.routes:
            if route.matches(call):
                route.served += 1
                return route
        self.unmatched.append(call)
        return None

    def _requests_send(self, adapter: Any, request: Any, **_: Any) -> requests.Response:
        parts = urlsplit(request.url)
        body = request.body.encode() if isinstance(request.body, str) else request.body
        call = Call(
            method=request.method,
            url=f"{parts.scheme}://{parts.netloc}{parts.path}",
            params=dict(parse_qsl(parts.query, keep_blank_values=True)),
            body=body,
            transport="requests",
        )
        route = self._route(call)
        if route is None:
            raise requests.ConnectionError(f"no recorded reply for {call.method} {request.url}")
        if route.error == "timeout":
            raise requests.ReadTimeout(f"recorded timeout for {call.url}", request=request)
        if route.error:
            raise requests.ConnectionError(
                "('Connection aborted.', RemoteDisconnected('Remote end closed connection "
                "without response'))",
                request=request,
            )
        resp = requests.Response()
        resp.status_code = route.status
        resp.reason = http.client.responses.get(route.status, "")
        resp.headers = CaseInsensitiveDict(route.headers)
        resp._content = route.body
        resp.encoding = requests.utils.get_encoding_from_headers(resp.headers)
        resp.url = request.url
        resp.request = request
        resp.connection = adapter
        return resp

    def _curl_request(self, session: Any, method: str, url: str, **kw: Any) -> Any:
        from curl_cffi.requests import exceptions as curl_errors
        from curl_cffi.requests.headers import Headers
        from curl_cffi.requests.models import Response

        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        extra = kw.get("params") or {}
        query.update({str(k): str(v) for k, v in dict(extra).items()})
        data = kw.get("data") or kw.get("content")
        if kw.get("json") is not None:
            data = jsonlib.dumps(kw["json"])
        call = Call(
            method=method,
            url=f"{parts.scheme}://{parts.netloc}{parts.path}",
            params=query,
            body=data.encode() if isinstance(data, str) else data,
            transport="curl_cffi",
        )
        route = self._route(call)
        full = f"{call.url}?{urlencode(query)}" if query else call.url
        if route is None:
            raise curl_errors.ConnectionError(f"no recorded reply for {method} {full}")
        if route.error == "timeout":
            raise curl_errors.Timeout(f"recorded timeout for {call.url}")
        if route.error:
            raise curl_errors.ConnectionError(
                "Failed to perform, curl: (52) Empty reply from server."
            )
        resp = Response()
        resp.url = full
        resp.status_code = route.status
        resp.reason = http.client.responses.get(route.status, "")
        resp.ok = route.status < 400
        resp.headers = Headers(route.headers)
        resp.content = route.body
        return resp

    @contextmanager
    def active(self) -> Iterator[HttpReplay]:
        """Serve the routes to every requests / curl_cffi call made inside the block."""
        replay = self

        def send(adapter: Any, request: Any, *args: Any, **kw: Any) -> requests.Response:
            return replay._requests_send(adapter, request)

        def curl(session: Any, method: str, url: str, *args: Any, **kw: Any) -> Any:
            return replay._curl_request(session, method, url, **kw)

        with mock.patch.object(requests.adapters.HTTPAdapter, "send", send):
            try:
                import curl_cffi.requests as curl_requests
            except ImportError:  # curl_cffi not installed: requests only
                yield self
                return
            with mock.patch.object(curl_requests.Session, "request", curl):
                yield self

    def served(self, pattern: str) -> list[Call]:
        """The calls whose URL matches `pattern` (for asserting what the library asked)."""
        rx = re.compile(pattern)
        return [c for c in self.calls if rx.search(c.url)]


def load_replies(path: str | Path) -> list[dict[str, Any]]:
    """A recorded reply file → keyword arguments of `HttpReplay.add` (the `cites` key, which
    documents where the shape comes from, is checked to be present and dropped)."""
    data = jsonlib.loads(Path(path).read_text(encoding="utf-8"))
    specs = data if isinstance(data, list) else [data]
    out = []
    for spec in specs:
        spec = dict(spec)
        if not spec.pop("cites", None):
            raise ValueError(f"{path}: a recorded reply must cite the source that shapes it")
        spec.pop("note", None)
        if "body_base64" in spec:  # a binary body (a spreadsheet), kept as text in the file
            import base64

            spec["body"] = base64.b64decode(spec.pop("body_base64"))
        out.append(spec)
    return out
