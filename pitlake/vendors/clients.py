"""Live vendor clients: Tushare over its HTTP protocol, AkShare through the library.

Both implement `VendorClient` (base.py): `call(endpoint, **params)` returns the vendor's native
frame, or raises a typed error (classify.py). Retries and rate limits are not here; they wrap
these clients (`retry.ResilientClient`), exactly as they wrap the replay client.

- `TushareClient` speaks Tushare's DataApi protocol itself (POST `<url>/<api_name>` with
  `{api_name, token, params, fields}`), because the SDK returns an empty frame on HTTP errors
  (indistinguishable from "no rows"), writes `~/tk.csv` on `set_token`, and has no way to keep the
  token out of errors. The token comes from `TUSHARE_TOKEN`, then `TS_TOKEN`, and never appears in
  an error message, a log line or a repr. pitlake never imports the `tushare` package: what it
  offers is this one POST (tushare/pro/client.py:33-52), and its error handling is what we avoid.
  The SDK is kept only as the protocol's reference: the wire tests (tests/vendors/wire/
  test_wire_tushare.py) check that this client sends the SDK's exact request and builds the
  SDK's frame from the same reply, so it belongs with the test dependencies, not the runtime.
- `AkshareClient` calls `akshare.<endpoint>(**params)` in a worker thread and gives up after a
  timeout (AkShare's own requests mostly have none and can hang). akshare is imported on first
  use, with tqdm progress bars turned off. Its failures are read by `akshare_replies`: the
  exception a function raises on an *empty* reply (KeyError('代码') on a zero-notice day, …)
  is NoMarketDataError for that call only; a parse failure on a real reply names the field,
  the function and the akshare line; one on an HTTP 429 page is a rate limit.
- With `record_dir`, every answer is appended to `record_dir/<vendor>/<endpoint>[@adjust].jsonl`
  with the `_` tags replay needs (docs/replay-format.md), so anything fetched can be replayed.
"""

from __future__ import annotations

import importlib
import inspect
import json
import logging
import math
import os
import threading
from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from pitlake.errors import (
    NoMarketDataError,
    PitlakeError,
    VendorError,
    VendorNotConfiguredError,
    VendorRateLimitError,
)
from pitlake.vendors.akshare_replies import classify_failure
from pitlake.vendors.classify import classify
from pitlake.vendors.replay import endpoint_key, tags_for

log = logging.getLogger(__name__)

TUSHARE_URL = "http://api.waditu.com/dataapi"
# Another endpoint speaking the same protocol (a mirror, a proxy, the loopback simulator).
TUSHARE_URL_ENV = "PITLAKE_TUSHARE_URL"
TUSHARE_TOKEN_ENV = ("TUSHARE_TOKEN", "TS_TOKEN")
CONNECT_TIMEOUT = 10.0


# ---------------------------------------------------------------- recording


def _jsonable(value: Any) -> Any:
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, pd.Timestamp | datetime):
        ts = pd.Timestamp(value)
        return ts.strftime("%Y-%m-%d") if ts == ts.normalize() else ts.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, str):
        return value
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


