"""Faults at scale: injected vendor failures end in exactly the ledger's failed partitions, a
second run repairs only those, and a SIGKILLed backfill resumes without loss or duplicates.

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_faults ledger --start 2023-01-01 \
        --end 2023-12-31 --out benchmarks/out/faults
    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_faults kill --start 2024-01-01 \
        --end 2024-02-29 --out benchmarks/out/kill

`ledger`: a full-market backfill (quotes, adj_factors, valuation, dragon_tiger) with 2 %
failures (transport errors and column-less frames, half each) and 1 % stale answers, behind
pitlake's real retries (RetryPolicy defaults, waits skipped). The simulator's last attempt per
call says which calls failed beyond the retries; that set, mapped to (dataset, session), is
compared with the ledger's non-OK entries. Then a repair run (new fault draws, same rates)
fetches the pending units: they must be exactly the failed set.
`kill`: a clean run into lake A, then per trial a backfill child into a fresh lake B that is
SIGKILLed at a point taken from its progress (see `kill_trial`), rerun to completion. The rerun
must fetch exactly the units the ledger did not hold at the kill (at least one); B must end with
A's rows (an order-independent checksum of every column but run_id and ingested_at), no
duplicate (key, known_at), no *.tmp file anywhere, every Parquet file readable, and a ledger
holding every unit.
`child`: one backfill (used by `kill`), optionally killing itself at a given point.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

from pitlake.schemas import get as get_schema

from benchmarks.simvendor import SimClient, SimConfig, SimMarket, sim_router
from benchmarks.simvendor.client import OK, STALE, day_of
from pitlake.pipeline.backfill import backfill_chunk
from pitlake.pipeline.planning import chunks_for
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.summary import summarize
from pitlake.pipeline.units import UnitOutcome
from pitlake.statuses import SUCCESSFUL_FETCH
from pitlake.vendors.retry import RetryPolicy

DATASETS = ["quotes", "adj_factors", "valuation", "dragon_tiger"]
DATASET_OF = {
    "daily": "quotes",
    "adj_factor": "adj_factors",
    "daily_basic": "valuation",
    "top_list": "dragon_tiger",
    "top_inst": "dragon_tiger",
}
GOOD = SUCCESSFUL_FETCH
REPO = Path(__file__).resolve().parents[1]


def failed_beyond_retries(client: SimClient) -> set[tuple[str, date]]:
    """(dataset, session) whose vendor call ended failed or stale after pitlake's retries.
    A stale top_inst (seat enrichment) does not fail its unit: not counted."""
    out = set()
    for key, last in client.log.final().items():
        ep = key[0]
        if ep not in DATASET_OF or last == OK:
            continue
        if ep == "top_inst" and last == STALE:
            continue
        out.add((DATASET_OF[ep], day_of(key)))
    return out


def ledger_failures(env: RunEnv, start: date, end: date) -> dict[tuple[str, date], str]:
    return {
        (e.dataset, e.date_key): str(e.status)
        for ds in DATASETS
        for e in env.catalog.ledger_entries(ds, start, end)
        if e.status not in GOOD
    }


def run_ledger(start: date, end: date, out: Path, failure: float, stale: float) -> dict[str, Any]:
    if out.exists():
        shutil.rmtree(out)
    market = SimMarket()
    policy = RetryPolicy.no_wait()
    first = SimClient(market, SimConfig(failure_rate=failure, stale_rate=stale, today=end))
    t0 = time.perf_counter()
    env = RunEnv(out, run_id="faults-1", router=sim_router(first, policy=policy))
    outcomes = backfill(env, start, end)
    t1 = time.perf_counter()
    expected = failed_beyond_retries(first)
    ledger = ledger_failures(env, start, end)
    env.close()

    second = SimClient(
        market, SimConfig(failure_rate=failure, stale_rate=stale, today=end, fault_seed=2)
    )
    env2 = RunEnv(out, run_id="faults-2", router=sim_router(second, policy=policy))
    repair = backfill(env2, start, end)
    t2 = time.perf_counter()
    repaired_units = {(o.dataset, date.fromisoformat(o.date_key)) for o in repair}
    still = ledger_failures(env2, start, end)
    expected2 = failed_beyond_retries(second)
    env2.close()
    return {
        "window": f"{start}..{end}",
        "failure_rate": failure,
        "stale_rate": stale,
        "first_run": {
            "wall_s": round(t1 - t0, 1),
            "units": len(outcomes),
            "completed": summarize(outcomes).to_dict()["completed"],
            "sim_outcomes": first.log.outcomes(),
            "failed_beyond_retries": len(expected),
            "ledger_not_ok": len(ledger),
            "ledger_statuses": _count(ledger.values()),
            "ledger_equals_sim": set(ledger) == expected,
            "only_in_ledger": sorted(f"{d} {s}" for d, s in set(ledger) - expected),
            "only_in_sim": sorted(f"{d} {s}" for d, s in expected - set(ledger)),
        },
        "repair_run": {
            "wall_s": round(t2 - t1, 1),
            "units_fetched": len(repair),
            "fetched_equals_failed": repaired_units == set(ledger),
            "sim_outcomes": second.log.outcomes(),
            "still_not_ok": len(still),
            "still_equals_sim": set(still) == expected2,
        },
    }


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


# ---------------------------------------------------------------- kill and resume
#
# A backfill child process is SIGKILLed at a point chosen from its progress, never from time:
# - `ledger` trials: a watcher polls the child's catalog and kills it once K of the N units
#   are in the ledger (K drawn in 20-80 % of N); the kill lands wherever the child then is.
# - `curated`, `raw`, `dq` trials: the child kills itself inside its Nth lake write under that
#   zone (partitions, raw answers, validation results and data docs), after the temp file is
#   written and fsynced and before the rename that publishes it.
# Then the same backfill is rerun into the same lake and compared with a clean, unkilled lake.

KEYS = {ds: get_schema(ds).key for ds in DATASETS}
NOT_COMPARED = ("run_id", "ingested_at")  # differ between any two runs by design


def backfill(
    env: RunEnv, start: date, end: date, datasets: list[str] = DATASETS
) -> list[UnitOutcome]:
    """The backfill flow's body without Prefect, in its order: each dataset, month by month."""
    outcomes: list[UnitOutcome] = []
    for ds in datasets:
        for lo, hi in chunks_for(ds, start, end):
            outcomes += backfill_chunk(env, ds, lo, hi, None)
    return outcomes


