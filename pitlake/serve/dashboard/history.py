"""The dashboard's history sections: validation pass rates and failed expectations,
quarantined batches, and recent runs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from pitlake.calendar import beijing
from pitlake.lake.catalog import Catalog
from pitlake.lake.catalog_values import ValidationRecord
from pitlake.lake.run_liveness import ABANDONED
from pitlake.lake.run_liveness import as_of as run_as_of
from pitlake.pit import iso_beijing
from pitlake.serve.dashboard.coverage import trace_text

PASS_RATE_POINTS = 60
VALIDATIONS_PER_DATASET = 2000
QUARANTINE_LIMIT = 20
QUARANTINE_SAMPLE_ROWS = 5
RUNS_LIMIT = 15


def _verdicts(records: Iterable[ValidationRecord]) -> list[ValidationRecord]:
    """One record per verdict: a batch spanning several partitions is recorded once per
    partition, with identical outcome and instant."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for r in records:
        key = (
            r.run_id,
            r.dataset,
            r.suite,
            r.date_key,
            r.recorded_at,
            r.success,
            r.severity,
            r.failed,
        )
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def validation_day(r: ValidationRecord) -> date:
    """The session a verdict is about when it has one, else the Beijing day it ran (a
    backfill group spans many sessions)."""
    return r.date_key if r.date_key is not None else beijing(r.recorded_at).date()


def pass_rates(
    records: Iterable[ValidationRecord], points: int = PASS_RATE_POINTS
) -> list[dict[str, Any]]:
    """Per day (oldest first, the last `points` days): batches validated, passed (every
    expectation met), warned (written, flagged) and rejected (quarantined), and the pass rate."""
    days: dict[date, list[int]] = {}
    for r in _verdicts(records):
        counts = days.setdefault(validation_day(r), [0, 0, 0, 0])
        counts[0] += 1
        if r.success:
            counts[1] += 1
        elif r.severity == "warning":
            counts[2] += 1
        else:
            counts[3] += 1
    out = []
    for d in sorted(days)[-points:]:
        total, passed, warned, rejected = days[d]
        out.append(
            {
                "date": d.isoformat(),
                "total": total,
                "passed": passed,
                "warned": warned,
                "rejected": rejected,
                "rate": passed / total if total else None,
            }
        )
    return out


def failed_expectations(records: Iterable[ValidationRecord]) -> list[dict[str, Any]]:
    """Each expectation that failed, how often, and when last (most recent first)."""
    found: dict[str, dict[str, Any]] = {}
    for r in sorted(_verdicts(records), key=lambda r: (validation_day(r), r.recorded_at)):
        for f in r.failed_expectations:
            name = str(f.get("name") or f.get("expectation_type") or "?")
            item = found.setdefault(
                name,
                {
                    "name": name,
                    "description": f.get("description") or "",
                    "column": f.get("column"),
                    "severity": f.get("severity") or r.severity,
                    "failures": 0,
                    "unexpected_rows": 0,
                },
            )
            item["failures"] += 1
            item["unexpected_rows"] += int(f.get("unexpected_count") or 0)
            item["last_date"] = validation_day(r).isoformat()
            item["last_run"] = r.run_id
    return sorted(found.values(), key=lambda i: (i["last_date"], i["name"]), reverse=True)


def validation(catalog: Catalog, datasets: Sequence[str], cutoff: datetime) -> dict[str, Any]:
    """Per dataset, the verdicts about sessions on or before the cutoff's day (a verdict with
    no session: run by the cutoff); a pinned dashboard shows no later one."""
    until = cutoff.date()
    out = []
    for ds in datasets:
        records = catalog.validations(ds, limit=VALIDATIONS_PER_DATASET)
        verdicts = [r for r in _verdicts(records) if _validated_by(r, cutoff, until)]
        passed = sum(1 for r in verdicts if r.success)
        out.append(
            {
                "dataset": ds,
                "batches": len(verdicts),
                "passed": passed,
                "rate": passed / len(verdicts) if verdicts else None,
                "points": pass_rates(verdicts),
                "failed_expectations": failed_expectations(verdicts),
            }
        )
    return {
        "basis": (
            "share of validated batches that met every expectation, per session validated "
            "(a multi-session backfill batch counts on the day it ran)"
        ),
        "datasets": out,
    }


