"""Fake transports for the live clients' tests: a scripted requests.post, a fake akshare."""

from __future__ import annotations

import json
import types

TOKEN = "s3cr3t-token-0123456789abcdef"


class FakeResponse:
    def __init__(
        self,
        status: int = 200,
        body: object = None,
        text: str | None = None,
        headers: dict | None = None,
    ) -> None:
        self.status_code = status
        self.text = text if text is not None else json.dumps(body, ensure_ascii=False)
        self.headers = headers or {}


class FakePost:
    """Stands in for requests.post: records calls, replies from a script."""

    def __init__(self, *replies) -> None:
        self.replies = list(replies)
        self.calls: list[dict] = []

    def __call__(self, url, json=None, timeout=None):
        self.calls.append({"url": url, "json": json, "timeout": timeout})
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply


def ok(fields, items) -> FakeResponse:
    return FakeResponse(body={"code": 0, "msg": "", "data": {"fields": fields, "items": items}})


def server_error(msg: str, code: int = -2001) -> FakeResponse:
    return FakeResponse(body={"code": code, "msg": msg, "data": None})


DAILY = ok(["ts_code", "trade_date", "close", "vol"], [["600519.SH", "20250603", 1437.0, 16988.0]])


def fake_akshare(**functions) -> types.SimpleNamespace:
    return types.SimpleNamespace(**functions)
