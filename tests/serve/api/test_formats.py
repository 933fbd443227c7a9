"""HTTP answer formats: Arrow IPC and Parquet round-trip with pyarrow to the same values as the
Lake's own Arrow answer, carry the envelope in headers and schema metadata, and keep the future
out like JSON does; JSON pages with a cursor; /v1/sql is clamped by a pin; OpenAPI says so."""

from __future__ import annotations

import io
import json
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient
from pitlake.schemas import SCHEMAS

from pitlake.envelope import ENVELOPE_METADATA_KEY
from pitlake.lake.catalog import Catalog
from pitlake.read.lake import Lake
from pitlake.serve.api import surfaces
from pitlake.serve.api.formats import ARROW_MEDIA, PARQUET_MEDIA
from tests.serve.api.lakebuild import NOW, A, B

QUOTES = {"symbols": f"{A},{B}", "start": "2025-05-30", "end": "2025-06-30", "as_of": "2025-06-06"}


def arrow_of(response: Any) -> pa.Table:
    assert response.status_code == 200, response.text
    return pa.ipc.open_stream(io.BytesIO(response.content)).read_all()


def parquet_of(response: Any) -> pa.Table:
    assert response.status_code == 200, response.text
    return pq.read_table(io.BytesIO(response.content))


def lake_answer(lake_dir: Any, read: str, **kw: Any) -> Any:
    catalog = Catalog(f"sqlite:///{lake_dir / 'catalog.db'}")
    try:
        with Lake(lake_dir, catalog=catalog, clock=lambda: NOW) as lake:
            return getattr(lake, read)(**kw)
    finally:
        catalog.close()


def test_arrow_and_parquet_round_trip_to_the_lakes_own_answer(
    client: TestClient, lake_dir: Any
) -> None:
    want = lake_answer(
        lake_dir, "quotes", symbols=[A, B], start="2025-05-30", end="2025-06-30", as_of="2025-06-06"
    ).to_arrow()
    by_accept = arrow_of(client.get("/v1/quotes", params=QUOTES, headers={"Accept": ARROW_MEDIA}))
    by_param = arrow_of(client.get("/v1/quotes", params={**QUOTES, "format": "arrow"}))
    parquet = parquet_of(client.get("/v1/quotes", params={**QUOTES, "format": "parquet"}))
    for got in (by_accept, by_param, parquet):
        assert got.num_rows == want.num_rows == 10
        assert got.schema.remove_metadata() == want.schema.remove_metadata()
        assert got.to_pylist() == want.to_pylist()
    # and the same values as the JSON answer
    rows = client.get("/v1/quotes", params=QUOTES).json()["data"]
    assert [r["close"] for r in rows] == by_accept.column("close").to_pylist()
    assert [r["trade_date"] for r in rows] == [
        d.isoformat() for d in by_accept.column("trade_date").to_pylist()
    ]


def test_the_envelope_is_in_headers_and_schema_metadata(client: TestClient) -> None:
    params = {"symbol": A, "date": "2025-06-09", "as_of": "2025-06-12"}  # a failed session
    r = client.get("/v1/quotes", params=params, headers={"Accept": ARROW_MEDIA})
    table = arrow_of(r)
    assert r.headers["content-type"] == ARROW_MEDIA
    env = json.loads(table.schema.metadata[ENVELOPE_METADATA_KEY.encode()])
    js = client.get("/v1/quotes", params=params).json()
    assert {k: v for k, v in js.items() if k != "data"} == env
    assert r.headers["X-Pitlake-Status"] == js["status"] == "UPSTREAM_ERROR"
    assert r.headers["X-Pitlake-Requested-Date"] == "2025-06-09"
    assert r.headers["X-Pitlake-Effective-Trade-Date"] == js["effective_trade_date"]
    assert r.headers["X-Pitlake-Date-Status"] == js["date_status"]
    assert r.headers["X-Pitlake-As-Of"] == js["as_of"]
    assert r.headers["X-Pitlake-Pinned"] == "false"
    gaps = json.loads(r.headers["X-Pitlake-Gaps"])
    assert gaps["total"] >= 1 and gaps["by_status"].get("UPSTREAM_ERROR", 0) >= 1
    p = client.get("/v1/quotes", params={**params, "format": "parquet"})
    assert p.headers["content-type"] == PARQUET_MEDIA
    meta = pq.read_schema(io.BytesIO(p.content)).metadata[ENVELOPE_METADATA_KEY.encode()]
    assert json.loads(meta) == env


