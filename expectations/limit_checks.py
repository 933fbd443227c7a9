"""The run-level cross-checks of the vendors' limit lists against the bars of the same run.

A spec names its check in `bars_check`: `pools` (its rows are the vendor's limit pools: who
closed at the limit-up / limit-down price, who broke the board) or `prices` (its rows are the
vendor's limit prices). The bars are the run's batch of the dataset that defines the universe
(the daily bars); the rule is `pitlake.limits`. A difference is a WARNING that names every
differing code (the batch is written, flagged on the dashboard): a vendor error or a rule error
shows, neither is silently believed.

Coverage: both vendors leave ST stocks out of their pools, so the derived pools are compared
without the codes known ST — by name (any batch of the run with a `name` column, the gate's rule
until the security master gives each session's ST status) or by the run's published limit
prices (a main-board code whose limits are the ±5 % ones). A published limit price is accepted
when it is the rule's price for the code as ST or as not ST (the run cannot tell which it is);
codes without a limit that day (new listings) are not compared.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import date, datetime

import numpy as np
import pandas as pd
from pitlake.expectations.findings import run_check_verdict
from pitlake.expectations.run_context import RunContext
from pitlake.expectations.verdict import (
    CheckResult,
    FailedExpectation,
    Outcome,
    Severity,
    Verdict,
    utc_now,
)
from pitlake.schemas import SCHEMAS, UNIVERSE_SOURCE

from pitlake import limit_rows, limits
from pitlake.statuses import LedgerStatus

POOLS_CHECK, PRICES_CHECK = "pools", "prices"
MAX_NAMED = 200  # codes named in one message (all of them are in the details)


def _names(batches: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    out: dict[str, str] = {}
    for frame in batches.values():
        if isinstance(frame, pd.DataFrame) and {"symbol", "name"} <= set(frame.columns):
            out.update(frame[["symbol", "name"]].dropna().itertuples(index=False, name=None))
    return out


# (symbol → its ST days, symbol → its first trading day, symbol → its delisting periods)
States = tuple[
    Mapping[str, Collection[date]],
    Mapping[str, date],
    Mapping[str, Sequence[tuple[date, date | None]]],
]
NO_STATES: States = ({}, {}, {})


def _parts(states: States | tuple) -> States:
    """The three parts of `states` (a pair without delisting periods has none)."""
    return (states[0], states[1], states[2] if len(states) > 2 else {})


def st_by_limits(prices: pd.DataFrame | None) -> frozenset[str]:
    """Main-board codes whose published limits are the ST ±5 % ones (and not ±10 %)."""
    if prices is None or prices.empty:
        return frozenset()
    day = pd.to_datetime(prices["trade_date"]).to_numpy().astype("datetime64[s]")
    normal = limit_rows.limit_ratios(prices, day, frozenset(), frozenset())
    st = limit_rows.limit_ratios(prices, day, frozenset(prices["symbol"]), frozenset())
    pre = pd.to_numeric(prices["pre_close"], errors="coerce").to_numpy(float)
    up_n, _ = limits.limit_prices(pre, normal)
    up_st, _ = limits.limit_prices(pre, st)
    given = pd.to_numeric(prices["up_limit"], errors="coerce").to_numpy(float)
    hit = (np.abs(given - up_st) < limits.HALF_TICK) & ~(np.abs(given - up_n) < limits.HALF_TICK)
    return frozenset(prices.loc[hit, "symbol"])


def _keyed(frame: pd.DataFrame) -> set[tuple[str, date, str]]:
    days = pd.to_datetime(frame["trade_date"]).dt.date
    return set(zip(frame["symbol"], days, frame["pool"], strict=True))


def _st_on(st: frozenset[str], states: States, frame: pd.DataFrame) -> np.ndarray:
    """Per row: ST by the names or published prices (`st`), or by the master that day."""
    out = frame["symbol"].isin(st).to_numpy(dtype=bool, copy=True)
    days = pd.to_datetime(frame["trade_date"]).dt.date
    master = states[0]
    if master:
        out |= np.array(
            [d in master.get(s, ()) for s, d in zip(frame["symbol"], days, strict=True)],
            dtype=bool,
        )
    return out


def pool_differences(
    vendor: pd.DataFrame,
    bars: pd.DataFrame,
    st: frozenset[str],
    prices: pd.DataFrame | None,
    states: States = NO_STATES,
    issue_prices: Mapping[str, float] | None = None,
) -> list[str]:
    """'<pool> <code> <date>: listed by the vendor, not in the bars' (or the reverse), for
    the sessions the vendor's batch is about (codes ST that session left out: the vendors
    list no ST; an approval-regime first day judged on `issue_prices`)."""
    days = set(pd.to_datetime(vendor["trade_date"]).dt.date)
    today = bars[pd.to_datetime(bars["trade_date"]).dt.date.isin(days)]
    st_days, listed, periods = _parts(states)
    derived = limits.classify(
        today, st_days or st, listed, prices, issue_prices=issue_prices, delisting=periods
    )
    derived = derived[derived["pool"].notna()]
    derived = derived[~_st_on(st, states, derived)]
    mine, theirs = _keyed(derived), _keyed(vendor[~_st_on(st, states, vendor)])
    out = [f"{p} {s} {d}: listed by the vendor, not in the bars" for s, d, p in theirs - mine]
    out += [f"{p} {s} {d}: in the bars, not on the vendor's list" for s, d, p in mine - theirs]
    return sorted(out, key=lambda t: t.split(" ")[1])


def _fits(
    vendor: pd.DataFrame,
    day: np.ndarray,
    pre: np.ndarray,
    st: object,
    listed: object,
    issue_prices: Mapping[str, float] | None = None,
    periods: Mapping[str, Sequence[tuple[date, date | None]]] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(fits, judged, rule up, rule down): the published prices against the rule's (an
    approval-regime first day on its issue price; not judged without one)."""
    regime = limit_rows.row_regimes(vendor, day, st, listed, delisting=periods)  # type: ignore[arg-type]
    issue = limit_rows.issue_price_rows(vendor, regime, issue_prices)
    regime = limit_rows.with_issue_prices(regime, issue)
    up, down = limits.row_limit_prices(pre, regime, issue)
    ok = (np.abs(vendor["up_limit"].to_numpy(float) - up) < limits.HALF_TICK) & (
        np.abs(vendor["down_limit"].to_numpy(float) - down) < limits.HALF_TICK
    )
    return ok, ~np.isnan(up), up, down


