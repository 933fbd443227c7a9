"""Reads never write (issue 13 item 4): every read surface — `pitlake query`, the HTTP app
(`pitlake serve`) with its dashboard, the MCP server and `Lake(path)` — leaves the directory
tree byte-for-byte as it found it (names, sizes, mtimes, the directories' own mtimes), on an
empty directory and on a real lake; and a directory without a catalog is "not a pitlake lake"
(CLI exit 4, `NotALakeError` in Python, no app)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from pitlake.cli import app as cli_app
from pitlake.errors import NotALakeError
from pitlake.read.lake import Lake
from pitlake.serve.api.app import create_app
from pitlake.serve.mcp import create_server
from tests.serve.api.lakebuild import NOW, A, B

Tree = dict[str, tuple[str, int, int]]

CLI_READS = [
    ["quotes", "-s", A, "--date", "2025-06-05", "--as-of", "2025-06-06"],
    ["quotes", "-s", A, "--start", "2025-06-02", "--end", "2025-06-09", "--adjust", "qfq"],
    ["valuation", "-s", A, "--date", "2025-06-05"],
    ["financials", "-s", A, "--latest-only"],
    ["news", "-s", A, "--date", "2025-06-05"],
    ["dragon-tiger", "--date", "2025-06-04"],
    ["calendar", "--start", "2025-06-01", "--end", "2025-06-30"],
    ["snapshot", "-s", f"{A},{B}", "--date", "2025-06-06"],
    ["status"],
]
# Reads that are commands of their own (not `pitlake query`), with their options.
CLI_COMMANDS = [
    ["datasets"],
    ["datasets", "--as-of", "2025-06-05"],
    ["datasets", "quotes"],
]
HTTP_READS = [
    "/healthz",
    "/v1/catalog",
    "/v1/catalog?as_of=2025-06-04",
    f"/v1/quotes?symbol={A}&date=2025-06-05",
    f"/v1/snapshot?symbols={A},{B}&date=2025-06-06",
    "/v1/status",
    "/dashboard",
    "/dashboard/data.json",
    "/openapi.json",
]


def tree(root: Path) -> Tree:
    """Every entry under root (and root itself): kind, size, mtime in ns."""
    out: Tree = {}
    for entry in [root, *sorted(root.rglob("*"))]:
        st = entry.lstat()
        kind = "dir" if entry.is_dir() else "file"
        out[str(entry.relative_to(root))] = (
            kind,
            st.st_size if kind == "file" else 0,
            st.st_mtime_ns,
        )
    return out


@pytest.fixture
def lake_copy(lake_dir: Path, tmp_path: Path) -> Path:
    """A copy of the built lake with its mtimes (copytree keeps them), WAL checkpointed."""
    copy = Path(shutil.copytree(lake_dir, tmp_path / "lake"))
    assert not (copy / "catalog.db-wal").exists()
    return copy


@pytest.fixture
def empty_dir(tmp_path: Path) -> Path:
    d = tmp_path / "empty"
    d.mkdir()
    return d


def _query(root: Path, args: list[str]) -> tuple[int, str]:
    r = CliRunner().invoke(cli_app, ["query", *args, "--lake", str(root), "--json"])
    return r.exit_code, r.output


def _command(root: Path, args: list[str]) -> tuple[int, str]:
    r = CliRunner().invoke(cli_app, [*args, "--lake", str(root), "--json"])
    return r.exit_code, r.output


def test_cli_reads_leave_a_real_lake_untouched(lake_copy: Path) -> None:
    before = tree(lake_copy)
    for args in CLI_READS:
        code, out = _query(lake_copy, args)
        assert code in (0, 3), (args, out)
        assert "fault" not in json.loads(out)["meta"], (args, out)
    for args in CLI_COMMANDS:
        code, out = _command(lake_copy, args)
        assert code == 0, (args, out)
        assert "fault" not in json.loads(out)["meta"], (args, out)
    assert tree(lake_copy) == before


def test_cli_reads_of_an_empty_directory_exit_4_and_create_nothing(empty_dir: Path) -> None:
    before = tree(empty_dir)
    for args in CLI_READS:
        code, out = _query(empty_dir, args)
        body = json.loads(out)
        assert code == 4, (args, out)
        assert body["meta"]["fault"] == "not_a_lake"
        assert body["message"].startswith(f"not a pitlake lake: {empty_dir}")
    for args in CLI_COMMANDS:
        code, out = _command(empty_dir, args)
        assert code == 4, (args, out)
        assert json.loads(out)["meta"]["fault"] == "not_a_lake"
    assert tree(empty_dir) == before
    assert not (empty_dir / "catalog.db").exists()


def test_a_missing_directory_is_not_created(tmp_path: Path) -> None:
    code, out = _query(tmp_path / "nope" / "lake", ["quotes", "-s", A])
    assert code == 4 and json.loads(out)["meta"]["fault"] == "not_a_lake"
    assert not (tmp_path / "nope").exists()


def test_the_http_app_and_dashboard_leave_a_real_lake_untouched(lake_copy: Path) -> None:
    before = tree(lake_copy)
    with TestClient(create_app(lake_copy, clock=lambda: NOW, token="")) as client:
        for url in HTTP_READS:
            r = client.get(url)
            assert r.status_code in (200, 400), (url, r.status_code, r.text[:300])
    assert tree(lake_copy) == before


def test_no_app_over_an_empty_directory(empty_dir: Path) -> None:
    before = tree(empty_dir)
    with pytest.raises(NotALakeError, match="not a pitlake lake"):
        create_app(empty_dir, clock=lambda: NOW, token="")
    r = CliRunner().invoke(cli_app, ["serve", "--lake", str(empty_dir)])
    assert r.exit_code == 4 and "not a pitlake lake" in r.output
    r = CliRunner().invoke(cli_app, ["mcp", "--lake", str(empty_dir)])
    assert r.exit_code == 4 and "not a pitlake lake" in r.output
    assert tree(empty_dir) == before


def _mcp_calls(root: Path) -> list[Any]:
    from fastmcp import Client

    async def go() -> list[Any]:
        async with Client(create_server(root, clock=lambda: NOW)) as client:
            return [
                await client.call_tool(name, args, raise_on_error=False)
                for name, args in (
                    ("quotes", {"symbols": A, "date": "2025-06-05"}),
                    ("snapshot", {"symbols": [A, B], "date": "2025-06-06"}),
                    ("status", {}),
                    ("datasets", {}),
                    ("datasets", {"as_of": "2025-06-05"}),
                )
            ]

    return asyncio.run(go())


def test_mcp_tools_leave_a_real_lake_untouched(lake_copy: Path) -> None:
    before = tree(lake_copy)
    for result in _mcp_calls(lake_copy):
        assert "fault" not in result.structured_content["meta"]
    assert tree(lake_copy) == before


def test_mcp_tools_over_an_empty_directory_create_nothing(empty_dir: Path) -> None:
    before = tree(empty_dir)
    for result in _mcp_calls(empty_dir):
        assert result.structured_content["meta"]["fault"] == "not_a_lake"
        assert result.is_error is True
    assert tree(empty_dir) == before


def test_python_reads_leave_the_lake_untouched(lake_copy: Path, empty_dir: Path) -> None:
    before = tree(lake_copy)
    with Lake(lake_copy, clock=lambda: NOW) as lake:
        assert lake.quotes(A, start="2025-06-02", end="2025-06-06", adjust="qfq").rows
        lake.news(A, start="2025-06-05", end="2025-06-05")
        lake.financials(A, latest_only=True)
        lake.calendar(start="2025-06-01", end="2025-06-30")
        assert lake.datasets().rows and lake.datasets("2025-06-05").to_arrow().num_rows
    assert tree(lake_copy) == before

    before = tree(empty_dir)
    lake = Lake(empty_dir)  # construction reads only the stored calendar: it succeeds
    with pytest.raises(NotALakeError, match="not a pitlake lake") as raised:
        lake.quotes(A, as_of="2025-06-06")
    assert raised.value.path == str(empty_dir)
    with pytest.raises(NotALakeError, match="not a pitlake lake"):
        lake.datasets()
    lake.close()
    assert tree(empty_dir) == before


def test_a_read_beside_a_live_writer_uses_its_wal_and_creates_nothing(lake_copy: Path) -> None:
    """While a writer holds the catalog open (its -wal and -shm exist), a reader opens it
    read-only through them; when the writer is gone it reads the file alone (immutable)."""
    from pitlake.lake.catalog import Catalog

    writer = Catalog(lake_root=lake_copy)
    try:
        writer.start_run("r-live", "nightly", {})
        assert (lake_copy / "catalog.db-wal").exists()
        names = sorted(os.listdir(lake_copy))
        with Lake(lake_copy, clock=lambda: NOW) as lake:
            assert lake.catalog.run("r-live") is not None  # sees the uncheckpointed write
        assert sorted(os.listdir(lake_copy)) == names
    finally:
        writer.close()
    assert not (lake_copy / "catalog.db-wal").exists()  # the writer checkpointed and removed it
    before = tree(lake_copy)
    with Lake(lake_copy, clock=lambda: NOW) as lake:
        assert lake.catalog.run("r-live") is not None
    assert tree(lake_copy) == before


def test_an_immutable_read_refuses_a_catalog_rewritten_under_it(lake_copy: Path) -> None:
    import sqlite3

    from pitlake.lake.readonly import connect_read_only

    conn = connect_read_only(lake_copy / "catalog.db", 1.0)  # no -wal: immutable
    try:
        cur = conn.cursor()  # SQLAlchemy reads through cursors
        assert cur.execute("SELECT count(*) FROM runs").fetchall()
        os.utime(lake_copy / "catalog.db", ns=(1, 1))  # as a checkpoint would move the mtime
        with pytest.raises(sqlite3.OperationalError, match="changed during a read"):
            cur.execute("SELECT count(*) FROM runs").fetchall()
    finally:
        conn.close()


def _pg_params() -> list[Any]:
    from tests.lake.conftest import IN_CI, PG_URL

    return [pytest.param("postgres", marks=pytest.mark.postgres)] if PG_URL or IN_CI else []


@pytest.mark.parametrize("backend", _pg_params())
def test_a_postgresql_catalog_is_read_in_read_only_transactions(backend: str) -> None:
    """The URL's own options (a search_path) are kept, and a write through the read-only
    catalog is refused by the server."""
    import uuid

    from sqlalchemy import create_engine
    from sqlalchemy.exc import DBAPIError

    from pitlake.lake.catalog import Catalog
    from pitlake.lake.catalog_engine import resolve_url
    from tests.lake.conftest import PG_URL, _with_search_path

    if not PG_URL:
        pytest.fail("CI=true but PITLAKE_TEST_PG_URL is not set (scripts/test.sh starts one)")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(resolve_url(PG_URL, None))
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = _with_search_path(PG_URL, schema)
    try:
        with Catalog(url) as writer:
            writer.start_run("r-1", "nightly", {})
        with Catalog(url, read_only=True) as reader:
            assert reader.run("r-1") is not None  # the schema of the URL, not public
            with pytest.raises(DBAPIError, match="read-only transaction"):
                reader.start_run("r-2", "nightly", {})
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def test_a_catalog_removed_under_a_running_server_is_a_503_per_request(lake_copy: Path) -> None:
    with TestClient(create_app(lake_copy, clock=lambda: NOW, token="")) as client:
        assert client.get(f"/v1/quotes?symbol={A}&date=2025-06-05").status_code == 200
        (lake_copy / "catalog.db").unlink()
        r = client.get(f"/v1/quotes?symbol={A}&date=2025-06-05")
        assert r.status_code == 503
        body = r.json()
        assert body["meta"]["fault"] == "not_a_lake" and "catalog.db" in body["message"]
    assert not (lake_copy / "catalog.db").exists()