class Recorder:
    """Appends vendor answers as replay files (JSON lines, vendor-native columns + `_` tags)."""

    # One lock per file, shared by every recorder in the process (appends never interleave).
    _locks: ClassVar[dict[Path, threading.Lock]] = {}
    _locks_guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, root: str | Path, vendor: str) -> None:
        self.root = Path(root)
        self.vendor = vendor

    def _lock(self, path: Path) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(path, threading.Lock())

    def append(self, endpoint: str, params: Mapping[str, Any], frame: pd.DataFrame) -> Path | None:
        if frame is None or frame.empty or len(frame.columns) == 0:
            return None
        key = endpoint_key(self.vendor, endpoint, params)
        tags = {k: _jsonable(v) for k, v in tags_for(self.vendor, endpoint, params).items()}
        tags = {k: v for k, v in tags.items() if k not in frame.columns}
        lines = []
        for row in frame.to_dict(orient="records"):
            record = {str(k): _jsonable(v) for k, v in row.items()}
            record.update(tags)
            lines.append(json.dumps(record, ensure_ascii=False))
        path = self.root / self.vendor / f"{key}.jsonl"
        with self._lock(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")
        return path


# ---------------------------------------------------------------- Tushare


def _scrubbed(err: PitlakeError, secret: str) -> PitlakeError:
    """The same error with the secret masked wherever it could show."""
    if not secret:
        return err
    text = str(err.args[0]) if err.args else ""
    if secret in text:
        err.args = (text.replace(secret, "***"),)
        if isinstance(err, VendorError):
            err.message = err.message.replace(secret, "***")
    return err


class TushareClient:
    """Tushare Pro over HTTP, with the token from the environment and typed errors."""

    vendor = "tushare"

    def __init__(
        self,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        url: str | None = None,
        env: Mapping[str, str] | None = None,
        post: Callable[..., Any] | None = None,
        record_dir: str | Path | None = None,
    ) -> None:
        self.__token = token
        self.timeout = timeout
        self._env = env
        configured = (os.environ if env is None else env).get(TUSHARE_URL_ENV, "").strip()
        self.url = (url or configured or TUSHARE_URL).rstrip("/")
        self._post = post  # injectable transport; default requests.post (looked up per call)
        self.recorder = Recorder(record_dir, self.vendor) if record_dir else None

    def __repr__(self) -> str:
        state = "set" if self._token_or_none() else "missing"
        return f"TushareClient(url={self.url!r}, token={state})"

    def _token_or_none(self) -> str | None:
        if self.__token:
            return self.__token
        env = os.environ if self._env is None else self._env
        for name in TUSHARE_TOKEN_ENV:
            value = (env.get(name) or "").strip()
            if value:
                return value
        return None

    def ensure_configured(self, endpoint: str = "") -> None:
        if not self._token_or_none():
            raise VendorNotConfiguredError(
                "no Tushare token: set TUSHARE_TOKEN (or TS_TOKEN)",
                vendor=self.vendor,
                endpoint=endpoint,
            )

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        self.ensure_configured(endpoint)
        token = self._token_or_none() or ""
        failure: BaseException | None = None
        frame: pd.DataFrame | None = None
        try:
            frame = self._query(endpoint, token, dict(params))
        except Exception as exc:
            failure = exc
        if failure is not None:
            err = _scrubbed(classify(self.vendor, failure, endpoint=endpoint), token)
            del failure  # raised outside the handler: no __context__ holding the request body
            raise err
        assert frame is not None
        if self.recorder is not None:
            self.recorder.append(endpoint, params, frame)
        return frame

    def _query(self, endpoint: str, token: str, params: dict[str, Any]) -> pd.DataFrame:
        fields = params.pop("fields", "")
        if isinstance(fields, list | tuple):
            fields = ",".join(fields)
        params.setdefault("ts_type_name", self.url)  # as the SDK sends it
        body = {"api_name": endpoint, "token": token, "params": params, "fields": fields}
        post = self._post
        if post is None:
            import requests

            post = requests.post
        log.debug(
            "tushare %s %s", endpoint, {k: v for k, v in params.items() if k != "ts_type_name"}
        )
        resp = post(f"{self.url}/{endpoint}", json=body, timeout=(CONNECT_TIMEOUT, self.timeout))
        status = int(getattr(resp, "status_code", 200))
        if status == 429:
            raise VendorRateLimitError(
                "HTTP 429 Too Many Requests",
                retry_after=_retry_after(resp),
                vendor=self.vendor,
                endpoint=endpoint,
            )
        if status >= 400:
            # The SDK returns an empty frame here, which would read as "no rows".
            raise VendorError(
                f"HTTP {status}", vendor=self.vendor, endpoint=endpoint, retryable=status >= 500
            )
        payload = json.loads(resp.text)
        if payload.get("code") != 0:
            raise Exception(str(payload.get("msg") or f"error code {payload.get('code')}"))
        data = payload["data"]
        if data is None:  # code 0 and nothing at all: no rows, said another way
            raise NoMarketDataError(
                "answered code 0 with no data", vendor=self.vendor, endpoint=endpoint
            )
        return pd.DataFrame(data["items"], columns=data["fields"])


def _retry_after(resp: Any) -> float:
    headers = getattr(resp, "headers", None) or {}
    try:
        return max(0.0, float(headers.get("Retry-After", 60)))
    except (TypeError, ValueError):
        return 60.0


# ---------------------------------------------------------------- AkShare


class AkshareClient:
    """AkShare functions by name, each call bounded by a timeout, errors typed."""

    vendor = "akshare"

    def __init__(
        self,
        *,
        timeout: float = 60.0,
        module: ModuleType | Any | None = None,
        record_dir: str | Path | None = None,
    ) -> None:
        self.timeout = timeout
        self._ak = module
        self._lock = threading.Lock()
        self._takes_timeout: dict[str, bool] = {}
        self.recorder = Recorder(record_dir, self.vendor) if record_dir else None

    def __repr__(self) -> str:
        return f"AkshareClient(timeout={self.timeout})"

    def _module(self) -> Any:
        with self._lock:
            if self._ak is None:
                os.environ.setdefault("TQDM_DISABLE", "1")
                try:
                    self._ak = importlib.import_module("akshare")
                except ImportError as exc:
                    raise VendorNotConfiguredError(
                        f"akshare is not installed ({exc})", vendor=self.vendor
                    ) from None
            return self._ak

    def _function(self, endpoint: str) -> Callable[..., Any]:
        fn = getattr(self._module(), endpoint, None)
        if not callable(fn):
            raise VendorNotConfiguredError(
                "the installed akshare has no such function", vendor=self.vendor, endpoint=endpoint
            )
        return fn

    def ensure_configured(self, endpoint: str = "") -> None:
        if endpoint:
            self._function(endpoint)
        else:
            self._module()

    def _accepts_timeout(self, endpoint: str, fn: Callable[..., Any]) -> bool:
        if endpoint not in self._takes_timeout:
            try:
                self._takes_timeout[endpoint] = "timeout" in inspect.signature(fn).parameters
            except (TypeError, ValueError):
                self._takes_timeout[endpoint] = False
        return self._takes_timeout[endpoint]

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        fn = self._function(endpoint)
        kwargs = dict(params)
        if self._accepts_timeout(endpoint, fn) and kwargs.get("timeout") is None:
            kwargs["timeout"] = self.timeout  # lets the socket give up too, freeing the thread
        outcome: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                outcome["value"] = fn(**kwargs)
            except BaseException as exc:  # handed to the caller's thread
                outcome["error"] = exc
            finally:
                done.set()

        worker = threading.Thread(target=work, name=f"akshare-{endpoint}", daemon=True)
        worker.start()
        if not done.wait(self.timeout):
            log.warning(
                "akshare %s timed out after %ss; its thread is abandoned", endpoint, self.timeout
            )
            raise VendorError(
                f"timed out after {self.timeout:g}s",
                vendor=self.vendor,
                endpoint=endpoint,
                retryable=True,
            )
        if "error" in outcome:
            exc = outcome["error"]
            # An empty reply akshare's parser trips over is "no rows" for this call only.
            err = classify_failure(endpoint, exc)
            if err is exc:
                raise err
            raise err from exc
        frame = outcome.get("value")
        if self.recorder is not None and isinstance(frame, pd.DataFrame):
            self.recorder.append(endpoint, params, frame)
        return frame  # type: ignore[return-value]  # non-frames are typed by check_reply
