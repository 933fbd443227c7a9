"""One reader per dataset kind; `READERS[spec.kind]` answers a query of that kind. Each
`prepare(lake, spec, query, ask)` checks the query's values (InvalidArgumentsError, before any
file is touched) and returns the read, which answers with the `Result` envelope."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pitlake.envelope import Result
from pitlake.read.cutoff import Ask
from pitlake.read.readers import (
    calendar,
    published,
    report_period,
    scheduled,
    snapshot_list,
    state,
    trade_dated,
)
from pitlake.schemas import Dataset, Kind
from pitlake.schemas.query import Query

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

Reader = Callable[["Lake", Dataset, Query, Ask], Callable[[], Result]]

READERS: dict[Kind, Reader] = {
    Kind.TRADE_DATED: trade_dated.prepare,
    Kind.REPORT_PERIOD: report_period.prepare,
    Kind.PUBLISHED: published.prepare,
    Kind.SCHEDULED: scheduled.prepare,
    Kind.CALENDAR: calendar.prepare,
    Kind.STATE: state.prepare,
    Kind.SNAPSHOT_LIST: snapshot_list.prepare,
}
