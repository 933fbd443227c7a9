"""The README as a script (issue 30): every code block runs as printed, in order, on the demo's
lake, and shows a non-empty answer.

The blocks run in a fresh working directory laid out as a clone after `bash scripts/demo.sh`
(links to the repository's files, `.venv` a link to this interpreter's environment): bash blocks after
`source .venv/bin/activate`, Python blocks with that Python, SQL blocks through `Lake.sql` at the
as-of their `<!-- readme-test: sql as_of=… -->` line names. The first bash block that ingests
builds `./lake` (the demo's two commands). A block the test cannot run here says why on the line
before it (`<!-- readme-test: skip: why -->`); a block with neither is run. `pitlake serve` lines
start a real server in the background (on a free port where the README says 8000) for the
blocks after them."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pitlake.read.lake import Lake

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RUNNABLE = ("bash", "python", "sql")
# What a clone's commands write or keep per machine: left out of the user's directory.
CLONE_OUTPUTS = {".venv", ".git", "lake", "test-artifacts", "symbols.txt", "financials.arrows"}
FENCE = re.compile(
    r"(?:<!-- readme-test: (?P<note>[^>]*?) -->\n)?```(?P<lang>[a-z]*)\n(?P<code>.*?)```", re.S
)
# What a command prints when its answer is empty or failed (the envelope's words).
EMPTY = re.compile(r"\b(NO_DATA|UNKNOWN|NOT_READY|UPSTREAM_ERROR|INVALID_ARGUMENTS)\b|\b0 rows\b")


@dataclass(frozen=True)
class Block:
    line: int
    lang: str
    code: str
    note: str

    @property
    def skip(self) -> str | None:
        return self.note.removeprefix("skip:").strip() if self.note.startswith("skip:") else None

    @property
    def as_of(self) -> str | None:
        m = re.fullmatch(r"sql as_of=(\S+)", self.note)
        return m.group(1) if m else None

    def __str__(self) -> str:
        return f"README.md:{self.line} ({self.lang})"


def blocks() -> list[Block]:
    text = README.read_text(encoding="utf-8")
    return [
        Block(text.count("\n", 0, m.start("code")), m["lang"], m["code"], m["note"] or "")
        for m in FENCE.finditer(text)
    ]


def runnable() -> list[Block]:
    return [b for b in blocks() if b.lang in RUNNABLE and b.skip is None]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Workdir:
    """A user's directory after the demo: `.venv` (this environment), `./lake` once built."""

    def __init__(self, path: Path) -> None:
        self.path = path
        (path / ".venv").symlink_to(Path(sys.prefix))
        for entry in ROOT.iterdir():  # the clone's files (sample/, scripts/ …), not its lake
            if entry.name not in CLONE_OUTPUTS and not (path / entry.name).exists():
                (path / entry.name).symlink_to(entry)
        self.port = free_port()
        self.servers: list[subprocess.Popen] = []
        # a user's shell: no test settings (a catalog URL, a lake) steer the commands
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PITLAKE_")}

    def here(self, code: str) -> str:
        return code.replace("127.0.0.1:8000", f"127.0.0.1:{self.port}").replace(
            "--port 8000", f"--port {self.port}"
        )

    def bash(self, block: Block) -> str:
        script, opened = [], []
        for line in self.here(block.code).splitlines():
            if line.startswith("pitlake serve"):
                self.serve(line)
            elif line.startswith("# open http"):  # a page the README sends you to
                opened.append(line.split()[-1])
            else:
                script.append(line)
        pages = "".join(self.page(url) for url in opened)  # HTML: shown, not judged below
        if not any(line.strip() and not line.startswith("#") for line in script):
            return pages
        return pages + self.run(
            ["bash", "-c", "set -euo pipefail\nsource .venv/bin/activate\n" + "\n".join(script)],
            block,
        )

    def page(self, url: str) -> str:
        with urllib.request.urlopen(url, timeout=60) as r:
            assert r.status == 200, (url, r.status)
            body = r.read().decode("utf-8")
        assert "<html" in body.lower() and "2025-06-30" in body, url
        return body

    def python(self, block: Block) -> str:
        return self.run([str(self.path / ".venv" / "bin" / "python"), "-c", block.code], block)

    def run(self, argv: list[str], block: Block) -> str:
        done = subprocess.run(
            argv, cwd=self.path, env=self.env, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, (
            f"{block} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        )
        return done.stdout

    def serve(self, line: str) -> None:
        """`pitlake serve …` (`&`, a comment after it): one server for the blocks after it."""
        if any(p.poll() is None for p in self.servers):
            return
        line = line.split("#", 1)[0].strip().removesuffix("&").strip()
        argv = ["bash", "-c", f"source .venv/bin/activate && exec {line}"]
        proc = subprocess.Popen(
            argv,
            cwd=self.path,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.servers.append(proc)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2):
                    return
            except OSError:
                assert proc.poll() is None, f"`{line}` exited {proc.returncode}"
                time.sleep(0.3)
        raise AssertionError(f"`{line}` did not answer /healthz within 60 s")

    def close(self) -> None:
        for proc in self.servers:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workdir]:
    w = Workdir(tmp_path_factory.mktemp("readme"))
    yield w
    w.close()


def test_every_block_is_run_or_says_why_not() -> None:
    """No code block is left out silently: a skipped one gives its reason; the rest run
    below, the demo's ingest first."""
    every = [b for b in blocks() if b.lang in RUNNABLE]
    skipped = [b for b in every if b.skip is not None]
    assert all(b.skip for b in skipped), [str(b) for b in skipped if not b.skip]
    for b in every:
        if b.lang == "sql":
            assert b.as_of or b.skip is not None, f"{b}: a SQL block names its as-of"
    first = next(b for b in runnable() if b.lang == "bash")
    assert "pitlake ingest --source replay:sample" in first.code, "the demo's ingest runs first"


def test_the_readme_runs_as_printed(workdir: Workdir) -> None:
    """Each runnable block in order; each answers something that is not empty or failed."""
    for block in runnable():
        if block.lang == "sql":
            with Lake(workdir.path / "lake") as lake:
                r = lake.sql(block.code, as_of=block.as_of)
            assert r.status == "OK", f"{block}: {r.status} {r.message}"
            assert r.rows, f"{block}: no rows"
            continue
        out = workdir.bash(block) if block.lang == "bash" else workdir.python(block)
        assert out.strip(), f"{block} printed nothing"
        # an ingest's summary lists each dataset's own status (NO_DATA is a legal session);
        # its exit code says whether the run completed
        judged = "pitlake ingest" not in block.code and "# open http" not in block.code
        bad = EMPTY.search(out) if judged else None
        assert bad is None, f"{block} answered {bad.group(0)}:\n{out[-2000:]}"
    assert (workdir.path / "lake" / "catalog.db").is_file()
