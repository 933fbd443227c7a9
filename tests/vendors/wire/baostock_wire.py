"""A local Baostock server: recorded answers sent as the bytes the Baostock protocol carries.

The real installed `baostock` library connects to it (its server constants are pointed here by
pitlake's client for the login) and parses every byte itself: header, `\\x01`-split body, the
page's `{"record": [...]}` JSON, zlib for the compressed replies, and the `<![CDATA[]]>\\n` end
marker its receive loop waits for. Only the remote end is replaced.

Framing, as the library encodes requests and decodes replies (docs/vendor-reference.md,
Baostock §B.1):
  header  = "00.9.40" \\x01 <msg type, 2 chars> \\x01 <body length, 10 digits>   (21 chars)
  request = header + body + "\\x01" + crc32(header + body) + "\\n"
  reply   = header + body + "\\x01" + crc32 + "<![CDATA[]]>\\n"
            (types 96/99/9B/9D: header + zlib(body + "\\x01" + crc32) + "<![CDATA[]]>\\n",
             the header's length being that of the compressed bytes)
The reply's trailing "\\x01" + crc32 is inferred (the library cuts one character off the body
and never reads past the fields) [UNVERIFIED against a live capture: no network here].

Reply files (tests/vendors/wire/baostock/<query>.<case>.json) hold one reply or a list:
  {"cites": [...], "method": "query_profit_data",
   "match": {"code": "sh.600519", "year": "2025"},   # optional: request fields by name
   "error_code": "0", "error_msg": "success",
   "fields": "code,pubDate,statDate,...", "record": [[...], ...],
   "page": 1,                                         # optional: the page this answers
   "times": 1,                                        # optional: serve N times, then the next
   "close": true}                                     # optional: hang up instead of replying
"""

from __future__ import annotations

import json
import socket
import threading
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WIRE = Path(__file__).parent / "baostock"
VERSION = "00.9.40"  # baostock/common/contants.py BAOSTOCK_CLIENT_VERSION
SPLIT = "\x01"
END = b"<![CDATA[]]>\n"
COMPRESSED = frozenset({"96", "99", "9B", "9D"})
# Request body layouts after (method, user_id, page, per_page): baostock's own param order.
REQUEST_FIELDS: dict[str, tuple[str, ...]] = {
    "login": ("user_id", "password", "options"),
    "logout": ("user_id", "time"),
    "query_history_k_data_plus": (
        "user_id",
        "page",
        "per_page",
        "code",
        "fields",
        "start_date",
        "end_date",
        "frequency",
        "adjustflag",
    ),
    "query_adjust_factor": ("user_id", "page", "per_page", "code", "start_date", "end_date"),
    **{
        q: ("user_id", "page", "per_page", "code", "year", "quarter")
        for q in (
            "query_profit_data",
            "query_balance_data",
            "query_cash_flow_data",
            "query_growth_data",
            "query_operation_data",
            "query_dupont_data",
        )
    },
}


@dataclass
class Request:
    msg_type: str
    method: str
    params: dict[str, str]
    crc_ok: bool


@dataclass
class Reply:
    method: str
    error_code: str = "0"
    error_msg: str = "success"
    fields: str = ""
    record: list[list[str]] = field(default_factory=list)
    match: dict[str, str] = field(default_factory=dict)
    page: int | None = None
    times: int | None = None
    close: bool = False
    served: int = 0

    def matches(self, req: Request) -> bool:
        if self.times is not None and self.served >= self.times:
            return False
        if self.method != req.method:
            return False
        if self.page is not None and req.params.get("page") != str(self.page):
            return False
        return all(req.params.get(k) == str(v) for k, v in self.match.items())


def load(name: str) -> list[Reply]:
    data = json.loads((WIRE / f"{name}.json").read_text(encoding="utf-8"))
    items = data if isinstance(data, list) else [data]
    return [reply(**{k: v for k, v in item.items() if k != "cites"}) for item in items]


def reply(**kw: Any) -> Reply:
    return Reply(**kw)


def header(msg_type: str, length: int) -> str:
    return f"{VERSION}{SPLIT}{msg_type}{SPLIT}{length:010d}"


def parse_request(raw: bytes) -> Request:
    text = raw.decode("utf-8").rstrip("\n")
    head, body = text[:21], text[21:]
    msg_type = head.split(SPLIT)[1]
    parts = body.split(SPLIT)
    crc = parts.pop()
    crc_ok = str(zlib.crc32((head + SPLIT.join(parts)).encode("utf-8"))) == crc
    method = parts[0]
    names = REQUEST_FIELDS.get(method, ())
    return Request(msg_type, method, dict(zip(names, parts[1:], strict=False)), crc_ok)


