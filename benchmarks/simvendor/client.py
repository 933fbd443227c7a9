"""The simulated Tushare: a VendorClient answering from `SimMarket`, with the vendor's habits.

Per call it can (in this order): wait `latency` seconds; refuse with Tushare's per-minute
quota text when the endpoint already served `quota[endpoint]` calls in the last 60 s (a plain
Exception, as the SDK raises it; pitlake.vendors.classify maps it to VendorRateLimitError);
fail with a transport error (requests ConnectionError) or a column-less frame; or answer a
by-date call with the previous session's rows (stale). Faults are drawn from their own seeded
stream, so the *data* stays identical across runs while faults differ per `fault_seed`.
Every attempt is recorded (`SimLog`), so a benchmark can tell which calls failed for good.
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pandas as pd

from benchmarks.simvendor.market import SimMarket, parse_ymd
from pitlake.calendar import previous_session

RATE_LIMIT_TEXT = "抱歉，您每分钟最多访问该接口{n}次，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。"
BY_DATE = frozenset({"daily", "adj_factor", "daily_basic", "top_list", "top_inst"})
STATEMENTS = frozenset({"income", "balancesheet", "cashflow"})
# The nightly's other endpoints: answered (the call counts against the quota) with no rows.
UNMODELLED = frozenset(
    {"news", "major_news", "namechange", "suspend_d", "stk_limit", "limit_list_d"}
    | {"index_daily", "index_weight", "new_share"}
)

OK, RATE_LIMITED, TRANSPORT, COLUMNLESS, STALE = (
    "ok",
    "rate_limited",
    "transport",
    "columnless",
    "stale",
)


@dataclass(frozen=True)
class SimConfig:
    """The vendor's behaviour. `quota`: endpoint → calls per 60 s (missing: unlimited)."""

    latency: float = 0.0
    quota: Mapping[str, int] = field(default_factory=dict)
    failure_rate: float = 0.0  # transport errors and column-less frames, half each
    stale_rate: float = 0.0  # by-date answers holding the previous session's rows
    today: date = date(2025, 12, 31)  # nothing dated later is published
    fault_seed: int = 1