def _shown_path(path: str, lake_root: Path | None) -> str:
    if lake_root is not None:
        try:
            return Path(path).resolve().relative_to(lake_root.resolve()).as_posix()
        except (ValueError, OSError):
            pass
    return path


def _validated_by(r: ValidationRecord, cutoff: datetime, until: date) -> bool:
    if r.date_key is not None:
        return r.date_key <= until
    return r.recorded_at is not None and r.recorded_at <= cutoff


def shown_instant(at: datetime | None, cutoff: datetime) -> str | None:
    """An instant as the dashboard shows it as of the cutoff: none past it."""
    return iso_beijing(at) if at is not None and at <= cutoff else None


def quarantine(
    catalog: Catalog, lake_root: Path | None, cutoff: datetime, limit: int = QUARANTINE_LIMIT
) -> list[dict[str, Any]]:
    """The quarantined batches about sessions on or before the cutoff's day (without one:
    quarantined by the cutoff)."""
    out = []
    until = cutoff.date()
    for q in catalog.quarantines(limit):
        if not (q.date_key <= until if q.date_key else q.recorded_at and q.recorded_at <= cutoff):
            continue
        samples = list(q.sample_rows)[:QUARANTINE_SAMPLE_ROWS]
        columns: list[str] = []
        for row in samples:
            columns += [c for c in row if c not in columns and not str(c).startswith("_")]
        out.append(
            {
                "id": q.id,
                "dataset": q.dataset,
                "date": q.date_key.isoformat() if q.date_key else None,
                "run_id": q.run_id,
                "reason": q.reason,
                "recorded_at": shown_instant(q.recorded_at, cutoff),
                "path": _shown_path(q.path, lake_root),
                "failed_expectations": [
                    {
                        "name": f.get("name") or f.get("expectation_type"),
                        "description": f.get("description") or "",
                        "column": f.get("column"),
                        "unexpected_count": f.get("unexpected_count"),
                    }
                    for f in q.failed_expectations
                ],
                "sample_columns": columns,
                "sample_rows": [[row.get(c) for c in columns] for row in samples],
                "sample_total": len(q.sample_rows),
            }
        )
    return out


def duration_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    s = round(seconds)
    if s < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{s} s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


def runs(
    catalog: Catalog, cutoff: datetime, *, current: bool = False, limit: int = RUNS_LIMIT
) -> list[dict[str, Any]]:
    """The latest runs started by the cutoff, each as it stood then: one that ended after it
    is shown RUNNING, without its end or summary (what it wrote is not known yet); a RUNNING
    one whose process is gone ABANDONED, with when it was last alive (`current`: the cutoff
    is now, so a dead pid on this host counts too)."""
    out = []
    for found in catalog.runs(limit, started_by=cutoff):
        seen = run_as_of(found, cutoff, current=current)
        if seen is None:
            continue
        r, status = seen.run, seen.status
        seconds = (r.ended_at - r.started_at).total_seconds() if r.ended_at else None
        summary = r.summary or {}
        datasets = []
        for d in summary.get("datasets") or []:
            failed = [
                {
                    "date": u.get("date"),
                    "status": u.get("status"),
                    "message": u.get("message") or "",
                    "trace_text": trace_text(u.get("trace") or []),
                }
                for u in (d.get("failed_units") or [])[:5]
            ]
            datasets.append(
                {
                    "dataset": d.get("dataset"),
                    "status": d.get("status"),
                    "units": d.get("units"),
                    "rows": d.get("rows"),
                    "rows_added": d.get("rows_added"),
                    "vendors": d.get("vendors") or [],
                    "expectations": d.get("expectations") or [],
                    "failed_units": failed,
                    "failed_count": len(d.get("failed_units") or []),
                }
            )
        out.append(
            {
                "run_id": r.run_id,
                "flow": r.flow,
                "status": status,
                "started_at": iso_beijing(r.started_at),
                "last_alive": iso_beijing(seen.last_alive) if seen.last_alive else None,
                "ended_at": iso_beijing(r.ended_at) if r.ended_at else None,
                "duration_s": seconds,
                "duration": duration_text(seconds)
                if seconds is not None
                else ("abandoned" if status == ABANDONED else "running"),
                "params": {k: v for k, v in (r.params or {}).items() if v not in (None, [], "")},
                "scope": summary.get("scope") or "",
                "datasets": datasets,
            }
        )
    return out