def price_differences(
    vendor: pd.DataFrame,
    states: States = NO_STATES,
    issue_prices: Mapping[str, float] | None = None,
) -> list[str]:
    """Codes whose published limit prices are not the rule's, each with both pairs. With the
    master's states (ST days, first trading days) each row is judged by its own ST state and
    listing age; without them a price that is the rule's as ST or as not ST is accepted."""
    day = pd.to_datetime(vendor["trade_date"]).to_numpy().astype("datetime64[s]")
    pre = pd.to_numeric(vendor["pre_close"], errors="coerce").to_numpy(float)
    st_days, listed, periods = _parts(states)
    if st_days or listed or periods:
        fits, judged, up, down = _fits(vendor, day, pre, st_days, listed, issue_prices, periods)
        labels = np.where(_st_on(frozenset(), states, vendor), "ST", "not ST")
    else:
        fits, judged, up, down = _fits(vendor, day, pre, frozenset(), frozenset())
        as_st = _fits(vendor, day, pre, frozenset(vendor["symbol"]), frozenset())
        fits |= as_st[0]
        judged |= as_st[1]
        labels = np.full(len(vendor), "not ST")
    bad = judged & ~fits & ~np.isnan(pre)
    rows = vendor[["symbol", "trade_date", "up_limit", "down_limit"]].to_numpy(object)
    return [
        f"{s} {pd.Timestamp(d).date()}: published {u:.2f}/{lo:.2f}, the rule ({label} that "
        f"session) gives {ru:.2f}/{rd:.2f}"
        for (s, d, u, lo), label, ru, rd in zip(
            rows[bad], labels[bad], up[bad], down[bad], strict=True
        )
    ]


