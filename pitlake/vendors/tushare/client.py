"""Tushare Pro over its HTTP protocol, with the token from the environment and typed errors.

`TushareClient` speaks Tushare's DataApi protocol itself (POST `<url>/<api_name>` with
`{api_name, token, params, fields}`), because the SDK returns an empty frame on HTTP errors
(indistinguishable from "no rows"), writes `~/tk.csv` on `set_token`, and has no way to keep the
token out of errors. The token comes from `TUSHARE_TOKEN`, then `TS_TOKEN`, and never appears in
an error message, a log line or a repr. pitlake never imports the `tushare` package: what it
offers is this one POST (tushare/pro/client.py:33-52), and its error handling is what we avoid.
The SDK is kept only as the protocol's reference: the wire tests (tests/vendors/wire/
test_wire_tushare.py) check that this client sends the SDK's exact request and builds the
SDK's frame from the same reply, so it belongs with the test dependencies, not the runtime.
Retries and rate limits are not here; they wrap this client (`retry.ResilientClient`). With
`record_dir`, every answer is recorded for replay (replay/recording.py).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pitlake.errors import (
    NoMarketDataError,
    PitlakeError,
    VendorError,
    VendorNotConfiguredError,
    VendorRateLimitError,
)
from pitlake.vendors.replay.recording import Recorder
from pitlake.vendors.tushare import SECRET_ENV
from pitlake.vendors.tushare.classify import classify_tushare

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

TUSHARE_URL = "http://api.waditu.com/dataapi"
# Another endpoint speaking the same protocol (a mirror, a proxy, the loopback simulator).
TUSHARE_URL_ENV = "PITLAKE_TUSHARE_URL"
TUSHARE_TOKEN_ENV = SECRET_ENV  # the package's, which redaction reads without this module
CONNECT_TIMEOUT = 10.0


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
            err = _scrubbed(classify_tushare(failure, endpoint=endpoint), token)
            del failure  # raised outside the handler: no __context__ holding the request body
            raise err
        assert frame is not None
        if self.recorder is not None:
            self.recorder.append(endpoint, params, frame)
        return frame

    def _query(self, endpoint: str, token: str, params: dict[str, Any]) -> pd.DataFrame:
        import pandas as pd

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


def live_client(
    *,
    record_dir: str | Path | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> TushareClient:
    """The plugin's live client factory."""
    kw: dict[str, Any] = {"record_dir": record_dir, "env": env}
    if timeout is not None:
        kw["timeout"] = timeout
    return TushareClient(**kw)
