"""Faults at scale: injected vendor failures end in exactly the ledger's failed partitions, a
second run repairs only those, and a SIGKILLed backfill resumes without loss or duplicates.

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_faults ledger --start 2024-01-01 \
        --end 2024-03-31 --out benchmarks/out/faults
    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_faults kill --start 2024-01-01 \
        --end 2024-02-29 --out benchmarks/out/kill

`ledger`: a full-market backfill (quotes, adj_factors, valuation, dragon_tiger) with 2 %
failures (transport errors and column-less frames, half each) and 1 % stale answers, behind
pitlake's real retries (RetryPolicy defaults, waits skipped). The simulator's last attempt per
call says which calls failed beyond the retries; that set, mapped to (dataset, session), is
compared with the ledger's non-OK entries. Then a repair run (new fault draws, same rates)
fetches the pending units: their count must equal the failed set.
`kill`: a clean run into lake A; a run into lake B killed with SIGKILL after a random delay,
then rerun to completion; A and B must hold the same rows, B no duplicate keys, no *.tmp
files, every Parquet file readable.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks.bench_backfill import ingest
from benchmarks.simvendor import SimClient, SimConfig, SimMarket, sim_router
from benchmarks.simvendor.client import OK, STALE, day_of
from pitlake import ingest as core
from pitlake.envelope import LedgerStatus
from pitlake.vendors.retry import RetryPolicy

DATASETS = ["quotes", "adj_factors", "valuation", "dragon_tiger"]
DATASET_OF = {
    "daily": "quotes",
    "adj_factor": "adj_factors",
    "daily_basic": "valuation",
    "top_list": "dragon_tiger",
    "top_inst": "dragon_tiger",
}
GOOD = (LedgerStatus.OK, LedgerStatus.NO_DATA)


def _quiet(_msg: str) -> None:
    return None


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


def ledger_failures(env: core.RunEnv, start: date, end: date) -> dict[tuple[str, date], str]:
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
    env = core.RunEnv(out, run_id="faults-1", router=sim_router(first, policy=policy))
    outcomes = ingest(env, DATASETS, start, end, None, log=_quiet)
    t1 = time.perf_counter()
    expected = failed_beyond_retries(first)
    ledger = ledger_failures(env, start, end)
    env.close()

    second = SimClient(
        market, SimConfig(failure_rate=failure, stale_rate=stale, today=end, fault_seed=2)
    )
    env2 = core.RunEnv(out, run_id="faults-2", router=sim_router(second, policy=policy))
    repair = ingest(env2, DATASETS, start, end, None, log=_quiet)
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
            "completed": core.summarize(outcomes)["completed"],
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


def _backfill_cmd(start: date, end: date, out: Path, keep: bool) -> list[str]:
    cmd = [sys.executable, "-m", "benchmarks.bench_backfill", "--start", str(start)]
    cmd += ["--end", str(end), "--datasets", ",".join(DATASETS), "--out", str(out), "--no-reads"]
    return cmd + (["--keep"] if keep else [])


def lake_facts(root: Path) -> dict[str, Any]:
    import duckdb
    import pyarrow.parquet as pq

    curated = root / "curated"
    bad, files = [], sorted(curated.rglob("*.parquet"))
    for f in files:
        try:
            pq.read_metadata(f)
        except Exception as e:  # a torn file
            bad.append(f"{f}: {e}")
    tmp = [str(p) for p in root.rglob("*.tmp")]
    facts: dict[str, Any] = {"parquet_files": len(files), "unreadable": bad, "tmp_files": tmp}
    con = duckdb.connect()
    for ds, key in {
        "quotes": "symbol, trade_date",
        "adj_factors": "symbol, trade_date",
        "valuation": "symbol, trade_date",
        "dragon_tiger": "symbol, trade_date, reason",
    }.items():
        paths = [str(p) for p in (curated / ds).rglob("*.parquet")]
        if not paths:
            continue
        rows, keys, versions = con.execute(
            f"SELECT count(*), count(DISTINCT ({key})), count(DISTINCT ({key}, known_at)) "
            "FROM read_parquet(?)",
            [paths],
        ).fetchall()[0]
        facts[ds] = {"rows": rows, "distinct_keys": keys, "distinct_key_versions": versions}
    con.close()
    return facts


def run_kill(start: date, end: date, out: Path, seed: int) -> dict[str, Any]:
    clean, killed = out / "clean", out / "killed"
    for p in (clean, killed):
        if p.exists():
            shutil.rmtree(p)
    t = time.perf_counter()
    subprocess.run(_backfill_cmd(start, end, clean, False), check=True, capture_output=True)
    clean_s = time.perf_counter() - t
    delay = random.Random(seed).uniform(0.2, 0.8) * clean_s
    proc = subprocess.Popen(
        _backfill_cmd(start, end, killed, False), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    at_kill = lake_facts(killed)
    rerun = subprocess.run(
        _backfill_cmd(start, end, killed, True), check=True, capture_output=True, text=True
    )
    after = json.loads(rerun.stdout[rerun.stdout.index("{") :])
    a, b = lake_facts(clean), lake_facts(killed)
    same = all(a[ds]["rows"] == b[ds]["rows"] for ds in DATASETS if ds in a)
    dupes = any(b[ds]["rows"] != b[ds]["distinct_key_versions"] for ds in DATASETS if ds in b)
    return {
        "window": f"{start}..{end}",
        "clean_run_s": round(clean_s, 1),
        "killed_after_s": round(delay, 1),
        "at_kill": at_kill,
        "rerun_units": {k: v["units"] for k, v in after["per_dataset"].items()},
        "clean": a,
        "resumed": b,
        "rows_equal_clean": same,
        "duplicates": dupes,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["ledger", "kill"])
    ap.add_argument("--start", default="2024-01-01")
    ap.add_argument("--end", default="2024-03-31")
    ap.add_argument("--out", default="benchmarks/out/faults")
    ap.add_argument("--failure-rate", type=float, default=0.02)
    ap.add_argument("--stale-rate", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    start, end, out = date.fromisoformat(a.start), date.fromisoformat(a.end), Path(a.out)
    if a.mode == "ledger":
        result = run_ledger(start, end, out, a.failure_rate, a.stale_rate)
    else:
        result = run_kill(start, end, out, a.seed)
    print(json.dumps(result, ensure_ascii=False, indent=1, default=str))


if __name__ == "__main__":
    main()
