"""One import root (#15 item 6): the distribution installs only `pitlake`. The folders schemas/,
expectations/, tasks/ and flows/ stay at the top of the repository and are mapped into the
package, so pitlake installs beside the PyPI distributions named schemas, expectations, tasks
and flows and leaves them working."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OLD_ROOTS = ("schemas", "expectations", "tasks", "flows")
OLD_IMPORT = re.compile(
    rf"^\s*(?:from|import)\s+(?:{'|'.join(OLD_ROOTS)})\b|[\"']from (?:{'|'.join(OLD_ROOTS)})[. ]",
    re.MULTILINE,
)


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def _run(args: list[str], *, cwd: Path, env: dict[str, str] | None = None, timeout: int = 300):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done


def test_package_list_names_every_package_folder() -> None:
    """The list is explicit: a new package folder that is not in it would be missing from the
    wheel (and from lint-imports' tree) while the editable install still finds it."""
    cfg = _setuptools()
    mapped = cfg["package-dir"]
    assert mapped == {f"pitlake.{root}": root for root in OLD_ROOTS}
    on_disk = set()
    for package, folder in [("pitlake", "pitlake"), *((p, d) for p, d in mapped.items())]:
        base = REPO / folder
        for init in base.rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            rel = init.parent.relative_to(base).parts
            on_disk.add(".".join((package, *rel)))
    assert set(cfg["packages"]) == on_disk


def test_no_source_imports_an_old_top_level_root() -> None:
    offenders = []
    for folder in ("pitlake", *OLD_ROOTS, "tests", "benchmarks", "sample", "scripts"):
        for path in (REPO / folder).rglob("*.py"):
            if path == Path(__file__):
                continue  # imports the stand-in PyPI distributions on purpose
            if OLD_IMPORT.search(path.read_text(encoding="utf-8")):
                offenders.append(str(path.relative_to(REPO)))
    assert offenders == []


def test_importing_everything_leaves_no_old_top_level_module() -> None:
    """Every pitlake module imported, and the flows loaded the way a Prefect worker loads
    prefect.yaml's entrypoints, from the repository root (where a stray `import schemas` would
    still succeed and only sys.modules would tell)."""
    script = f"""
import pkgutil, sys, importlib
import pitlake
for info in pkgutil.walk_packages(pitlake.__path__, "pitlake."):
    importlib.import_module(info.name)
for sub in {[f"pitlake.{r}" for r in OLD_ROOTS]!r}:
    pkg = importlib.import_module(sub)
    for info in pkgutil.walk_packages(pkg.__path__, sub + "."):
        importlib.import_module(info.name)
from prefect.flows import load_flow_from_entrypoint
for ep in ("flows/nightly.py:nightly", "flows/backfill.py:backfill"):
    load_flow_from_entrypoint(ep)
print(sorted(m for m in sys.modules if m.split(".")[0] in {OLD_ROOTS!r}))
"""
    env = {**os.environ, "PITLAKE_OFFLINE": "1"}
    done = _run([sys.executable, "-c", script], cwd=REPO, env=env)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_editable_install_maps_the_folders_from_any_cwd(tmp_path: Path) -> None:
    script = """
import importlib.util, pitlake.schemas, pitlake.expectations, pitlake.tasks, pitlake.flows
for m in (pitlake.schemas, pitlake.expectations, pitlake.tasks, pitlake.flows):
    print(m.__file__)
print([r for r in ("schemas", "expectations", "tasks", "flows") if importlib.util.find_spec(r)])
"""
    done = _run([sys.executable, "-c", script], cwd=tmp_path)
    *files, missing = done.stdout.strip().splitlines()
    assert files == [str(REPO / root / "__init__.py") for root in OLD_ROOTS]
    assert missing == "[]"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _fake_wheel(where: Path, name: str) -> Path:
    """A tiny wheel of a distribution `name` whose top-level import name is `name` too, as the
    PyPI distributions schemas, expectations, tasks and flows are."""
    dist = f"{name}-9.9.9.dist-info"
    files = {
        f"{name}/__init__.py": f"FAKE = 'pypi-{name}'\n".encode(),
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 9.9.9\n".encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [_record_line(n, d) for n, d in files.items()] + [f"{dist}/RECORD,,"]
    path = where / f"{name}-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as whl:
        for n, d in files.items():
            whl.writestr(n, d)
        whl.writestr(f"{dist}/RECORD", "\n".join(record) + "\n")
    return path


def _pitlake_wheel(where: Path, tmp: Path) -> Path:
    """pitlake's wheel, built from a copy of the sources with the venv's setuptools (no build
    isolation, so no network) through the PEP 517 hook."""
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("pitlake", *OLD_ROOTS):
        shutil.copytree(REPO / folder, src / folder, ignore=ignore)
    hook = f"from setuptools import build_meta; print(build_meta.build_wheel({str(where)!r}))"
    done = _run([sys.executable, "-c", hook], cwd=src)
    return where / done.stdout.strip().splitlines()[-1]


def test_pitlake_installs_beside_pypi_schemas_tasks_flows_expectations(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    ours = _pitlake_wheel(wheels, tmp_path)
    with zipfile.ZipFile(ours) as whl:
        names = whl.namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"pitlake", "pitlake-0.1.0.dist-info"}
    for inside in (
        "pitlake/schemas/__init__.py",
        "pitlake/expectations/gate.py",
        "pitlake/tasks/__init__.py",
        "pitlake/flows/nightly.py",
        "pitlake/serve/dashboard/static/dashboard.css",
        "pitlake/serve/dashboard/templates/page.html.j2",
    ):
        assert inside in names
    fakes = [_fake_wheel(wheels, root) for root in OLD_ROOTS]

    target = tmp_path / "target"
    uv = shutil.which("uv")
    assert uv, "uv installs the test venv (scripts/setup-test-env.sh) and this throwaway target"
    _run(
        [uv, "pip", "install", "--offline", "--no-index", "--find-links", str(wheels),
         "--no-deps", "--python", sys.executable, "--target", str(target),
         *(str(w) for w in (*fakes, ours))],
        cwd=tmp_path,
    )  # fmt: skip

    # No site processing (-S): the venv's site-packages is a plain path for the dependencies,
    # and its .pth files, among them pitlake's editable finder, are never run.
    deps = sysconfig.get_paths()["purelib"]
    script = f"""
import sys
sys.path[:0] = [{str(target)!r}, {deps!r}]
import schemas, expectations, tasks, flows
print([m.FAKE for m in (schemas, expectations, tasks, flows)])
import pitlake, pitlake.schemas, pitlake.expectations, pitlake.tasks, pitlake.flows
print(pitlake.__file__)
print(pitlake.schemas.get("quotes").name, pitlake.flows.__name__, pitlake.tasks.__name__)
print(pitlake.expectations.suite_name("quotes"))
"""
    env = {"PATH": os.environ.get("PATH", ""), "PITLAKE_OFFLINE": "1", "HOME": str(tmp_path)}
    done = _run([sys.executable, "-I", "-S", "-c", script], cwd=tmp_path, env=env)
    fakes_seen, pitlake_file, ours_seen, suite = done.stdout.strip().splitlines()[-4:]
    assert fakes_seen == str([f"pypi-{r}" for r in OLD_ROOTS])
    assert pitlake_file == str(target / "pitlake" / "__init__.py")
    assert ours_seen == "quotes pitlake.flows pitlake.tasks"
    assert suite
