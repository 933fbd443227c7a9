"""One quota per vendor credential, shared by every process and host that calls with it
(docs/design.md §11, decision 53).

A vendor counts calls per credential (Tushare: per token and endpoint, in a sliding minute), not
per process: N ingest processes, or N Dask workers, each pacing on its own bucket ask N times the
quota. Here the pacing state lives outside the process, in pyrate-limiter's sliding-window-log
buckets (a maintained library; the log is the vendor's own rule: at most N calls in any 60 s):

- PostgreSQL (`PostgresBucket`): every host that shares the bucket's database shares the quota.
  The default when the catalog is PostgreSQL ($PITLAKE_CATALOG_URL): ingest hosts already share
  it, so they share the quota with nothing more to run.
- SQLite (`SQLiteBucket` with a file lock): every process on one host. The default otherwise, in
  a per-user file ($XDG_STATE_HOME/pitlake/quota.sqlite, ~/.local/state/… when unset), so two
  lakes ingested on one machine with one token share it too.
- `process`: the old per-process token buckets (`pitlake.vendors.ratelimit.TokenBucket`), for a
  run that knows it is alone on its credential.

$PITLAKE_QUOTA_URL chooses: `postgresql://…`, `sqlite:///path/quota.sqlite` or `process`.

A bucket is named by a hash of the vendor and its credential (the plugin's `secret_env`
values), never by the credential: one token → one bucket, wherever it is used; the name can be
logged. A vendor without a credential (AkShare, BaoStock: limits by IP) is keyed by host.

Each scope (the vendor-wide quota, and each endpoint with one of its own) is one bucket with two
rates: the quota less the margin per 60 s (the vendor's window), and the burst (`RateConfig.
capacity`) per the time the paced rate takes to earn it, so calls leave evenly spaced rather
than a minute's worth at once."""

from __future__ import annotations

import hashlib
import math
import os
import socket
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pitlake.errors import InvalidArgumentsError

if TYPE_CHECKING:
    from pitlake.vendors.holds import SharedHolds

ENV_URL = "PITLAKE_QUOTA_URL"
PROCESS = "process"  # the per-process buckets
WINDOW_MS = 60_000  # the quotas are per minute (RateConfig)
VENDOR_WIDE = "all"


def credential_key(vendor: str, env: Mapping[str, str]) -> str:
    """The shared bucket's name for `vendor` as `env` configures it: a hash of the vendor and
    its credential's values (the token is never part of it), else of the host."""
    from pitlake.vendors.plugins import find

    plugin = find(vendor)
    secrets = [env.get(name, "") for name in (plugin.secret_env if plugin else ())]
    if any(s.strip() for s in secrets):
        material = "\0".join([vendor, *secrets])
    else:
        material = "\0".join([vendor, "host", socket.gethostname()])
    return f"{vendor}_{hashlib.sha256(material.encode()).hexdigest()[:16]}"


def default_sqlite_path(env: Mapping[str, str]) -> Path:
    state = env.get("XDG_STATE_HOME", "").strip() or str(Path.home() / ".local" / "state")
    return Path(state) / "pitlake" / "quota.sqlite"


def quota_url(env: Mapping[str, str]) -> str:
    """$PITLAKE_QUOTA_URL, else the catalog's PostgreSQL, else the per-user SQLite file."""
    url = env.get(ENV_URL, "").strip()
    if url:
        return url
    catalog = env.get("PITLAKE_CATALOG_URL", "").strip()
    if catalog.startswith("postgresql"):
        return catalog
    return f"sqlite:///{default_sqlite_path(env)}"


def _rates(quota_per_min: float, paced: float, burst: float) -> list[Any]:
    from pyrate_limiter import Rate

    per_window = max(1, math.floor(paced))
    cap = max(1, min(per_window, math.floor(burst)))
    rates = [Rate(per_window, WINDOW_MS)]
    if cap < per_window:  # the burst, earned back at the paced rate
        rates.insert(0, Rate(cap, math.floor(cap * WINDOW_MS / per_window)))
    return rates


