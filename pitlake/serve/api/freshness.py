"""Freshness (`status`): per dataset, the latest successful fetch in the ledger as known at the
cutoff versus the latest closed session, and the lag in sessions."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pitlake.envelope import Result
from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.pit import iso_beijing
from pitlake.read.lake import Lake
from pitlake.schemas import NIGHTLY_DATASETS
from pitlake.serve.api.service import Answer, QueryService
from pitlake.statuses import DateStatus, LedgerStatus, ResultStatus

FRESHNESS_DATASETS: tuple[str, ...] = NIGHTLY_DATASETS


def status(service: QueryService, *, as_of: str | None = None, pin: str | None = None) -> Answer:
    """Freshness per dataset at the cutoff: the latest session the ledger holds a
    successful fetch for, against the latest session closed at the cutoff. A dataset more
    than $PITLAKE_STALE_SESSIONS (default 1) sessions behind, or never fetched, is `stale`
    (listed in meta.stale; `pitlake query status` then exits 3)."""

    from pitlake.read.staleness import stale_threshold

    threshold, threshold_note = stale_threshold()

    def read(lake: Lake, as_of: Any) -> Result:
        ask = lake.ask(as_of)
        latest = lake.trading_calendar.latest_closed_session(ask.cutoff)
        rows = _freshness(service, latest, lake, ask.cutoff)
        for r in rows:
            r["stale"] = r["lag_sessions"] is None or r["lag_sessions"] > threshold
        stale = [r["dataset"] for r in rows if r["stale"]]
        behind = [
            f"{r['dataset']} ({r['lag_sessions']} behind)"
            if r["lag_sessions"] is not None
            else f"{r['dataset']} (no successful fetch)"
            for r in rows
            if not r["fresh"]
        ]
        message = (
            f"Latest closed session {latest}: "
            + ("every dataset is current." if not behind else "behind: " + ", ".join(behind))
            + "."
        ).replace("..", ".")
        message += (
            f" Stale (more than {threshold} session(s) behind, or never fetched): "
            + ", ".join(stale)
            + "."
            if stale
            else f" None is past the staleness threshold ({threshold} session(s))."
        )
        if threshold_note:
            message += f" {threshold_note}."
        return Result(
            status=ResultStatus.OK,
            requested_date=ask.cutoff.date().isoformat(),
            effective_trade_date=latest.isoformat(),
            date_status=DateStatus.NOT_APPLICABLE,
            as_of=ask.as_of,
            source="catalog",
            message=" ".join([*ask.notes, message]),
            data=rows,
            meta={"pinned": ask.pinned, "stale_threshold": threshold, "stale": stale},
        )

    return service.run("status", pin, as_of, read)


def _freshness(
    service: QueryService, latest: date, lake: Lake, cutoff: datetime
) -> list[dict[str, Any]]:
    """Per dataset: the latest session ≤ `latest` with a successful fetch in the ledger
    (any scope), and the whole-market ledger status of `latest` itself. When that fetch was
    recorded after the cutoff (a backfill), its instant is not shown: null, like every
    instant past the cutoff.

    The ledger as it stands now, like every data answer: a backfill run later counts for
    earlier as-ofs, because the data endpoints serve its rows for them too (docs/design.md §10:
    a backfill queried as of D equals what a nightly run on D would have served)."""
    latest_ok = service.catalog.latest_ok_dates(latest)
    on_latest = service.catalog.ledger_entries(start=latest, end=latest, symbol=WHOLE_MARKET)
    last_on_latest = {e.dataset: e for e in on_latest}
    rows = []
    for dataset in FRESHNESS_DATASETS:
        ok_date = latest_ok.get(dataset)
        lag = (
            lake.trading_calendar.sessions_count_between(ok_date, latest)
            if ok_date is not None
            else None
        )
        last = last_on_latest.get(dataset)
        rows.append(
            {
                "dataset": dataset,
                "latest_ok_date": ok_date.isoformat() if ok_date else None,
                "latest_session": latest.isoformat(),
                "lag_sessions": lag,
                "fresh": lag == 0,
                "latest_session_status": str(LedgerStatus(last.status)) if last else None,
                "latest_session_recorded_at": (
                    iso_beijing(last.recorded_at) if last and last.recorded_at <= cutoff else None
                ),
                "latest_session_message": last.message if last else None,
            }
        )
    return rows
