"""What is in the lake (issue 30): one entry per dataset spec — what it is and what this lake
holds of it as of the cutoff. `Lake.datasets`, `pitlake datasets`, `GET /v1/catalog` and the
MCP tool `datasets` all answer with `answer` below.

What a dataset IS is generated, never written here: its columns (Arrow type, nullability, the
unit from `Dataset.units` — `pitlake.units`' names —, the spec's `column_docs`), key, kind,
scope and load rules from the spec (`pitlake.schemas`), its known-at rule's name, text and the
bases it declares (`pitlake.pit.bases`), and the vendors with a fetcher for it from the vendor
plugins (`pitlake.vendors.plugins`) beside the spec's default chain.

What the lake HOLDS is as of the cutoff, like every answer (docs/design.md §1): the row
versions public by it (`known_at <= cutoff`, and `ingested_at <= as_ingested` when given),
their first and last date (the spec's `date_column`, else the Beijing day of `known_at`), and
the last successful fetch recorded by then (`ledger_events`; one recorded later is not
shown). A read: nothing is written, the catalog is opened read-only."""

from __future__ import annotations

import inspect
from datetime import datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from pitlake.calendar import to_date
from pitlake.envelope import Result
from pitlake.pit import iso_beijing, rule_bases
from pitlake.read.cutoff import Ask
from pitlake.read.engine import Params, col, visible
from pitlake.schemas import BITEMPORAL_FIELDS, SCHEMAS, Dataset
from pitlake.schemas.base import BITEMPORAL_DOCS
from pitlake.statuses import DateStatus, ResultStatus

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

# The answer's Arrow form, declared so that a column null in every row keeps its type.
_TEXT = _DAY = pa.string()  # dates and instants as their ISO text (the JSON's)
FIELD = pa.struct(
    [
        ("name", _TEXT),
        ("type", _TEXT),
        ("nullable", pa.bool_()),
        ("unit", _TEXT),
        ("description", _TEXT),
        ("key", pa.bool_()),
    ]
)
CATALOGUE_SCHEMA = pa.schema(
    [
        ("name", _TEXT),
        ("asked_as", _TEXT),
        ("description", _TEXT),
        ("kind", _TEXT),
        ("key", pa.list_(_TEXT)),
        ("date_column", _TEXT),
        ("partitioning", _TEXT),
        ("fields", pa.list_(FIELD)),
        (
            "known_at",
            pa.struct(
                [
                    ("rule", _TEXT),
                    ("description", _TEXT),
                    ("bases", pa.list_(_TEXT)),
                    ("event_time", _TEXT),
                ]
            ),
        ),
        ("vendors", pa.list_(_TEXT)),
        ("default_chain", pa.list_(_TEXT)),
        (
            "load",
            pa.struct(
                [
                    ("scope", _TEXT),
                    ("nightly", pa.bool_()),
                    ("queryable", pa.bool_()),
                    ("never_empty", pa.bool_()),
                    ("row_count_floor", pa.float64()),
                    ("batch_versions", pa.bool_()),
                    ("one_vendor_per_symbol", pa.bool_()),
                ]
            ),
        ),
        (
            "held",
            pa.struct(
                [
                    ("rows", pa.int64()),
                    ("first_date", _DAY),
                    ("last_date", _DAY),
                    ("last_successful_fetch", _DAY),
                    ("last_successful_fetch_date", _DAY),
                ]
            ),
        ),
    ]
)


def vendors_serving() -> dict[str, tuple[str, ...]]:
    """dataset → the vendors with a fetcher for it, in the vendors' rank order."""
    from pitlake.vendors.plugins import plugins

    out: dict[str, list[str]] = {}
    for plugin in plugins():
        for dataset in plugin.fetchers:
            out.setdefault(dataset, []).append(plugin.name)
    return {d: tuple(v) for d, v in out.items()}


def _text(rule: Any) -> str:
    """A rule's docstring as one line (its first paragraph)."""
    doc = inspect.getdoc(rule) or ""
    return " ".join(doc.split("\n\n")[0].split())


