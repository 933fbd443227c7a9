"""The lake on S3-compatible object storage: moto in server mode on 127.0.0.1, reached through
s3fs exactly as a real bucket would be. Every HTTP request the server answers is logged, so the
tests count PUTs per partition write; any socket connection off loopback fails the test."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from pitlake.lake.catalog import Catalog
from pitlake.lake.fs import ObjectFS, ObjectPath, local_lock_dir
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from tests.lake.conftest import INGEST, NOW, bar, factor, write

boto3 = pytest.importorskip("boto3")
moto_server = pytest.importorskip("moto.server")

BUCKET = "pitlake-test"
A, B = "600519.SH", "000001.SZ"
LOOPBACK = ("127.0.0.1", "::1", "localhost")


class RequestLog:
    """The (method, path, query) of every request the moto server answered."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, str, str]] = []
        self._lock = threading.Lock()

    def wrap(self, app: Any) -> Any:
        def logged(environ: dict[str, Any], start_response: Any) -> Any:
            with self._lock:
                self.entries.append(
                    (environ["REQUEST_METHOD"], environ["PATH_INFO"], environ["QUERY_STRING"])
                )
            return app(environ, start_response)

        return logged

    def mark(self) -> int:
        return len(self.entries)

    def since(self, mark: int, method: str | None = None) -> list[tuple[str, str, str]]:
        return [e for e in self.entries[mark:] if method is None or e[0] == method]


@pytest.fixture(scope="module")
def s3_server() -> Iterator[tuple[str, RequestLog]]:
    """moto on loopback (a free port), its WSGI app wrapped to log requests."""
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    log = RequestLog()
    server._server.app = log.wrap(server._server.app)  # werkzeug serves `server.app`
    try:
        yield f"http://{host}:{port}", log
    finally:
        server.stop()


@pytest.fixture
def s3(
    s3_server: tuple[str, RequestLog], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[RequestLog]:
    """A fresh bucket, the AWS environment pointing at moto, and no socket off loopback."""
    endpoint, log = s3_server
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "PITLAKE_S3_ENDPOINT_URL": endpoint,
        "PITLAKE_LOCK_DIR": str(tmp_path / "locks"),
        "PITLAKE_DOCS_DIR": str(tmp_path / "docs"),
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    real_connect = socket.socket.connect

    def loopback_only(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in LOOPBACK:
            raise AssertionError(f"a test tried to reach {address} off loopback")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", loopback_only)
    client = boto3.client("s3", endpoint_url=endpoint)
    client.create_bucket(Bucket=BUCKET)
    yield log
    objects = client.list_objects_v2(Bucket=BUCKET).get("Contents", [])
    for obj in objects:
        client.delete_object(Bucket=BUCKET, Key=obj["Key"])
    client.delete_bucket(Bucket=BUCKET)


URL = f"s3://{BUCKET}/lake"


def _objects(prefix: str = "lake/") -> dict[str, str]:
    """key → ETag of every object under the prefix (straight from the server via boto3)."""
    from pitlake.lake.fs import endpoint_url

    client = boto3.client("s3", endpoint_url=endpoint_url())
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])
    return {o["Key"]: o["ETag"] for o in listed}


def _puts(log: RequestLog, mark: int) -> list[str]:
    return [path for _, path, _ in log.since(mark, "PUT")]


# ---------------------------------------------------------------- store


def test_a_partition_write_is_one_put_and_reads_come_back(s3: RequestLog) -> None:
    store = LakeStore(URL)
    assert store.remote and store.root == ObjectPath(URL)
    mark = s3.mark()
    res = write(store, "quotes", [bar(A, "2024-12-31", 9.0), bar(A, "2025-06-03", 10.0)])
    assert res.written == ["2024", "2025"] and res.rows_added == 2
    assert sorted(_puts(s3, mark)) == [
        f"/{BUCKET}/lake/curated/quotes/year=2024/part.parquet",
        f"/{BUCKET}/lake/curated/quotes/year=2025/part.parquet",
    ]
    assert not s3.since(mark, "POST")  # no multipart upload, no batch delete
    assert not any("uploads" in q for _, _, q in s3.since(mark))
    assert set(_objects()) == {
        "lake/curated/quotes/year=2024/part.parquet",
        "lake/curated/quotes/year=2025/part.parquet",
    }  # no temp objects, no lock objects
    assert [p.value for p in store.list_partitions("quotes")] == ["2024", "2025"]
    assert store.files("quotes", ["2025"]) == [store.partition_path("quotes", "2025")]
    assert (
        str(store.partition_path("quotes", "2025"))
        == f"{URL}/curated/quotes/year=2025/part.parquet"
    )
    got = store.read_partition("quotes", "2025")
    assert got is not None and list(got["close"]) == [10.0]
    assert list(store.read_all("quotes").sort_values("trade_date")["close"]) == [9.0, 10.0]
    assert store.read_partition("quotes", "2023") is None
    assert store.list_partitions("valuation") == []
    # the lock for a partition is a local file named after the object's URL
    assert (local_lock_dir(str(store.partition_dir("quotes", "2025"))) / ".lock").is_file()
    # the sha256 the store reports is the object's content
    sha = {p.value: p.sha256 for p in res.partitions}
    assert sha["2025"] == store.fs.sha256(store.partition_path("quotes", "2025"))


