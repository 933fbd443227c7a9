"""Suite-wide settings: the shared vendor quota (decision 53) lives in a file of this run's
own, never in the user's ~/.local/state, so test runs neither share a sliding window with each
other nor leave state behind. A test that asks for another store sets PITLAKE_QUOTA_URL
itself; subprocesses inherit this one."""

from __future__ import annotations

import os
import tempfile

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get("PITLAKE_QUOTA_URL"):
        folder = tempfile.mkdtemp(prefix="pitlake-test-quota-")
        os.environ["PITLAKE_QUOTA_URL"] = f"sqlite:///{folder}/quota.sqlite"
