"""The simulated Tushare as a loopback HTTP service speaking the Tushare Pro DataApi protocol.

Why: the in-process `SimClient` skips pitlake's live client (`TushareClient`) and everything it
does with a real reply — the JSON envelope, HTTP statuses, sockets, timeouts, token scrubbing.
Served over HTTP, the same simulated market exercises that path end to end:

    with serve_http(SimClient(SimMarket(30)), tokens={"test-token"}) as url:
        TushareClient(token="test-token", url=url).call("daily", trade_date="20240612")

    PYTHONPATH=. .venv/bin/python -m benchmarks.simvendor.http --port 8765 --symbols 5300 \
        --latency 0.15 --quota daily=500 --token test-token

Protocol (docs/vendor-reference.md §7.1): `POST <url>/<api_name>` with the JSON body
`{api_name, token, params, fields}`. Replies, always HTTP 200 unless said otherwise:
- success → `{"request_id", "code": 0, "msg": "", "data": {"fields", "items", "has_more"}}`;
  `fields` in the request (text "a,b" or a list) picks and orders the columns (unknown names are
  left out); values are JSON scalars, dates as Tushare's 'YYYYMMDD' text, NaN/None as null.
- quota spent (the SimClient's 60-s window) → `{"code": 40203, "msg": "抱歉，您每分钟最多访问
  该接口N次，…"}`; a wrong or missing token → `{"code": 40101, "msg": "您的token不对，请确认。"}`;
  an unknown API → `{"code": -1, "msg": "请指定正确的接口名…"}`. The texts are the vendor's; the
  codes 40203/40101 are third-party fixtures' [UNVERIFIED] — pitlake reads only `msg`.
- injected transport failure → the connection is closed without a reply (`transport="drop"`,
  what East Money's and proxies' resets look like) or HTTP 503 with an HTML body
  (`transport="503"`).
- injected column-less frame → HTTP 502 with an HTML body. The SDK's column-less frame *is* what
  it makes of an HTTP ≥ 400 reply (it returns `DataFrame()` on a falsy Response), so over the
  wire that fault is a gateway error; pitlake's client raises a retryable `VendorError`.
- a body that is not JSON → HTTP 400; any other path than `<prefix>/<api>` → HTTP 404.
The request's `ts_type_name` (which the SDK and TushareClient add) is dropped before the call.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import signal
import socket
import sys
import threading
import uuid
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, Protocol

import numpy as np
import pandas as pd

from benchmarks.simvendor.client import SimClient, SimConfig
from benchmarks.simvendor.market import SimMarket, parse_ymd

log = logging.getLogger(__name__)

PREFIX = "/dataapi"  # as in http://api.waditu.com/dataapi/<api_name>
TOKEN_ERROR = "您的token不对，请确认。"
CODE_TOKEN, CODE_RATE_LIMIT, CODE_OTHER = 40101, 40203, -1
TransportFault = Literal["drop", "503"]


class Backend(Protocol):
    """What the service answers from: a SimClient, or anything with its `call`."""

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame: ...


# ---------------------------------------------------------------- replies


def json_scalar(value: Any) -> Any:
    """One cell as Tushare sends it: numbers as numbers, dates as 'YYYYMMDD', missing as null."""
    if value is None or value is pd.NaT or value is pd.NA:
        return None
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    if isinstance(value, pd.Timestamp | datetime | date):
        return value.strftime("%Y%m%d")
    if isinstance(value, str):
        return value
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def requested_fields(raw: Any) -> list[str]:
    if isinstance(raw, list | tuple):
        return [str(f).strip() for f in raw if str(f).strip()]
    return [f.strip() for f in str(raw or "").split(",") if f.strip()]


def column_cells(column: pd.Series) -> list[Any]:
    """One column's cells as `json_scalar` makes them, a column at a time: numpy numbers and
    booleans through `tolist` (NaN → null), text as it is, anything else cell by cell. Why: a
    whole-market answer is ~100,000 cells, and cell by cell the simulator spent more CPU per
    call than the quota leaves between calls (0.19 s per session's three calls at 5,300
    symbols, against 8.3 sessions/s at 500/min)."""
    values = column.tolist()
    kind = column.dtype.kind if isinstance(column.dtype, np.dtype) else "O"
    if kind == "f":
        return [None if v != v else v for v in values]  # NaN is the one value unequal to itself
    if kind in "iub":
        return values
    if all(type(v) is str for v in values):
        return values
    return [json_scalar(v) for v in values]


def success_body(frame: pd.DataFrame, fields: Sequence[str]) -> dict[str, Any]:
    """Tushare's success envelope for `frame`, restricted to `fields` when any were asked."""
    columns = [str(c) for c in frame.columns]
    if fields:
        columns = [f for f in dict.fromkeys(fields) if f in frame.columns]
    cells = [column_cells(frame[c]) for c in columns]
    items = [list(row) for row in zip(*cells, strict=True)] if cells else [[]] * len(frame)
    return {
        "request_id": uuid.uuid4().hex,
        "code": 0,
        "msg": "",
        "data": {"fields": columns, "items": items, "has_more": False},
    }


