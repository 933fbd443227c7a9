"""POST /v1/panel (issue 29) on the real app: the Arrow, Parquet and JSON answers equal
`Lake.panel`'s; every bad question is a 400/422 INVALID_ARGUMENTS envelope, never a 500; the
server's pin clamps every row's cutoff; a JSON answer past its row cap is refused."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient

from pitlake.envelope import ENVELOPE_METADATA_KEY, Result
from pitlake.read.lake import Lake
from pitlake.serve.api import panel_route
from pitlake.serve.api.app import create_app
from pitlake.serve.api.formats import ARROW_MEDIA
from tests.serve.api.conftest import assert_envelope
from tests.serve.api.lakebuild import CSI300, NOW, A, B

FIELDS = ["close", "pe", "net_profit", "net_profit_q", "revenue_ttm"]
ASK: dict[str, Any] = {"fields": FIELDS, "start": "2025-05-26", "end": "2025-06-11"}
PIN = "2025-06-04T23:59:59.999999+08:00"


def lake_result(lake_dir: Path, **kw: Any) -> Result:
    """`Lake.panel`'s own answer to the same question (its status is the panel's to say:
    the window holds failed and never-fetched sessions on purpose)."""
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        q = {**ASK, **kw}
        result = lake.panel(q.pop("fields"), q.pop("start"), q.pop("end"), **q)
    assert result.status != "INVALID_ARGUMENTS", result.message
    return result


def lake_panel(lake_dir: Path, **kw: Any) -> pa.Table:
    return lake_result(lake_dir, **kw).arrow_table()


def from_arrow(body: bytes) -> pa.Table:
    return pa.ipc.open_stream(io.BytesIO(body)).read_all()


@pytest.fixture(scope="module")
def pinned(lake_dir: Path) -> Iterator[TestClient]:
    app = create_app(
        lake_dir,
        as_of_pin="2025-06-04",
        allowed_pins={"early": "2025-06-03"},
        token="",
        clock=lambda: NOW,
    )
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("universe", ["all", CSI300, [A, B]], ids=["all", "index", "symbols"])
def test_the_arrow_answer_equals_lake_panel(
    client: TestClient, lake_dir: Path, universe: Any
) -> None:
    r = client.post(
        "/v1/panel", json={**ASK, "universe": universe}, headers={"Accept": ARROW_MEDIA}
    )
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith(ARROW_MEDIA)
    got = from_arrow(r.content)
    result = lake_result(lake_dir, universe=universe)
    want = result.arrow_table()
    assert got.num_rows > 0
    assert got.replace_schema_metadata(None).equals(want.replace_schema_metadata(None))
    assert r.headers["X-Pitlake-Status"] == str(result.status)
    assert r.headers["X-Pitlake-As-Of"] == result.as_of == "2025-06-11T15:00:00+08:00"
    assert r.headers["X-Pitlake-Rows"] == str(want.num_rows)
    envelope = json.loads(got.schema.metadata[ENVELOPE_METADATA_KEY.encode()])
    assert envelope["status"] == str(result.status) and envelope["as_of"] == result.as_of


def test_parquet_and_json_carry_the_same_panel(client: TestClient, lake_dir: Path) -> None:
    ask = {**ASK, "universe": [A, B], "provenance": True}
    want = lake_panel(lake_dir, universe=[A, B], provenance=True)
    r = client.post("/v1/panel?format=parquet&compression=none", json=ask)
    assert r.status_code == 200, r.text
    got = pq.read_table(io.BytesIO(r.content))
    assert got.replace_schema_metadata(None).equals(want.replace_schema_metadata(None))
    r = client.post("/v1/panel", json=ask)
    body = assert_envelope(r.json())
    assert r.status_code == 200
    result = lake_result(lake_dir, universe=[A, B], provenance=True)
    assert body["status"] == str(result.status) and body["meta"]["rows"] == want.num_rows
    assert body["data"] == result.data
    # A's 2025 Q1 (net profit 3.0, Q1: its own quarter) known from 04-25: on every row
    a_rows = [d for d in body["data"] if d["symbol"] == A]
    assert {(d["net_profit"], d["net_profit_q"]) for d in a_rows} == {(3.0, 3.0)}
    assert {d["income_report_period"] for d in a_rows} == {"2025-03-31"}


def test_as_ingested_hides_what_was_stored_after_it(client: TestClient, lake_dir: Path) -> None:
    """The body's as_ingested is `Lake.panel`'s: every row the lake stored after it hidden
    (this lake stored everything at 06-20 18:00), and the envelope says it."""
    before = "2025-06-20T17:00:00+08:00"
    ask = {**ASK, "universe": [A, B], "as_ingested": before}
    r = client.post("/v1/panel?format=arrow", json=ask)
    assert r.status_code == 200, r.text
    got = from_arrow(r.content).replace_schema_metadata(None)
    want = lake_panel(lake_dir, universe=[A, B], as_ingested=before)
    assert got.equals(want.replace_schema_metadata(None))
    assert got.num_rows > 0 and got["close"].null_count == got.num_rows
    assert not got.equals(lake_panel(lake_dir, universe=[A, B]).replace_schema_metadata(None))
    body = client.post("/v1/panel", json=ask).json()
    assert body["meta"]["as_ingested"] == before
    assert body["status"] == str(lake_result(lake_dir, universe=[A, B], as_ingested=before).status)


@pytest.mark.parametrize(
    ("change", "code", "says"),
    [
        ({"fields": ["closee"]}, 400, "unknown panel field 'closee'"),
        ({"fields": []}, 400, "at least one field"),
        ({"start": "2025-13-01"}, 400, "must be dates"),
        ({"start": "2025-06-11", "end": "2025-06-01"}, 400, "before start"),
        ({"universe": "000999.XX"}, 400, "unknown universe"),
        ({"universe": ["600519.SH", "not-a-symbol"]}, 400, "not-a-symbol"),
        ({"at": "25:00"}, 400, "bad at"),
        ({"as_of": "soon"}, 400, "as_of"),
        ({"as_ingested": "soon"}, 400, "as_ingested"),
        ({"as_ingested": "2025-02-30"}, 400, "as_ingested"),
        ({"start": "2015-01-01"}, 400, "at most 1,830 days"),
        ({"fields": 3}, 422, "fields"),
        ({"symbols": [A]}, 422, "symbols"),
    ],
)
def test_a_bad_question_is_invalid_arguments(
    client: TestClient, change: dict[str, Any], code: int, says: str
) -> None:
    r = client.post("/v1/panel", json={**ASK, **change})
    body = assert_envelope(r.json())
    assert (r.status_code, body["status"]) == (code, "INVALID_ARGUMENTS"), body
    assert says in body["message"]


def test_the_query_string_only_says_how_to_answer(client: TestClient) -> None:
    for query in ("limit=10", "as_of=2025-06-04", "format=xml"):
        r = client.post(f"/v1/panel?{query}", json=ASK)
        assert r.status_code == 400 and r.json()["status"] == "INVALID_ARGUMENTS", query
    r = client.post("/v1/panel", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["status"] == "INVALID_ARGUMENTS"


def test_a_pinned_server_clamps_every_row(pinned: TestClient, lake_dir: Path) -> None:
    ask = {**ASK, "universe": [A, B], "as_of": "2025-12-31"}
    r = pinned.post("/v1/panel?format=arrow", json=ask)
    assert r.status_code == 200, r.text
    got = from_arrow(r.content).replace_schema_metadata(None)
    want = lake_panel(lake_dir, universe=[A, B], as_of=PIN).replace_schema_metadata(None)
    assert got.equals(want)
    assert r.headers["X-Pitlake-Pinned"] == "true"
    assert r.headers["X-Pitlake-As-Of"] == PIN  # the last row's cutoff, capped at the pin
    # the bars of 06-05 on were not known at the pin: null in every later row
    later = got.filter(pc.greater(got["trade_date"], pa.scalar(date(2025, 6, 4))))
    assert later.num_rows > 0 and later["close"].null_count == later.num_rows
    body = pinned.post("/v1/panel", json=ask).json()
    assert body["meta"]["pin"] == {"name": None, "as_of": PIN, "clamped": True}
    # a named pin is stricter still
    early = pinned.post("/v1/panel?format=arrow", json=ask, headers={"X-Pitlake-Pin": "early"})
    got_early = from_arrow(early.content).replace_schema_metadata(None)
    want_early = lake_panel(lake_dir, universe=[A, B], as_of="2025-06-03")
    assert got_early.equals(want_early.replace_schema_metadata(None))
    assert not got_early.equals(got)
    unknown = pinned.post("/v1/panel", json=ask, headers={"X-Pitlake-Pin": "late"})
    assert unknown.status_code == 400 and "unknown pin" in unknown.json()["message"]


def test_a_json_answer_past_its_cap_asks_for_arrow(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(panel_route, "MAX_JSON_ROWS", 5)
    ask = {**ASK, "universe": [A, B]}
    r = client.post("/v1/panel", json=ask)
    body = assert_envelope(r.json())
    assert (r.status_code, body["status"]) == (400, "INVALID_ARGUMENTS")
    assert "JSON answer stops at 5" in body["message"] and body["data"] == []
    arrow = client.post("/v1/panel?format=arrow", json=ask)
    assert arrow.status_code == 200 and from_arrow(arrow.content).num_rows > 5


def test_a_panel_past_the_concurrency_bound_is_told_to_retry(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One panel at a time by default: a second one, its wait over, is RATE_LIMITED with Retry-After (HTTP 200, as every data status)
    (never a queue that holds every core and gigabytes); the slot is free again after each
    answer, a refused one included."""
    from pitlake.read import slots

    monkeypatch.setenv(panel_route.QUEUE_WAIT_ENV, "0")
    monkeypatch.setattr(
        panel_route,
        "SLOTS",
        slots.Slots(panel_route.CONCURRENCY_ENV, 1, panel_route.QUEUE_WAIT_ENV, 0.0),
    )
    ask = {**ASK, "universe": [A, B]}
    assert panel_route.SLOTS.acquire()  # the one slot, held by "another panel"
    try:
        busy = client.post("/v1/panel", json=ask)
    finally:
        panel_route.SLOTS.release()
    body = assert_envelope(busy.json())
    assert (busy.status_code, body["status"], body["retryable"]) == (200, "RATE_LIMITED", True)
    assert busy.headers["Retry-After"] == str(slots.RETRY_AFTER_S)
    assert panel_route.CONCURRENCY_ENV in body["message"]
    for _ in range(2):  # each answer gives its slot back
        again = client.post("/v1/panel?format=arrow", json=ask)
        assert again.status_code == 200, again.text
    assert client.post("/v1/panel", json={**ASK, "fields": ["nope"]}).status_code == 400
    assert client.post("/v1/panel?format=arrow", json=ask).status_code == 200
