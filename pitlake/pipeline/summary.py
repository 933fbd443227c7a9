"""The typed run summary: one entry per dataset, and whether the run counts as done. The
catalog, the Prefect artifact and `pitlake ingest --json` keep it as `to_dict()`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pitlake.calendar import now_beijing
from pitlake.pipeline.units import UnitOutcome
from pitlake.pit import iso_beijing
from pitlake.statuses import RUN_DONE, LedgerStatus


@dataclass
class DatasetSummary:
    """A dataset's units in one run: its worst failure if any unit failed, else OK if any unit
    brought rows, else the benign status (NO_DATA, NOT_CONFIGURED, SKIPPED)."""

    dataset: str
    status: str | None = None
    units: int = 0
    rows: int = 0
    rows_added: int = 0
    vendors: list[str] = field(default_factory=list)
    failed_units: list[dict[str, Any]] = field(default_factory=list)
    expectations: list[str] = field(default_factory=list)
    message: str = ""
    statuses: dict[str, int] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.status is not None and LedgerStatus(self.status) in RUN_DONE

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "status": self.status,
            "units": self.units,
            "rows": self.rows,
            "rows_added": self.rows_added,
            "vendors": list(self.vendors),
            "failed_units": list(self.failed_units),
            "expectations": list(self.expectations),
            "message": self.message,
            "statuses": dict(self.statuses),
        }


@dataclass
class RunSummary:
    """A run: Completed iff no dataset failed. `scope` and `note` are the flow's words."""

    completed: bool
    datasets: list[DatasetSummary]
    finished_at: str
    scope: str = ""
    note: str | None = None

    @property
    def failed_units(self) -> int:
        return sum(len(d.failed_units) for d in self.datasets)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "completed": self.completed,
            "datasets": [d.to_dict() for d in self.datasets],
            "finished_at": self.finished_at,
        }
        if self.scope:
            out["scope"] = self.scope
        if self.note is not None:
            out["note"] = self.note
        return out


def summarize(outcomes: Sequence[UnitOutcome]) -> RunSummary:
    """One entry per dataset, in the order the outcomes first name them."""
    per: dict[str, DatasetSummary] = {}
    first_message: dict[tuple[str, str], str] = {}  # (dataset, status) → a unit's message
    for o in outcomes:
        if o.message:
            first_message.setdefault((o.dataset, o.status), o.message)
        s = per.setdefault(o.dataset, DatasetSummary(o.dataset))
        s.units += 1
        s.rows += o.rows
        s.rows_added += o.rows_added
        s.statuses[o.status] = s.statuses.get(o.status, 0) + 1
        if o.vendor and o.vendor not in s.vendors:
            s.vendors.append(o.vendor)
        for name in o.failed_expectations:
            if name not in s.expectations:
                s.expectations.append(name)
        if not o.succeeded:
            s.failed_units.append(o.to_dict())
            if s.status is None or LedgerStatus(s.status) in RUN_DONE:
                s.status, s.message = o.status, o.message
    for s in per.values():
        if s.status is None:  # nothing failed
            counts = s.statuses
            s.status = LedgerStatus.OK if LedgerStatus.OK in counts else max(counts, key=counts.get)
            if s.status != LedgerStatus.OK:  # why it is benign: SKIPPED says which non-session
                s.message = first_message.get((s.dataset, s.status), "")
    return RunSummary(
        completed=all(s.done for s in per.values()),
        datasets=list(per.values()),
        finished_at=iso_beijing(now_beijing()),
    )
