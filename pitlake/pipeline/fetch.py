"""Fetch one unit through the vendor chain, keeping live answers in the raw zone."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from pitlake.calendar import now_beijing
from pitlake.lake.killpoints import kill_point
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.units import Batch, Unit
from pitlake.vendors.base import FetchRequest, RawResponse

RAW_WRITERS = 4  # threads writing one unit's raw answers


def fetch(env: RunEnv, unit: Unit) -> Batch:
    """Route one unit through the vendor chain; keep raw answers for live sources."""
    symbols = unit.fetch_symbols or unit.symbols
    universe = None if symbols else env.universe()
    req = FetchRequest(
        dataset=unit.dataset,
        trade_date=unit.trade_date,
        start=unit.start,
        end=unit.end,
        symbols=symbols,
        universe=universe,
    )
    fetched_at = now_beijing()
    route = env.router.route(req, fetched_at)
    if env.capture_raw and route.raws:
        keep_raw(env, route.raws)
    route.raws = []  # kept in the raw zone (or replayable); don't carry them further
    kill_point("after_fetch")  # the kill suite's point: the answer in hand, nothing gated
    return Batch(unit, route, fetched_at)


def keep_raw(env: RunEnv, raws: list[RawResponse]) -> None:
    """One raw-zone file per answer, written by a few threads: a reporting night's 700
    statement answers are 700 small files, each fsynced, and one at a time that was seconds
    of waiting on the disk (Arrow's encoding and fsync release the GIL)."""

    def keep(job: tuple[RawResponse, int]) -> None:
        raw, seq = job
        env.store.raw.write(
            raw.vendor,
            raw.query.endpoint,
            raw.query.params,
            raw.frame,
            fetched_at=raw.fetched_at,
            run_id=env.run_id,
            seq=seq,
        )

    jobs = [(raw, next(env.raw_seq)) for raw in raws]  # names fixed in answer order
    if len(jobs) == 1:
        keep(jobs[0])
        return
    with ThreadPoolExecutor(min(RAW_WRITERS, len(jobs)), thread_name_prefix="raw") as pool:
        list(pool.map(keep, jobs))  # re-raises the first failure