def error_body(code: int, msg: str) -> dict[str, Any]:
    return {"request_id": uuid.uuid4().hex, "code": code, "msg": msg, "data": None}


def _is_transport_error(exc: BaseException) -> bool:
    return any(c.__module__.startswith(("requests", "urllib3")) for c in type(exc).__mro__) or (
        isinstance(exc, ConnectionError | TimeoutError)
    )


# ---------------------------------------------------------------- the service


class SimHTTPServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer holding the backend and the tokens it accepts."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        backend: Backend,
        *,
        tokens: Collection[str] | None,
        transport: TransportFault,
    ) -> None:
        super().__init__(address, SimRequestHandler)
        self.backend = backend
        self.tokens = frozenset(tokens) if tokens is not None else None
        self.transport = transport
        self.replies: dict[str, int] = {}  # reply kind → count (what the wire saw)
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}{PREFIX}"

    def count(self, kind: str) -> None:
        with self._lock:
            self.replies[kind] = self.replies.get(kind, 0) + 1

    def token_ok(self, token: object) -> bool:
        if not isinstance(token, str) or not token:
            return False
        return self.tokens is None or token in self.tokens

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-reply (a SIGKILLed ingest) is counted, not printed as a
        traceback: benchmarks kill clients on purpose. Anything else is socketserver's."""
        if isinstance(sys.exc_info()[1], BrokenPipeError | ConnectionResetError):
            self.count("client_gone")
            return
        super().handle_error(request, client_address)


