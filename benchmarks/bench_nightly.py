"""Nightly at full market: one session, every nightly dataset, against the simulated vendor.

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_nightly --day 2025-04-28 \
        --latency 0.15 --out benchmarks/out/nightly

Runs `pitlake.pipeline.nightly.run_session`, what flows/nightly.py does with its thread-pool
task runner: the session's waves (the master first; the last wave once the master and the bars
are committed, `planning.session_stages`), units on 4 threads, each fetched, gated against the
session and committed by itself; each step is timed where `pipeline.run.ingest_unit` calls it. Every dataset of `schemas.NIGHTLY_DATASETS` is run through Tushare's fetchers, so
every endpoint they call is asked (the announcements, the master's stock_basic, namechange and
suspend_d included; the simulator answers the endpoints it does not model with no rows). The
simulator enforces the quota (500/min per endpoint, 200/min statements) and pitlake is told the
same quota through PITLAKE_TUSHARE_* variables; its buckets pace `--margin` below it (default:
pitlake's 5 %). Reports wall time per stage, calls per endpoint and per dataset, rate-limit
refusals, each dataset's quota floor (max over its endpoints of its calls ÷ quota) and the run's
(max over endpoints of all calls ÷ quota), and the wall against the run's floor.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

from pitlake.schemas import NIGHTLY_DATASETS

from benchmarks.simvendor import SimClient, SimConfig, SimMarket, sim_router
from benchmarks.simvendor.client import RATE_LIMITED
from pitlake.pipeline import run as pipeline_run
from pitlake.pipeline.nightly import run_session
from pitlake.pipeline.resources import RunEnv
from pitlake.vendors.ratelimit import rate_config
from pitlake.vendors.tushare.fetch import required_columns

DATASETS = list(NIGHTLY_DATASETS)
BY_DATE_QUOTA = 500
STATEMENT_QUOTA = 200
STATEMENTS = ("income", "balancesheet", "cashflow")
# Every endpoint Tushare's fetchers call: the statements at 200/min, the rest at 500/min.
QUOTA = {
    ep: STATEMENT_QUOTA if ep in STATEMENTS else BY_DATE_QUOTA for ep in sorted(required_columns())
}


def dataset_of(key: tuple) -> str:
    """Which dataset's fetcher made a simulator call (its endpoint, and for the one endpoint
    two fetchers share, disclosure_date, its parameters: financials asks by actual_date)."""
    from pitlake.vendors.tushare import PLUGIN

    endpoint, params = key[0], dict(key[1])
    owners = sorted(ds for ds, f in PLUGIN.fetchers.items() if endpoint in f.required)
    if len(owners) > 1:
        return "financials" if "actual_date" in params else "disclosure_schedule"
    return owners[0]


def served(log: Any) -> dict[tuple, int]:
    """Per call key, the attempts the vendor counted against its quota (not the refused)."""
    return {k: sum(1 for o in v if o != RATE_LIMITED) for k, v in log.attempts.items()}


def calls_per_endpoint(log: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for key, n in served(log).items():
        out[key[0]] = out.get(key[0], 0) + n
    return out


def calls_by_dataset(log: Any) -> dict[str, dict[str, int]]:
    """dataset → endpoint → calls the vendor counted."""
    out: dict[str, dict[str, int]] = {}
    for key, n in served(log).items():
        per = out.setdefault(dataset_of(key), {})
        per[key[0]] = per.get(key[0], 0) + n
    return out


def quota_floor(calls: dict[str, int]) -> float:
    """Seconds the quota alone needs for these calls per endpoint (a run at the floor)."""
    return max((60.0 * n / QUOTA[ep] for ep, n in calls.items()), default=0.0)


def quota_store(out: Path) -> str:
    """A fresh shared-quota file beside the benchmark's lake (PITLAKE_QUOTA_URL): a rerun
    does not inherit the last run's calls, and nothing is written outside the output."""
    path = out.parent / f"{out.name}-quota.sqlite"
    for p in (path, path.with_name(path.name + ".lock")):
        p.unlink(missing_ok=True)
    return f"sqlite:///{path.resolve()}"


def bucket_env(margin: float | None = None, quota_url: str | None = None) -> dict[str, str]:
    """pitlake told the vendor's quota per endpoint (vendor-wide not binding); its buckets
    pace `margin` below it (None: pitlake's default, ratelimit.DEFAULT_MARGIN) and bank what
    the margin allows (ratelimit.RateConfig.capacity), as a user's would; `quota_url`: where
    the shared quota lives (pitlake.vendors.quota)."""
    env = {"PITLAKE_TUSHARE_PER_MIN": "100000"}
    if quota_url:
        env["PITLAKE_QUOTA_URL"] = quota_url
    env.update({f"PITLAKE_TUSHARE_PER_MIN_{ep.upper()}": str(q) for ep, q in QUOTA.items()})
    if margin is not None:
        env["PITLAKE_TUSHARE_RATE_MARGIN"] = str(margin)
    return env


