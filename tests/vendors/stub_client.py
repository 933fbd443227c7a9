"""A scripted VendorClient for adapter contract tests (one for every vendor)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from pitlake.errors import VendorNotConfiguredError

Route = pd.DataFrame | BaseException | Callable[..., "pd.DataFrame | BaseException"]


class StubClient:
    """Answers each endpoint from a route: a frame, an exception to raise, or a function of
    the call's params returning either. Records every call. An endpoint with no route is not
    configured, as in a replay directory without that file."""

    vendor = "stub"

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        self.calls.append((endpoint, dict(params)))
        if endpoint not in self.routes:
            raise VendorNotConfiguredError("no route", vendor=self.vendor, endpoint=endpoint)
        answer = self.routes[endpoint]
        if callable(answer) and not isinstance(answer, pd.DataFrame):
            answer = answer(**params)
        if isinstance(answer, BaseException):
            raise answer
        return answer.copy() if isinstance(answer, pd.DataFrame) else answer

    def endpoints(self) -> list[str]:
        return [e for e, _ in self.calls]
