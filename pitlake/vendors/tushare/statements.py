"""Tushare statement answers → canonical financials rows, normalised in batches.

A reporting night brings hundreds of small answers; they are normalised in groups of the same
columns and dtypes (per-answer pandas overhead was most of the fetch's CPU), some of them while
the paced calls still go on (`StatementBatches`). Restated versions without a date of their own
are marked for `pit.rule_financials` (`mark_undated_revisions`).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pandas as pd

from pitlake.pit import is_quarter_end
from pitlake.schemas import get as get_schema
from pitlake.schemas.financials import LINE_ITEMS
from pitlake.vendors.base import FetchRequest, RawResponse, json_cell, json_text
from pitlake.vendors.parsing import code_text, garbled, parse_dates, parse_numbers, parse_symbols
from pitlake.vendors.tushare.fetch import VENDOR
from pitlake.vendors.tushare.fields import STATEMENT_ENDPOINTS, STATEMENT_META, statement_fields


def _statement_key(r: RawResponse) -> tuple[Any, ...] | None:
    """The batch an answer is normalised in: statement, endpoint, columns and dtypes."""
    if r.query.endpoint not in STATEMENT_ENDPOINTS.values() or r.frame.empty:
        return None
    shape = tuple(zip(r.frame.columns, map(str, r.frame.dtypes), strict=True))
    return (r.query.tag, r.query.endpoint, shape)


def _normalised(batch: list[RawResponse], key: tuple[Any, ...]) -> pd.DataFrame:
    """One batch's canonical rows, each tagged with the id of the answer it came from."""
    statement, endpoint, _shape = key
    frames = [r.frame for r in batch]
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0:
        frame = frame.reset_index(drop=True)  # row labels are positions, for the answer ids
    rows = _statement_rows(frame, statement, endpoint)
    if rows.empty:
        return rows
    ids = np.repeat([id(r) for r in batch], [len(f) for f in frames])
    return rows.assign(_answer=ids[rows.index.to_numpy()])


