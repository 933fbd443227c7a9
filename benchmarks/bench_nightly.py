"""Nightly at full market: one session, every Tushare dataset, against the simulated vendor.

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_nightly --day 2025-04-28 \
        --latency 0.15 --out benchmarks/out/nightly

Runs pitlake.pipeline directly, as flows/nightly.py does with its thread-pool task runner: the
units are fetched on 4 threads, and each batch is gated (against the session) and committed as
soon as its fetch returns. The simulator enforces the
quota (500/min by-date endpoints, 200/min statements) and pitlake is told the same quota through
PITLAKE_TUSHARE_* variables; its buckets pace `--margin` below it (default: pitlake's 5 %). Reports wall time per stage,
calls per endpoint, rate-limit refusals, and the wall time against the quota-bound lower limit
(max over endpoints of calls ÷ quota).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import date
from pathlib import Path

from benchmarks.simvendor import SimClient, SimConfig, SimMarket, sim_router
from pitlake.pipeline.commit import commit
from pitlake.pipeline.fetch import fetch
from pitlake.pipeline.gating import gate
from pitlake.pipeline.planning import nightly_units
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Batch, Unit, UnitOutcome
from pitlake.vendors.ratelimit import rate_config

DATASETS = ["quotes", "adj_factors", "valuation", "dragon_tiger", "financials"]
BY_DATE_QUOTA = 500
STATEMENT_QUOTA = 200
QUOTA = {
    **{ep: BY_DATE_QUOTA for ep in ("daily", "adj_factor", "daily_basic", "top_list")},
    **{ep: BY_DATE_QUOTA for ep in ("top_inst", "disclosure_date", "trade_cal")},
    **{ep: STATEMENT_QUOTA for ep in ("income", "balancesheet", "cashflow")},
}


def bucket_env(margin: float | None = None) -> dict[str, str]:
    """pitlake told the vendor's quota per endpoint (vendor-wide not binding); its buckets
    pace `margin` below it (None: pitlake's default, ratelimit.DEFAULT_MARGIN) and bank what
    the margin allows (ratelimit.RateConfig.capacity), as a user's would."""
    env = {"PITLAKE_TUSHARE_PER_MIN": "100000"}
    env.update({f"PITLAKE_TUSHARE_PER_MIN_{ep.upper()}": str(q) for ep, q in QUOTA.items()})
    if margin is not None:
        env["PITLAKE_TUSHARE_RATE_MARGIN"] = str(margin)
    return env


def run(day: date, latency: float, out: Path, symbols: int, margin: float | None = None) -> dict:
    if out.exists():
        shutil.rmtree(out)
    market = SimMarket(n_symbols=symbols)
    client = SimClient(market, SimConfig(latency=latency, quota=QUOTA, today=day))
    t0 = time.perf_counter()
    env = RunEnv(
        out, run_id=f"bench-nightly-{day}", router=sim_router(client, env=bucket_env(margin))
    )
    units = nightly_units(env, day, DATASETS, None)
    per_unit: dict[str, float] = {}
    after_last: dict[str, float] = {}  # seconds from the start to the dataset's commit

    def timed_fetch(u: Unit) -> Batch:
        s = time.perf_counter()
        b = fetch(env, u)
        per_unit[u.dataset] = time.perf_counter() - s
        return b

    gate_s = commit_s = 0.0
    outcomes: list[UnitOutcome] = []
    with ThreadPoolExecutor(max_workers=4) as pool:
        # as flows/nightly.py does: each batch gated and committed as soon as it is fetched
        for future in as_completed([pool.submit(timed_fetch, u) for u in units]):
            batch = future.result()
            s = time.perf_counter()
            verdicts = gate(env, [batch], align_on=day)
            gate_s += time.perf_counter() - s
            s = time.perf_counter()
            outcomes += commit(env, [batch], verdicts)
            commit_s += time.perf_counter() - s
            after_last[batch.unit.dataset] = time.perf_counter() - t0
    t3 = time.perf_counter()
    env.close()
    attempts = client.log.counts()
    outcomes_by_kind = client.log.outcomes()
    calls = {ep: len([k for k in client.log.attempts if k[0] == ep]) for ep in attempts}
    bound = max(60.0 * n / QUOTA[ep] for ep, n in calls.items())
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
        "attempts_per_endpoint": attempts,
        "sim_outcomes": outcomes_by_kind,
        "quota_bound_s": round(bound, 2),
        "ratio_wall_to_bound": round((t3 - t0) / bound, 2) if bound else None,
        "statuses": {o.dataset: [o.status, o.rows] for o in outcomes},
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
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
