"""One quota per vendor credential across processes (issue 31, decision 53): two ingesting
processes on the same Tushare token, against the simulated vendor served on loopback, ask
more than one minute's quota between them and are never refused; each alone paced at the
quota (PITLAKE_QUOTA_URL=process, the old per-process buckets) they would be.

The processes call through pitlake's own live path (`build_clients`: the Tushare HTTP client,
the ResilientClient, the limiter from the environment). The shared bucket is a SQLite file,
and PostgreSQL too when PITLAKE_TEST_PG_URL is set."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from benchmarks.simvendor import SimClient, SimConfig, SimMarket
from benchmarks.simvendor.http import running_server
from pitlake.calendar import sessions_between
from pitlake.vendors.quota import credential_key, quota_url
from tests.vendors.conftest import child_result, python_child

TOKEN = "planted-secret-quota-token-0123456789"
QUOTA = 60  # daily calls per 60 s, as the simulator enforces and pitlake is told
PER_PROCESS = 33  # two processes: 66 calls, more than a window's quota
CHILD = """
import json, sys
from pitlake.vendors.registry import build_clients
client = build_clients("vendors:tushare")["tushare"]
for day in sys.argv[1].split(","):
    client.call("daily", trade_date=day)
print(json.dumps({"attempts": client.attempts, "key": client.bucket.quota.key}))
"""


def test_two_processes_on_one_token_share_its_quota(store_url: str) -> None:
    days = [d.strftime("%Y%m%d") for d in sessions_between("2025-01-02", "2025-06-30")]
    days = days[: 2 * PER_PROCESS]
    sim = SimClient(SimMarket(n_symbols=5), SimConfig(quota={"daily": QUOTA}))
    with running_server(sim, tokens={TOKEN}) as server:
        env = {
            **os.environ,
            "TUSHARE_TOKEN": TOKEN,
            "PITLAKE_TUSHARE_URL": server.url,
            "PITLAKE_TUSHARE_PER_MIN": "100000",  # vendor-wide: not binding
            "PITLAKE_TUSHARE_PER_MIN_DAILY": str(QUOTA),
            "PITLAKE_QUOTA_URL": store_url,
        }
        children = [
            python_child(CHILD, part, env) for part in (days[:PER_PROCESS], days[PER_PROCESS:])
        ]
        results = [child_result(child) for child in children]
        replies = dict(server.replies)
    assert replies == {"ok": 2 * PER_PROCESS}, replies  # not one refusal
    assert [r["attempts"] for r in results] == [PER_PROCESS, PER_PROCESS]
    # one bucket for the token, named without it
    key = results[0]["key"]
    assert results[1]["key"] == key == credential_key("tushare", {"TUSHARE_TOKEN": TOKEN})
    assert TOKEN not in key and TOKEN[-12:] not in key
    if store_url.startswith("sqlite:///"):
        con = sqlite3.connect(store_url[len("sqlite:///") :])
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master")]
        dump = "\n".join(con.iterdump())
        con.close()
        assert any(key in t for t in tables) and TOKEN not in dump


def test_the_default_store_is_the_postgres_catalog_else_a_per_user_file(tmp_path: Path) -> None:
    pg = "postgresql+psycopg://u@db:5432/lake"
    assert quota_url({"PITLAKE_CATALOG_URL": pg}) == pg
    assert quota_url({"PITLAKE_CATALOG_URL": pg, "PITLAKE_QUOTA_URL": "process"}) == "process"
    assert quota_url({"XDG_STATE_HOME": str(tmp_path)}) == (
        f"sqlite:///{tmp_path / 'pitlake' / 'quota.sqlite'}"
    )
    a = credential_key("tushare", {"TUSHARE_TOKEN": TOKEN})
    assert a != credential_key("tushare", {"TUSHARE_TOKEN": TOKEN + "x"})
    assert TOKEN not in a
