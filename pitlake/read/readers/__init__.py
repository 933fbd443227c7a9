"""One reader per dataset kind; `READERS[spec.kind]` answers a query of that kind. Each
`prepare(lake, spec, query, ask)` checks the query's values (InvalidArgumentsError, before any
file is touched) and returns the read, which answers with the `Result` envelope."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

from pitlake.schemas import Kind

if TYPE_CHECKING:
    from pitlake.envelope import Result
    from pitlake.read.cutoff import Ask
    from pitlake.read.lake import Lake
    from pitlake.schemas import Dataset
    from pitlake.schemas.query import Query

Reader = Callable[["Lake", "Dataset", "Query", "Ask"], Callable[[], "Result"]]

# Each kind's reader module (`prepare` answers its queries).
MODULES: dict[Kind, str] = {
    Kind.TRADE_DATED: "trade_dated",
    Kind.REPORT_PERIOD: "report_period",
    Kind.PUBLISHED: "published",
    Kind.SCHEDULED: "scheduled",
    Kind.CALENDAR: "calendar",
    Kind.STATE: "state",
    Kind.SNAPSHOT_LIST: "snapshot_list",
}


class _Readers(Mapping[Kind, Reader]):
    """kind → its reader's `prepare`, the module imported when a query of that kind is first
    read: a one-symbol read loads its own reader, not the seven (decision 54)."""

    def __getitem__(self, kind: Kind) -> Reader:
        module = importlib.import_module(f"{__name__}.{MODULES[kind]}")
        return module.prepare  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[Kind]:
        return iter(MODULES)

    def __len__(self) -> int:
        return len(MODULES)


READERS: Mapping[Kind, Reader] = _Readers()
