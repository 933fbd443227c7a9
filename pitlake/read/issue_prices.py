"""Listings' issue prices as known at a cutoff: the base of an approval-regime first day's
price limits (+44 % / −36 %, `pitlake.limit_rules`).

Read from the dataset that declares an `issue_price_column` (`schemas.ISSUE_PRICES`): the
newest version of each asked symbol known at the cutoff (None: everything stored, the gate's
best knowledge, as for the master's states). A symbol without a positive price there is left
out, so its first day stays `unknown` (pitlake.limits.with_issue_prices), never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime

import pyarrow.compute as pc

from pitlake.lake.store import LakeStore
from pitlake.read.engine import DuckReader, Params, col, visible
from pitlake.schemas import ISSUE_PRICES, SCHEMAS


def issue_prices(
    store: LakeStore,
    reader: DuckReader,
    first_days: Mapping[str, date],
    cutoff: datetime | None,
    as_ingested: datetime | None = None,
) -> dict[str, float]:
    """symbol → its issue price (元) as known at `cutoff`, for the symbols of `first_days`
    (symbol → its first trading day) that have one; {} when none is asked or stored. Only
    the partitions of the listing years and the years before are read (a subscription
    precedes its listing by days)."""
    spec = SCHEMAS[ISSUE_PRICES]
    asked = sorted(s for s in first_days if isinstance(s, str))
    years = {str(y) for d in first_days.values() for y in (d.year - 1, d.year)}
    files = store.files(spec.name, years) if asked else []
    if not files:
        return {}
    p = Params()
    where = [f"{col('symbol')} IN {p.in_list(asked)}"]
    if cutoff is not None:
        where += visible(p, cutoff, as_ingested)
    table = reader.latest_versions(spec, files, where, p)
    if table is None or not table.num_rows:
        return {}
    price = table.column(spec.issue_price_column)
    table = table.filter(pc.fill_null(pc.greater(price, 0.0), False))
    return dict(
        zip(
            table.column("symbol").to_pylist(),
            table.column(spec.issue_price_column).to_pylist(),
            strict=True,
        )
    )