def open_env(root: Path, end: date, n_symbols: int, run_id: str) -> RunEnv:
    client = SimClient(SimMarket(n_symbols=n_symbols), SimConfig(today=end))
    return RunEnv(root, run_id=run_id, router=sim_router(client, policy=RetryPolicy.no_wait()))


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def die_after_ledger(env: RunEnv, k: int) -> None:
    """SIGKILL this process right after the kth ledger entry is recorded (a unit boundary)."""
    record, seen = env.catalog.record_ledger, [0]

    def counting(*args: Any, **kwargs: Any) -> Any:
        out = record(*args, **kwargs)
        seen[0] += 1
        if seen[0] == k:
            _die()
        return out

    env.catalog.record_ledger = counting  # type: ignore[method-assign]


PUBLISHED = {"curated": 0, "raw": 0, "dq": 0}  # this process's lake writes per zone


def count_publishes(die_at: int = 0, zone: str = "curated") -> None:
    """Count this process's lake writes per zone; with `die_at`, SIGKILL it inside its
    die_at-th write under `zone`: the temp file is complete and fsynced, the rename that would
    publish it has not happened. (The zone is matched by path component: keep the lake itself
    out of directories named curated, raw or dq.)"""
    from pitlake.lake import parquet

    publish, lock = parquet._publish, threading.Lock()  # raw answers are written by threads

    def counting(tmp: Path, final: Path) -> None:
        for z in PUBLISHED:
            if z in final.parts:
                with lock:
                    PUBLISHED[z] += 1
                    if z == zone and PUBLISHED[z] == die_at:
                        _die()
        publish(tmp, final)

    parquet._publish = counting


def child(a: argparse.Namespace) -> None:
    """One backfill into --out; prints the units it fetched as JSON."""
    start, end = date.fromisoformat(a.start), date.fromisoformat(a.end)
    env = open_env(Path(a.out), end, a.symbols, f"faults-kill-{os.getpid()}")
    if a.die_after_ledger:
        die_after_ledger(env, a.die_after_ledger)
    count_publishes(a.die_at_publish, a.zone)
    outcomes = backfill(env, start, end)
    env.close()
    units = [[o.dataset, o.date_key, o.status] for o in outcomes]
    print(json.dumps({"units": units, "published": PUBLISHED}))


