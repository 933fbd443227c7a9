"""The kill suite's hooks (issue 32): a no-op without `PITLAKE_KILL_AT`; with it, a SIGKILL
at the named point, the n-th time this process reaches it with `PITLAKE_KILL_NTH`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pitlake.lake import killpoints

REPO = Path(__file__).resolve().parents[2]

# Reaches after_gate once, then after_rename (which is also before_record) three times.
CHILD = """
from pitlake.lake.killpoints import kill_point
kill_point("after_gate")
print("gate", flush=True)
for i in range(1, 4):
    kill_point("after_rename", "before_record")
    print(f"rename {i}", flush=True)
"""


def _child(**env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("PITLAKE_KILL")}
    return subprocess.run(
        [sys.executable, "-c", CHILD],
        cwd=REPO,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_without_the_variable_every_point_is_passed() -> None:
    got = _child()
    assert got.returncode == 0, got.stderr
    assert got.stdout.split("\n")[:4] == ["gate", "rename 1", "rename 2", "rename 3"]


def test_the_nth_time_a_point_is_reached_the_process_is_sigkilled() -> None:
    got = _child(PITLAKE_KILL_AT="before_record", PITLAKE_KILL_NTH="2")
    assert got.returncode == -signal.SIGKILL
    assert got.stdout.splitlines() == ["gate", "rename 1"]
    got = _child(PITLAKE_KILL_AT="after_gate")
    assert got.returncode == -signal.SIGKILL and got.stdout == ""


def test_an_unknown_point_or_count_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="unknown kill point"):
        killpoints.kill_point("after_lunch")
    monkeypatch.setenv(killpoints.ENV, "after_fetch")
    monkeypatch.setenv(killpoints.ENV_NTH, "0")
    with pytest.raises(ValueError, match="PITLAKE_KILL_NTH"):
        killpoints.kill_point("after_fetch")
