"""Baostock queries by name over the library's one socket: login once, pages read, errors typed.

The baostock library speaks its own TCP protocol (docs/vendor-reference.md, Baostock §B.1):
`login()` opens one socket per process (kept in `baostock.common.context`), every `query_*`
sends one message on it and reads the reply, and `ResultData.next()` asks for further pages of
2,000 rows. So this client
- logs in once per process (anonymously: Baostock needs no account or token) and again after a
  "not logged in" answer or a transport failure (the socket may hold half a reply);
- holds one process-wide lock around every exchange (the socket is shared state);
- reads the pages row by row (`next()` / `get_row_data()`), not with `get_data()`, which calls
  `DataFrame.append` (gone since pandas 2) when there is more than one page;
- captures what the library prints (it reports transport failures on stdout and returns None,
  and stdout is the MCP server's channel): a printed "接收数据异常" during paging means the
  answer was cut, which is a failure, never a short frame;
- gives the library, for its login's connect, a socket with a timeout (it sets none) whose
  `recv` raises when the server hangs up (the library's receive loop would spin forever on the
  empty reads of a closed connection, waiting for its end marker).
Answers are frames of strings, as the library gives them ("" = no value); the fetchers parse
them. With `record_dir`, every answer is recorded for replay (replay/recording.py). Importing the
library, finding a query and the live client factory are every library client's
(`vendors/library_client.py`).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import io
import logging
import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pitlake.vendors.baostock.classify import (
    NO_LOGIN,
    RECV_FAIL,
    SUCCESS,
    VENDOR,
    BaostockReplyError,
    classify_baostock,
)
from pitlake.vendors.library_client import LibraryClient

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

ANONYMOUS = ("anonymous", "123456")  # the library's default account (login/loginout.py)
# What the library prints when a socket exchange fails (util/socketutil.py send_msg).
CUT_MARKERS = ("接收数据异常", "you don't login", "服务器连接失败")

# The library keeps one socket per process: one exchange at a time, one login state.
_LOCK = threading.RLock()
_session: dict[str, Any] = {"server": None}  # the (host, port) logged into; None = logged out


class BaostockClient(LibraryClient):
    """Baostock `query_*` functions by name, answered as frames of strings or typed errors."""

    vendor = VENDOR
    library = "baostock"
    no_such_endpoint = "the installed baostock has no such query"

    def __init__(
        self,
        *,
        timeout: float = 60.0,
        module: ModuleType | Any | None = None,
        record_dir: str | Path | None = None,
        server: tuple[str, int] | None = None,
    ) -> None:
        super().__init__(timeout=timeout, module=module, record_dir=record_dir)
        self.server = server  # None = the library's own public server

    def __repr__(self) -> str:
        where = f", server={self.server!r}" if self.server else ""
        return f"BaostockClient(timeout={self.timeout}{where})"

    def offers(self, endpoint: str) -> bool:
        return endpoint.startswith("query_")

    # ------------------------------------------------------------ session

    def _target(self) -> tuple[str, int] | None:
        return tuple(self.server) if self.server else None  # type: ignore[return-value]

    def _login(self, bs: Any) -> None:
        """Log in (anonymously) to this client's server, unless already logged in there."""
        target = self._target()
        key = target or ("default",)
        if _session["server"] == key:
            return
        _drop_session()
        cons = importlib.import_module("baostock.common.contants")
        transport = importlib.import_module("baostock.util.socketutil")
        saved = (cons.BAOSTOCK_SERVER_IP, cons.BAOSTOCK_SERVER_PORT, transport.socket)
        printed = io.StringIO()
        try:
            if target is not None:  # the library reads its server from these constants
                cons.BAOSTOCK_SERVER_IP, cons.BAOSTOCK_SERVER_PORT = target
            sockets = GuardedSockets(self.timeout)
            transport.socket = sockets  # login is where the library connects
            with contextlib.redirect_stdout(printed):
                reply = bs.login(*ANONYMOUS)
        finally:
            cons.BAOSTOCK_SERVER_IP, cons.BAOSTOCK_SERVER_PORT, transport.socket = saved
        code = str(getattr(reply, "error_code", RECV_FAIL))
        if code != SUCCESS:
            _drop_session()
            if sockets.refused:  # the library printed 服务器连接失败 and swallowed why
                address, exc = sockets.refused[-1]
                raise ConnectionError(f"cannot connect to Baostock at {address}: {exc}") from exc
            said = " ".join(printed.getvalue().split())
            text = getattr(reply, "error_msg", "") or said
            raise BaostockReplyError(code, f"login: {text}", endpoint="login")
        _session["server"] = key

    # ------------------------------------------------------------ calls

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        fn = self._function(endpoint)
        bs = self._module()
        with _LOCK:
            try:
                self._login(bs)
                try:
                    frame = self._query(fn, endpoint, params)
                except BaostockReplyError as exc:
                    if exc.code != NO_LOGIN:
                        raise
                    log.info("baostock %s: not logged in (%s); logging in again", endpoint, exc)
                    _drop_session()
                    self._login(bs)
                    frame = self._query(fn, endpoint, params)
            except BaostockReplyError as exc:
                if not exc.code.startswith(("0", "10004")):  # session or transport trouble
                    _drop_session()
                raise classify_baostock(exc, endpoint=endpoint) from exc
            except (OSError, ValueError) as exc:
                _drop_session()
                raise classify_baostock(exc, endpoint=endpoint) from exc
        if self.recorder is not None:
            self.recorder.append(endpoint, params, frame)
        return frame

    def _query(self, fn: Callable[..., Any], endpoint: str, params: dict[str, Any]) -> pd.DataFrame:
        """One query and all its pages → a frame of strings; a non-zero code raises."""
        import pandas as pd

        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            reply = fn(**params)
            if reply is None:  # e.g. query_history_k_data_plus on a malformed date
                raise BaostockReplyError(
                    "10004010", _said(printed) or "no answer", endpoint=endpoint
                )
            if str(reply.error_code) != SUCCESS:
                raise BaostockReplyError(str(reply.error_code), reply.error_msg, endpoint=endpoint)
            rows: list[list[str]] = []
            while reply.next():
                rows.append(reply.get_row_data())
        said = _said(printed)
        if str(reply.error_code) != SUCCESS:  # a later page answered an error
            raise BaostockReplyError(str(reply.error_code), reply.error_msg, endpoint=endpoint)
        if any(marker in said for marker in CUT_MARKERS):  # a later page never came
            raise BaostockReplyError(
                RECV_FAIL, f"answer cut after {len(rows)} rows: {said}", endpoint=endpoint
            )
        if said:
            log.debug("baostock %s printed: %s", endpoint, said)
        fields = [f for f in reply.fields if f]
        return pd.DataFrame(rows, columns=fields, dtype=object) if fields else pd.DataFrame()