def check_limits(
    batches: Mapping[str, pd.DataFrame],
    *,
    run_id: str = "",
    at: datetime | None = None,
    states: States = NO_STATES,
    issue_prices: Mapping[str, float] | None = None,
) -> dict[str, Verdict]:
    """A verdict (pass, or warn naming every differing code) per batch whose spec names a
    `bars_check`, when the run also fetched the bars. `states` (symbol → its ST days, symbol
    → its first trading day: the stored master's) judge each code by its state that day,
    `issue_prices` (the stored new shares') an approval-regime first day."""
    at = at or utc_now()
    bars = batches.get(UNIVERSE_SOURCE)
    if bars is None or bars.empty:
        return {}
    prices = next(
        (f for n, f in batches.items() if SCHEMAS[n].bars_check == PRICES_CHECK and not f.empty),
        None,
    )
    st = limit_rows.st_names(_names(batches)) | st_by_limits(prices)
    out: dict[str, Verdict] = {}
    for name, frame in batches.items():
        kind = SCHEMAS[name].bars_check
        if not kind or frame.empty:
            continue
        if kind == POOLS_CHECK:
            found = pool_differences(frame, bars, st, prices, states, issue_prices)
            what = "the vendor's limit pools match the pools derived from the run's bars"
        else:
            found = price_differences(frame, states, issue_prices)
            what = "the vendor's limit prices are the rule's (previous close × (1 ± ratio))"
        out[name] = _verdict(name, frame, found, what, run_id, at)
    return out


def check_window(
    batches: Mapping[str, list[pd.DataFrame]],
    bars: pd.DataFrame,
    *,
    run_id: str = "",
    at: datetime | None = None,
    states: States = NO_STATES,
    issue_prices: Mapping[str, float] | None = None,
) -> dict[str, list[Verdict | None]]:
    """A backfill's cross-check: each vendor-list batch (dataset → its batches, in order)
    against the window's bars of its own sessions, as `check_limits` does for one night (the
    bars split by session once). A verdict per batch; None where the batch has no bars."""
    at = at or utc_now()
    if bars.empty:
        return {}
    by_day = dict(tuple(bars.groupby(pd.to_datetime(bars["trade_date"]).dt.date, sort=False)))
    prices_by_day: dict[date, pd.DataFrame] = {}
    for name, frames in batches.items():
        if SCHEMAS[name].bars_check == PRICES_CHECK:
            for f in frames:
                for d, part in f.groupby(pd.to_datetime(f["trade_date"]).dt.date, sort=False):
                    prices_by_day[d] = part
    out: dict[str, list[Verdict | None]] = {}
    for name, frames in batches.items():
        verdicts: list[Verdict | None] = []
        for frame in frames:
            days = sorted(set(pd.to_datetime(frame["trade_date"]).dt.date)) if len(frame) else []
            on = [by_day[d] for d in days if d in by_day]
            if not on:
                verdicts.append(None)
                continue
            run = {UNIVERSE_SOURCE: pd.concat(on, ignore_index=True), name: frame}
            given = [prices_by_day[d] for d in days if d in prices_by_day]
            if SCHEMAS[name].bars_check == POOLS_CHECK and given:
                run[next(n for n in batches if SCHEMAS[n].bars_check == PRICES_CHECK)] = pd.concat(
                    given, ignore_index=True
                )
            found = check_limits(
                run, run_id=run_id, at=at, states=states, issue_prices=issue_prices
            )
            verdicts.append(found.get(name))
        out[name] = verdicts
    return out


def _verdict(
    name: str, frame: pd.DataFrame, found: list[str], what: str, run_id: str, at: datetime
) -> Verdict:
    check = CheckResult(
        name=f"{name}_vs_bars",
        expectation_type="pitlake_cross_check",
        column="symbol",
        severity=Severity.WARNING,
        success=not found,
        description=what,
        unexpected_count=len(found),
    )
    ctx = RunContext(run_id=run_id, fetched_at=at, validated_at=at)
    failed = []
    message = f"{name}: agrees with the bars"
    if found:
        shown = "; ".join(found[:MAX_NAMED]) + (" …" if len(found) > MAX_NAMED else "")
        message = f"{name}: differs from the bars: {shown}"
        failed.append(
            FailedExpectation(
                name=check.name,
                expectation_type=check.expectation_type,
                column="symbol",
                severity=Severity.WARNING,
                description=what,
                unexpected_count=len(found),
                details={"differences": found},
            )
        )
    outcome = Outcome.WARN if found else Outcome.PASS
    return run_check_verdict(
        name,
        frame,
        check,
        ctx,
        at,
        outcome=outcome,
        ledger_status=LedgerStatus.OK,
        failed=failed,
        message=message,
    )
