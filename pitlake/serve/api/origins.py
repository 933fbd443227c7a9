"""Who may talk to the API: the Host a request names and the site a browser says it comes from.

DNS rebinding points a hostile name at 127.0.0.1: the browser then sends that name as Host,
so a Host outside the allowed set is refused (400 envelope). A browser's cross-site request
(`Sec-Fetch-Site: cross-site`) without a bearer token is refused (403 envelope): a page on
another site cannot drive a tokenless local server. `pitlake serve` allows localhost,
127.0.0.1, ::1 and the bound host by default, plus $PITLAKE_ALLOWED_HOSTS / --allow-host.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from pitlake.envelope import Result
from pitlake.serve.api.errors import send_envelope
from pitlake.statuses import ResultStatus

ENV_ALLOWED_HOSTS = "PITLAKE_ALLOWED_HOSTS"
LOCAL_HOSTS: tuple[str, ...] = ("localhost", "127.0.0.1", "::1")


def serving_hosts(bound: str, extra: Iterable[str] = ()) -> list[str]:
    """The default allowed hosts of `pitlake serve` on `bound`, with the env's and `extra`."""
    env = [h.strip() for h in os.environ.get(ENV_ALLOWED_HOSTS, "").split(",") if h.strip()]
    return list(dict.fromkeys([*LOCAL_HOSTS, bound, *env, *extra]))


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def host_name(host: str) -> str:
    """The name of a Host header without its port ('[::1]:8000' → '::1')."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rpartition(":")[0] if host.count(":") == 1 else host


class HostAndSite:
    """Refuse a Host outside `allowed_hosts` (None: any) and a tokenless cross-site request."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] | None = None) -> None:
        self.app = app
        self._hosts = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = host_name(_header(scope, b"host") or "")
        if self._hosts is not None and "*" not in self._hosts and host not in self._hosts:
            env = Result.invalid(
                f"Host {host!r} is not allowed; allowed: {', '.join(sorted(self._hosts))} "
                f"(set {ENV_ALLOWED_HOSTS} or --allow-host)"
            ).to_dict()
            await send_envelope(send, 400, env)
            return
        site = (_header(scope, b"sec-fetch-site") or "").strip().lower()
        if site == "cross-site" and not (_header(scope, b"authorization") or "").strip():
            env = Result(
                status=ResultStatus.PERMISSION_DENIED,
                message="cross-site browser requests need a bearer token",
                retryable=False,
            ).to_dict()
            await send_envelope(send, 403, env)
            return
        await self.app(scope, receive, send)
