"""The one custom expectation: "every column converts to the dataset's Arrow schema".

One expectation for all columns, instead of one ExpectColumnValuesToBeOfType per column, because
GX costs ~5 ms of Python per expectation whatever the batch size (benchmarks/README.md), and
because the Arrow schema is the real contract: it is what the writer stores. It checks the
pandas dtype family, a lossless conversion to the Arrow type, and that non-nullable fields have
no nulls.

Importing this module registers both classes with GX. A suite reloaded from JSON silently drops
an expectation whose class is not registered (docs/stack-notes.md), so `pitlake.expectations.context` imports
this module before any suite exists.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pandas as pd
import pyarrow as pa
from great_expectations.core.metric_domain_types import MetricDomainTypes
from great_expectations.execution_engine import PandasExecutionEngine
from great_expectations.expectations.expectation import BatchExpectation
from great_expectations.expectations.metrics.metric_provider import metric_value
from great_expectations.expectations.metrics.table_metric_provider import TableMetricProvider

METRIC = "table.pitlake_arrow_schema_mismatches"


def _dtype_ok(arrow_type: pa.DataType, dtype: Any) -> bool:
    """Is this pandas dtype one the lake's normaliser produces for that Arrow type?"""
    if pa.types.is_timestamp(arrow_type):
        # Instants must be tz-aware: a naive timestamp has no meaning here (DESIGN §1.6).
        return isinstance(dtype, pd.DatetimeTZDtype) == (arrow_type.tz is not None)
    if pa.types.is_date32(arrow_type):
        return pd.api.types.is_object_dtype(dtype) or (
            pd.api.types.is_datetime64_dtype(dtype) and not isinstance(dtype, pd.DatetimeTZDtype)
        )
    if pa.types.is_floating(arrow_type) or pa.types.is_integer(arrow_type):
        return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    if pa.types.is_boolean(arrow_type):
        return pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_object_dtype(dtype)
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return pd.api.types.is_string_dtype(dtype)
    return pd.api.types.is_object_dtype(
        dtype
    )  # lists and other nested types arrive as Python objects


def schema_mismatches(df: pd.DataFrame, schema: pa.Schema) -> list[dict[str, Any]]:
    """Columns of `df` that do not fit `schema` (absent columns are another check's job)."""
    out: list[dict[str, Any]] = []
    for f in schema:
        if f.name not in df.columns:
            continue
        col = df[f.name]
        observed = str(col.dtype)
        if not _dtype_ok(f.type, col.dtype):
            out.append(
                {
                    "column": f.name,
                    "expected": str(f.type),
                    "observed": observed,
                    "problem": "dtype",
                }
            )
            continue
        try:
            arr = pa.array(col, type=f.type, from_pandas=True)
        except (
            pa.ArrowInvalid,
            pa.ArrowTypeError,
            pa.ArrowNotImplementedError,
            TypeError,
            ValueError,
            OverflowError,
        ) as exc:
            out.append(
                {
                    "column": f.name,
                    "expected": str(f.type),
                    "observed": observed,
                    "problem": f"not convertible: {str(exc)[:160]}",
                }
            )
            continue
        if not f.nullable and arr.null_count:
            out.append(
                {
                    "column": f.name,
                    "expected": f"{f.type} not null",
                    "observed": observed,
                    "problem": f"{arr.null_count} null value(s)",
                }
            )
    return out


class TableArrowSchemaMismatches(TableMetricProvider):
    metric_name = METRIC
    value_keys = ("dataset",)

    @metric_value(engine=PandasExecutionEngine)
    def _pandas(
        cls,
        execution_engine: PandasExecutionEngine,
        metric_domain_kwargs: dict,
        metric_value_kwargs: dict,
        metrics: dict[str, Any],
        runtime_configuration: dict,
    ) -> list[dict[str, Any]]:
        from pitlake.schemas import get as get_schema

        df, _, _ = execution_engine.get_compute_domain(
            metric_domain_kwargs, domain_type=MetricDomainTypes.TABLE
        )
        schema = get_schema(metric_value_kwargs["dataset"]).arrow_schema
        return schema_mismatches(df, schema)


class ExpectTableColumnsToMatchArrowSchema(BatchExpectation):
    """Every schema column has a fitting dtype, converts losslessly to its Arrow type, and
    has no nulls where the schema says not-null."""

    dataset: str

    metric_dependencies: ClassVar[tuple[str, ...]] = (METRIC,)
    success_keys: ClassVar[tuple[str, ...]] = ("dataset",)
    args_keys: ClassVar[tuple[str, ...]] = ("dataset",)
    domain_keys: ClassVar[tuple[str, ...]] = ("row_condition", "condition_parser")

    def _validate(
        self,
        metrics: dict,
        runtime_configuration: dict | None = None,
        execution_engine: Any = None,
    ) -> dict[str, Any]:
        mismatches = metrics.get(METRIC) or []
        return {
            "success": not mismatches,
            "result": {
                "observed_value": (
                    "all columns match"
                    if not mismatches
                    else ", ".join(m["column"] for m in mismatches)
                ),
                "details": {"mismatched": mismatches},
            },
        }
