"""The ingest CLI against the live chain with no token and no network (typed statuses, no
traceback), and a backfill spread over a local 2-worker Dask cluster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.flows.conftest import BIN, REPO
from tests.flows.helpers import ledger


def _cli(args: list[str], env: dict[str, str], timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "pitlake"), *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _offline_env(prefect_server: dict[str, str], **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TUSHARE_TOKEN", "TS_TOKEN")}
    # Every HTTP(S) request goes to a closed loopback port: refused at once, nothing leaves
    # the machine — the same failure a machine without network gives. Loopback (the Prefect
    # API) is exempt.
    env.update(
        {
            "HTTP_PROXY": "http://127.0.0.1:9",
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "http_proxy": "http://127.0.0.1:9",
            "https_proxy": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }
    )
    env.update(prefect_server)
    env.update(extra)
    return env


def test_live_chain_without_token_is_not_configured(prefect_server, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    r = _cli(
        ["ingest", "--date", "2025-06-03", "--vendors", "tushare", "--lake", str(lake), "--json"],
        _offline_env(prefect_server),
    )
    assert "Traceback" not in r.stderr + r.stdout
    summary = json.loads(r.stdout)
    assert {d["status"] for d in summary["datasets"]} == {"NOT_CONFIGURED"}
    assert r.returncode == 0  # not configured is a clean outcome; nothing was fetched
    assert str(ledger(lake, "quotes", "2025-06-03").status) == "NOT_CONFIGURED"


def test_live_chain_with_token_but_no_network_is_upstream_error(
    prefect_server, tmp_path: Path
) -> None:
    lake = tmp_path / "lake"
    token = "planted-secret-token-0123456789"
    env = _offline_env(prefect_server, TUSHARE_TOKEN=token, PITLAKE_TUSHARE_PER_MIN="0")
    r = _cli(
        [
            "ingest",
            "--date",
            "2025-06-03",
            "--datasets",
            "quotes,dragon_tiger",
            "--lake",
            str(lake),
            "--json",
        ],
        env,
    )
    assert "Traceback" not in r.stderr + r.stdout
    assert r.returncode == 1
    summary = json.loads(r.stdout)
    statuses = {d["dataset"]: d["status"] for d in summary["datasets"]}
    assert statuses == {"quotes": "UPSTREAM_ERROR", "dragon_tiger": "UPSTREAM_ERROR"}
    # the token never reaches the output, the catalog or the lake
    assert token not in r.stdout + r.stderr
    for p in lake.rglob("*"):
        if p.is_file():
            assert token.encode() not in p.read_bytes(), p


def test_backfill_on_a_local_dask_cluster(prefect_server, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    code = (
        # a hang shows where the flow stood (the run's threads' stacks) before the timeout
        "import faulthandler, sys\n"
        "faulthandler.dump_traceback_later(240, exit=False, file=sys.stderr)\n"
        "from pitlake.flows.backfill import backfill\n"
        f"s = backfill(start='2025-05-01', end='2025-06-30', datasets=['quotes', 'adj_factors'],"
        f" source='replay:{REPO / 'sample'}', lake={str(lake)!r}, return_state=True)\n"
        "print('STATE', s.type.value)\n"
    )
    env = {
        **os.environ,
        **prefect_server,
        "PITLAKE_TASK_RUNNER": "dask",
        "PITLAKE_DASK_WORKERS": "2",
    }
    try:
        r = subprocess.run(
            [sys.executable, "-c", code],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired as e:  # say where it stood, not only that it hung
        out = (
            (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout
        )
        err = (
            (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr
        )
        raise AssertionError(
            f"timed out; stdout: {(out or '')[-2000:]}\nstderr: {(err or '')[-20000:]}"
        ) from e
    assert "STATE COMPLETED" in r.stdout, r.stdout[-2000:] + r.stderr[-4000:]
    assert str(ledger(lake, "quotes", "2025-06-30").status) == "OK"
    assert str(ledger(lake, "adj_factors", "2025-05-06").status) == "OK"
    assert "DaskTaskRunner" in r.stderr + r.stdout or (lake / "catalog.db").exists()