def key_of(endpoint: str, params: Mapping[str, Any]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A call's identity (fields left out: they do not change what is asked about)."""
    return endpoint, tuple(sorted((k, str(v)) for k, v in params.items() if k != "fields"))


class SimLog:
    """Every attempt per call key, thread-safe; `final()` is each key's last outcome."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.attempts: dict[tuple, list[str]] = {}

    def add(self, key: tuple, outcome: str) -> None:
        with self._lock:
            self.attempts.setdefault(key, []).append(outcome)

    def final(self) -> dict[tuple, str]:
        with self._lock:
            return {k: v[-1] for k, v in self.attempts.items()}

    def counts(self) -> dict[str, int]:
        """Attempts per endpoint."""
        out: dict[str, int] = {}
        with self._lock:
            for (ep, _), v in self.attempts.items():
                out[ep] = out.get(ep, 0) + len(v)
        return out

    def outcomes(self) -> dict[str, int]:
        out: dict[str, int] = {}
        with self._lock:
            for v in self.attempts.values():
                for o in v:
                    out[o] = out.get(o, 0) + 1
        return out


class SimClient:
    """pitlake VendorClient protocol: `vendor` and `call(endpoint, **params)`."""

    vendor = "tushare"

    def __init__(
        self,
        market: SimMarket,
        config: SimConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.market = market
        self.config = config or SimConfig()
        self.log = SimLog()
        self._clock = clock
        self._sleep = sleep
        self._rng = random.Random(self.config.fault_seed)
        self._lock = threading.Lock()
        self._served: dict[str, deque[float]] = {}

    def __repr__(self) -> str:
        return f"SimClient({self.market.n_symbols} symbols, {self.config})"

    # ------------------------------------------------------------ the call

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        key = key_of(endpoint, params)
        if self.config.latency:
            self._sleep(self.config.latency)
        if not self._admit(endpoint):
            self.log.add(key, RATE_LIMITED)
            raise Exception(RATE_LIMIT_TEXT.format(n=self.config.quota[endpoint]))
        fault = self._draw(endpoint)
        self.log.add(key, fault)
        if fault == TRANSPORT:
            import requests

            raise requests.exceptions.ConnectionError(
                "('Connection aborted.', RemoteDisconnected('Remote end closed connection'))"
            )
        if fault == COLUMNLESS:
            return pd.DataFrame()
        return self.answer(endpoint, params, stale=fault == STALE)

    def _admit(self, endpoint: str) -> bool:
        limit = self.config.quota.get(endpoint)
        if not limit:
            return True
        now = self._clock()
        with self._lock:
            window = self._served.setdefault(endpoint, deque())
            while window and window[0] <= now - 60.0:
                window.popleft()
            if len(window) >= limit:
                return False
            window.append(now)
            return True

    def _draw(self, endpoint: str) -> str:
        with self._lock:
            u, v = self._rng.random(), self._rng.random()
        if u < self.config.failure_rate:
            return TRANSPORT if v < 0.5 else COLUMNLESS
        if endpoint in BY_DATE and v < self.config.stale_rate:
            return STALE
        return OK

    # ------------------------------------------------------------ answers

    def answer(
        self, endpoint: str, params: Mapping[str, Any], *, stale: bool = False
    ) -> pd.DataFrame:
        """The call's rows, one page of them where the vendor caps an answer (`offset`)."""
        frame = self._rows(endpoint, params, stale=stale)
        cap = page_caps().get(endpoint)
        if cap is None:
            return frame
        offset = int(params.get("offset") or 0)
        return frame.iloc[offset : offset + cap].reset_index(drop=True)

    def _rows(
        self, endpoint: str, params: Mapping[str, Any], *, stale: bool = False
    ) -> pd.DataFrame:
        m, today = self.market, self.config.today
        if endpoint in BY_DATE:
            day = parse_ymd(str(params["trade_date"]))
            if stale:
                day = previous_session(day)
            frame = getattr(m, endpoint)(day) if day <= today else _empty(endpoint)
            codes = params.get("ts_code")
            if codes:
                frame = frame[frame["ts_code"].isin(str(codes).split(","))]
            return frame.reset_index(drop=True)
        if endpoint in STATEMENTS:
            fields = str(params.get("fields") or "ts_code,ann_date,f_ann_date,end_date").split(",")
            since = (
                parse_ymd(str(params["start_date"]))
                if params.get("start_date")
                else date(2000, 1, 1)
            )
            return m.statement(endpoint, str(params["ts_code"]), fields, today, since)
        if endpoint == "disclosure_date" and "end_date" in params:  # one period's schedule
            return m.disclosure_schedule(parse_ymd(str(params["end_date"])), today)
        if endpoint == "disclosure_date":
            day = parse_ymd(str(params["actual_date"]))
            return m.disclosure_date(day) if day <= today else _empty(endpoint)
        if endpoint == "trade_cal":
            return m.trade_cal(parse_ymd(params["start_date"]), parse_ymd(params["end_date"]))
        if endpoint == "stock_basic":
            return m.stock_basic(str(params.get("list_status") or "L"), today)
        if endpoint == "anns_d":
            day = parse_ymd(str(params["ann_date"]))
            return m.anns_d(day) if day <= today else _empty(endpoint)
        if endpoint in UNMODELLED:
            return _empty(endpoint)
        raise Exception(f"请指定正确的接口名: {endpoint}")


def page_caps() -> dict[str, int]:
    """Rows per answer of the paged endpoints the simulator fills, as pitlake's fetchers
    know them (a full page makes them ask for the next one)."""
    from pitlake.vendors.tushare.disclosure import DISCLOSURE_ROWS_PER_CALL
    from pitlake.vendors.tushare.fetchers.announcements import ANNS_ROWS_PER_CALL

    return {"disclosure_date": DISCLOSURE_ROWS_PER_CALL, "anns_d": ANNS_ROWS_PER_CALL}


def _empty(endpoint: str) -> pd.DataFrame:
    from pitlake.vendors.tushare.fetch import required_columns

    return pd.DataFrame(columns=list(required_columns().get(endpoint, ("ts_code",))))


def day_of(key: tuple) -> date | None:
    """The session a by-date call key is about (None for other calls)."""
    params = dict(key[1])
    raw = params.get("trade_date") or params.get("actual_date")
    return parse_ymd(raw) if raw else None