class GuardedSocket(socket.socket):
    """A TCP socket whose `recv` raises when the peer has closed (instead of answering b"")."""

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        data = super().recv(bufsize, flags)
        if not data:
            raise ConnectionResetError("the Baostock server closed the connection mid-reply")
        return data


class GuardedSockets:
    """What the library's transport module sees as `socket` during a login: it makes sockets
    with a timeout that raise on a closed connection, and keeps the connect failures the
    library swallows."""

    AF_INET = socket.AF_INET
    SOCK_STREAM = socket.SOCK_STREAM

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.refused: list[tuple[Any, OSError]] = []

    def socket(self, family: int = socket.AF_INET, kind: int = socket.SOCK_STREAM) -> GuardedSocket:
        sock = GuardedSocket(family, kind)
        sock.settimeout(self.timeout)
        connect = sock.connect

        def connect_noting(address: Any) -> None:
            try:
                connect(address)
            except OSError as exc:
                self.refused.append((address, exc))
                raise

        sock.connect = connect_noting  # type: ignore[method-assign]
        return sock


def _said(printed: io.StringIO) -> str:
    return " ".join(printed.getvalue().split())


def _drop_session() -> None:
    """Forget the login: close the library's socket so the next call logs in afresh."""
    with _LOCK:
        _session["server"] = None
        # only a library already imported can hold a socket: at the exit of a process that
        # never called baostock (every read), importing it (and pandas) would cost ~0.3 s
        context = sys.modules.get("baostock.common.context")
        sock = getattr(context, "default_socket", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()
            context.default_socket = None


atexit.register(_drop_session)


live_client = BaostockClient.live