class SimRequestHandler(BaseHTTPRequestHandler):
    server: SimHTTPServer
    server_version = "nginx"  # what the real service announces; no Python banner
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("simvendor http: " + format, *args)

    # ------------------------------------------------------------ wire helpers

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, payload: Mapping[str, Any], status: int = 200) -> None:
        body = json.dumps(payload, ensure_ascii=False, allow_nan=False).encode("utf-8")
        self._send(status, body, "application/json; charset=utf-8")

    def _html_error(self, status: int, reason: str) -> None:
        body = (
            f"<html><head><title>{status} {reason}</title></head><body>"
            f"<center><h1>{status} {reason}</h1></center><hr><center>nginx</center>"
            "</body></html>"
        ).encode()
        self._send(status, body, "text/html")

    def _drop(self) -> None:
        """Close the socket without a byte of reply (the client sees RemoteDisconnected)."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # ------------------------------------------------------------ the request

    def do_GET(self) -> None:
        self.server.count("http_405")
        self._html_error(405, "Not Allowed")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0].rstrip("/")
        if not path.startswith(PREFIX + "/") or "/" in path[len(PREFIX) + 1 :]:
            self.server.count("http_404")
            self._html_error(404, "Not Found")
            return
        try:
            body = json.loads(raw.decode("utf-8"))
            if not isinstance(body, dict):
                raise ValueError("body is not an object")
        except (UnicodeDecodeError, ValueError):
            self.server.count("http_400")
            self._html_error(400, "Bad Request")
            return
        api = str(body.get("api_name") or path[len(PREFIX) + 1 :])
        if not self.server.token_ok(body.get("token")):
            self.server.count("token_error")
            self._json(error_body(CODE_TOKEN, TOKEN_ERROR))
            return
        params = dict(body.get("params") or {})
        params.pop("ts_type_name", None)
        fields = requested_fields(body.get("fields"))
        if fields:
            params["fields"] = ",".join(fields)  # the SimClient picks statement items by it
        self._answer(api, params, fields)

    def _answer(self, api: str, params: dict[str, Any], fields: list[str]) -> None:
        try:
            frame = self.server.backend.call(api, **params)
        except Exception as exc:
            if _is_transport_error(exc):
                self.server.count(f"transport_{self.server.transport}")
                if self.server.transport == "drop":
                    self._drop()
                else:
                    self._html_error(503, "Service Temporarily Unavailable")
                return
            if type(exc) is not Exception:  # a simulator bug, not a vendor message
                log.exception("simvendor http: backend failed on %s", api)
                self.server.count("http_500")
                self._html_error(500, "Internal Server Error")
                return
            msg = str(exc)
            code = CODE_RATE_LIMIT if "最多访问该接口" in msg else CODE_OTHER
            self.server.count("rate_limit" if code == CODE_RATE_LIMIT else "vendor_error")
            self._json(error_body(code, msg))
            return
        if len(frame.columns) == 0:  # the SDK's picture of an HTTP error: send the error
            self.server.count("http_502")
            self._html_error(502, "Bad Gateway")
            return
        self.server.count("ok")
        self._json(success_body(frame, fields))


# ---------------------------------------------------------------- running it


@contextmanager
def serve_http(
    backend: Backend,
    *,
    tokens: Collection[str] | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    transport: TransportFault = "drop",
) -> Iterator[str]:
    """Serve `backend` on a background thread; yields the base URL for `TushareClient(url=…)`.

    `tokens`: the tokens accepted (None: any non-empty one). Port 0 picks a free port. On exit
    the server stops accepting, in-flight handler threads are daemons, and the socket closes."""
    with running_server(backend, tokens=tokens, host=host, port=port, transport=transport) as srv:
        yield srv.url


@contextmanager
def running_server(
    backend: Backend,
    *,
    tokens: Collection[str] | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    transport: TransportFault = "drop",
) -> Iterator[SimHTTPServer]:
    """As `serve_http`, yielding the server itself (its `url`, and `replies` per kind)."""
    server = SimHTTPServer((host, port), backend, tokens=tokens, transport=transport)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="simvendor-http"
    )
    thread.daemon = True
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# ---------------------------------------------------------------- command line


def _quota(items: Sequence[str]) -> dict[str, int]:
    out = {}
    for item in items:
        endpoint, _, n = item.partition("=")
        if not endpoint or not n.isdigit():
            raise argparse.ArgumentTypeError(f"--quota wants ENDPOINT=N, got {item!r}")
        out[endpoint] = int(n)
    return out


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.simvendor.http",
        description="Serve the simulated Tushare over HTTP (Tushare Pro DataApi protocol).",
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 = a free port (printed)")
    p.add_argument("--symbols", type=int, default=5300)
    p.add_argument("--seed", type=int, default=SimMarket.seed)
    p.add_argument("--latency", type=float, default=0.0, help="seconds per call")
    p.add_argument(
        "--quota", action="append", default=[], metavar="ENDPOINT=N", help="calls per 60 s"
    )
    p.add_argument("--failure-rate", type=float, default=0.0)
    p.add_argument("--stale-rate", type=float, default=0.0)
    p.add_argument("--fault-seed", type=int, default=1)
    p.add_argument("--today", default=None, help="YYYYMMDD; nothing later is published")
    p.add_argument(
        "--token", action="append", default=None, help="accepted token (repeatable; none: any)"
    )
    p.add_argument("--transport", choices=("drop", "503"), default="drop")
    return p.parse_args(argv)


def client_from_args(args: argparse.Namespace) -> SimClient:
    config = SimConfig(
        latency=args.latency,
        quota=_quota(args.quota),
        failure_rate=args.failure_rate,
        stale_rate=args.stale_rate,
        fault_seed=args.fault_seed,
        **({"today": parse_ymd(args.today)} if args.today else {}),
    )
    return SimClient(SimMarket(n_symbols=args.symbols, seed=args.seed), config)


def _interrupt(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    client = client_from_args(args)
    server = SimHTTPServer(
        (args.host, args.port), client, tokens=args.token, transport=args.transport
    )
    print(f"simulated Tushare at {server.url}  ({client!r})", flush=True)
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it as Ctrl-C does
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        print(f"replies: {server.replies}", flush=True)


if __name__ == "__main__":
    main()
