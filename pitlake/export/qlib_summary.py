"""What one qlib export wrote (`QlibExport`, the CLI's summary line), and how it vouches for
each read it makes: a read that is not OK / NO_DATA is `ExportIncompleteError` unless the
export allows gaps, in which case they are counted and itemised here."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from pitlake.envelope import Result
from pitlake.errors import InvalidArgumentsError, PitlakeError
from pitlake.statuses import BENIGN_ANSWER, ResultStatus

MAX_GAPS_LISTED = 50  # gap runs itemised in the summary (all are counted)


class ExportIncompleteError(PitlakeError):
    """A read the export needs did not answer OK / NO_DATA (its `status`): the export would
    show those sessions empty, so nothing is written unless gaps are allowed."""

    def __init__(self, message: str, *, status: ResultStatus) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class QlibExport:
    """What one export wrote (`to_dict` is the CLI's summary line)."""

    directory: Path
    as_of: str
    allow_gaps: bool = False
    sessions: int = 0
    first_session: date | None = None
    last_session: date | None = None
    instruments: int = 0
    markets: dict[str, int] = field(default_factory=dict)
    featured: int = 0  # symbols with day features
    financial_fields: int = 0  # (symbol, item) PIT files
    financial_records: int = 0
    no_factor: list[str] = field(default_factory=list)  # bars left out: no factor known
    gaps: dict[str, int] = field(default_factory=dict)  # status → symbol-sessions written empty
    gap_runs: list[dict[str, Any]] = field(default_factory=list)  # the first MAX_GAPS_LISTED

    def to_dict(self) -> dict[str, Any]:
        return {
            "directory": str(self.directory),
            "as_of": self.as_of,
            "sessions": self.sessions,
            "first_session": self.first_session.isoformat() if self.first_session else None,
            "last_session": self.last_session.isoformat() if self.last_session else None,
            "instruments": self.instruments,
            "markets": self.markets,
            "featured": self.featured,
            "financial_fields": self.financial_fields,
            "financial_records": self.financial_records,
            "no_factor": self.no_factor,
            "gaps": self.gaps,
            "gap_runs": self.gap_runs,
        }

    def vouch(self, result: Result, what: str) -> None:
        """Raise on a read that is not OK / NO_DATA (InvalidArgumentsError for a bad
        question), or, with `allow_gaps`, count its gaps here."""
        if result.status is ResultStatus.INVALID_ARGUMENTS:
            raise InvalidArgumentsError(result.message)
        if result.status in BENIGN_ANSWER:
            return
        if not self.allow_gaps:
            raise ExportIncompleteError(
                f"{what} answered {result.status}: {result.message} Nothing was written; "
                "export a window the lake holds, or allow the gaps (--allow-gaps) to write "
                "those sessions empty.",
                status=result.status,
            )
        runs = [
            g
            for g in result.meta.get("gap_summary") or []
            if g.get("status") != ResultStatus.NO_DATA.value
        ]
        if not runs:
            runs = [{"status": str(result.status), "count": 1, "reason": result.message}]
        for g in runs:
            status = str(g.get("status"))
            self.gaps[status] = self.gaps.get(status, 0) + int(g.get("count") or 0)
            if len(self.gap_runs) < MAX_GAPS_LISTED:
                keep = ("status", "count", "first", "last", "symbol_count", "reason")
                self.gap_runs.append({k: g[k] for k in keep if k in g})