@pytest.mark.parametrize("fmt", ["json", "arrow", "parquet"])
def test_a_version_after_the_cutoff_stays_out_of_every_format(client: TestClient, fmt: str) -> None:
    # as of 06-04: neither the 06-05/06-06 bars nor A's 06-05 ex-date factor (2.0) are public
    params = {**QUOTES, "as_of": "2025-06-04", "adjust": "qfq", "format": fmt}
    r = client.get("/v1/quotes", params=params)
    if fmt == "json":
        rows = r.json()["data"]
        dates = {x["trade_date"] for x in rows}
        factors = {x["adj_factor"] for x in rows}
    else:
        t = arrow_of(r) if fmt == "arrow" else parquet_of(r)
        dates = {d.isoformat() for d in t.column("trade_date").to_pylist()}
        factors = set(t.column("adj_factor").to_pylist())
    assert dates == {"2025-05-30", "2025-06-03", "2025-06-04"}
    assert factors == {1.0}
    sql = client.get(
        "/v1/sql",
        params={"q": "SELECT * FROM quotes_qfq", "as_of": "2025-06-04", "format": fmt},
    )
    if fmt == "json":
        got = {(x["trade_date"], x["adj_factor"]) for x in sql.json()["data"]}
    else:
        t = arrow_of(sql) if fmt == "arrow" else parquet_of(sql)
        got = {
            (d.isoformat(), f)
            for d, f in zip(
                t.column("trade_date").to_pylist(), t.column("adj_factor").to_pylist(), strict=True
            )
        }
    assert {d for d, _ in got} == dates and {f for _, f in got} == {1.0}


def test_json_pages_with_a_cursor_at_the_first_pages_as_of(client: TestClient) -> None:
    full = client.get("/v1/quotes", params=QUOTES).json()
    assert "page" not in full["meta"]  # unpaged answers are as before
    rows, cursor, pages = [], None, 0
    while True:
        params: dict[str, Any] = {k: v for k, v in QUOTES.items() if k != "as_of" or not cursor}
        params.update({"limit": 3, **({"cursor": cursor} if cursor else {})})
        body = client.get("/v1/quotes", params=params).json()
        page = body["meta"]["page"]
        assert page["total_rows"] == 10 and page["rows"] == len(body["data"]) <= 3
        assert body["as_of"] == full["as_of"]  # the cursor keeps the first page's cutoff
        rows += body["data"]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == 4 and rows == full["data"]


@pytest.mark.parametrize(
    "params",
    [
        {"limit": "0"},
        {"limit": "abc"},
        {"cursor": "not-a-cursor"},
        {"format": "xml"},
        {"format": ""},  # found by schemathesis: an empty format was read as JSON
        {"limit": ""},  # found by schemathesis: an empty limit was read as no limit
        {"format": "arrow", "compression": "gzip"},
        {"format": "arrow", "compression": ""},  # like `format=`: a mistake, not the default
    ],
)
def test_bad_page_or_format_is_invalid_arguments(client: TestClient, params: dict) -> None:
    r = client.get("/v1/quotes", params={**QUOTES, **params})
    assert r.status_code == 400 and r.json()["status"] == "INVALID_ARGUMENTS"


@pytest.mark.parametrize("compression", [None, "lz4", "zstd", "none"])
@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM quotes ORDER BY symbol, trade_date",
        "SELECT * FROM financials ORDER BY symbol, statement, report_period",
    ],
)
def test_every_compression_reads_back_to_lake_sqls_table(
    client: TestClient, lake_dir: Any, monkeypatch: pytest.MonkeyPatch, query: str, compression: Any
) -> None:
    """The Arrow body (LZ4 record batches by default) and the Parquet body read back with plain
    pyarrow to Lake.sql's table, value for value, over several batches (two rows each: the
    sink keeps the writer's buffers without copying them, so a reused one would show)."""
    from pitlake.serve.api import streams

    monkeypatch.setattr(streams, "BATCH_ROWS", 2)
    want = lake_answer(lake_dir, "sql", query=query, as_of="2025-06-06").to_arrow()
    assert want.num_rows >= 2
    params = {"q": query, "as_of": "2025-06-06"}
    if compression:
        params["compression"] = compression
    for fmt in ("arrow", "parquet"):
        got = (arrow_of if fmt == "arrow" else parquet_of)(
            client.get("/v1/sql", params={**params, "format": fmt})
        )
        schema = want.schema.remove_metadata()
        if fmt == "parquet":  # Parquet has no empty group: an all-null struct<> goes as null
            schema = pa.schema(
                pa.field(f.name, pa.null()) if f.type == pa.struct([]) else f for f in schema
            )
        assert got.schema.remove_metadata() == schema
        assert got.to_pylist() == want.to_pylist()
        assert json.loads(got.schema.metadata[ENVELOPE_METADATA_KEY.encode()])["meta"]["rows"] == (
            want.num_rows
        )


