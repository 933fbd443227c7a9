"""The cutoff of one request: the as-of asked, clamped by a pin and by "now".

A pinned lake (the operator's as-of) answers no later than its pin, whatever the caller asks,
and says so; an as-of in the future is answered as of now. Every reader and the SQL views take
their instants from here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pitlake.pit import iso_beijing, parse_cutoff


@dataclass(frozen=True)
class Ask:
    """The validated instants of one request."""

    cutoff: datetime  # aware, Beijing
    as_ingested: datetime | None
    pinned: bool
    notes: tuple[str, ...] = ()

    @property
    def as_of(self) -> str:
        return iso_beijing(self.cutoff)  # type: ignore[return-value]


def ask(as_of: Any, as_ingested: Any, *, pin: datetime | None, now: datetime) -> Ask:
    """The cutoff for `as_of` under `pin` at `now` (aware), with the notes an answer shows
    when it was clamped."""
    now = parse_cutoff(now)
    cutoff = parse_cutoff(as_of, now=now)
    notes: list[str] = []
    if pin is not None:
        if as_of is None:
            cutoff = pin
        elif cutoff > pin:
            notes.append(
                f"as_of {iso_beijing(cutoff)} is after this API's pinned as-of; "
                f"clamped to {iso_beijing(pin)}."
            )
            cutoff = pin
    if cutoff > now:
        if cutoff.date() > now.date():  # "as of today" quietly means "as of now"
            notes.append(
                f"as_of {iso_beijing(cutoff)} is in the future; answered as of now "
                f"({iso_beijing(now)})."
            )
        cutoff = now
    ingested = parse_cutoff(as_ingested, now=now) if as_ingested is not None else None
    return Ask(cutoff, ingested, pin is not None, tuple(notes))