class StatementBatches:
    """Statement answers normalised in batches of `size` while the paced calls go on, so a
    reporting night's transform does not all wait for the last call (benchmarks/README.md,
    Nightly). The rows are the same as one batch per group would give (same grouping by
    columns and dtypes), assembled in the same order; a batch that fails is left to the
    transform, which raises as it would have. Thread-safe."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._pending: dict[tuple[Any, ...], list[RawResponse]] = {}
        self._done: list[pd.DataFrame] = []
        self._covered: set[int] = set()

    def add(self, raw: RawResponse) -> None:
        key = _statement_key(raw)
        if key is None:
            return
        with self._lock:
            pending = self._pending.setdefault(key, [])
            pending.append(raw)
            if len(pending) < self.size:
                return
            batch, self._pending[key] = pending, []
        try:
            rows = _normalised(batch, key)
        except Exception:  # garbage: the transform meets it again and says so
            return
        with self._lock:
            self._done.append(rows)
            self._covered.update(id(r) for r in batch)

    def taken(self) -> tuple[list[pd.DataFrame], set[int]]:
        with self._lock:
            return list(self._done), set(self._covered)


STATEMENT_BATCH = 64  # answers per early batch (a reporting night brings ~240 per endpoint)


def financial_rows(
    req: FetchRequest, raws: list[RawResponse], batches: StatementBatches | None = None
) -> pd.DataFrame:
    """Answers of one statement endpoint with the same columns and dtypes are normalised
    together: a reporting night brings hundreds of small answers, and per-answer pandas
    overhead was most of the fetch's CPU (723 answers, 58k rows: see benchmarks/README.md).
    Dtypes are part of the group so concatenation never turns an int field into a float one
    (the `extra` text, and so the stored version, must not depend on the batch). `batches`
    holds answers already normalised during the calls; rows come out in the order of one
    batch per group either way (groups by first answer, then answer order)."""
    done, covered = batches.taken() if batches is not None else ([], set())
    groups: dict[tuple[Any, ...], list[RawResponse]] = {}
    order: dict[int, tuple[int, int]] = {}  # answer id → (its group's rank, its position)
    for pos, r in enumerate(raws):
        key = _statement_key(r)
        if key is None:
            continue
        rank = list(groups).index(key) if key in groups else len(groups)
        groups.setdefault(key, [])
        order[id(r)] = (rank, pos)
        if id(r) not in covered:
            groups[key].append(r)
    parts = [*done, *(_normalised(batch, key) for key, batch in groups.items() if batch)]
    columns = get_schema(req.dataset).columns
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame(columns=columns)
    rows = pd.concat(parts, ignore_index=True)
    if done:  # back into one-batch-per-group order (a stable sort keeps rows in answer order)
        place = rows["_answer"].map(order)
        rows = rows.iloc[np.lexsort((place.map(lambda p: p[1]), place.map(lambda p: p[0])))]
        rows = rows.reset_index(drop=True)
    rows = rows.drop(columns="_answer")
    return mark_undated_revisions(rows).reindex(columns=columns)


def _statement_rows(frame: pd.DataFrame, statement: str, endpoint: str) -> pd.DataFrame:
    """One statement's answers → canonical rows; a frame without a usable quarter-end period
    is rejected whole (it is not a statement)."""
    if frame.empty:
        return pd.DataFrame()
    kw = {"vendor": VENDOR, "endpoint": endpoint}
    items = statement_fields(statement)  # vendor field → canonical item
    present = [f for f in items if f in frame.columns]
    if not present:
        raise garbled(f"no {statement} line items among columns {list(frame.columns)}", **kw)
    periods = parse_dates(frame["end_date"], column="end_date", **kw)
    if periods.isna().any():
        raise garbled("a row has no end_date: no recognisable report period", **kw)
    off = ~periods.map(is_quarter_end).astype(bool)
    if off.any():
        raise garbled(f"end_date {periods[off].iloc[0]} is not a quarter end", **kw)
    report_type = frame["report_type"].map(code_text)
    if report_type.isna().any():
        raise garbled("a row has no report_type", **kw)

    nan = np.full(len(frame), np.nan)
    cols: dict[str, Any] = {
        "symbol": parse_symbols(frame["ts_code"], vendor=VENDOR),
        "statement": statement,
        "report_period": periods,
        "report_type": report_type,
        "ann_date": parse_dates(frame["ann_date"], column="ann_date", **kw),
        # f_ann_date counts only when later than ann_date; pit.rule_financials decides that.
        "revision_date": parse_dates(frame["f_ann_date"], column="f_ann_date", **kw),
        "update_flag": frame["update_flag"].map(code_text),
        **{item: nan for item in LINE_ITEMS},
    }
    for field in present:
        cols[items[field]] = parse_numbers(frame[field], column=field, **kw)
    extra = [c for c in frame.columns if c not in STATEMENT_META and c not in items]
    cols["extra"] = [
        json_text({c: json_cell(v) for c, v in zip(extra, row, strict=True)})
        for row in frame[extra].itertuples(index=False, name=None)
    ]
    out = pd.DataFrame(cols, index=frame.index)
    return out[out["symbol"].notna()]


VERSION_KEY = ("symbol", "statement", "report_period", "report_type")
_SAME_DATES = (*VERSION_KEY, "ann_date", "revision_date")


def mark_undated_revisions(rows: pd.DataFrame) -> pd.DataFrame:
    """A restated version (update_flag '1') beside an original ('0') with the same ann_date and
    f_ann_date but different values has no date of its own: `undated_revision` makes
    pit.rule_financials date it by when we first saw it. Rows identical in dates and values are
    one version, kept once (preferring the '1' row).

    Vectorised (row hashes and merges): a statement history is thousands of near-singleton
    groups, and a per-group loop cost ~1 ms a row."""
    keys = list(_SAME_DATES)
    rows = rows.copy()
    rows["_values"] = pd.util.hash_pandas_object(rows[[*LINE_ITEMS, "extra"]], index=False)
    rows["_flag_rank"] = (rows["update_flag"] != "1").astype(int)  # '1' first
    rows = rows.sort_values("_flag_rank", kind="stable")
    rows = rows.drop_duplicates(subset=[*keys, "_values"], keep="first")
    originals = rows.loc[rows["update_flag"] == "0", [*keys, "_values"]].drop_duplicates()
    # Per row: how many distinct original versions share its dates, and is it one of them?
    n_orig = originals.groupby(keys, dropna=False, sort=False).size().rename("_n_orig")
    marked = rows.reset_index().merge(n_orig.reset_index(), on=keys, how="left")
    marked = marked.merge(
        originals.assign(_is_orig=True), on=[*keys, "_values"], how="left"
    ).set_index("index")
    n = marked["_n_orig"].fillna(0)
    own = marked["_is_orig"].astype("boolean").fillna(False).astype(bool)
    # restated iff some original of the same dates has other values
    undated = (marked["update_flag"] == "1") & ((~own & (n >= 1)) | (own & (n >= 2)))
    rows["undated_revision"] = undated.reindex(rows.index).fillna(False).astype(bool)
    return rows.drop(columns=["_values", "_flag_rank"]).sort_index()
