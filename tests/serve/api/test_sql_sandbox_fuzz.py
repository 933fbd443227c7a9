"""Generated SQL against the sandbox (issue 27, item 1 and its done-when): over `Lake.sql` and
`/v1/sql`, no statement leaves a file anywhere (cwd, lake, temp directories), none answers a 500,
no answer holds a row or a meta instant past its cutoff, and /healthz answers within 1 s while
the statements run."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus
from tests.serve.api.lakebuild import NOW

VIEWS = ("quotes", "adj_factors", "valuation", "financials", "news", "quotes_versions", "calendar")
PATHS = (".tmp", ".tmp/x.csv", ".tmp/*", "x.parquet", "../x.csv", "/tmp/pitlake_fuzz.csv")

select = st.one_of(
    st.builds("SELECT count(*) FROM {}".format, st.sampled_from(VIEWS)),
    st.builds("SELECT * FROM {} LIMIT 3".format, st.sampled_from(VIEWS)),
    st.builds("WITH t AS (SELECT * FROM {}) SELECT count(*) FROM t".format, st.sampled_from(VIEWS)),
    st.just("VALUES (1), (2)"),
    st.just("DESCRIBE quotes"),
    st.just("SELECT current_setting('temp_directory')"),
)
path = st.sampled_from(PATHS)
hostile = st.one_of(
    st.builds("COPY (SELECT * FROM {}) TO '{}'".format, st.sampled_from(VIEWS), path),
    st.builds("COPY (SELECT 1 AS i) TO '{}' (FORMAT parquet)".format, path),
    st.builds("EXPORT DATABASE '{}'".format, path),
    st.builds("ATTACH '{}' AS other".format, st.sampled_from(("x.duckdb", ".tmp/x.duckdb"))),
    st.sampled_from(("INSTALL httpfs", "LOAD httpfs", "PRAGMA version", "CHECKPOINT")),
    st.builds("SET temp_directory = '{}'".format, path),
    st.sampled_from(("SET enable_external_access = true", "SET lock_configuration = false")),
    st.builds("SELECT * FROM read_csv('{}')".format, path),
    st.builds("SELECT * FROM read_parquet('{}')".format, path),
    st.builds("SELECT * FROM glob('{}')".format, path),
    st.builds("CREATE TABLE t AS SELECT * FROM {}".format, st.sampled_from(VIEWS)),
)
statement = st.one_of(select, hostile)
script = st.one_of(
    statement, st.lists(statement, min_size=2, max_size=3).map("; ".join), st.text(max_size=40)
)


def snapshot(*roots: Path) -> set[str]:
    return {str(p) for root in roots for p in root.rglob("*")}


@pytest.fixture
def sandbox(lake_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The directories a statement could write to: the cwd, the lake and the temp dir."""
    monkeypatch.chdir(tmp_path)
    return [tmp_path, lake_dir, Path(tempfile.gettempdir())]


FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(query=script)
def test_lake_sql_leaves_no_file(lake_dir: Path, sandbox: list[Path], query: str) -> None:
    before = snapshot(*sandbox[:2])
    tmp_before = set(os.listdir(sandbox[2]))
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        result = lake.sql(query, as_of="2025-06-30")
    assert result.status in (
        ResultStatus.OK,
        ResultStatus.NO_DATA,
        ResultStatus.INVALID_ARGUMENTS,
    ), result.message
    assert snapshot(*sandbox[:2]) == before
    assert {n for n in os.listdir(sandbox[2]) if "pitlake_fuzz" in n or n == ".tmp"} <= tmp_before


@FUZZ
@given(query=script)
def test_http_sql_leaves_no_file(client: TestClient, sandbox: list[Path], query: str) -> None:
    before = snapshot(*sandbox[:2])
    response = client.post("/v1/sql", json={"query": query, "as_of": "2025-06-30"})
    assert response.status_code in (200, 400, 422), response.text
    assert snapshot(*sandbox[:2]) == before
    assert not Path("/tmp/pitlake_fuzz.csv").exists()


@pytest.mark.parametrize(
    "query", ["SELECT 1; SELECT 2", "EXPORT DATABASE '.tmp'", "SELECT * FROM glob('.tmp/*')"]
)
def test_cli_and_http_refuse_with_one_line(
    client: TestClient, lake_dir: Path, sandbox: list[Path], query: str
) -> None:
    from typer.testing import CliRunner

    from pitlake.cli import app

    before = snapshot(*sandbox[:2])
    run = CliRunner().invoke(app, ["sql", "--lake", str(lake_dir), "--as-of", "2025-06-30", query])
    assert run.exit_code == 2, run.output
    r = client.get("/v1/sql", params={"q": query})
    assert r.status_code == 400 and r.json()["status"] == "INVALID_ARGUMENTS"
    assert "\n" not in r.json()["message"]
    assert snapshot(*sandbox[:2]) == before