def test_reingesting_identical_data_puts_nothing_and_keeps_every_object(s3: RequestLog) -> None:
    store = LakeStore(URL)
    rows = [bar(A, "2025-06-03", 10.0), bar(B, "2025-06-03", 5.0), factor(A, "2025-06-03", 1.0)]
    write(store, "quotes", rows[:2])
    write(store, "adj_factors", rows[2:])
    before = _objects()
    mark = s3.mark()
    again = write(store, "quotes", rows[:2], ingested_at=INGEST + timedelta(days=1))
    again_f = write(store, "adj_factors", rows[2:], ingested_at=INGEST + timedelta(days=1))
    assert not again.changed and not again_f.changed and again.rows_added == 0
    assert _puts(s3, mark) == []
    # each partition fetched once: its hash for the catalog comes from the same bytes
    reads = [p for m, p, _ in s3.since(mark) if m in ("GET", "HEAD") and p.endswith(".parquet")]
    assert sorted(reads) == [
        f"/{BUCKET}/lake/curated/adj_factors/year=2025/part.parquet",
        f"/{BUCKET}/lake/curated/quotes/year=2025/part.parquet",
    ]
    assert {p.value: p.sha256 for p in again.partitions} == {
        "2025": store.fs.sha256(store.partition_path("quotes", "2025"))
    }
    assert _objects() == before  # same keys, same ETags
    # a changed row is a new version: one more PUT of that partition only
    mark = s3.mark()
    res = write(store, "quotes", [bar(A, "2025-06-04", 11.0)], ingested_at=INGEST + timedelta(1))
    assert res.rows_added == 1
    assert _puts(s3, mark) == [f"/{BUCKET}/lake/curated/quotes/year=2025/part.parquet"]
    assert len(store.read_all("quotes")) == 3


def test_raw_zone_and_quarantine_go_to_the_bucket(s3: RequestLog) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    store = LakeStore(URL)
    import pandas as pd

    frame = pd.DataFrame({"ts_code": [A], "close": [10.0]})
    mark = s3.mark()
    raw = store.raw.write(
        "tushare", "daily", {"trade_date": "20250603", "token": "s3cr3t"}, frame,
        fetched_at=INGEST, run_id="run1", seq=3,
    )  # fmt: skip
    q = store.quarantine.keep("quotes", "run1", frame, {"why": "bad"}, label="x")
    assert str(raw) == f"{URL}/raw/tushare/daily/fetch_date=2025-06-20/run1-3.parquet"
    assert str(q) == f"{URL}/quarantine/quotes/run1/batch-x.parquet"
    assert len(_puts(s3, mark)) == 3  # raw file, quarantined batch, its report
    table = pq.read_table(pa.BufferReader(store.fs.read_bytes(raw)))
    meta = table.schema.metadata
    assert table.column("close").to_pylist() == [10.0]
    assert b"s3cr3t" not in meta[b"pitlake.params"] and b"20250603" in meta[b"pitlake.params"]
    report = store.fs.read_bytes(q.parent / "report-x.json")
    assert b'"why": "bad"' in report


def test_concurrent_writers_of_one_partition_lose_no_update(s3: RequestLog) -> None:
    """Read-merge-write under the local lock: without it, a writer would PUT a file read
    before another writer's PUT and drop that writer's rows."""
    days = ["2025-06-03", "2025-06-04", "2025-06-05", "2025-06-06"]
    errors: list[BaseException] = []

    def writer(i: int) -> None:
        try:  # each thread its own store, as separate processes would have
            write(LakeStore(URL), "quotes", [bar(A, days[i], 10.0 + i)],
                  ingested_at=INGEST + timedelta(minutes=i))  # fmt: skip
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(len(days))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    got = LakeStore(URL).read_all("quotes")
    assert sorted(str(d) for d in got["trade_date"]) == days


def test_the_network_guard_refuses_addresses_off_loopback(s3: RequestLog) -> None:
    with pytest.raises(AssertionError, match="off loopback"):
        socket.create_connection(("192.0.2.1", 443), timeout=1)  # TEST-NET-1: never reached


# ---------------------------------------------------------------- Lake reads


