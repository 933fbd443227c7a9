"""Listings' issue prices as known at a cutoff: the base of an approval-regime first day's
price limits (+44 % / −36 %, `pitlake.limit_rules`).

Read from the dataset that declares an `issue_price_column` (`schemas.ISSUE_PRICES`): the
newest version of each asked symbol known at the cutoff (None: everything stored, the gate's
best knowledge, as for the master's states). A symbol without a positive price there is left
out, so its first day stays `unknown` (pitlake.limit_rows.with_issue_prices), never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pitlake.lake.store import LakeStore
from pitlake.read.engine import DuckReader, Params, col, last_per_key, visible, visible_mask
from pitlake.read.kept import KeptByFiles
from pitlake.schemas import ISSUE_PRICES, SCHEMAS

# The stored rows (symbol, price, known_at, ingested_at) sorted by symbol then version, per
# set of file identities: a session's pools ask for them at every read (a DuckDB scan of the
# partitions cost ~10 ms a read; filtering the kept rows, well under one).
_KEPT: KeptByFiles[pa.Table] = KeptByFiles(8, 64 * 1024 * 1024, lambda t: t.nbytes)


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
    stored = _KEPT.get(tuple(sorted(years)), files, lambda: _sorted_rows(reader, files))
    if stored is None:  # no local file identity (a remote lake): the query, every time
        p = Params()
        where = [f"{col('symbol')} IN {p.in_list(asked)}"]
        if cutoff is not None:
            where += visible(p, cutoff, as_ingested)
        table = reader.latest_versions(spec, files, where, p)
    else:
        shown = pc.is_in(stored.column("symbol"), pa.array(asked, pa.string()))
        if cutoff is not None:
            shown = pc.and_kleene(shown, visible_mask(stored, cutoff, as_ingested))
        table = last_per_key(stored.filter(shown), spec.key)
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


def _sorted_rows(reader: DuckReader, files: Sequence[Any]) -> pa.Table:
    spec = SCHEMAS[ISSUE_PRICES]
    p = Params()
    cols = ("symbol", spec.issue_price_column, "known_at", "ingested_at")
    order = ", ".join(col(c) for c in (*spec.key, "known_at", "ingested_at"))
    select = ", ".join(col(c) for c in cols)
    return reader.table(f"SELECT {select} FROM {reader.source(files, p)} ORDER BY {order}", p)
