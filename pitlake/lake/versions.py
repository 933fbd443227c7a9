"""The versioning rule, as pure functions over frames (no files): which rows of a batch are new
versions of their key, and when each is known.

Curated data is append-only and versioned. A batch row whose key already holds a version with
the same values adds nothing; a changed row becomes a new version. When a changed row carries no
vendor date later than what we already stored, nothing dates the change, so it is known from the
moment we first saw it (`known_at = ingested_at`, basis `first_seen`): history then keeps
answering with the figures as first stored.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pitlake.pit import KnownAtBasis, iso_beijing
from pitlake.schemas import Dataset

if TYPE_CHECKING:
    import pandas as pd

SEQ = "__seq"  # a batch row's arrival order (canonical_batch numbers the rows)
_STORED_MAX = "__stored_known_at"
_REVISED = "__revised"


def _list_columns(schema: Dataset) -> frozenset[str]:
    """The spec's list-typed columns (news' symbols …): the only ones whose values need text to
    be matched. Asked of the spec, not of every object value of every column: a month chunk
    compares against its whole stored year partition (1.3M rows for quotes)."""
    return frozenset(
        f.name
        for f in schema.arrow_schema
        if pa.types.is_list(f.type) or pa.types.is_large_list(f.type)
    )


def _comparable(frame: pd.DataFrame, columns: list[str], lists: frozenset[str]) -> pd.DataFrame:
    """Columns in a form pandas can match exactly: NaN matches NaN, -0.0 matches 0.0, and
    list values (Arrow lists come back as arrays) become JSON text."""
    import pandas as pd

    out = pd.DataFrame(index=frame.index)
    for c in columns:
        s = frame[c]
        if pd.api.types.is_float_dtype(s.dtype):
            s = s + 0.0
        elif c in lists and s.dtype == object:
            s = s.map(
                lambda v: (
                    json.dumps(list(v), default=str)
                    if isinstance(v, (list, tuple, np.ndarray))
                    else v
                )
            )
        out[c] = s
    return out.reset_index(drop=True)


def new_versions(
    schema: Dataset,
    incoming: pd.DataFrame,
    existing: pd.DataFrame | None,
    ingested_at: pd.Timestamp,
) -> tuple[pd.DataFrame, int]:
    """The rows of `incoming` that are new versions, with the revision rule applied.

    Returns (rows to append, how many of them were re-dated to first_seen)."""
    import pandas as pd

    key = list(schema.key)
    cmp_cols = key + schema.value_columns
    inc = incoming.sort_values(["known_at", SEQ], kind="stable")
    lists = _list_columns(schema)
    inc_cmp = _comparable(inc, cmp_cols, lists)
    # The same values twice in one batch: keep the earliest publication.
    fresh = ~inc_cmp.duplicated(keep="first").to_numpy()
    inc, inc_cmp = inc[fresh], inc_cmp[fresh]
    has_existing = existing is not None and len(existing) > 0
    if has_existing:
        ex_cmp = _comparable(existing, cmp_cols, lists).drop_duplicates()
        hit = inc_cmp.merge(ex_cmp, on=cmp_cols, how="left", indicator=True)["_merge"]
        inc = inc[(hit == "left_only").to_numpy()]
    if inc.empty:
        return inc.drop(columns=[SEQ]), 0
    if has_existing:
        stored = existing.groupby(key, sort=False)["known_at"].max().rename(_STORED_MAX)
        inc = inc.merge(stored.reset_index(), on=key, how="left")
    else:
        inc = inc.assign(
            **{_STORED_MAX: pd.Series(pd.NaT, index=inc.index, dtype="datetime64[us, UTC]")}
        )
    inc = inc.sort_values([*key, "known_at", SEQ], kind="stable").reset_index(drop=True)
    prev = inc.groupby(key, sort=False)["known_at"].shift(1)
    undatable = (inc["known_at"] <= inc[_STORED_MAX]).fillna(False) | (
        inc["known_at"] <= prev
    ).fillna(False)
    # Once a key's change is undatable, every later change of it in this batch is too.
    undatable = undatable.astype("int8").groupby([inc[k] for k in key], sort=False).cummax()
    undatable = undatable.astype(bool).to_numpy()
    # first_seen, but never at or before the version it supersedes: a date-only version
    # (end of day) may sort after a same-day ingestion instant.
    floor = pd.concat([inc[_STORED_MAX], prev], axis=1).max(axis=1) + pd.Timedelta(microseconds=1)
    seen = pd.Series(ingested_at, index=inc.index).astype("datetime64[us, UTC]")
    first_seen = seen.where(floor.isna() | (seen > floor), floor)
    inc.loc[undatable, "known_at"] = first_seen[undatable]
    inc.loc[undatable, "known_at_basis"] = KnownAtBasis.FIRST_SEEN.value
    inc[_REVISED] = undatable
    # Several undatable changes of one key in one batch: the last one is the vendor's current.
    inc = inc.drop_duplicates([*key, "known_at"], keep="last")
    if has_existing:
        clash = inc[[*key, "known_at"]].merge(existing[[*key, "known_at"]], on=[*key, "known_at"])
        if len(clash):
            raise ValueError(
                f"{schema.name}: a different version of {clash.iloc[0][key].to_dict()} is already "
                f"stored at {iso_beijing(clash.iloc[0]['known_at'])}; ingested_at must advance "
                "between writes"
            )
    revisions = int(inc[_REVISED].sum())
    return inc.drop(columns=[SEQ, _STORED_MAX, _REVISED]), revisions


def versions_matching(
    table: pa.Table | None, schema: Dataset, batch: pd.DataFrame
) -> pd.DataFrame | None:
    """The stored rows whose key columns each take a value seen in `batch` (a superset of the
    batch's keys, filtered in Arrow), as pandas for the version comparison."""
    import pandas as pd

    if table is None or table.num_rows == 0:
        return None
    mask = None
    for k in schema.key:
        values = pa.array(pd.unique(batch[k]).tolist(), type=table.schema.field(k).type)
        hit = pc.is_in(table[k], value_set=values)
        mask = hit if mask is None else pc.and_(mask, hit)
    found = table.filter(mask)
    return found.to_pandas() if found.num_rows else None
