"""What every dataset schema has: Arrow schema, key, partitioning, known-at rule.

The bitemporal columns are the same for every dataset and defined only here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd
import pyarrow as pa

from pitlake.pit import KNOWN_AT_RULES, Rule

TS = pa.timestamp("us", tz="UTC")

BITEMPORAL_FIELDS: tuple[pa.Field, ...] = (
    pa.field("source", pa.string(), nullable=False),  # vendor that actually served the row
    pa.field("known_at", TS, nullable=False),  # when the fact became public
    pa.field("known_at_basis", pa.string(), nullable=False),  # why we believe known_at
    pa.field("ingested_at", TS, nullable=False),  # when this lake stored it
    pa.field("run_id", pa.string(), nullable=False),
)
BITEMPORAL_COLUMNS: tuple[str, ...] = tuple(f.name for f in BITEMPORAL_FIELDS)


def _year_of(col: str) -> Callable[[pd.DataFrame], pd.Series]:
    def derive(frame: pd.DataFrame) -> pd.Series:
        return pd.to_datetime(frame[col]).dt.year.astype("int64").astype(str)

    return derive


def _month_of_known_at(frame: pd.DataFrame) -> pd.Series:
    return (
        pd.to_datetime(frame["known_at"], utc=True)
        .dt.tz_convert("Asia/Shanghai")
        .dt.strftime("%Y-%m")
    )


@dataclass(frozen=True)
class Partitioning:
    """Hive partition `<name>=<value>`; `derive` maps canonical rows to the value."""

    name: str
    derive: Callable[[pd.DataFrame], pd.Series]


def by_year(col: str) -> Partitioning:
    return Partitioning("year", _year_of(col))


BY_KNOWN_AT_MONTH = Partitioning("month", _month_of_known_at)


@dataclass(frozen=True)
class DatasetSchema:
    name: str
    fields: tuple[pa.Field, ...]  # canonical data columns (without the bitemporal ones)
    key: tuple[str, ...]
    partitioning: Partitioning
    date_column: str | None  # the column a ledger entry is about (trade_date, report_period)
    known_at_rule: str  # key into pitlake.pit.KNOWN_AT_RULES (basis is per row)
    sort: tuple[str, ...] = ()  # within-partition order; defaults to key
    # Columns excluded from "did the values change?" (vendor noise such as names, free text).
    ignore_on_compare: tuple[str, ...] = ()
    whole_market: bool = True  # one by-date call covers the market
    description: str = ""
    extra_doc: dict[str, str] = field(default_factory=dict)

    @property
    def arrow_schema(self) -> pa.Schema:
        return pa.schema(list(self.fields) + list(BITEMPORAL_FIELDS))

    @property
    def columns(self) -> list[str]:
        return [f.name for f in self.fields]

    @property
    def all_columns(self) -> list[str]:
        return self.columns + list(BITEMPORAL_COLUMNS)

    @property
    def value_columns(self) -> list[str]:
        """Columns whose change makes a new version."""
        skip = set(self.key) | set(self.ignore_on_compare)
        return [c for c in self.columns if c not in skip]

    @property
    def version_key(self) -> tuple[str, ...]:
        return (*self.key, "known_at")

    @property
    def sort_columns(self) -> list[str]:
        return [*(self.sort or self.key), "known_at"]

    @property
    def rule(self) -> Rule:
        return KNOWN_AT_RULES[self.known_at_rule]

    def empty_frame(self) -> pd.DataFrame:
        return self.arrow_schema.empty_table().to_pandas()

    def to_arrow(self, frame: pd.DataFrame) -> pa.Table:
        """Canonical frame → Arrow table in exactly this schema (raises on missing columns)."""
        missing = [c for c in self.all_columns if c not in frame.columns]
        if missing:
            raise ValueError(f"{self.name}: missing canonical columns {missing}")
        return pa.Table.from_pandas(
            frame[self.all_columns], schema=self.arrow_schema, preserve_index=False
        )