def test_the_arrow_body_is_compressed_unless_asked_not_to(client: TestClient) -> None:
    params = {"q": "SELECT * FROM quotes CROSS JOIN range(200)", "as_of": "2025-06-06"}
    size = {
        c: len(
            client.get("/v1/sql", params={**params, "format": "arrow", "compression": c}).content
        )
        for c in ("lz4", "zstd", "none")
    }
    default = client.get("/v1/sql", params=params, headers={"Accept": ARROW_MEDIA}).content
    # (the sizes of one codec differ by the envelope in the schema metadata, e.g. its timings)
    assert max(len(default), size["lz4"], size["zstd"]) < size["none"] / 2
    parquet = client.get("/v1/sql", params={**params, "format": "parquet"}).content
    codecs = {
        c: pq.ParquetFile(io.BytesIO(body)).metadata.row_group(0).column(0).compression
        for c, body in (
            ("default", parquet),
            (
                "none",
                client.get(
                    "/v1/sql", params={**params, "format": "parquet", "compression": "none"}
                ).content,
            ),
        )
    }
    assert codecs == {"default": "ZSTD", "none": "UNCOMPRESSED"}
    # JSON ignores it; a JSON page's cursor does not depend on it
    first = client.get("/v1/quotes", params={**QUOTES, "limit": 2, "compression": "zstd"})
    cursor = first.json()["meta"]["page"]["next_cursor"]
    nxt = client.get(
        "/v1/quotes",
        params={
            "symbols": QUOTES["symbols"],
            "start": QUOTES["start"],
            "end": QUOTES["end"],
            "limit": 2,
            "cursor": cursor,
        },
    )
    assert first.status_code == nxt.status_code == 200 and len(nxt.json()["data"]) == 2


