"""Injected failures of a replay directory (`<endpoint>.error.json`, docs/replay-format.md).

A rule names a kind (a status's lowercase spelling, or `stale`), how many calls it hits and
which parameters it matches. The vendor's replay dialect turns the kind into the native
exception the vendor raises, so injected failures take the path live ones take.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pitlake.errors import ERROR_BY_KIND, DataNotReadyError, VendorError
from pitlake.statuses import ResultStatus, wire_kind
from pitlake.vendors.replay.filters import date_int

STALE = "stale"  # a replay-only kind: an older date comes back (no status of its own)
# The injection kinds that are a status: its lowercase spelling (`wire_kind`), never retyped.
KIND_RATE_LIMITED = wire_kind(ResultStatus.RATE_LIMITED)
KIND_PERMISSION_DENIED = wire_kind(ResultStatus.PERMISSION_DENIED)
KIND_UPSTREAM_ERROR = wire_kind(ResultStatus.UPSTREAM_ERROR)
KIND_NOT_CONFIGURED = wire_kind(ResultStatus.NOT_CONFIGURED)
KIND_NO_DATA = wire_kind(ResultStatus.NO_DATA)
KIND_NOT_READY = wire_kind(ResultStatus.NOT_READY)
INJECTION_KINDS = (*ERROR_BY_KIND, STALE)
NOT_READY_TEXT = "the requested date is not published yet"


@dataclass
class Injection:
    kind: str
    times: int | None
    match: dict[str, Any]
    message: str | None
    fired: int = 0

    def matches(self, params: Mapping[str, Any]) -> bool:
        for name, want in self.match.items():
            got = params.get(name)
            if got is None:
                return False
            if str(got).strip() != str(want).strip():
                d1, d2 = date_int(got), date_int(want)
                if d1 is None or d1 != d2:
                    return False
        return True


def parse_injections(path: Path) -> list[Injection]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        items = raw if isinstance(raw, list) else [raw]
        out = []
        for item in items:
            kind = item["error"]
            if kind not in INJECTION_KINDS:
                raise ValueError(f"unknown error kind {kind!r}")
            times = item.get("times")
            out.append(
                Injection(
                    kind=kind,
                    times=None if times is None else int(times),
                    match=dict(item.get("match") or {}),
                    message=item.get("message"),
                )
            )
        return out
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise VendorError(
            f"bad replay injection file {path.name}: {exc}", retryable=False
        ) from None


def native_failure(vendor: str, kind: str, message: str | None) -> BaseException:
    """The exception the real vendor raises for this kind of failure."""
    from pitlake.vendors.replay.dialect import dialect_of

    if kind == KIND_NOT_READY:
        return DataNotReadyError(message or NOT_READY_TEXT)
    return dialect_of(vendor).native_failure(kind, message)


STATUS_OF_KIND = {kind: cls.status for kind, cls in ERROR_BY_KIND.items()}
