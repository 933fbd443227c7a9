"""Load-test the HTTP query API: /v1/quotes (one symbol, one year) and /v1/snapshot (50 symbols).

    .venv/bin/python -m benchmarks.synth --force      # the lake (benchmarks/out/synth-lake)
    .venv/bin/python -m benchmarks.bench_api          # this benchmark (~2 min)

The server is `pitlake serve` (uvicorn, one process) on 127.0.0.1; the client is a separate
process (this script with --client) that sends a bounded number of requests over keep-alive
connections (http.client, a small thread pool) and stops by itself. Two loads per endpoint:
- **paced**: requests *started* at a fixed rate (open loop, from a schedule, so a slow answer
  does not slow the arrivals): latency at a stated request rate;
- **saturated**: N workers back to back (closed loop): throughput, and latency at that load.
Latency is measured in the client from sending the request to having the whole body, and every
answer is checked (HTTP 200, envelope status). Results: a Markdown table on stdout and
benchmarks/out/bench_api.json. `--lake` points at any lake whose catalog sits beside it; without
one, benchmarks/out/synth-lake is used (and built small, 500 symbols × 1 year, if missing).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
DEFAULT_LAKE = OUT / "synth-lake"
RESULT_FILE = OUT / "bench_api.json"


# ---------------------------------------------------------------- the lake


def ensure_lake(lake: Path) -> dict[str, Any]:
    """The lake's summary (symbols, sessions); a small synthetic lake is built if missing."""
    summary = lake / "synth.json"
    if not summary.exists():
        if lake != DEFAULT_LAKE and lake.exists():
            return _describe(lake)
        print(f"building a small synthetic lake at {lake} (500 symbols × 1 year)", flush=True)
        from benchmarks.synth import SynthConfig, generate

        generate(SynthConfig(out=lake, symbols=500, years=1, fin_years=3), force=True, log=print)
    data = json.loads(summary.read_text())
    return {"symbols": data["symbols"], "end": data["config"]["end"], "source": "synth.json"}


def _describe(lake: Path) -> dict[str, Any]:
    """Symbols and last session of any lake (from its quotes), for a lake without synth.json."""
    import duckdb

    files = [str(p) for p in sorted((lake / "curated" / "quotes").rglob("*.parquet"))]
    if not files:
        raise SystemExit(f"no quotes under {lake}/curated/quotes")
    con = duckdb.connect()
    syms = [
        r[0] for r in con.execute("SELECT DISTINCT symbol FROM read_parquet(?)", [files]).fetchall()
    ]
    end = con.execute("SELECT max(trade_date) FROM read_parquet(?)", [files]).fetchall()[0][0]
    return {"symbols": sorted(syms), "end": end.isoformat(), "source": "quotes"}


# ---------------------------------------------------------------- the server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(lake: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PITLAKE_API_TOKEN": ""}
    env.pop("PITLAKE_API_TOKEN")
    cmd = [sys.executable, "-m", "pitlake.cli", "serve", "--lake", str(lake)]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    stop_server(proc)
    raise SystemExit("server did not answer /healthz within 60 s")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server this script started (by its own process group, never by name)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def server_rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


# ---------------------------------------------------------------- the client (its own process)