class SharedQuota:
    """The vendor's quota buckets in a shared store: `acquire(endpoint)` blocks until the
    endpoint's bucket (if it has one) and the vendor-wide one both admit the call."""

    def __init__(self, url: str, key: str, config: Any) -> None:
        self.url = url
        self.key = key
        self.config = config
        self._limiters: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._pool: Any = None
        self._holds: SharedHolds | None = None
        self.waited = 0.0  # seconds callers spent waiting (diagnostics)

    def __repr__(self) -> str:  # the URL may carry a password: never shown
        return f"SharedQuota({self.key})"

    def _scope_quota(self, scope: str) -> float | None:
        if scope == VENDOR_WIDE:
            return None if self.config.unlimited else self.config.per_min
        rate = self.config.endpoints.get(scope)
        return rate if rate and rate > 0 and not self.config.unlimited else None

    def _limiter(self, scope: str) -> Any | None:
        with self._lock:
            if scope in self._limiters:
                return self._limiters[scope]
            quota = self._scope_quota(scope)
            limiter = None
            if quota is not None:
                from pyrate_limiter import Limiter

                rates = _rates(quota, self.config.paced(quota), self.config.capacity(quota))
                limiter = Limiter(self._bucket(f"{self.key}_{scope}", rates))
            self._limiters[scope] = limiter
            return limiter

    def _bucket(self, table: str, rates: list[Any]) -> Any:
        if self.url.startswith("sqlite:///"):
            from pyrate_limiter import SQLiteBucket

            path = Path(self.url[len("sqlite:///") :])
            path.parent.mkdir(parents=True, exist_ok=True)
            return SQLiteBucket.init_from_file(
                rates, table=table, db_path=str(path), use_file_lock=True
            )
        if self.url.startswith("postgresql"):
            from pyrate_limiter import PostgresBucket

            return PostgresBucket(self._postgres_pool(), table, rates)
        raise InvalidArgumentsError(
            f"{ENV_URL}: expected postgresql://…, sqlite:///PATH or {PROCESS!r}"
        )

    def _postgres_pool(self) -> Any:
        if self._pool is None:
            from psycopg_pool import ConnectionPool
            from sqlalchemy.engine import make_url

            conninfo = make_url(self.url).set(drivername="postgresql")
            self._pool = ConnectionPool(
                conninfo.render_as_string(hide_password=False), min_size=1, max_size=4, open=True
            )
        return self._pool

    @property
    def holds(self) -> SharedHolds:
        """The credential's refusal holds, in the same store (`pitlake.vendors.holds`)."""
        with self._lock:
            if self._holds is None:
                from pitlake.vendors.holds import SharedHolds

                if not self.url.startswith(("sqlite:///", "postgresql")):
                    raise InvalidArgumentsError(
                        f"{ENV_URL}: expected postgresql://…, sqlite:///PATH or {PROCESS!r}"
                    )
                pool = self._postgres_pool() if self.url.startswith("postgresql") else None
                self._holds = SharedHolds(self.url, self.key, pool)
            return self._holds

    def acquire(self, endpoint: str) -> float:
        """Block until the call may go; the seconds waited."""
        start = time.monotonic()
        for scope in (endpoint.lower(), VENDOR_WIDE):
            limiter = self._limiter(scope)
            if limiter is not None:
                limiter.try_acquire(scope, blocking=True)
        waited = time.monotonic() - start
        with self._lock:
            self.waited += waited
        return waited

    def close(self) -> None:
        with self._lock:
            for limiter in self._limiters.values():
                if limiter is not None:
                    limiter.close()
            self._limiters.clear()
            if self._holds is not None:
                self._holds.close()
                self._holds = None
            if self._pool is not None:
                self._pool.close()
                self._pool = None


def shared_quota(
    vendor: str, config: Any, env: Mapping[str, str] | None = None
) -> SharedQuota | None:
    """The vendor's shared quota as `env` configures it (None: unlimited, or `process`)."""
    env = os.environ if env is None else env
    url = quota_url(env)
    if config.unlimited or url == PROCESS:
        return None
    return SharedQuota(url, credential_key(vendor, env), config)
