"""prefect.yaml: entrypoints import, schedules carry Asia/Shanghai, parameters match the
flow signatures, and `prefect deploy --all` accepts it."""

from __future__ import annotations

import inspect
import os
import subprocess
from pathlib import Path

import yaml
from prefect.flows import load_flow_from_entrypoint

from tests.flows.conftest import BIN, REPO


def _deployments() -> list[dict]:
    return yaml.safe_load((REPO / "prefect.yaml").read_text())["deployments"]


def _flow(entrypoint: str):
    """The flow as a Prefect worker loads it: the entrypoint is a file path in the repository
    (the folder is mapped into pitlake, so there is no top-level `flows` module to import)."""
    return load_flow_from_entrypoint(str(REPO / entrypoint))


def test_entrypoints_import_and_parameters_match() -> None:
    names = set()
    for dep in _deployments():
        names.add(dep["name"])
        flow = _flow(dep["entrypoint"])
        signature = inspect.signature(flow.fn)
        assert set(dep.get("parameters") or {}) <= set(signature.parameters), dep["name"]
        required = {
            n for n, p in signature.parameters.items() if p.default is inspect.Parameter.empty
        }
        assert required <= set(dep.get("parameters") or {}) | (
            {"start", "end"} if dep["name"] == "backfill" else set()
        )
    assert names == {"nightly", "backfill"}


def test_schedules_run_on_beijing_time() -> None:
    nightly = next(d for d in _deployments() if d["name"] == "nightly")
    crons = {(s["cron"], s["timezone"]) for s in nightly["schedules"]}
    assert crons == {("30 18 * * 1-5", "Asia/Shanghai"), ("30 22 * * 1-5", "Asia/Shanghai")}
    backfill = next(d for d in _deployments() if d["name"] == "backfill")
    assert not backfill.get("schedules")


def test_prefect_deploy_all_is_accepted(prefect_server: dict[str, str]) -> None:
    env = {**os.environ, **prefect_server, "PITLAKE_REPO_DIR": str(REPO)}

    def prefect(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "prefect"), *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    pool = prefect("work-pool", "create", "pitlake-process", "--type", "process", "--overwrite")
    assert pool.returncode == 0, pool.stderr + pool.stdout
    deployed = prefect("--no-prompt", "deploy", "--all")
    assert deployed.returncode == 0, deployed.stderr + deployed.stdout
    listed = prefect("deployment", "inspect", "nightly/nightly")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count("Asia/Shanghai") == 2
    assert Path(REPO / "prefect.yaml").exists()
