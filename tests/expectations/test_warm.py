"""The gate built ahead (pitlake.expectations.warm, decision 62): a run's opening starts it on a
thread, and a fork waits for it. In a fresh interpreter: this one may have built GX already."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "sample"

OPEN_THEN_FORK = """
import os, sys
from pitlake.pipeline.resources import RunEnv

env = RunEnv(sys.argv[1], source=sys.argv[2], run_id="warm")
pid = os.fork()  # at once: the build is still under way unless the fork waits for it
if pid == 0:
    built = sys.modules.get("pitlake.expectations.context")
    os._exit(0 if built is not None and built._state is not None else 3)
_, status = os.waitpid(pid, 0)
print("child", os.waitstatus_to_exitcode(status))
"""


def test_opening_a_run_builds_the_gate_and_a_fork_waits_for_it(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-c", OPEN_THEN_FORK, str(tmp_path / "lake"), f"replay:{SAMPLE}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    # the child found GX's context built although no batch was ever gated
    assert r.stdout.strip() == "child 0", r.stdout + r.stderr[-2000:]


READ_ONLY = """
import sys
from pitlake.pipeline import resources  # noqa: F401  (opening no run)
print("great_expectations" in sys.modules)
"""


def test_importing_the_run_resources_builds_nothing() -> None:
    r = subprocess.run(
        [sys.executable, "-c", READ_ONLY], capture_output=True, text=True, timeout=120
    )
    assert r.stdout.strip() == "False", r.stderr[-2000:]