def response_type(request_type: str) -> str:
    """The reply's type: the request's + 1 in the library's table (95 → 96, 17 → 18)."""
    return (
        f"{int(request_type, 16) + 1:02X}"
        if request_type[0] == "9"
        else (f"{int(request_type) + 1:02d}")
    )


def body_of(req: Request, r: Reply) -> list[str]:
    """The reply body's fields, in the order the library's decoder reads them."""
    if r.error_code != "0":
        return [r.error_code, r.error_msg]
    p = req.params
    user = p.get("user_id", "anonymous")
    if req.method == "login":
        return ["0", r.error_msg, "login", user]
    if req.method == "logout":
        return ["0", r.error_msg, "logout", user]
    page = [req.method, user, p.get("page", "1"), p.get("per_page", "2000")]
    records = json.dumps({"record": r.record}, ensure_ascii=False, separators=(",", ":"))
    if req.method == "query_history_k_data_plus":
        tail = [p["code"], r.fields or p["fields"], p["start_date"], p["end_date"]]
        return ["0", r.error_msg, *page, records, *tail, p["frequency"], p["adjustflag"]]
    if req.method == "query_adjust_factor":
        tail = [p["code"], p["start_date"], p["end_date"], r.fields]
        return ["0", r.error_msg, *page, records, *tail]
    return ["0", r.error_msg, *page, records, p["code"], p["year"], p["quarter"], r.fields]


def encode(req: Request, r: Reply) -> bytes:
    body = SPLIT.join(body_of(req, r))
    msg_type = "04" if r.error_code != "0" else response_type(req.msg_type)
    if msg_type in COMPRESSED:
        crc = zlib.crc32((header(msg_type, len(body)) + body).encode("utf-8"))
        packed = zlib.compress(f"{body}{SPLIT}{crc}".encode())
        return header(msg_type, len(packed)).encode() + packed + END
    head = header(msg_type, len(body))
    crc = zlib.crc32((head + body).encode("utf-8"))
    return f"{head}{body}{SPLIT}{crc}".encode() + END


class BaostockServer:
    """Answers the library's messages from a list of replies (logins always succeed unless a
    login reply says otherwise). `requests` keeps every message as the library sent it."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[Request] = []
        self.unmatched: list[Request] = []
        self._lock = threading.Lock()
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.address: tuple[str, int] = self._sock.getsockname()[:2]
        threading.Thread(target=self._accept, name="baostock-server", daemon=True).start()

    def serve(self, replies: Iterable[Reply]) -> None:
        with self._lock:
            self.replies = list(replies)
            self.requests.clear()
            self.unmatched.clear()

    def queries(self, method: str | None = None) -> list[Request]:
        return [r for r in self.requests if method in (None, r.method)]

    def _accept(self) -> None:
        while True:
            conn, _ = self._sock.accept()
            threading.Thread(target=self._talk, args=(conn,), daemon=True).start()

    def _find(self, req: Request) -> Reply | None:
        with self._lock:
            self.requests.append(req)
            for r in self.replies:
                if r.matches(req):
                    r.served += 1
                    return r
            if req.method in ("login", "logout"):
                return Reply(req.method, error_msg=f"{req.method} success!")
            self.unmatched.append(req)
            return None

    def _talk(self, conn: socket.socket) -> None:
        buffer = b""
        with conn:
            while True:
                try:
                    chunk = conn.recv(65536)
                except OSError:
                    return
                if not chunk:
                    return
                buffer += chunk
                while b"\n" in buffer:
                    raw, buffer = buffer.split(b"\n", 1)
                    req = parse_request(raw + b"\n")
                    found = self._find(req)
                    if found is None:  # nothing recorded: answer "system error", as a server
                        found = Reply(req.method, "10005001", f"no recorded reply for {req}")
                    if found.close:
                        return
                    conn.sendall(encode(req, found))


_SERVER: BaostockServer | None = None


def server() -> BaostockServer:
    """The test process's one local Baostock server (started on first use)."""
    global _SERVER
    if _SERVER is None:
        _SERVER = BaostockServer()
    return _SERVER


def replies(*names: str) -> list[Reply]:
    """The replies of these files (`<query>.<case>`), in order."""
    return [r for name in names for r in load(name)]
