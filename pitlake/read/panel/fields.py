"""The panel's field names, derived from the dataset specs (never retyped): bars from `quotes`,
valuation from `valuation`, statement line items from `financials` with their derivations.

A line item `x` of a flow statement (income, cashflow) offers `x` (the latest period's
cumulative value), `x_q` (single quarter), `x_ttm` (trailing twelve months) and `x_yoy`
(growth on the same period a year before); a balance-sheet item, a stock, offers `x` and
`x_yoy` only."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from pitlake.errors import InvalidArgumentsError
from pitlake.limits import POOLS
from pitlake.schemas import (
    BITEMPORAL_COLUMNS,
    financials,
    index_members,
    quotes,
    securities,
    valuation,
)

FLOW_DERIVATIONS = ("", "_q", "_ttm", "_yoy")
STOCK_DERIVATIONS = ("", "_yoy")
FLOW_STATEMENTS = ("income", "cashflow")


def _numeric(schema_fields: Sequence[pa.Field]) -> list[str]:
    return [
        f.name
        for f in schema_fields
        if pa.types.is_floating(f.type) or pa.types.is_integer(f.type)
        if f.name not in BITEMPORAL_COLUMNS
    ]


BAR_FIELDS: tuple[str, ...] = tuple(_numeric(quotes.SCHEMA.arrow_schema))
VALUATION_FIELDS: tuple[str, ...] = tuple(
    n for n in _numeric(valuation.SCHEMA.arrow_schema) if n not in BAR_FIELDS
)


# Security states, as `Lake.universe` answers at the row's cutoff: its boolean states (is_st,
# is_suspended) and the XSHG sessions since the code's first trading day (1 on that day).
STATE_FIELDS: tuple[str, ...] = (
    *(f.name for f in securities.UNIVERSE_FIELDS if pa.types.is_boolean(f.type)),
    "days_listed",
)
# Index membership on D as known at D's cutoff: in_000300 for 000300.SH, …
INDEX_FLAGS: dict[str, str] = {
    f"in_{code.split('.')[0]}": code for code in index_members.MEMBER_INDICES
}
# The day's return from the factors known at the row's cutoff: hfq close over the previous
# session's hfq close, minus one (a later ex-date never reaches back).
RETURN_FIELDS: tuple[str, ...] = ("ret_1d",)
# The limit state of the row's bar, as `Lake.limits` classifies it at the row's cutoff: its
# pool (pitlake.limits.POOLS: up, down, broken), WITHIN its limits, NO_LIMIT (a session
# without a price limit: a new listing's first days), null (no bar public, limit unknown).
LIMIT_FIELD = "limit_state"
WITHIN, NO_LIMIT = "within", "no_limit"
LIMIT_STATES: tuple[str, ...] = (*POOLS, WITHIN, NO_LIMIT)


@dataclass(frozen=True)
class LineItem:
    """One requested statement column: `item` with a derivation ("", _q, _ttm, _yoy)."""

    name: str  # the output column
    item: str
    statement: str
    derivation: str


def _line_items() -> dict[str, LineItem]:
    out: dict[str, LineItem] = {}
    for item, statement in financials.LINE_ITEMS.items():
        kinds = FLOW_DERIVATIONS if statement in FLOW_STATEMENTS else STOCK_DERIVATIONS
        for d in kinds:
            out[item + d] = LineItem(item + d, item, statement, d)
    return out


LINE_ITEMS: dict[str, LineItem] = _line_items()
ALL_FIELDS: tuple[str, ...] = (
    *BAR_FIELDS,
    *VALUATION_FIELDS,
    *LINE_ITEMS,
    *STATE_FIELDS,
    *INDEX_FLAGS,
    *RETURN_FIELDS,
    LIMIT_FIELD,
)


@dataclass(frozen=True)
class Fields:
    """A checked field list, split by the family that answers it (in the asked order)."""

    order: tuple[str, ...]
    bars: tuple[str, ...]
    valuation: tuple[str, ...]
    items: tuple[LineItem, ...]
    states: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    returns: tuple[str, ...] = ()
    limit: bool = False

    def statements(self) -> dict[str, list[str]]:
        """Per statement, the distinct line items it must read."""
        out: dict[str, list[str]] = {}
        for li in self.items:
            names = out.setdefault(li.statement, [])
            if li.item not in names:
                names.append(li.item)
        return out


def parse(fields: object) -> Fields:
    """The field list (a list of names, or one comma-separated string), checked: an unknown
    name is INVALID_ARGUMENTS with the closest known names."""
    if isinstance(fields, str):
        names = [f.strip() for f in fields.split(",") if f.strip()]
    elif isinstance(fields, list | tuple):
        names = [str(f).strip() for f in fields]
    else:
        raise InvalidArgumentsError("fields must be a list of names, e.g. ['close', 'revenue_ttm']")
    if not names:
        raise InvalidArgumentsError("give at least one field, e.g. ['close', 'revenue_ttm']")
    for n in names:
        if n not in ALL_FIELDS:
            near = difflib.get_close_matches(n, ALL_FIELDS, n=3)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise InvalidArgumentsError(f"unknown panel field {n!r}{hint}")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InvalidArgumentsError(f"field {dup[0]!r} asked twice")
    return Fields(
        order=tuple(names),
        bars=tuple(n for n in names if n in BAR_FIELDS),
        valuation=tuple(n for n in names if n in VALUATION_FIELDS),
        items=tuple(LINE_ITEMS[n] for n in names if n in LINE_ITEMS),
        states=tuple(n for n in names if n in STATE_FIELDS),
        flags=tuple(n for n in names if n in INDEX_FLAGS),
        returns=tuple(n for n in names if n in RETURN_FIELDS),
        limit=LIMIT_FIELD in names,
    )
