"""Real qlib over exported directories, kept off the network and out of ~: HOME, the working
directory and mlflow's experiment store are the test's tmp dirs, mlflow's telemetry is off,
and D.features runs in this process (one kernel)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.export.qlib_lake import build_export_lake
from tests.serve.api.lakebuild import NOW

QLIB_ENV = {"MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true"}


@pytest.fixture(scope="session")
def export_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_export_lake(tmp_path_factory.mktemp("qlib") / "lake")


@pytest.fixture
def lake(export_lake: Path) -> Iterator[Any]:
    from pitlake.read.lake import Lake

    with Lake(export_lake, clock=lambda: NOW) as lk:
        yield lk


@pytest.fixture
def qlib_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], Any]:
    """qlib.init on an exported directory; returns qlib.data.D."""
    import qlib  # the real package (scripts/setup-test-env.sh installs it)

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name, value in QLIB_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)

    def init(directory: Path) -> Any:
        qlib.init(
            provider_uri=str(directory),
            region="cn",
            kernels=1,
            exp_manager={
                "class": "MLflowExpManager",
                "module_path": "qlib.workflow.expm",
                "kwargs": {"uri": (tmp_path / "mlruns").as_uri(), "default_exp_name": "t"},
            },
        )
        from qlib.data import D

        return D

    return init