def _child_cmd(start: date, end: date, out: Path, symbols: int, *extra: str) -> list[str]:
    cmd = [sys.executable, "-m", "benchmarks.bench_faults", "child", "--start", str(start)]
    return [*cmd, "--end", str(end), "--out", str(out), "--symbols", str(symbols), *extra]


def _run_child(cmd: list[str]) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """Run a child to completion: the (dataset, session) units it fetched, its writes per zone."""
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=REPO)
    report = json.loads(done.stdout.splitlines()[-1])
    return [(ds, day) for ds, day, _status in report["units"]], report["published"]


def ledger_done(root: Path) -> set[tuple[str, str]]:
    """(dataset, session) the ledger holds as fetched (OK or NO_DATA)."""
    return set(ledger_entries(root))


def ledger_entries(root: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(dataset, session) the ledger holds as fetched (OK or NO_DATA) → (run_id, recorded_at),
    read with plain sqlite3 so it works on a catalog a killed process left behind (WAL mode)."""
    db = root / "catalog.db"
    if not db.exists():
        return {}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        rows = con.execute(
            "SELECT dataset, date_key, run_id, recorded_at FROM ledger WHERE status IN (?, ?)",
            [str(s) for s in GOOD],
        ).fetchall()
    except sqlite3.OperationalError:  # the child has not created the tables yet
        return {}
    finally:
        con.close()
    return {(ds, str(day)[:10]): (str(run), str(at)) for ds, day, run, at in rows}


def lake_facts(root: Path) -> dict[str, Any]:
    """What a reader of the lake would see: unreadable Parquet files (any zone), leftover temp
    files, and per dataset the rows, distinct (key, known_at) and an order-independent checksum
    of every column except run_id and ingested_at."""
    import duckdb
    import pyarrow.parquet as pq

    files = sorted(root.rglob("*.parquet"))
    bad = []
    for f in files:
        try:
            pq.read_table(f)
        except Exception as e:  # a torn file
            bad.append(f"{f}: {e}")
    tmp = sorted(str(p.relative_to(root)) for p in root.rglob("*.tmp"))
    facts: dict[str, Any] = {"parquet_files": len(files), "unreadable": bad, "tmp_files": tmp}
    con = duckdb.connect()
    for ds in KEYS:
        paths = [str(p) for p in (root / "curated" / ds).rglob("*.parquet")]
        if not paths:
            continue
        names = pq.read_schema(paths[0]).names
        cols = ", ".join(f'"{c}"' for c in names if c not in NOT_COMPARED)
        key = ", ".join(f'"{c}"' for c in (*KEYS[ds], "known_at"))
        rows, versions, checksum = con.execute(
            f"SELECT count(*), count(DISTINCT ({key})), sum(hash({cols}))::VARCHAR "
            "FROM read_parquet(?)",
            [paths],
        ).fetchall()[0]
        facts[ds] = {"rows": rows, "distinct_key_versions": versions, "checksum": checksum}
    con.close()
    return facts


def kill_child(proc: subprocess.Popen[str], root: Path, k: int, poll: float) -> bool:
    """SIGKILL `proc` once the ledger of `root` holds k fetched units; False if it ended first."""
    while proc.poll() is None:
        if len(ledger_done(root)) >= k:
            proc.kill()
            proc.wait()
            return True
        time.sleep(poll)
    return False


def check_resume(
    clean: dict[str, Any],
    all_units: set[tuple[str, str]],
    pending: set[tuple[str, str]],
    rerun: list[tuple[str, str]],
    root: Path,
) -> dict[str, Any]:
    """The invariants of a resumed lake against the clean one."""
    after = lake_facts(root)
    return {
        "rerun_units": len(rerun),
        "rerun_equals_pending": sorted(rerun) == sorted(pending) and len(pending) > 0,
        "rows_equal_clean": all(after[ds] == clean[ds] for ds in DATASETS if ds in clean),
        "duplicates": any(f["rows"] != f["distinct_key_versions"] for f in _ds(after)),
        "tmp_files": after["tmp_files"],
        "partial_partition_files": [t for t in after["tmp_files"] if t.startswith("curated/")],
        "unreadable": after["unreadable"],
        "ledger_complete": ledger_done(root) >= all_units,
        "resumed": {ds: after[ds] for ds in DATASETS if ds in after},
    }


def _ds(facts: dict[str, Any]) -> list[dict[str, Any]]:
    return [facts[ds] for ds in DATASETS if ds in facts]


def passed(r: dict[str, Any]) -> bool:
    return (
        r["rerun_equals_pending"]
        and r["rows_equal_clean"]
        and not r["duplicates"]
        and not r["tmp_files"]
        and not r["unreadable"]
        and r["ledger_complete"]
    )


def kill_trial(
    kind: str, point: int, start: date, end: date, root: Path, symbols: int, ctx: dict[str, Any]
) -> dict[str, Any]:
    """One killed run into a fresh lake, then a rerun; `kind` is ledger, curated, raw or dq."""
    if root.exists():
        shutil.rmtree(root)
    t0 = time.perf_counter()
    if kind == "ledger":
        proc = subprocess.Popen(
            _child_cmd(start, end, root, symbols),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=REPO,
            text=True,
        )
        killed = kill_child(proc, root, point, poll=0.01)
        code = proc.returncode
    else:
        cmd = _child_cmd(start, end, root, symbols, "--die-at-publish", str(point), "--zone", kind)
        code = subprocess.run(cmd, capture_output=True, cwd=REPO).returncode
        killed = code == -signal.SIGKILL
    t1 = time.perf_counter()
    at_kill = lake_facts(root)
    done = ledger_done(root)
    pending = ctx["all_units"] - done
    rerun, _ = _run_child(_child_cmd(start, end, root, symbols))
    t2 = time.perf_counter()
    out = {
        "kill": f"{kind} {point}",
        "killed_by_sigkill": killed and code == -signal.SIGKILL,
        "killed_after_s": round(t1 - t0, 1),
        "ledgered_at_kill": len(done),
        "of_units": len(ctx["all_units"]),
        "tmp_files_at_kill": at_kill["tmp_files"],
        "rows_at_kill": {ds: at_kill[ds]["rows"] for ds in DATASETS if ds in at_kill},
        "rerun_s": round(t2 - t1, 1),
        **check_resume(ctx["clean"], ctx["all_units"], pending, rerun, root),
    }
    out["passed"] = out["killed_by_sigkill"] and passed(out)
    return out


def run_kill(
    start: date, end: date, out: Path, seed: int, symbols: int, trials: list[str]
) -> dict[str, Any]:
    rng = random.Random(seed)
    clean = out / "clean"
    if clean.exists():
        shutil.rmtree(clean)
    t = time.perf_counter()
    fetched, writes = _run_child(_child_cmd(start, end, clean, symbols))
    units = set(fetched)
    clean_s = time.perf_counter() - t
    facts = lake_facts(clean)
    ctx = {"clean": facts, "all_units": units}
    results = []
    for i, kind in enumerate(trials):
        if kind == "ledger":
            point = rng.randint(int(0.2 * len(units)), int(0.8 * len(units)))
        else:
            point = rng.randint(max(2, writes[kind] // 5), max(2, writes[kind] * 4 // 5))
        results.append(kill_trial(kind, point, start, end, out / f"killed-{i}", symbols, ctx))
    return {
        "window": f"{start}..{end}",
        "symbols": symbols,
        "units": len(units),
        "clean_run_s": round(clean_s, 1),
        "clean": facts,
        "writes_in_clean_run": writes,
        "trials": results,
        "all_passed": all(r["passed"] for r in results),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["ledger", "kill", "child"])
    ap.add_argument("--start", default="2024-01-01")
    ap.add_argument("--end", default="2024-03-31")
    ap.add_argument("--out", default="benchmarks/out/faults")
    ap.add_argument("--symbols", type=int, default=5300, help="market size (kill, child)")
    ap.add_argument("--failure-rate", type=float, default=0.02)
    ap.add_argument("--stale-rate", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--trials", default="ledger,ledger,ledger,curated,raw", help="kill: kill points, in order"
    )
    ap.add_argument("--die-after-ledger", type=int, default=0, help="child: SIGKILL at entry K")
    ap.add_argument("--die-at-publish", type=int, default=0, help="child: SIGKILL in write N")
    ap.add_argument("--zone", default="curated", choices=["curated", "raw", "dq"])
    a = ap.parse_args()
    if a.mode == "child":
        child(a)
        return
    start, end, out = date.fromisoformat(a.start), date.fromisoformat(a.end), Path(a.out)
    if a.mode == "ledger":
        result = run_ledger(start, end, out, a.failure_rate, a.stale_rate)
    else:
        result = run_kill(start, end, out, a.seed, a.symbols, a.trials.split(","))
    print(json.dumps(result, ensure_ascii=False, indent=1, default=str))


if __name__ == "__main__":
    main()
