"""Refusal holds shared by every process on one vendor credential (docs/design.md §11, decision
59).

When the vendor refuses a call (`VendorRateLimitError`), the endpoint's window is full for the
credential, not for the process that met the refusal: every other process on the same token
calling meanwhile would spend a call on a refusal too (and, on Tushare, extend nothing but its
own wait). So the hold — "no call to this endpoint before T" — lives where the credential's
shared quota lives (`pitlake.vendors.quota`: the SQLite file or the PostgreSQL database), one
row per (credential key, endpoint), and every process's limiter reads it before each call.

T is wall-clock time (seconds since the epoch): processes and hosts share no monotonic clock.
Hosts sharing a PostgreSQL store are assumed NTP-synchronised; a skew of a second shortens or
lengthens a hold by that much, which the retry's own wait covers. A hold only ever grows: a
shorter hold written later never cuts a longer one short (`max` in the upsert)."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

TABLE = "pitlake_quota_holds"
_SQLITE_DDL = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT NOT NULL, endpoint TEXT NOT NULL, "
    "until REAL NOT NULL, PRIMARY KEY (key, endpoint))"
)
_PG_DDL = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT NOT NULL, endpoint TEXT NOT NULL, "
    "until DOUBLE PRECISION NOT NULL, PRIMARY KEY (key, endpoint))"
)


class SharedHolds:
    """One credential's refusal holds in the shared quota's store: `hold(endpoint, until)`
    records one (epoch seconds), `left(endpoint)` is the seconds it still holds (0: none)."""

    def __init__(self, url: str, key: str, pool: Any = None) -> None:
        self.url = url
        self.key = key
        self._pool = pool  # the SharedQuota's psycopg pool for PostgreSQL
        self._lock = threading.Lock()
        self._sqlite: sqlite3.Connection | None = None
        self._ready = False

    def __repr__(self) -> str:  # the URL may carry a password: never shown
        return f"SharedHolds({self.key})"

    # ------------------------------------------------------------ SQLite

    def _sqlite_con(self) -> sqlite3.Connection:
        if self._sqlite is None:
            path = Path(self.url[len("sqlite:///") :])
            path.parent.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(path, timeout=30, check_same_thread=False)
            con.execute(_SQLITE_DDL)
            con.commit()
            self._sqlite = con
        return self._sqlite

    # ------------------------------------------------------------ PostgreSQL

    def _pg(self, sql: str, params: tuple[Any, ...]) -> Any:
        with self._pool.connection() as con:
            if not self._ready:
                try:
                    con.execute(_PG_DDL)
                except Exception:  # two processes creating it at once: the other one won
                    con.rollback()
                self._ready = True
            row = con.execute(sql, params).fetchone()
            con.commit()
            return row

    # ------------------------------------------------------------ the holds

    def hold(self, endpoint: str, until: float) -> None:
        """No call to `endpoint` on this credential before `until` (epoch seconds)."""
        params = (self.key, endpoint.lower(), float(until))
        if self.url.startswith("sqlite:///"):
            with self._lock:
                con = self._sqlite_con()
                con.execute(
                    f"INSERT INTO {TABLE} (key, endpoint, until) VALUES (?, ?, ?) "
                    "ON CONFLICT (key, endpoint) DO UPDATE SET until = max(until, excluded.until)",
                    params,
                )
                con.commit()
            return
        self._pg(
            f"INSERT INTO {TABLE} (key, endpoint, until) VALUES (%s, %s, %s) "
            f"ON CONFLICT (key, endpoint) DO UPDATE SET until = GREATEST({TABLE}.until, "
            f"excluded.until) RETURNING until",
            params,
        )

    def until(self, endpoint: str) -> float | None:
        """When the endpoint's hold ends (epoch seconds), if one was ever recorded."""
        params = (self.key, endpoint.lower())
        if self.url.startswith("sqlite:///"):
            with self._lock:
                row = (
                    self._sqlite_con()
                    .execute(f"SELECT until FROM {TABLE} WHERE key = ? AND endpoint = ?", params)
                    .fetchone()
                )
        else:
            row = self._pg(f"SELECT until FROM {TABLE} WHERE key = %s AND endpoint = %s", params)
        return None if row is None else float(row[0])

    def left(self, endpoint: str) -> float:
        """Seconds until the endpoint's hold ends (0.0: not held)."""
        until = self.until(endpoint)
        return 0.0 if until is None else max(0.0, until - time.time())

    def close(self) -> None:
        with self._lock:
            if self._sqlite is not None:
                self._sqlite.close()
                self._sqlite = None
