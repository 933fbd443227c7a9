"""Recorded Tushare DataApi replies, served under pitlake's live TushareClient (helpers for the
wire-level contract tests, test_wire_tushare*.py).

The replies live in tests/vendors/wire/tushare/: `<endpoint>.json` holds that endpoint's
`normal` and `empty` answers, `failures.json` the answers any endpoint can give (a blocked or
HTML page, an HTTP error page, the rate-limit and permission refusals, a bad token). Each reply
cites where its shape is defined: docs/vendor-reference.md and the tushare SDK's reading of the
protocol (.venv/lib/python3.11/site-packages/tushare/pro/client.py:33-52). Only the HTTP layer is
replaced (`HttpReplay`, which patches requests' transport); the client, the retry wrapper, the
adapter and the router are pitlake's own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from pitlake.vendors.base import FetchRequest
from pitlake.vendors.ratelimit import RateLimiter
from pitlake.vendors.retry import ResilientClient, RetryPolicy
from pitlake.vendors.tushare.client import TUSHARE_URL, TushareClient
from tests.vendors.wire.http_replay import Call, HttpReplay

WIRE = Path(__file__).parent / "tushare"
TOKEN = "wire-test-token-0123456789abcdef"
D = date(2025, 6, 3)

REPLY_KINDS = ("normal", "empty", "blocked_html", "http_error_html", "rate_limit", "permission")


@cache
def _file(name: str) -> dict[str, dict[str, Any]]:
    data = json.loads((WIRE / f"{name}.json").read_text(encoding="utf-8"))
    for kind, spec in data.items():
        if not spec.get("cites"):
            raise ValueError(f"{name}.json {kind}: a recorded reply must cite its shape")
    return data


def reply(endpoint: str, kind: str) -> dict[str, Any]:
    """The recorded reply of `kind` for `endpoint` (the shared failures for the failure kinds)."""
    data = _file(endpoint) if kind in ("normal", "empty") else _file("failures")
    return data[kind]


def url_of(endpoint: str) -> str:
    return rf"api\.waditu\.com/dataapi/{endpoint}$"


def _asks_for(hidden: list[str]) -> Callable[[Call], bool]:
    def asks(call: Call) -> bool:
        fields = str((call.json_body() or {}).get("fields") or "").split(",")
        return all(h in fields for h in hidden)

    return asks


def _without(payload: dict[str, Any], hidden: list[str]) -> dict[str, Any]:
    """The reply as the server gives it when `fields` does not name the hidden columns."""
    data = payload["data"]
    keep = [i for i, f in enumerate(data["fields"]) if f not in hidden]
    return {
        **payload,
        "data": {
            **data,
            "fields": [data["fields"][i] for i in keep],
            "items": [[row[i] for i in keep] for row in data["items"]],
        },
    }


def serve(replay: HttpReplay, endpoint: str, kind: str, *, times: int | None = None) -> None:
    """Answer `endpoint` with its recorded `kind` reply (every call, or the next `times`).
    Columns the reply lists as `default_hidden` come only to a request whose `fields` names
    them, as from the server (major_news `content`)."""
    spec = {k: v for k, v in reply(endpoint, kind).items() if k not in ("cites", "note")}
    hidden = spec.pop("default_hidden", None)
    where = dict(url=url_of(endpoint), method="POST", times=times, source=f"{endpoint}:{kind}")
    if not hidden:
        replay.add(**where, **spec)
        return
    replay.add(**where, where=_asks_for(hidden), **spec)
    replay.add(**where, **{**spec, "json": _without(spec["json"], hidden)})


def live_client(policy: RetryPolicy | None = None) -> ResilientClient:
    """pitlake's live client for the real endpoint (no environment read), behind its retry
    wrapper with no real waits."""
    inner = TushareClient(token=TOKEN, env={}, timeout=5.0)
    assert inner.url == TUSHARE_URL
    return ResilientClient(inner, RateLimiter.unlimited(), policy or RetryPolicy.no_wait())


@dataclass(frozen=True)
class Scenario:
    """How pitlake comes to call an endpoint: the request, and the other endpoints the same
    fetch calls (served their normal replies). `role` says what the endpoint is to its dataset:
    `sole` (its only source of rows), `one_of` (one of several sources of rows), `lookup`
    (finds whom to ask), `enrichment` (adds to rows another endpoint gives)."""

    endpoint: str
    request: FetchRequest
    companions: tuple[str, ...]
    role: str


STATEMENTS = ("income", "balancesheet", "cashflow")
SECURITIES = ("stock_basic", "namechange", "suspend_d")  # each gives rows of its own states
SECURITIES_STATES = {"stock_basic": "listing", "namechange": "name", "suspend_d": "suspension"}
BY_SYMBOL = FetchRequest("financials", symbols=("600519.SH",))

SCENARIOS: dict[str, Scenario] = {
    s.endpoint: s
    for s in (
        Scenario("daily", FetchRequest("quotes", trade_date=D), (), "sole"),
        Scenario("adj_factor", FetchRequest("adj_factors", trade_date=D), (), "sole"),
        Scenario("daily_basic", FetchRequest("valuation", trade_date=D), (), "sole"),
        Scenario(
            "index_daily",
            FetchRequest("index_quotes", trade_date=D, symbols=("000300.SH",)),
            (),
            "sole",
        ),
        Scenario(
            "index_weight",
            FetchRequest("index_members", trade_date=D, symbols=("000300.SH",)),
            (),
            "sole",
        ),
        *(
            Scenario(st, BY_SYMBOL, tuple(o for o in STATEMENTS if o != st), "one_of")
            for st in STATEMENTS
        ),
        Scenario("disclosure_date", FetchRequest("financials", trade_date=D), STATEMENTS, "lookup"),
        Scenario("news", FetchRequest("news", trade_date=D), ("major_news",), "one_of"),
        Scenario("major_news", FetchRequest("news", trade_date=D), ("news",), "one_of"),
        Scenario("top_list", FetchRequest("dragon_tiger", trade_date=D), ("top_inst",), "sole"),
        Scenario(
            "top_inst", FetchRequest("dragon_tiger", trade_date=D), ("top_list",), "enrichment"
        ),
        Scenario("anns_d", FetchRequest("announcements", start=D, end=D), (), "sole"),
        *(
            Scenario(
                ep,
                FetchRequest("securities", trade_date=D),
                tuple(o for o in SECURITIES if o != ep),
                "one_of",
            )
            for ep in SECURITIES
        ),
        Scenario("stk_limit", FetchRequest("limit_prices", trade_date=D), (), "sole"),
        Scenario("limit_list_d", FetchRequest("limit_pools", trade_date=D), (), "sole"),
        Scenario("new_share", FetchRequest("new_shares", trade_date=D), (), "sole"),
        Scenario(
            "trade_cal",
            FetchRequest("calendar", start=date(2025, 5, 30), end=date(2025, 6, 3)),
            (),
            "sole",
        ),
    )
}
ENDPOINTS = tuple(SCENARIOS)


def contributed(endpoint: str, frame: Any) -> bool:
    """Whether canonical rows carry something only `endpoint` answered."""
    statement = {"income": "income", "balancesheet": "balance", "cashflow": "cashflow"}
    if endpoint in statement:
        return statement[endpoint] in set(frame["statement"])
    if endpoint == "news":
        return any("tushare:sina" in s for s in frame["sources"])
    if endpoint == "major_news":
        return any("tushare:新华网" in s for s in frame["sources"])
    if endpoint in SECURITIES_STATES:
        return SECURITIES_STATES[endpoint] in set(frame["attribute"])
    if endpoint == "top_inst":
        return bool(frame["seats"].notna().any())
    return not frame.empty