def test_a_body_that_cannot_be_written_is_a_503_envelope_not_an_empty_200(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pitlake.serve.api import streams

    def broken(table: pa.Table, compression: str) -> Any:
        raise pa.ArrowNotImplementedError("cannot write this")
        yield b""

    monkeypatch.setattr(streams, "parquet_stream", broken)
    r = make_client(token="").get("/v1/quotes", params={**QUOTES, "format": "parquet"})
    assert r.status_code == 503 and r.json()["status"] == "UPSTREAM_ERROR"


def test_a_cursor_only_fits_its_own_question(client: TestClient) -> None:
    first = client.get("/v1/quotes", params={**QUOTES, "limit": 2}).json()
    cursor = first["meta"]["page"]["next_cursor"]
    other = {**QUOTES, "symbols": A, "cursor": cursor}
    other.pop("as_of")
    r = client.get("/v1/quotes", params=other)
    assert r.status_code == 400 and "another question" in r.json()["message"]


def test_columnar_formats_where_the_answer_is_not_one_table(client: TestClient) -> None:
    r = client.get("/v1/snapshot", params={"symbol": A}, headers={"Accept": ARROW_MEDIA})
    assert r.status_code == 406 and r.json()["status"] == "INVALID_ARGUMENTS"
    bad = client.get("/v1/quotes", params={"symbol": "nope", "format": "arrow"})
    assert bad.status_code == 400 and bad.json()["status"] == "INVALID_ARGUMENTS"  # why, in JSON


def test_a_pinned_server_clamps_sql(make_client: Any) -> None:
    pinned = make_client(as_of_pin="2025-06-04", token="")
    q = "SELECT max(trade_date) AS last, count(*) AS n FROM quotes"
    for r in (
        pinned.get("/v1/sql", params={"q": q, "as_of": "2025-12-31"}),
        pinned.post("/v1/sql", json={"query": q, "as_of": "2025-12-31"}),
    ):
        body = r.json()
        assert r.status_code == 200 and body["data"] == [{"last": "2025-06-04", "n": 6}]
        assert body["meta"]["pinned"] is True and body["meta"]["pin"]["clamped"] is True
        assert body["as_of"].startswith("2025-06-04T23:59:59")
    t = arrow_of(pinned.get("/v1/sql", params={"q": q, "as_of": "2025-12-31", "format": "arrow"}))
    assert t.to_pylist()[0]["n"] == 6
    raw = pinned.get("/v1/sql", params={"q": "SELECT * FROM read_parquet('quotes/*/*.parquet')"})
    assert raw.status_code == 400 and "not reachable" in raw.json()["message"]


def test_openapi_describes_the_three_formats_and_the_pages(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    op = doc["paths"]["/v1/quotes"]["get"]
    names = {p["name"] for p in op["parameters"]}
    assert {"format", "compression", "limit", "cursor"} <= names
    codec = next(p for p in op["parameters"] if p["name"] == "compression")
    assert codec["schema"]["enum"] == ["lz4", "zstd", "none"] and "lz4" in codec["description"]
    content = op["responses"]["200"]["content"]
    assert {"application/json", ARROW_MEDIA, PARQUET_MEDIA} <= set(content)
    assert "X-Pitlake-Status" in op["responses"]["200"]["headers"]
    assert {"get", "post"} <= set(doc["paths"]["/v1/sql"])
    for path in ("/v1/quotes", "/v1/sql"):  # a POST takes format/compression, never a page
        post = doc["paths"][path]["post"]
        assert {p["name"] for p in post["parameters"] if p["in"] == "query"} == {
            "format",
            "compression",
        }
        assert {ARROW_MEDIA, PARQUET_MEDIA} <= set(post["responses"]["200"]["content"])
    news = {p["name"] for p in doc["paths"]["/v1/news"]["get"]["parameters"]}
    assert "cursor" not in news  # news keeps its own limit (newest N)


def test_the_gaps_header_counts_every_missing_session_not_the_capped_list() -> None:
    # 60 symbols each missing a run of 3 sessions: meta.gaps lists 50 runs (capped), the
    # summary counts 180 symbol-sessions; the header must say 180, not 50 (nor 60).
    from datetime import date

    from pitlake.read.status import Gap, gaps_meta
    from pitlake.serve.api.formats import envelope_headers
    from pitlake.statuses import ResultStatus

    gaps = [
        Gap(
            f"{i:06d}.SZ",
            date(2025, 6, 9),
            ResultStatus.UPSTREAM_ERROR,
            "boom",
            None,
            last=date(2025, 6, 11),
            sessions=3,
        )
        for i in range(60)
    ]
    meta = gaps_meta(gaps)
    assert len(meta["gaps"]) == 50
    header = json.loads(
        envelope_headers({"status": "UPSTREAM_ERROR", "meta": meta})["X-Pitlake-Gaps"]
    )
    assert header == {"total": 180, "by_status": {"UPSTREAM_ERROR": 180}}


@pytest.mark.parametrize("name", [n for n, s in SCHEMAS.items() if s.queryable])
def test_every_dataset_route_answers_arrow(client: TestClient, name: str) -> None:
    """The formats follow the registry: a new dataset's route answers Arrow without being
    listed anywhere (index_quotes once answered JSON only because a path list missed it)."""
    spec = SCHEMAS[name]
    params = {"format": "arrow", "as_of": "2025-06-06"}
    for field, info in spec.query.model_fields.items():  # the subject: symbols, an index
        if field == "symbols" or info.is_required():
            params[field] = spec.instruments[0] if spec.instruments else A
    r = client.get(f"/v1/{surfaces.path(spec)}", params=params)
    got = arrow_of(r)
    assert r.headers["content-type"].startswith(ARROW_MEDIA)
    params.pop("format")
    rows = client.get(f"/v1/{surfaces.path(spec)}", params=params).json()["data"]
    assert got.num_rows == len(rows)
    if rows:
        assert got.schema.names == list(rows[0])
