"""POST /v1/<dataset>: the question in a JSON body answers exactly what the GET with the same
parameters answers (envelope and Arrow table), past the GET's 500 symbols; bad bodies are typed
INVALID_ARGUMENTS envelopes, never a 500; a body is bounded; a pin and the token apply; a POST
answer is not paged (limit/cursor refused)."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient
from pitlake.schemas import SCHEMAS

from pitlake.lake.store import LakeStore
from pitlake.read.arguments import MAX_SYMBOLS
from pitlake.serve.api import surfaces
from pitlake.serve.api.bodies import MAX_BODY_BYTES, PostBodies
from pitlake.serve.api.formats import ARROW_MEDIA
from pitlake.serve.api.params import MAX_REQUEST_SYMBOLS
from tests.lake.conftest import statement_row, write
from tests.serve.api.conftest import assert_envelope
from tests.serve.api.lakebuild import CSI300, A, B

TOKEN = "api-token-0123456789"

# (path, GET query parameters, the same question as a POST body)
CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "/v1/quotes",
        {"symbols": f"{A},{B}", "start": "2025-05-30", "end": "2025-06-30", "as_of": "2025-06-06"},
        {"symbols": [A, B], "start": "2025-05-30", "end": "2025-06-30", "as_of": "2025-06-06"},
    ),
    (  # a weekend date, qfq, a timestamp cutoff, the list as a comma-separated string
        "/v1/quotes",
        {"symbols": f"{A},{B}", "date": "2025-06-07", "adjust": "qfq", "as_of": "2025-06-08"},
        {"symbols": f"{A},{B}", "date": "2025-06-07", "adjust": "qfq", "as_of": "2025-06-08"},
    ),
    (  # a failed session: UPSTREAM_ERROR with gaps
        "/v1/quotes",
        {"symbol": A, "date": "2025-06-09", "as_of": "2025-06-12T15:00:00+08:00"},
        {"symbols": [A], "date": "2025-06-09", "as_of": "2025-06-12T15:00:00+08:00"},
    ),
    (
        "/v1/financials",
        {"symbols": f"{A},{B}", "as_of": "2025-06-06"},
        {"symbols": [A, B], "as_of": "2025-06-06"},
    ),
    (
        "/v1/financials",
        {"symbol": A, "statement": "income", "latest_only": "true", "as_of": "2025-06-06"},
        {"symbols": A, "statement": "income", "latest_only": True, "as_of": "2025-06-06"},
    ),
    (
        "/v1/financials",
        {"symbol": A, "period": "2024-12-31", "as_of": "2025-06-06"},
        {"symbols": [A], "periods": ["2024-12-31"], "as_of": "2025-06-06"},
    ),
    (
        "/v1/news",
        {"symbols": f"{A},{B}", "end": "2025-06-05", "lookback_days": 3, "limit": 2},
        {"symbols": [A, B], "end": "2025-06-05", "lookback_days": 3, "limit": 2},
    ),
    ("/v1/dragon-tiger", {"date": "2025-06-04"}, {"date": "2025-06-04"}),  # whole market
    (
        "/v1/calendar",
        {"start": "2025-05-30", "end": "2025-06-09"},
        {"start": "2025-05-30", "end": "2025-06-09"},
    ),
    (
        "/v1/universe",
        {"as_of": "2025-06-05", "include_st": "false"},
        {"as_of": "2025-06-05", "include_st": False},
    ),
    (
        "/v1/index-members",
        {"index": CSI300, "date": "2025-06-05"},
        {"index": CSI300, "date": "2025-06-05"},
    ),
    (  # refused by the read: the same 400 both ways
        "/v1/quotes",
        {"symbols": "nope,600519.SH", "as_of": "2025-06-06"},
        {"symbols": ["nope", A], "as_of": "2025-06-06"},
    ),
    (
        "/v1/quotes",
        {"symbol": A, "date": "2025-06-06", "start": "2025-06-03"},
        {"symbols": [A], "date": "2025-06-06", "start": "2025-06-03"},
    ),
]


def arrow_of(response: Any) -> pa.Table:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith(ARROW_MEDIA)
    return pa.ipc.open_stream(io.BytesIO(response.content)).read_all()


def invalid(response: Any, status: int) -> dict[str, Any]:
    """A typed one-line INVALID_ARGUMENTS envelope with this HTTP status."""
    assert response.status_code == status, response.text
    body = assert_envelope(response.json())
    assert body["status"] == "INVALID_ARGUMENTS" and body["retryable"] is False
    assert body["message"] and "\n" not in body["message"]
    return body


@pytest.mark.parametrize(("path", "params", "body"), CASES)
def test_post_answers_what_the_get_answers(
    client: TestClient, path: str, params: dict, body: dict
) -> None:
    got, want = client.post(path, json=body), client.get(path, params=params)
    assert got.status_code == want.status_code
    assert assert_envelope(got.json()) == assert_envelope(want.json())
    if want.status_code == 200:
        t_post = arrow_of(client.post(path, json=body, headers={"Accept": ARROW_MEDIA}))
        t_get = arrow_of(client.get(path, params=params, headers={"Accept": ARROW_MEDIA}))
        assert t_post.equals(t_get, check_metadata=True)  # the envelope in the metadata too
        assert t_post.num_rows == len(want.json()["data"])


@pytest.mark.parametrize("name", [n for n, s in SCHEMAS.items() if s.queryable])
def test_every_dataset_answers_post(client: TestClient, name: str) -> None:
    """Every registry dataset has its POST (none listed by hand), answering as its GET."""
    spec = SCHEMAS[name]
    params: dict[str, Any] = {"as_of": "2025-06-06"}
    for field, info in spec.query.model_fields.items():  # the subject: symbols, an index
        if field == "symbols" or info.is_required():
            params[field] = spec.instruments[0] if spec.instruments else A
    path = f"/v1/{surfaces.path(spec)}"
    got, want = client.post(path, json=params), client.get(path, params=params)
    assert got.status_code == want.status_code == 200
    assert got.json() == want.json()
    for fmt in ("arrow", "parquet"):
        a = client.post(path, params={"format": fmt}, json=params)
        b = client.get(path, params={**params, "format": fmt})
        read = arrow_of if fmt == "arrow" else (lambda r: pq.read_table(io.BytesIO(r.content)))
        assert read(a).equals(read(b), check_metadata=True)


def test_a_post_names_more_symbols_than_a_query_string_may(client: TestClient) -> None:
    many = [A, B, *(f"{600600 + i:06d}.SH" for i in range(MAX_REQUEST_SYMBOLS))]
    r = client.post("/v1/financials", json={"symbols": many, "as_of": "2025-06-06"})
    assert r.status_code == 200, r.text
    assert {row["symbol"] for row in r.json()["data"]} == {A}  # B: nothing public; others: none
    too_many = client.get("/v1/financials", params={"symbols": ",".join(many[:501])})
    assert "too many symbols" in invalid(too_many, 400)["message"]


def test_a_version_known_after_the_cutoff_stays_out_of_the_post(
    make_client: Callable[..., TestClient], writable_lake: Path
) -> None:
    # a restatement of A's 2024 annual revenue, public only from 2025-05-10
    write(
        LakeStore(writable_lake),
        "financials",
        [statement_row(A, "2024-12-31", "2025-03-28", revision="2025-05-10", revenue=999.0)],
    )
    client = make_client(writable_lake, token="")

    def revenue(as_of: str, **kw: Any) -> dict[str, float]:
        r = client.post("/v1/financials", json={"symbols": [A], "as_of": as_of}, **kw)
        if kw:
            t = arrow_of(r)
            return dict(
                zip(
                    t.column("report_period").to_pylist(),
                    t.column("revenue").to_pylist(),
                    strict=True,
                )
            )
        return {row["report_period"]: row["revenue"] for row in r.json()["data"]}

    arrow = {"headers": {"Accept": ARROW_MEDIA}}
    from datetime import date

    assert revenue("2025-04-01") == {"2024-12-31": 100.0}  # Q1 (public 04-25) not yet
    assert revenue("2025-04-01", **arrow) == {date(2024, 12, 31): 100.0}
    assert revenue("2025-05-09") == {"2024-12-31": 100.0, "2025-03-31": 30.0}
    assert revenue("2025-05-10") == {"2024-12-31": 999.0, "2025-03-31": 30.0}
    assert revenue("2025-05-09", **arrow)[date(2024, 12, 31)] == 100.0


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"symbols": 5}, "symbols"),
        ({"symbols": [A, 7]}, "symbols"),
        ({"symbols": {"a": A}}, "symbols"),
        ({"symbols": [A], "latest_only": "maybe"}, "latest_only"),
        ({"symbols": [A], "as_of": 1717171717}, "as_of"),  # not read as a Unix time
        ({"symbols": [A], "statement": "cash"}, "statement"),
        ({"symbols": [A], "bogus": 1}, "bogus"),  # unknown fields are refused, not ignored
        ({"symbol": A}, "symbol"),  # GET's singular spelling is not a body field
        ({"as_of": "2025-06-06"}, "symbols"),  # required in the body
        ({"symbols": [A] * (MAX_SYMBOLS + 1)}, "symbols"),
        ({"symbols": [A], "as_of": "2025-06-06" * 10}, "as_of"),  # longer than on GET
    ],
)
def test_bad_bodies_are_typed_invalid_arguments(client: TestClient, body: dict, where: str) -> None:
    got = invalid(client.post("/v1/financials", json=body), 422)
    assert where in [e["loc"] for e in got["meta"]["errors"]], got["message"]


@pytest.mark.parametrize(
    ("content", "headers", "said"),
    [
        (b'{"symbols": ["600519.SH"', {"content-type": "application/json"}, "malformed JSON"),
        (b"", {"content-type": "application/json"}, "expected a JSON object"),
        (b"", {}, "expected a JSON object"),
        (b'["600519.SH"]', {"content-type": "application/json"}, "expected a JSON object"),
        (b'{"symbols": "600519.SH"}', {"content-type": "text/plain"}, "Content-Type"),
        (b"\xff\xfe{", {"content-type": "application/json"}, "not UTF-8"),  # was FastAPI's 400
        (b"[" * 100_000, {"content-type": "application/json"}, "nested too deeply"),  # that too
    ],
)
def test_a_body_that_is_not_a_json_object_is_invalid(
    client: TestClient, content: bytes, headers: dict, said: str
) -> None:
    got = invalid(client.post("/v1/financials", content=content, headers=headers), 422)
    assert got["meta"]["errors"][0]["loc"] == "body" and said in got["message"]


def test_too_many_symbols_in_a_comma_separated_body_is_refused(client: TestClient) -> None:
    text = ",".join(f"{600000 + i:06d}.SH" for i in range(MAX_SYMBOLS + 1))
    r = client.post("/v1/financials", json={"symbols": text})
    assert "too many symbols" in invalid(r, 400)["message"]


def test_a_body_over_the_cap_is_refused_before_it_is_read(client: TestClient) -> None:
    huge = json.dumps({"symbols": [A] * 10, "as_of": "x" * MAX_BODY_BYTES}).encode()
    r = client.post("/v1/financials", content=huge, headers={"content-type": "application/json"})
    assert "larger than" in invalid(r, 413)["message"]


def _drive(
    middleware_of: Callable[[Any], Any], chunks: list[bytes], headers: list
) -> tuple[list, list]:
    """Run PostBodies over a request sent in `chunks` (no Content-Length: chunked)."""
    seen: list[bytes] = []
    sent: list[dict] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        while True:
            m = await receive()
            seen.append(m.get("body", b""))
            if not m.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    queue = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
        for i, c in enumerate(chunks)
    ]

    async def receive() -> dict:
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    async def send(m: dict) -> None:
        sent.append(m)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/financials",
        "query_string": b"",
        "headers": headers,
    }
    asyncio.run(middleware_of(app)(scope, receive, send))
    return seen, sent


def test_a_chunked_body_over_the_cap_is_cut_off_at_the_cap() -> None:
    seen, sent = _drive(
        lambda app: PostBodies(app, max_bytes=10), [b"{" + b" " * 6, b" " * 6 + b"}"], []
    )
    assert seen == []  # the app never saw it
    assert sent[0]["status"] == 413
    assert json.loads(sent[1]["body"])["status"] == "INVALID_ARGUMENTS"
    seen, sent = _drive(lambda app: PostBodies(app, max_bytes=10), [b'{"a"', b":1}"], [])
    assert seen == [b'{"a":1}'] and sent[0]["status"] == 200  # under the cap: passed on whole


def test_a_pinned_server_clamps_a_post(make_client: Callable[..., TestClient]) -> None:
    pinned = make_client(as_of_pin="2025-06-05", allowed_pins={"early": "2025-06-04"}, token="")
    body = {"symbols": [A, B], "start": "2025-05-30", "end": "2025-06-30", "as_of": "2025-12-31"}
    params = {**body, "symbols": f"{A},{B}"}
    for headers, last in (({}, "2025-06-05"), ({"X-Pitlake-Pin": "early"}, "2025-06-04")):
        r = pinned.post("/v1/quotes", json=body, headers=headers)
        env = assert_envelope(r.json())
        assert r.status_code == 200 and env["meta"]["pinned"] is True
        assert env["meta"]["pin"]["clamped"] is True and env["as_of"].startswith(last)
        assert max(row["trade_date"] for row in env["data"]) == last  # nothing after the pin
        assert env == pinned.get("/v1/quotes", params=params, headers=headers).json()
        t = arrow_of(
            pinned.post("/v1/quotes", params={"format": "arrow"}, json=body, headers=headers)
        )
        assert max(t.column("trade_date").to_pylist()).isoformat() == last
    bad = pinned.post("/v1/quotes", json=body, headers={"X-Pitlake-Pin": "nope"})
    assert "unknown pin" in invalid(bad, 400)["message"]


def test_a_post_needs_the_token(make_client: Callable[..., TestClient]) -> None:
    guarded = make_client(token=TOKEN)
    body = {"symbols": [A], "as_of": "2025-06-06"}
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        r = guarded.post("/v1/financials", json=body, headers=headers)
        assert r.status_code == 401 and r.json()["status"] == "PERMISSION_DENIED"
    # the token is checked before the body is read: a stranger's huge body is a 401, not a 413
    huge = b"x" * (MAX_BODY_BYTES + 1)
    assert guarded.post("/v1/financials", content=huge).status_code == 401
    ok = guarded.post("/v1/financials", json=body, headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and ok.json()["data"]


def test_a_post_is_not_paged(client: TestClient) -> None:
    body = {"symbols": [A, B], "start": "2025-05-30", "end": "2025-06-30", "as_of": "2025-06-06"}
    whole = client.post("/v1/quotes", json=body).json()
    assert len(whole["data"]) == 10 and "page" not in whole["meta"]
    for query in ({"limit": 2}, {"limit": 2, "format": "json"}):
        assert (
            "not paged"
            in invalid(client.post("/v1/quotes", params=query, json=body), 400)["message"]
        )
    # a cursor from a GET never pages a POST (its fingerprint is the GET's query string)
    get = {"symbols": f"{A},{B}", "start": "2025-05-30", "end": "2025-06-30", "as_of": "2025-06-06"}
    cursor = client.get("/v1/quotes", params={**get, "limit": 2}).json()["meta"]["page"][
        "next_cursor"
    ]
    assert cursor
    r = client.post("/v1/quotes", params={"cursor": cursor}, json={**body, "symbols": [A]})
    assert "not paged" in invalid(r, 400)["message"]
    # POST /v1/sql likewise (its cursors paged any other statement)
    r = client.post("/v1/sql", params={"limit": 2}, json={"query": "SELECT 1 AS x"})
    assert "not paged" in invalid(r, 400)["message"]


def test_a_posts_query_string_only_says_how_to_answer(client: TestClient) -> None:
    body = {"symbols": [A], "as_of": "2025-06-06"}
    for query in ({"as_of": "2025-04-01"}, {"symbols": B}, {"bogus": ""}):
        r = client.post("/v1/financials", params=query, json=body)
        assert "unknown query parameter" in invalid(r, 400)["message"]
    sql = client.post("/v1/sql", params={"as_of": "2025-06-06"}, json={"query": "SELECT 1 AS x"})
    assert "unknown query parameter" in invalid(sql, 400)["message"]
    want = client.get("/v1/financials", params={**body, "format": "arrow"})
    none = client.post(
        "/v1/financials", params={"format": "arrow", "compression": "none"}, json=body
    )
    assert arrow_of(none).equals(arrow_of(want))
    bad = client.post("/v1/financials", params={"format": "xml"}, json=body)
    invalid(bad, 400)


def test_other_methods_and_paths_are_unchanged(client: TestClient) -> None:
    assert client.post("/v1/snapshot", json={}).status_code == 405
    assert client.put("/v1/quotes", json={}).status_code == 405
    r = client.get("/v1/financials", params={"symbol": A, "as_of": "2025-06-06", "bogus": "1"})
    assert r.status_code == 400 and "'bogus'" in r.json()["message"]  # never silently ignored
