"""What the data-quality dashboard shows, computed from catalog methods (docs/design.md §9).

Plain Python and JSON-shaped output, so it is testable without a server and
`/dashboard/data.json` is exactly what the page renders:

- freshness: per dataset, the latest successful fetch (OK or NO_DATA) against the latest
  closed session at the reference instant, and the lag in XSHG sessions;
- coverage: datasets × the last sessions (`pitlake.serve.dashboard.coverage`);
- validation: the share of validated batches that passed, per day, and the failed expectations;
- quarantine, recent runs (`pitlake.serve.dashboard.history`), and whether Data Docs exist.

The reference instant ("as of") only moves the yardstick: the latest closed session that lag is
measured against, and the end of the coverage grid. The ledger shown is its current state
(entries dated after the reference are left out), not the ledger as it stood back then.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from pitlake import schemas
from pitlake.calendar import XSHG
from pitlake.lake.catalog import Catalog
from pitlake.lake.zones import DQ
from pitlake.pit import iso_beijing, parse_cutoff
from pitlake.read.staleness import STALE_ENV, stale_threshold
from pitlake.serve.dashboard.coverage import coverage
from pitlake.serve.dashboard.history import quarantine, runs, validation
from pitlake.serve.dashboard.reference import Reference, resolve_reference
from pitlake.serve.dashboard.styles import STATUS_STYLES, worst_status

# Datasets that are always listed (what a nightly run ingests); others appear once the ledger
# holds entries for them (the calendar, written by backfills).
_ALWAYS_SHOWN = schemas.NIGHTLY_DATASETS


def datasets_in_view(catalog: Catalog) -> list[str]:
    """The nightly datasets, then any other dataset the ledger holds, in schema order."""
    present = catalog.ledger_datasets()
    extra = [d for d in schemas.DATASETS if d in present and d not in _ALWAYS_SHOWN]
    unknown = sorted(present - set(_ALWAYS_SHOWN) - set(schemas.DATASETS))
    return [*_ALWAYS_SHOWN, *extra, *unknown]


def is_empty(catalog: Catalog) -> bool:
    """Nothing ingested yet: no ledger entry and no run."""
    return catalog.is_empty()


def freshness_state(lag: int | None, threshold: int) -> str:
    """current (lag 0), within (behind by at most the threshold), stale, or never."""
    if lag is None:
        return "never"
    if lag == 0:
        return "current"
    return "within" if lag <= threshold else "stale"


def freshness(
    catalog: Catalog, ref: Reference, datasets: Sequence[str], threshold: int
) -> list[dict[str, Any]]:
    """Per dataset: the latest successful fetch dated on or before the reference day, the
    latest attempt (any status), and the lag in sessions to the latest closed session."""
    until = ref.as_of.date()
    latest_ok = catalog.latest_ok_dates(until)
    last_date = catalog.latest_entry_dates(until)
    out = []
    for ds in datasets:
        ok_date = latest_ok.get(ds)
        lag = XSHG.sessions_count_between(ok_date, ref.session) if ok_date is not None else None
        last = last_date.get(ds)
        last_status, last_message = None, ""
        if last is not None:
            entries = catalog.ledger_entries(ds, last, last)
            last_status = worst_status(str(e.status) for e in entries)
            shown = [e for e in entries if str(e.status) == last_status]
            last_message = shown[0].message if shown else ""
        out.append(
            {
                "dataset": ds,
                "latest_ok": ok_date.isoformat() if ok_date else None,
                "latest_closed_session": ref.session.isoformat(),
                "lag_sessions": lag,
                "threshold": threshold,
                "state": freshness_state(lag, threshold),
                "last_attempt": last.isoformat() if last else None,
                "last_attempt_status": last_status,
                "last_attempt_message": last_message,
            }
        )
    return out


def first_ingest_commands(lake_root: Path | None) -> list[dict[str, str]]:
    lake = str(lake_root) if lake_root is not None else "DIR"
    return [
        {
            "what": "offline, from the bundled sample (2025-04-01 … 2025-06-30)",
            "command": (
                f"pitlake ingest --source replay:sample --start 2025-04-01 --end 2025-06-30 "
                f"--lake {lake}"
            ),
        },
        {
            "what": "the latest closed session from the live vendors (needs TUSHARE_TOKEN)",
            "command": f"pitlake ingest --lake {lake}",
        },
    ]


def build_dashboard(
    catalog: Catalog,
    *,
    lake_root: str | os.PathLike[str] | None = None,
    as_of: str | date | datetime | None = None,
    now: datetime | None = None,
    pin: datetime | None = None,
    stale_sessions: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Everything the dashboard shows, JSON-shaped. Raises InvalidArgumentsError for a bad
    `as_of`. An empty lake gives the same structure with empty lists and `empty: true`."""
    root = Path(lake_root) if lake_root is not None else None
    ref = resolve_reference(as_of, now=now, pin=pin)
    notes = list(ref.notes)
    if stale_sessions is None:
        stale_sessions, note = stale_threshold(environ)
        if note:
            notes.append(note)
    datasets = datasets_in_view(catalog)
    empty = is_empty(catalog)
    dq_index = root / DQ / "index.html" if root is not None else None
    reference = ref.to_dict()
    reference["notes"] = notes
    return {
        "generated_at": iso_beijing(parse_cutoff(None, now=now)),
        "empty": empty,
        "reference": reference,
        "stale_sessions": stale_sessions,
        "stale_env": STALE_ENV,
        "legend": [s.to_dict() for s in STATUS_STYLES],
        "datasets": datasets,
        "freshness": freshness(catalog, ref, datasets, stale_sessions),
        "coverage": coverage(catalog, ref, datasets),
        "validation": validation(catalog, datasets, ref.as_of),
        "quarantine": quarantine(catalog, root, ref.as_of),
        "runs": runs(catalog, ref.as_of, current=ref.source == "now"),
        "data_docs": {
            "url": "/dq/",
            "available": bool(dq_index is not None and dq_index.is_file()),
        },
        "first_ingest": first_ingest_commands(root) if empty else [],
    }
