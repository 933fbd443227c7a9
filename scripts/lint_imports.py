"""Runs `lint-imports` over pitlake as the wheel lays it out.

grimp (import-linter's graph) finds a package's modules by walking its directory, so the
folders that pyproject's `package-dir` maps into pitlake (schemas/, expectations/, tasks/,
flows/) are invisible to it in the repository. This copies every listed package's modules to
where the wheel puts them, in a temporary directory, and lints that tree with pyproject's
`[tool.importlinter]` contracts. A package missing from pyproject's list is missing here too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def assemble(target: Path) -> None:
    """Copy each listed package's modules to its dotted path under `target` (build_py's rule)."""
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = setuptools.get("package-dir", {})
    for package in setuptools["packages"]:
        source = REPO / mapped.get(package, package.replace(".", "/"))
        dest = target / package.replace(".", "/")
        dest.mkdir(parents=True, exist_ok=True)
        for module in source.glob("*.py"):
            shutil.copy2(module, dest / module.name)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="pitlake-lint-imports-") as tmp:
        assemble(Path(tmp))
        # cwd is the tree too: `python -c` and lint-imports put the cwd first on sys.path.
        env = {**os.environ, "PYTHONPATH": tmp}
        check = subprocess.run(
            [sys.executable, "-c", "import pitlake; print(pitlake.__file__)"],
            env=env,
            cwd=tmp,
            capture_output=True,
            text=True,
            check=True,
        )
        if not check.stdout.startswith(tmp):
            print(f"pitlake resolved outside the assembled tree: {check.stdout}", file=sys.stderr)
            return 1
        cli = Path(sys.executable).parent / "lint-imports"
        return subprocess.run(
            [str(cli), "--no-cache", str(REPO / "pyproject.toml")], env=env, cwd=tmp
        ).returncode


if __name__ == "__main__":
    sys.exit(main())
