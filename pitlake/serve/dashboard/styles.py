"""How each ledger status reads on the dashboard, and which one a cell shows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pitlake.statuses import DASHBOARD_CELL_CODE, DASHBOARD_CELL_ORDER, LedgerStatus

NEVER = "NEVER"  # a cell, or a dataset, with no ledger entry at all


@dataclass(frozen=True)
class StatusStyle:
    """How one ledger status reads on the dashboard: a code letter (so the grid works in
    greyscale and for colour-blind readers), a label and what it means."""

    status: str
    code: str
    label: str
    meaning: str

    def to_dict(self) -> dict[str, str]:
        return {
            "status": self.status,
            "code": self.code,
            "label": self.label,
            "meaning": self.meaning,
        }


# The label and meaning of each ledger status; its letter and its rank come from pitlake/statuses.py.
_EXPLAINED: dict[LedgerStatus, tuple[str, str]] = {
    LedgerStatus.OK: (LedgerStatus.OK.value, "fetched, validated and written"),
    LedgerStatus.NO_DATA: ("no data", "the vendor answered with no rows (e.g. no listings)"),
    LedgerStatus.NOT_READY: ("not ready", "not published yet (or an older date came back)"),
    LedgerStatus.RATE_LIMITED: ("rate limited", "the vendor's quota ran out"),
    LedgerStatus.PERMISSION_DENIED: ("permission denied", "the token lacks the right"),
    LedgerStatus.UPSTREAM_ERROR: ("upstream error", "transport error, 5xx, timeout"),
    LedgerStatus.REJECTED: ("rejected", "the gate quarantined the batch"),
    LedgerStatus.LAKE_UNWRITABLE: ("lake unwritable", "fetched, but the lake could not store it"),
    LedgerStatus.NOT_CONFIGURED: ("not configured", "no token or library for a vendor"),
    LedgerStatus.SKIPPED: ("skipped", "not a session: nothing to fetch"),
}
STATUS_STYLES: tuple[StatusStyle, ...] = (
    *(StatusStyle(s.value, DASHBOARD_CELL_CODE[s], *_EXPLAINED[s]) for s in _EXPLAINED),
    StatusStyle(NEVER, "·", "never fetched", "no ledger entry for this dataset and session"),
)
STYLE_OF: dict[str, StatusStyle] = {s.status: s for s in STATUS_STYLES}

_RANK: dict[str, int] = {s.value: i for i, s in enumerate(DASHBOARD_CELL_ORDER)}


def worst_status(statuses: Iterable[str]) -> str:
    """The status a cell shows for these entries (NEVER for none)."""
    present = [str(s) for s in statuses]
    return min(present, key=lambda s: _RANK.get(s, -1)) if present else NEVER
