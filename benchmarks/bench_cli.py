"""Time the command line as a user's shell sees it: whole processes, start-up included.

    .venv/bin/python -m benchmarks.bench_cli            # builds the API test lake if absent
    .venv/bin/python -m benchmarks.bench_cli --runs 9 --lake /tmp/cli-speed-lake

Each command runs N times, interleaved with the others (so a busy neighbour slows them all
alike); the table gives the median and the minimum. The baselines are the floor any Python CLI
pays (`python -c pass`) and DuckDB's own Python module answering `select 1` (what a read costs
before pitlake does anything). A command that exits non-zero stops the run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_LAKE = Path("/tmp/cli-speed-lake")
AS_OF = "2025-06-03"


def commands(lake: Path) -> dict[str, list[str]]:
    """Each timed row: its label and argv (the baselines first)."""
    py = sys.executable
    cli = [py, "-m", "pitlake.cli"]
    return {
        "`python -c pass` (baseline)": [py, "-c", "pass"],
        "duckdb `select 1` (baseline)": [
            py,
            "-c",
            "import duckdb; duckdb.sql('select 1').fetchall()",
        ],
        "`pitlake --help`": [*cli, "--help"],
        "`pitlake query quotes -s 000001.SZ`": [
            *cli,
            *("query", "quotes", "-s", "000001.SZ", "--as-of", AS_OF, "--lake", str(lake)),
        ],
        "`pitlake sql` one-liner": [
            *cli,
            *("sql", "select symbol, close from quotes limit 1"),
            *("--as-of", AS_OF, "--lake", str(lake)),
        ],
    }


def _once(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}: {done.stderr.decode()[-400:]}")
    return took


def measure(rows: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """Every row's N wall times, the rows interleaved run by run (one warm-up run first)."""
    for argv in rows.values():
        _once(argv)
    out: dict[str, list[float]] = {label: [] for label in rows}
    for _ in range(runs):
        for label, argv in rows.items():
            out[label].append(_once(argv))
    return out


def table(times: dict[str, list[float]]) -> str:
    lines = ["| command | median (s) | min (s) |", "| --- | --- | --- |"]
    for label, ts in times.items():
        lines.append(f"| {label} | {statistics.median(ts):.2f} | {min(ts):.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--lake", type=Path, default=DEFAULT_LAKE)
    args = parser.parse_args()
    if not (args.lake / "catalog.db").exists():
        from tests.serve.api.lakebuild import build_lake

        build_lake(args.lake)
    print(table(measure(commands(args.lake), args.runs)))


if __name__ == "__main__":
    main()
