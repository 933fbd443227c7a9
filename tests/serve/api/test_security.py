"""Robustness and security (issue item 6): bearer token, no token leaks, never a 500, a corrupt
Parquet file or catalog gives a clear status, loopback by default."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from pitlake.cli import app as cli_app
from pitlake.lake.catalog import Catalog
from pitlake.read.lake import Lake
from pitlake.serve.api.service import QueryService
from tests.serve.api.conftest import assert_envelope
from tests.serve.api.lakebuild import A, B

TOKEN = "api-token-0123456789"
TUSHARE = "ts0123456789abcdefPLANTEDTOKEN0123456789abcdef"


# ---------------------------------------------------------------- bearer token


@pytest.fixture
def guarded(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client(token=TOKEN)


@pytest.mark.parametrize(
    "path",
    [
        "/v1/quotes?symbol=600519.SH",
        "/v1/snapshot?symbol=600519.SH",
        "/v1/status",
        "/openapi.json",
        "/docs",
        "/dashboard",
    ],
)
def test_every_path_but_healthz_needs_the_token(guarded: TestClient, path: str) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
        r = guarded.get(path, headers=headers)
        assert r.status_code == 401
        assert r.headers["www-authenticate"].startswith("Bearer")
        body = assert_envelope(r.json())
        assert body["status"] == "PERMISSION_DENIED" and body["retryable"] is False
    ok = guarded.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200


def test_healthz_is_open(guarded: TestClient) -> None:
    r = guarded.get("/healthz")
    assert r.status_code == 200 and assert_envelope(r.json())["status"] == "OK"


def test_the_token_comes_from_the_environment(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PITLAKE_API_TOKEN", TOKEN)
    client = make_client()
    assert client.get("/v1/status").status_code == 401
    assert client.get("/v1/status", headers={"Authorization": f"bearer {TOKEN}"}).status_code == 200
    spec = client.get("/openapi.json", headers={"Authorization": f"Bearer {TOKEN}"}).json()
    assert spec["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert spec["paths"]["/healthz"]["get"]["security"] == []
    assert make_client(token="").get("/v1/status").status_code == 200  # explicitly off


# ---------------------------------------------------------------- tokens never leak


def test_a_planted_tushare_token_never_appears_in_answers_or_logs(
    writable_lake: Path,
    make_client: Callable[..., TestClient],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TUSHARE_TOKEN", TUSHARE)
    monkeypatch.setenv("TS_TOKEN", TUSHARE[::-1])
    monkeypatch.setenv("PITLAKE_API_TOKEN", TOKEN)
    # An adapter that echoed its request URL into the ledger: the token sits in the lake.
    cat = Catalog(lake_root=writable_lake)
    cat.record_ledger(
        "quotes",
        "2025-06-12",
        "UPSTREAM_ERROR",
        message=f"GET http://api.waditu.com/?token={TUSHARE}: 502; ts={TUSHARE[::-1]}",
        trace=[{"vendor": "tushare", "error": f"token {TUSHARE} rejected"}],
    )
    cat.close()
    client = make_client(writable_lake)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    caplog.set_level(logging.DEBUG)
    bodies = []
    for path, params in [
        ("/v1/quotes", {"symbol": A, "date": "2025-06-12", "as_of": "2025-06-13"}),
        ("/v1/snapshot", {"symbol": A, "date": "2025-06-12", "as_of": "2025-06-13"}),
        ("/v1/status", {"as_of": "2025-06-13"}),
        ("/v1/quotes", {"symbol": TUSHARE}),  # echoed back in the invalid-symbol message
        ("/healthz", {}),
        ("/openapi.json", {}),
    ]:
        r = client.get(path, params=params, headers=auth)
        bodies.append(r.text + str(r.headers))
    first = client.get(
        "/v1/quotes",
        params={"symbol": A, "date": "2025-06-12", "as_of": "2025-06-13"},
        headers=auth,
    ).json()
    assert first["status"] == "UPSTREAM_ERROR" and "***" in first["message"]

    # an unexpected error whose text carries the token: logged (redacted), answered generically
    def boom(*_a: Any, **_k: Any) -> Any:
        raise RuntimeError(f"vendor said: bad token {TUSHARE}")

    monkeypatch.setattr(Lake, "read", boom)  # every surface reads through Lake.read
    r = client.get("/v1/valuation", params={"symbol": A}, headers=auth)
    assert r.status_code == 503
    bodies.append(r.text)
    argv = ["query", "quotes", "-s", A, "--date", "2025-06-12", "--as-of", "2025-06-13"]
    cli = CliRunner().invoke(cli_app, [*argv, "--lake", str(writable_lake), "--json"])
    bodies.append(cli.output)
    out, err = capsys.readouterr()
    everything = "\n".join([*bodies, caplog.text, out, err])
    assert "vendor said: bad token" in caplog.text  # the traceback was logged …
    for secret in (TUSHARE, TUSHARE[::-1], TOKEN):
        assert secret not in everything  # … but never a token


# ---------------------------------------------------------------- never a 500


def test_an_unexpected_error_is_a_503_envelope_with_a_generic_message(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def boom(*_a: Any, **_k: Any) -> Any:
        raise ZeroDivisionError("internal detail 42")

    monkeypatch.setattr(Lake, "read", boom)  # every surface reads through Lake.read
    caplog.set_level(logging.ERROR, logger="pitlake.api")
    r = client.get("/v1/quotes", params={"symbol": A})
    body = assert_envelope(r.json())
    assert r.status_code == 503
    assert body["status"] == "UPSTREAM_ERROR" and body["meta"]["fault"] == "internal"
    assert "internal detail" not in r.text and "Traceback" not in r.text
    assert "ZeroDivisionError" in caplog.text and "internal detail 42" in caplog.text


def test_an_exception_escaping_the_service_is_still_not_a_500(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def boom(*_a: Any, **_k: Any) -> Any:
        raise RuntimeError("escaped")

    monkeypatch.setattr(QueryService, "status", boom)
    caplog.set_level(logging.ERROR, logger="pitlake.api")
    r = client.get("/v1/status")
    assert r.status_code == 503
    body = assert_envelope(r.json())
    assert body["status"] == "UPSTREAM_ERROR" and body["meta"]["fault"] == "internal"
    assert "escaped" not in r.text and "escaped" in caplog.text


def _corrupt(lake: Path, dataset: str) -> Path:
    [part] = sorted((lake / "curated" / dataset).rglob("*.parquet"))
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 2])  # a truncated write (no footer)
    return part


def test_a_corrupt_parquet_file_gives_a_clear_storage_status(
    writable_lake: Path, make_client: Callable[..., TestClient]
) -> None:
    _corrupt(writable_lake, "quotes")
    client = make_client(writable_lake)
    r = client.get("/v1/quotes", params={"symbol": A, "date": "2025-06-05", "as_of": "2025-06-06"})
    body = assert_envelope(r.json())
    assert r.status_code == 503
    assert body["status"] == "UPSTREAM_ERROR" and body["meta"]["fault"] == "storage"
    assert body["retryable"] is False and "corrupt" in body["message"]
    assert str(writable_lake) not in r.text  # no server paths in answers
    # other datasets still answer; a snapshot reports the broken section beside the good ones
    fine = client.get("/v1/valuation", params={"symbol": A, "date": "2025-06-05"}).json()
    assert fine["status"] == "OK"
    snap = client.get(
        "/v1/snapshot", params={"symbol": A, "date": "2025-06-05", "datasets": "quotes,valuation"}
    )
    assert snap.status_code == 503
    sections = {s["dataset"]: s for s in snap.json()["data"]}
    assert sections["quotes"]["meta"]["fault"] == "storage"
    assert sections["valuation"]["status"] == "OK" and sections["valuation"]["data"]


def test_a_corrupt_catalog_gives_a_clear_catalog_status(
    writable_lake: Path, make_client: Callable[..., TestClient]
) -> None:
    (writable_lake / "catalog.db").write_bytes(b"this is not a database" * 100)
    client = make_client(writable_lake)
    r = client.get("/v1/quotes", params={"symbol": B, "date": "2025-06-05"})
    assert r.status_code == 503
    body = assert_envelope(r.json())
    assert body["meta"]["fault"] == "catalog" and body["retryable"] is True


# ---------------------------------------------------------------- binding


def test_serve_binds_loopback_by_default(lake_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    seen: dict[str, Any] = {}

    class FakeServer:
        def __init__(self, config: Any) -> None:
            seen["host"], seen["port"] = config.host, config.port

        def run(self) -> None:
            seen["ran"] = True

    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    result = CliRunner().invoke(cli_app, ["serve", "--lake", str(lake_dir)])
    assert result.exit_code == 0, result.output
    assert seen == {"host": "127.0.0.1", "port": 8000, "ran": True}


def test_serve_refuses_a_missing_lake_and_bad_pins(tmp_path: Path, lake_dir: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli_app, ["serve", "--lake", str(tmp_path / "nope")]).exit_code == 4
    bad = runner.invoke(cli_app, ["serve", "--lake", str(lake_dir), "--allow-pin", "x"])
    assert bad.exit_code == 2 and "invalid pin" in bad.output
    bad = runner.invoke(cli_app, ["serve", "--lake", str(lake_dir), "--as-of", "soon"])
    assert bad.exit_code == 2


def test_pitlake_serve_end_to_end_on_loopback(writable_lake: Path) -> None:
    """The real command: uvicorn on 127.0.0.1, the token from the environment, an exception
    text carrying the Tushare token in the ledger — and neither token in answers or logs."""
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time

    import httpx

    cat = Catalog(lake_root=writable_lake)
    cat.record_ledger("quotes", "2025-06-12", "UPSTREAM_ERROR", message=f"token={TUSHARE} refused")
    cat.close()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PITLAKE_API_TOKEN": TOKEN, "TUSHARE_TOKEN": TUSHARE}
    env.pop("PITLAKE_CATALOG_URL", None)
    cmd = [sys.executable, "-m", "pitlake.cli", "serve", "--lake", str(writable_lake)]
    proc = subprocess.Popen(
        [*cmd, "--port", str(port), "--as-of", "2025-06-13"],
        cwd=Path(__file__).resolve().parents[3],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # the server's start-up, polled (at most 30 s)
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        auth = {"Authorization": f"Bearer {TOKEN}"}
        assert httpx.get(f"{base}/v1/status").status_code == 401
        r = httpx.get(f"{base}/v1/quotes", params={"symbol": A, "date": "2025-06-12"}, headers=auth)
        body = r.json()
        assert r.status_code == 200 and body["status"] == "UPSTREAM_ERROR"
        assert body["as_of"] == "2025-06-13T23:59:59.999999+08:00" and body["meta"]["pinned"]
        assert r.headers["server-timing"].startswith("app;dur=")
        bad = httpx.get(f"{base}/v1/quotes", params={"symbol": TUSHARE}, headers=auth)
        assert bad.status_code == 400
        answers = r.text + bad.text
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        logs = proc.communicate(timeout=30)[0].decode()
    assert "Uvicorn running on http://127.0.0.1:" in logs
    assert "symbol=***" in logs, logs  # the access log line, masked
    for secret in (TUSHARE, TOKEN):
        assert secret not in answers and secret not in logs
