"""One per-symbol statement answer → canonical financials rows, for AkShare and Baostock.

Both answer one statement of one company per call, its rows dated by an announcement column
(and, for East Money, a revision column); the check is the same: the required columns are there,
every report period is a parseable quarter end (else the answer is rejected), a garbled date or
number is a typed error, a missing one stays missing, a line item the template lacks is null,
and what is not mapped is kept in `extra`. Which columns those are is the vendor's
(`StatementColumns`, in its fetcher). Tushare's batched normalisation (tushare/statements.py)
reads its report type and symbol from the rows and marks undated restatements: not this; the
statements a request asks for (`chosen_statements`) are every vendor's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pitlake.errors import InvalidArgumentsError
from pitlake.pit import is_quarter_end
from pitlake.schemas.financials import STATEMENTS
from pitlake.vendors.base import FetchRequest, RawResponse, json_cell, json_text
from pitlake.vendors.parsing import (
    garbled,
    parse_dates,
    parse_numbers,
    parse_required_dates,
    require_columns,
)

# A version of a statement: the rows an answer may repeat, kept once.
VERSION_COLUMNS = ["symbol", "statement", "report_period", "ann_date", "revision_date"]


@dataclass(frozen=True)
class StatementColumns:
    """A vendor's statement answer: which of its columns carry what."""

    vendor: str
    required: tuple[str, ...]  # columns every answer must carry
    period: str  # the report period (a quarter end)
    announced: str  # the first announcement date
    revised: str | None  # the latest revision's date; None = one version, no revision date
    mapped: tuple[str, ...]  # columns carried by canonical columns (kept out of `extra`)
    report_type: str  # the report type every answer has
    fields: Callable[[str], Mapping[str, str]]  # statement → {vendor field: canonical item}
    extra_cell: Callable[[object], object] = json_cell  # a cell as `extra` keeps it
    one_row_per_version: bool = False  # drop repeated versions (VERSION_COLUMNS)


def chosen_statements(req: FetchRequest, served: Iterable[str]) -> list[str]:
    """The statements a request asks for (all, unless it names one)."""
    if req.statement is None:
        return list(STATEMENTS)
    if req.statement not in set(served):
        raise InvalidArgumentsError(
            f"unknown statement {req.statement!r}; expected one of {', '.join(STATEMENTS)}"
        )
    return [req.statement]


def statement_rows(raw: RawResponse, columns: StatementColumns) -> pd.DataFrame:
    """One answer (one statement of `raw.query.symbol`, tagged with its statement) → rows."""
    frame, endpoint, statement = raw.frame, raw.query.endpoint, raw.query.tag
    kw = {"vendor": columns.vendor, "endpoint": endpoint}
    require_columns(frame, columns.required, **kw)
    if frame.empty:
        return pd.DataFrame()
    period = columns.period
    periods = parse_required_dates(frame[period], column=period, **kw)
    off = ~periods.map(is_quarter_end).astype(bool)
    if off.any():
        raise garbled(f"{period} {periods[off].iloc[0]} is not a quarter end", **kw)
    mapping = columns.fields(statement)
    out = pd.DataFrame(index=frame.index)
    out["symbol"] = raw.query.symbol
    out["statement"] = statement
    out["report_period"] = periods
    out["report_type"] = columns.report_type
    # Missing stays missing (the known-at rule's documented fallback); garbled is an error.
    out["ann_date"] = parse_dates(frame[columns.announced], column=columns.announced, **kw)
    out["revision_date"] = (
        None
        if columns.revised is None
        else parse_dates(frame[columns.revised], column=columns.revised, **kw)
    )
    out["update_flag"] = None
    out["undated_revision"] = False
    for vendor_field, item in mapping.items():
        # Templates differ (banks, insurers): an item the template lacks is null, not drift.
        out[item] = (
            parse_numbers(frame[vendor_field], column=vendor_field, **kw)
            if vendor_field in frame.columns
            else np.nan
        )
    skip = set(columns.mapped) | set(mapping)
    extra_cols = sorted(c for c in frame.columns if c not in skip)
    out["extra"] = [
        json_text({c: columns.extra_cell(v) for c, v in rec.items()})
        for rec in frame[extra_cols].to_dict("records")
    ]
    return out.drop_duplicates(subset=VERSION_COLUMNS) if columns.one_row_per_version else out
