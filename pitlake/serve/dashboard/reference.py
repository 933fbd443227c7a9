"""The dashboard's yardstick: the reference instant, the latest session closed by then, and the
lag beyond which a dataset is stale."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from pitlake.calendar import XSHG, beijing
from pitlake.errors import CalendarRangeError, InvalidArgumentsError
from pitlake.pit import iso_beijing, parse_cutoff


@dataclass(frozen=True)
class Reference:
    """The instant the dashboard measures against, and the latest session closed by then."""

    as_of: datetime  # Beijing
    source: str  # "as_of" (query), "now", or "pin" (the server's start-up pin)
    session: date
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "as_of": iso_beijing(self.as_of),
            "as_of_date": self.as_of.date().isoformat(),
            "source": self.source,
            "latest_closed_session": self.session.isoformat(),
            "notes": list(self.notes),
        }


def resolve_reference(
    as_of: str | date | datetime | None,
    *,
    now: datetime | None = None,
    pin: datetime | None = None,
) -> Reference:
    """`as_of` (a date = the end of that Beijing day, or an ISO timestamp), else now; never
    later than the server's pin. Past the end of the trading calendar the last known session
    is used, and the page says so. Raises InvalidArgumentsError for an unreadable as_of."""
    notes: list[str] = []
    if as_of is None or (isinstance(as_of, str) and not as_of.strip()):
        at, source = parse_cutoff(None, now=now), "now"
    else:
        at, source = parse_cutoff(as_of), "as_of"
    if pin is not None and at > pin:
        notes.append(f"the server is pinned to {iso_beijing(pin)}: the reference is clamped to it")
        at, source = beijing(pin), "pin"
    if at.date() < XSHG.first:
        raise InvalidArgumentsError(f"as_of {at.date()} is before the first XSHG session")
    try:
        session = XSHG.latest_closed_session(at)
    except CalendarRangeError:
        session = XSHG.session_on_or_before(XSHG.last)
        notes.append(
            f"the trading calendar is known through {XSHG.last}; lag is measured against its "
            f"last session {session}"
        )
    return Reference(as_of=at, source=source, session=session, notes=tuple(notes))