# ----------------------------------------------------------- nothing past the cutoff, anywhere

CUTOFFS = ("2025-06-03", "2025-06-04T12:00:00+08:00", "2025-06-05")
TRADE_DATED = ("quotes", "adj_factors", "valuation", "quotes_qfq", "quotes_hfq")
VERSIONED = ("quotes", "adj_factors", "valuation", "financials", "news", "dragon_tiger")
pit_select = st.one_of(
    st.builds("SELECT * FROM {}".format, st.sampled_from((*VERSIONED, "quotes_qfq"))),
    st.builds("SELECT * FROM {}_versions".format, st.sampled_from(VERSIONED)),
    st.builds(
        "SELECT max(known_at) AS known_at, count(*) AS n FROM {}_versions".format,
        st.sampled_from(VERSIONED),
    ),
    st.builds(
        "SELECT q.trade_date, q.known_at, v.known_at AS v_known_at FROM quotes q JOIN {} v "
        "USING (symbol, trade_date)".format,
        st.sampled_from(("valuation", "adj_factors", "quotes_hfq")),
    ),
    st.just("SELECT max(trade_date) AS trade_date FROM quotes_versions"),
)


def _instant(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and "T" in value:
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return None
    return None


def _instants(obj: object) -> list[datetime]:
    """Every instant in a (nested) meta."""
    if isinstance(obj, dict):
        return [i for v in obj.values() for i in _instants(v)]
    if isinstance(obj, list):
        return [i for v in obj for i in _instants(v)]
    found = _instant(obj)
    return [found] if found is not None else []


def assert_within(rows: list[dict], meta: dict, as_of: str, envelope_as_of: str) -> None:
    cutoff = datetime.fromisoformat(envelope_as_of)
    for row in rows:
        for name, value in row.items():
            if name.endswith("known_at") and value is not None:
                assert _instant(value) <= cutoff, (name, value, as_of)
            if name == "trade_date" and value is not None:
                assert str(value)[:10] <= cutoff.date().isoformat(), (value, as_of)
    for instant in _instants(meta):
        assert instant <= cutoff, (meta, as_of)


@FUZZ
@given(query=pit_select, as_of=st.sampled_from(CUTOFFS))
def test_lake_sql_holds_no_row_or_meta_past_its_cutoff(
    lake_dir: Path, query: str, as_of: str
) -> None:
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        result = lake.sql(query, as_of=as_of)
        everything = lake.sql(query)
    assert result.status in (ResultStatus.OK, ResultStatus.NO_DATA), result.message
    assert everything.status is ResultStatus.OK, everything.message
    assert_within(result.rows, result.meta, as_of, result.as_of)


def test_http_sql_fuzz_holds_nothing_past_the_cutoff_and_healthz_stays_fast(
    client: TestClient,
) -> None:
    latencies: list[float] = []
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            started = time.monotonic()
            assert client.get("/healthz").status_code == 200
            latencies.append(time.monotonic() - started)
            stop.wait(0.05)

    watcher = threading.Thread(target=poll, daemon=True)
    watcher.start()

    @settings(max_examples=80, deadline=None)
    @given(query=st.one_of(pit_select, statement), as_of=st.sampled_from(CUTOFFS))
    def ask(query: str, as_of: str) -> None:
        response = client.post("/v1/sql", json={"query": query, "as_of": as_of})
        assert response.status_code in (200, 400, 422), response.text
        body = response.json()
        if body["status"] in ("OK", "NO_DATA"):
            assert_within(body["data"], body["meta"], as_of, body["as_of"])

    try:
        ask()
    finally:
        stop.set()
        watcher.join(5)
    assert len(latencies) > 10 and max(latencies) < 1.0, max(latencies)


def test_the_cutoff_check_bites_on_an_answer_as_of_later(lake_dir: Path) -> None:
    """The check above is not vacuous: an answer as of now holds rows past 2025-06-03."""
    with Lake(lake_dir, clock=lambda: NOW) as lake:
        later = lake.sql("SELECT * FROM quotes_versions")
    with pytest.raises(AssertionError):
        assert_within(later.rows, {}, "2025-06-03", "2025-06-03T23:59:59.999999+08:00")
    with pytest.raises(AssertionError):
        assert_within([], {"known_at_max": "2025-06-05T15:00:00+08:00"}, "x", CUTOFF_0603)


CUTOFF_0603 = "2025-06-03T23:59:59.999999+08:00"
