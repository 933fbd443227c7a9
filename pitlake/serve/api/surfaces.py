"""What every query surface (HTTP, MCP, CLI) derives from the query models: which datasets
have one, how each model field is spelled on a surface, and each read's summary and text.

No FastAPI or fastmcp here: the CLI imports it and must stay fast."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from pitlake.schemas import QUERY_DATASETS, SCHEMAS, Dataset
from pitlake.schemas.query import DerivedQuery, LimitsQuery, MarketQuery, Query

# Every dataset with a query model, in registry order.
QUERIES: tuple[Dataset, ...] = tuple(
    SCHEMAS[d] for d in QUERY_DATASETS if SCHEMAS[d].query is not None
)
# Reads derived from several datasets (pitlake.read.market), by their name on every surface
# but MCP (Lake's method, the HTTP path, the CLI word); MCP names them for the task
# (market_overview, limit_pools).
DERIVED: dict[str, type[DerivedQuery]] = {"market": MarketQuery, "limits": LimitsQuery}
# Fields taking several values: also spelled once per value (HTTP `symbol=A&symbol=B`, the
# CLI's `--symbol A --symbol B`), beside the comma-separated plural.
ONE_AT_A_TIME: dict[str, str] = {"symbols": "symbol", "periods": "period"}
# The longest text a date or day field, and an instant (as_of), takes on the HTTP wire.
MAX_DAY_TEXT = 32
MAX_INSTANT_TEXT = 64


def model(spec: Dataset) -> type[Query]:
    assert spec.query is not None
    return spec.query


def name(spec: Dataset) -> str:
    """The read's name on every surface: Lake's method, the MCP tool (the dataset's name,
    unless its spec names its question otherwise: securities → universe)."""
    return spec.asked_as


def path(spec: Dataset) -> str:
    """The read as a URL path segment and a CLI word ('dragon-tiger')."""
    return name(spec).replace("_", "-")


def by_name(asked: str) -> Dataset:
    """The dataset a read's surface name asks (KeyError: none)."""
    for spec in QUERIES:
        if name(spec) == asked:
            return spec
    raise KeyError(asked)


def summary(spec: Dataset | type[BaseModel]) -> str:
    """The read's one-line summary (its model's first paragraph)."""
    asked, fallback = (spec, spec.__name__) if isinstance(spec, type) else (model(spec), spec.name)
    return (asked.__doc__ or fallback).strip().split("\n\n")[0]


def description(spec: Dataset | type[BaseModel]) -> str:
    asked = spec if isinstance(spec, type) else model(spec)
    parts = (asked.__doc__ or "").strip().split("\n\n", 1)
    return parts[1] if len(parts) > 1 else ""


def _types(annotation: Any) -> set[Any]:
    args = get_args(annotation)
    if not args:
        return {annotation}
    return {t for a in args for t in _types(a)} | {getattr(annotation, "__origin__", None)}


def types_of(info: FieldInfo) -> set[Any]:
    """Every type a field's annotation names (inside unions and lists too)."""
    return _types(info.annotation)


def takes_list(info: FieldInfo) -> bool:
    return list in types_of(info)


def takes_text(info: FieldInfo) -> bool:
    """A date, a day or an instant, given as text on the wire."""
    return bool(types_of(info) & {date, datetime})


def takes_instant(info: FieldInfo) -> bool:
    return datetime in types_of(info)


def text_cap(info: FieldInfo) -> int:
    """The longest text a date or instant field takes on the HTTP wire (GET and POST)."""
    return MAX_INSTANT_TEXT if takes_instant(info) else MAX_DAY_TEXT


def bounds(info: FieldInfo) -> dict[str, Any]:
    """The field's numeric bounds (ge/le), for the surfaces that check them themselves."""
    out: dict[str, Any] = {}
    for m in info.metadata:
        for key in ("ge", "le", "gt", "lt"):
            if getattr(m, key, None) is not None:
                out[key] = getattr(m, key)
    return out


def default(info: FieldInfo) -> Any:
    """The field's default; required fields have none (None on surfaces that cannot require)."""
    return None if info.is_required() else info.default


def list_fields(spec: Dataset) -> list[str]:
    """The fields of a dataset's query taking several values (also comma-separated)."""
    return [n for n, f in model(spec).model_fields.items() if takes_list(f)]