def requests_for(kind: str, n: int, symbols: list[str], end: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    year = end[:4]
    out = []
    for _ in range(n):
        if kind == "quotes":
            s = rng.choice(symbols)
            out.append(f"/v1/quotes?symbol={s}&start={year}-01-01&end={end}&as_of={end}")
        else:
            chosen = ",".join(rng.sample(symbols, 50))
            out.append(f"/v1/snapshot?symbols={chosen}&date={end}&as_of={end}")
    return out


class Connection:
    """One keep-alive HTTP/1.1 connection (stdlib http.client: about 1 ms less per request
    than httpx on this machine, so the client's own cost stays small in the latency)."""

    def __init__(self, base: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=60)

    def get(self, url: str) -> tuple[int, bytes, float]:
        """(status, body, the server's own time in ms from its Server-Timing header)."""
        self.conn.request("GET", url)
        r = self.conn.getresponse()
        timing = r.getheader("server-timing") or "app;dur=nan"
        return r.status, r.read(), float(timing.partition("dur=")[2])

    def close(self) -> None:
        self.conn.close()


def client_main(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one load (paced or saturated) and return raw latencies and checks."""
    urls = requests_for(spec["kind"], spec["n"], spec["symbols"], spec["end"], spec["seed"])
    workers = spec["workers"]
    local = threading.local()
    opened: list[Connection] = []

    def connection() -> Connection:
        """One keep-alive connection per client thread (opened on its first request)."""
        if not hasattr(local, "conn"):
            local.conn = Connection(spec["base"])
            local.conn.get("/healthz")
            opened.append(local.conn)
        return local.conn

    latencies: list[float] = [0.0] * len(urls)
    server_ms: list[float] = [0.0] * len(urls)
    statuses: dict[str, int] = {}
    bad: list[str] = []
    rows: list[int] = [0] * len(urls)

    def one(i: int) -> None:
        client = connection()
        t0 = time.perf_counter()
        code, body, server_ms[i] = client.get(urls[i])
        latencies[i] = (time.perf_counter() - t0) * 1000
        env = json.loads(body)
        statuses[env["status"]] = statuses.get(env["status"], 0) + 1
        rows[i] = len(env["data"])
        if code != 200:
            bad.append(f"{code} {env['status']} {env['message'][:120]}")

    started = time.perf_counter()
    if spec["rate"]:  # paced: start request i at started + i / rate
        interval = 1.0 / spec["rate"]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = []
            for i in range(len(urls)):
                delay = started + i * interval - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                futures.append(pool.submit(one, i))
            for f in futures:
                f.result()
    else:  # saturated: each worker takes the next request as soon as it has an answer
        counter = iter(range(len(urls)))

        def worker(w: int) -> None:
            for i in counter:
                one(i)

        with ThreadPoolExecutor(max_workers=workers) as pool:
            for f in [pool.submit(worker, w) for w in range(workers)]:
                f.result()
    wall = time.perf_counter() - started
    for c in opened:
        c.close()
    return {
        "latencies_ms": latencies,
        "server_ms": server_ms,
        "wall_s": wall,
        "statuses": statuses,
        "bad": bad[:5],
        "rows_median": statistics.median(rows),
    }


def run_client(spec: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_api", "--client", json.dumps(spec)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if proc.returncode != 0:
        raise SystemExit(f"client failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


# ---------------------------------------------------------------- report


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summarize(name: str, spec: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    lat = raw["latencies_ms"]
    return {
        "load": name,
        "kind": spec["kind"],
        "requests": len(lat),
        "workers": spec["workers"],
        "target_rate": spec["rate"],
        "achieved_rate": round(len(lat) / raw["wall_s"], 1),
        "p50_ms": round(pct(lat, 0.50), 1),
        "p90_ms": round(pct(lat, 0.90), 1),
        "p99_ms": round(pct(lat, 0.99), 1),
        "max_ms": round(max(lat), 1),
        "mean_ms": round(statistics.fmean(lat), 1),
        "server_p50_ms": round(pct(raw["server_ms"], 0.50), 1),
        "server_p99_ms": round(pct(raw["server_ms"], 0.99), 1),
        "statuses": raw["statuses"],
        "bad": raw["bad"],
        "rows_median": raw["rows_median"],
    }


def table(results: list[dict[str, Any]]) -> str:
    head = (
        "| endpoint | load | requests | rate (req/s) | p50 ms | p90 ms | p99 ms | max ms "
        "| server p50 / p99 ms | statuses |\n"
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
    )
    lines = [head]
    for r in results:
        load = (
            f"paced {r['target_rate']:g}/s"
            if r["target_rate"]
            else f"saturated, {r['workers']} workers"
        )
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(r["statuses"].items()))
        lines.append(
            f"| {r['kind']} | {load} | {r['requests']} | {r['achieved_rate']} | {r['p50_ms']} "
            f"| {r['p90_ms']} | {r['p99_ms']} | {r['max_ms']} "
            f"| {r['server_p50_ms']} / {r['server_p99_ms']} | {statuses} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", type=Path, default=DEFAULT_LAKE)
    ap.add_argument("--quotes-n", type=int, default=600, help="requests per quotes load")
    ap.add_argument(
        "--quotes-rates", default="5,20", help="paced quotes loads, req/s (comma-separated)"
    )
    ap.add_argument("--snapshot-n", type=int, default=60, help="requests per snapshot load")
    ap.add_argument("--snapshot-rate", type=float, default=2.0, help="paced snapshot req/s")
    ap.add_argument("--workers", type=int, default=4, help="client threads (saturated load)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--client", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.client:
        print(json.dumps(client_main(json.loads(args.client))))
        return 0

    lake = args.lake.resolve()
    info = ensure_lake(lake)
    port = free_port()
    server = start_server(lake, port)
    base = f"http://127.0.0.1:{port}"
    common = {"base": base, "symbols": info["symbols"], "end": info["end"]}
    warm = {"kind": "quotes", "n": 50, "rate": 0, "workers": 1}
    loads: list[tuple[str, dict[str, Any]]] = [("warm-up", warm)]
    for rate in (float(r) for r in args.quotes_rates.split(",") if r.strip()):
        n = min(args.quotes_n, max(100, int(rate * 60)))  # at most a minute per paced load
        loads.append((f"quotes paced {rate:g}/s", {"kind": "quotes", "n": n, "rate": rate}))
    loads += [
        ("quotes saturated", {"kind": "quotes", "n": args.quotes_n, "rate": 0}),
        ("snapshot paced", {"kind": "snapshot", "n": args.snapshot_n, "rate": args.snapshot_rate}),
        ("snapshot saturated", {"kind": "snapshot", "n": args.snapshot_n, "rate": 0}),
    ]
    results = []
    try:
        for i, (name, load) in enumerate(loads):
            spec = {"workers": args.workers, **common, **load, "seed": args.seed + i}
            print(f"{name}: {load['n']} requests …", flush=True)
            raw = run_client(spec)
            if name != "warm-up":
                results.append(summarize(name, spec, raw))
                print(f"  {results[-1]}", flush=True)
        rss = server_rss_kib(server.pid)
    finally:
        stop_server(server)
    report = {
        "lake": str(lake),
        "symbols": len(info["symbols"]),
        "end": info["end"],
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_avg_after": os.getloadavg(),
        },
        "server_rss_kib": rss,
        "results": results,
    }
    RESULT_FILE.parent.mkdir(parents=True, exist_ok=True)
    RESULT_FILE.write_text(json.dumps(report, indent=2))
    print(table(results))
    print(f"server RSS {rss} KiB; load average after {os.getloadavg()}; saved {RESULT_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
