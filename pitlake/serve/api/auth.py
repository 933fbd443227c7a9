"""Optional bearer token (env PITLAKE_API_TOKEN): every path but /healthz needs it.

A plain ASGI middleware (not a FastAPI dependency) so it also covers routers other helpers add
(the dashboard) and the OpenAPI/docs pages. The comparison is constant-time.
"""

from __future__ import annotations

import hmac

from starlette.types import ASGIApp, Receive, Scope, Send

from pitlake.envelope import Result
from pitlake.serve.api.errors import send_envelope, server_pinned
from pitlake.statuses import ResultStatus

ENV_TOKEN = "PITLAKE_API_TOKEN"
OPEN_PATHS: frozenset[str] = frozenset({"/healthz"})


def _presented(scope: Scope) -> bytes | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _, token = value.partition(b" ")
            if scheme.lower() == b"bearer" and token.strip():
                return token.strip()
            return None
    return None


class BearerAuth:
    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("BearerAuth needs a non-empty token")
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        given = _presented(scope)
        if given is not None and hmac.compare_digest(given, self._token):
            await self.app(scope, receive, send)
            return
        env = Result(
            status=ResultStatus.PERMISSION_DENIED,
            message="missing or invalid bearer token (send 'Authorization: Bearer <token>')",
            retryable=False,
            meta={"pinned": server_pinned(scope.get("app"))},
        ).to_dict()
        await send_envelope(send, 401, env, www_authenticate='Bearer realm="pitlake"')