class Stamped:
    """The simulator, noting when each call reached it (for the wall's split)."""

    def __init__(self, inner: SimClient) -> None:
        self.inner = inner
        self.vendor = inner.vendor
        self.log = inner.log
        self.stamps: list[tuple[float, str]] = []

    def call(self, endpoint: str, **params: Any) -> Any:
        self.stamps.append((time.perf_counter(), endpoint))  # atomic under the GIL
        return self.inner.call(endpoint, **params)


def busiest_minute(stamps: list[float]) -> int:
    """The most calls that reached the vendor in any 60 s (the quota's own measure)."""
    best, lo = 0, 0
    for hi, t in enumerate(stamps):
        while stamps[lo] <= t - 60.0:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


def run(day: date, latency: float, out: Path, symbols: int, margin: float | None = None) -> dict:
    if out.exists():
        shutil.rmtree(out)
    market = SimMarket(n_symbols=symbols)
    client = SimClient(market, SimConfig(latency=latency, quota=QUOTA, today=day))
    stamped = Stamped(client)
    t0 = time.perf_counter()
    limits = bucket_env(margin, quota_store(out))
    env = RunEnv(out, run_id=f"bench-nightly-{day}", router=sim_router(stamped, env=limits))
    per_unit: dict[str, float] = {}  # each dataset's fetch
    after_last: dict[str, float] = {}  # seconds from the start to the dataset's commit
    spent = {"gate": 0.0, "commit": 0.0}
    lock = threading.Lock()
    real = {name: getattr(pipeline_run, name) for name in ("fetch", "gate", "commit")}

    def timed(name: str) -> Any:
        def step(env_: RunEnv, first: Any, *rest: Any, **kw: Any) -> Any:
            s = time.perf_counter()
            out = real[name](env_, first, *rest, **kw)
            took, now = time.perf_counter() - s, time.perf_counter() - t0
            with lock:
                if name == "fetch":
                    per_unit[first.dataset] = took
                else:
                    spent[name] += took
                if name == "commit":
                    for b in first:
                        after_last[b.unit.dataset] = now
            return out

        return step

    # The pipeline's own nightly (its stages, its 4 threads), each step timed where
    # pipeline.run.ingest_unit calls it.
    for name in real:
        setattr(pipeline_run, name, timed(name))
    try:
        outcomes = run_session(env, day, DATASETS)
    finally:
        for name, fn in real.items():
            setattr(pipeline_run, name, fn)
    gate_s, commit_s = spent["gate"], spent["commit"]
    t3 = time.perf_counter()
    env.close()
    attempts = client.log.counts()
    outcomes_by_kind = client.log.outcomes()
    calls = calls_per_endpoint(client.log)
    bound = quota_floor(calls)
    by_dataset = calls_by_dataset(client.log)
    return {
        "day": day.isoformat(),
        "latency_s": latency,
        "rate_margin": rate_config("tushare", bucket_env(margin)).margin,
        "symbols": symbols,
        "wall_s": round(t3 - t0, 2),
        "gate_s_total": round(gate_s, 2),
        "commit_s_total": round(commit_s, 2),
        "fetch_s_per_dataset": {k: round(v, 2) for k, v in per_unit.items()},
        "committed_at_s": {k: round(v, 2) for k, v in after_last.items()},
        "calls_per_endpoint": calls,
        "calls_per_dataset": by_dataset,
        "quota_floor_s_per_dataset": {
            ds: round(quota_floor(c), 2) for ds, c in sorted(by_dataset.items())
        },
        "attempts_per_endpoint": attempts,
        "sim_outcomes": outcomes_by_kind,
        "refused": outcomes_by_kind.get("rate_limited", 0),
        "quota_bound_s": round(bound, 2),
        "ratio_wall_to_bound": round((t3 - t0) / bound, 2) if bound else None,
        "statuses": {o.dataset: [o.status, o.rows] for o in outcomes},
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        # when each busy endpoint's calls reached the vendor (s from the start), and its
        # busiest 60 s against the quota: pacing below the quota shows here
        "pacing_per_endpoint": pacing(stamped.stamps, t0),
    }


def pacing(stamps: list[tuple[float, str]], t0: float) -> dict[str, dict[str, Any]]:
    """Each endpoint with more than 20 calls: when its calls reached the vendor (s from t0),
    their span, and its busiest 60 s against the quota."""
    per_endpoint: dict[str, list[float]] = {}
    for t, ep in sorted(stamps):
        per_endpoint.setdefault(ep, []).append(t)
    return {
        ep: {
            "first_s": round(ts[0] - t0, 2),
            "last_s": round(ts[-1] - t0, 2),
            "span_s": round(ts[-1] - ts[0], 2),
            "busiest_minute": busiest_minute(ts),
            "quota": QUOTA[ep],
        }
        for ep, ts in sorted(per_endpoint.items())
        if len(ts) > 20
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--day", default="2025-04-28")
    ap.add_argument("--latency", type=float, default=0.15)
    ap.add_argument("--symbols", type=int, default=5300)
    ap.add_argument("--out", default="benchmarks/out/nightly")
    ap.add_argument("--margin", type=float, default=None, help="pace this fraction below the quota")
    a = ap.parse_args()
    result = run(date.fromisoformat(a.day), a.latency, Path(a.out), a.symbols, a.margin)
    print(json.dumps(result, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