def test_lake_reads_an_s3_lake_as_of_a_cutoff(s3: RequestLog, tmp_path: Path) -> None:
    store = LakeStore(URL)
    write(store, "quotes", [bar(A, d, 10.0) for d in ("2025-06-03", "2025-06-04")])
    write(store, "adj_factors", [factor(A, d, 1.0) for d in ("2025-06-03", "2025-06-04")])
    write(store, "quotes", [bar(A, "2025-06-05", 666.0)])  # public after the cutoff below
    cat = Catalog(f"sqlite:///{tmp_path}/catalog.db")
    try:
        with Lake(URL, catalog=cat, clock=lambda: NOW) as lake:
            res = lake.quotes(
                A, start="2025-06-01", end="2025-06-30", as_of="2025-06-04T16:00+08:00"
            )
            assert [r["trade_date"] for r in res.data] == ["2025-06-03", "2025-06-04"]
            assert all(r["close"] != 666.0 for r in res.data)
            later = lake.quotes(
                A, start="2025-06-01", end="2025-06-30", as_of="2025-06-06T16:00+08:00"
            )
            assert [r["close"] for r in later.data] == [10.0, 10.0, 666.0]
            qfq = lake.quotes(A, start="2025-06-03", end="2025-06-04", as_of="2025-06-04T16:00+08:00",
                              adjust="qfq")  # fmt: skip
            assert [r["close"] for r in qfq.data] == [10.0, 10.0]
    finally:
        cat.close()


def test_a_lake_on_s3_needs_a_catalog_url(s3: RequestLog, monkeypatch: pytest.MonkeyPatch) -> None:
    from pitlake.pipeline.resources import RunEnv

    monkeypatch.delenv("PITLAKE_CATALOG_URL", raising=False)
    with Lake(URL) as lake, pytest.raises(ValueError, match="object storage: give a catalog URL"):
        _ = lake.catalog
    with pytest.raises(ValueError, match="PITLAKE_CATALOG_URL"):
        RunEnv(URL, source="replay:sample", run_id="r1")
    with pytest.raises(ValueError, match="on object storage"):  # e.g. the CLI's summary read
        Catalog(lake_root=URL)
    assert not Path("s3:").exists()  # nothing created in the working directory


def test_object_paths_and_unsupported_urls() -> None:
    p = ObjectPath("s3://bkt/lake/")
    assert str(p / "curated" / "quotes") == "s3://bkt/lake/curated/quotes"
    assert (p / "a/b").parent == ObjectPath("s3://bkt/lake/a") and (p / "x").name == "x"
    assert p.key == "bkt/lake"
    with pytest.raises(ValueError, match="s3://bucket/prefix"):
        LakeStore("gs://bkt/lake")
    with pytest.raises(ValueError, match="names no bucket"):
        ObjectPath("s3:///lake")
    assert isinstance(LakeStore("relative/dir").root, Path)


# ---------------------------------------------------------------- the ingest pipeline


def test_the_ingest_pipeline_fills_an_s3_lake_from_the_sample(
    s3: RequestLog, tmp_path: Path
) -> None:
    from pitlake.pipeline.backfill import backfill_chunk
    from pitlake.pipeline.planning import chunks_for
    from pitlake.pipeline.resources import RunEnv, new_run_id
    from pitlake.pipeline.summary import summarize
    from pitlake.pipeline.units import UnitOutcome

    start, end = date(2025, 6, 1), date(2025, 6, 30)
    catalog_url = f"sqlite:///{tmp_path}/catalog.db"
    run_id = new_run_id("backfill")
    env = RunEnv(URL, source="replay:sample", run_id=run_id, catalog_url=catalog_url)
    try:
        assert isinstance(env.store.fs, ObjectFS)
        outcomes: list[UnitOutcome] = []
        for ds in ("securities", "quotes", "adj_factors"):
            for lo, hi in chunks_for(ds, start, end):
                outcomes += backfill_chunk(env, ds, lo, hi, None)
        summary = summarize(outcomes).to_dict()
        assert summary["completed"], summary
        assert env.universe()  # DuckDB read the master's s3:// files through the store's fs
    finally:
        env.close()
    objects = _objects()
    assert "lake/curated/quotes/year=2025/part.parquet" in objects
    assert any(k.startswith("lake/curated/adj_factors/") for k in objects)
    assert not any(k.startswith("lake/dq/") or k.endswith(".tmp") for k in objects)
    assert not Path("s3:").exists()
    cat = Catalog(catalog_url)
    try:
        files = {r.dataset: r.path for r in cat.partition_files()}
        assert files["quotes"] == f"{URL}/curated/quotes/year=2025/part.parquet"
        with Lake(URL, catalog=cat, clock=lambda: NOW) as lake:
            sym = env.universe()[0]  # type: ignore[index]
            res = lake.quotes(
                sym, start="2025-06-01", end="2025-06-30", as_of="2025-06-10T16:00+08:00"
            )
            days = [r["trade_date"] for r in res.data]
            assert days and max(days) <= "2025-06-10" and str(res.status) == "OK"
            adj = lake.quotes(sym, start="2025-06-02", end="2025-06-06", as_of="2025-06-10T16:00+08:00",
                              adjust="hfq")  # fmt: skip
            assert str(adj.status) == "OK" and len(adj.data) > 0
    finally:
        cat.close()
    # a second run over the same sample adds no object version
    before = objects
    env = RunEnv(URL, source="replay:sample", run_id=new_run_id("backfill"),
                      catalog_url=catalog_url)  # fmt: skip
    try:
        for lo, hi in chunks_for("quotes", start, end):
            backfill_chunk(env, "quotes", lo, hi, None, force=True)
    finally:
        env.close()
    assert _objects() == before