def _fields(spec: Dataset) -> list[dict[str, Any]]:
    docs = {**BITEMPORAL_DOCS, **spec.column_docs}
    return [
        {
            "name": f.name,
            "type": str(f.type),
            "nullable": f.nullable,
            "unit": spec.units.get(f.name),
            "description": docs.get(f.name),
            "key": f.name in spec.key,
        }
        for f in (*spec.fields, *BITEMPORAL_FIELDS)
    ]


def describe(spec: Dataset, vendors: tuple[str, ...]) -> dict[str, Any]:
    """What one dataset is, from its spec alone (and the vendors serving it)."""
    return {
        "name": spec.name,
        "asked_as": spec.asked_as,
        "description": spec.description or None,
        "kind": str(spec.kind),
        "key": list(spec.key),
        "date_column": spec.date_column,
        "partitioning": spec.partitioning.name,
        "fields": _fields(spec),
        "known_at": {
            "rule": spec.known_at.__name__,
            "description": _text(spec.known_at) or None,
            "bases": list(rule_bases(spec.known_at)),
            "event_time": spec.event_time.isoformat() if spec.event_time else None,
        },
        "vendors": list(vendors),
        "default_chain": list(spec.default_chain),
        "load": {
            "scope": str(spec.scope),
            "nightly": spec.nightly,
            "queryable": spec.queryable,
            "never_empty": spec.never_empty,
            "row_count_floor": spec.row_count_floor,
            "batch_versions": spec.batch_versions,
            "one_vendor_per_symbol": spec.one_vendor_per_symbol,
        },
    }


def held(
    lake: Lake, spec: Dataset, ask: Ask, fetched: tuple[datetime, Any] | None
) -> dict[str, Any]:
    """What the lake holds of one dataset as of the cutoff (see the module doc)."""
    out: dict[str, Any] = {
        "rows": 0,
        "first_date": None,
        "last_date": None,
        "last_successful_fetch": iso_beijing(fetched[0]) if fetched else None,
        "last_successful_fetch_date": to_date(fetched[1]).isoformat() if fetched else None,
    }
    files = lake.store.files(spec.name)
    if not files:
        return out
    p = Params()
    day = spec.date_column
    span = (
        f"min({col(day)}), max({col(day)})"
        if day
        else f"min({col('known_at')}), max({col('known_at')})"
    )
    sql = (
        f"SELECT count(*), {span} FROM {lake.reader.source(files, p)} "
        f"WHERE {' AND '.join(visible(p, ask.cutoff, ask.as_ingested))}"
    )
    rows, first, last = lake.reader.rows(sql, p)[0]
    out["rows"] = int(rows)
    if rows:
        out["first_date"], out["last_date"] = (
            (to_date(first).isoformat(), to_date(last).isoformat())
            if day
            else (iso_beijing(first)[:10], iso_beijing(last)[:10])
        )
    return out


def answer(lake: Lake, ask: Ask) -> Result:
    """Every dataset spec with what the lake holds of it as of the cutoff, one row each, in
    the registry's order."""
    by = min(ask.cutoff, ask.as_ingested) if ask.as_ingested is not None else ask.cutoff
    fetches = lake.catalog.last_successful_fetches(by)
    serving = vendors_serving()
    rows = [
        {**describe(spec, serving.get(name, ())), "held": held(lake, spec, ask, fetches.get(name))}
        for name, spec in SCHEMAS.items()
    ]
    holding = [r["name"] for r in rows if r["held"]["rows"]]
    message = f"{len(rows)} datasets; {len(holding)} hold rows public by {ask.as_of}" + (
        f": {', '.join(holding)}." if holding else "."
    )
    meta: dict[str, Any] = {"pinned": ask.pinned, "datasets": len(rows)}
    if ask.as_ingested is not None:
        meta["as_ingested"] = iso_beijing(ask.as_ingested)
    return Result(
        status=ResultStatus.OK,
        requested_date=ask.cutoff.date().isoformat(),
        effective_trade_date=None,
        date_status=DateStatus.NOT_APPLICABLE,
        as_of=ask.as_of,
        source="specs,catalog",
        message=" ".join([*ask.notes, message]),
        data=rows,
        table=pa.Table.from_pylist(rows, schema=CATALOGUE_SCHEMA),
        meta=meta,
    )
