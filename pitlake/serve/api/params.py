"""Request parameters shared by the HTTP API, the CLI and the MCP server.

Everything here is syntax only (lists, names, pins). The meaning of symbols, dates and as-ofs is
decided once, in `pitlake.symbols`, `pitlake.calendar` and `pitlake.pit`, by `Lake`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime

from pitlake import schemas
from pitlake.errors import InvalidArgumentsError
from pitlake.pit import parse_cutoff
from pitlake.serve.api.surfaces import DERIVED

# Datasets a query can name (the CLI's DATASET, the snapshot's `datasets`), canonical spelling.
# A dataset whose spec names its question otherwise is asked by that name (universe); the
# reads derived from several datasets (market, limits) and the compositions follow.
QUERY_DATASETS: tuple[str, ...] = (
    *(schemas.SCHEMAS[d].asked_as for d in schemas.QUERY_DATASETS),
    *DERIVED,
    "snapshot",
    "status",
)
# A request naming more symbols than this is refused before any read (Lake allows 6000 for
# Python callers; an HTTP query string that long is abuse, not a question).
MAX_REQUEST_SYMBOLS = 500
MAX_SYMBOL_TEXT = 40  # longest accepted spelling of one symbol (600519.XSHG is 11)
PIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
# '2025-06-03T15:00 08:00': a '+' that a query string decoded into a space.
_SPACE_FOR_PLUS = re.compile(
    r"^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?) (\d{2}(?::?\d{2})?)$"
)


def dataset_name(raw: str) -> str:
    """A dataset as a user spells it ('Dragon-Tiger' for dragon_tiger) → its canonical
    name; anything unknown is refused."""
    name = raw.strip().lower().replace("-", "_") if isinstance(raw, str) else ""
    if name not in QUERY_DATASETS:
        import difflib

        shown = raw if isinstance(raw, str) and len(raw) <= 40 else repr(raw)[:40]
        near = difflib.get_close_matches(name, QUERY_DATASETS, n=1, cutoff=0.6)
        hint = f"did you mean {near[0].replace('_', '-')!r}? Expected" if near else "expected"
        raise InvalidArgumentsError(
            f"unknown dataset {shown!r}: {hint} one of "
            + ", ".join(d.replace("_", "-") for d in QUERY_DATASETS)
        )
    return name


def split_list(
    *values: str | Iterable[str] | None, most: int = MAX_REQUEST_SYMBOLS
) -> list[str] | None:
    """Merge `symbol=A&symbol=B` and `symbols=A,B` style inputs (symbols, report periods) into
    one list (None: none) of `most` items at most.

    Only splitting and counting happen here; each item is parsed (and garbage refused) by
    `pitlake.symbols` (or the calendar) inside `Lake`."""
    out: list[str] = []
    for value in values:
        if value is None:
            continue
        items = [value] if isinstance(value, str) else list(value)
        for item in items:
            if not isinstance(item, str):
                raise InvalidArgumentsError(f"symbols must be strings, got {type(item).__name__}")
            for part in item.split(","):
                part = part.strip()
                if not part:
                    continue
                if len(part) > MAX_SYMBOL_TEXT:
                    raise InvalidArgumentsError(
                        f"invalid symbol {part[:MAX_SYMBOL_TEXT]!r}…: too long"
                    )
                out.append(part)
                if len(out) > most:
                    raise InvalidArgumentsError(
                        f"too many symbols (more than {most}) in one request"
                    )
    return out or None


def dataset_list(*values: str | Iterable[str] | None) -> list[str] | None:
    """Comma-separated or repeated dataset names → canonical names, de-duplicated."""
    out: list[str] = []
    for value in values:
        if value is None:
            continue
        for item in [value] if isinstance(value, str) else list(value):
            for part in str(item).split(","):
                if part.strip():
                    name = dataset_name(part)
                    if name not in out:
                        out.append(name)
    return out or None


def repair_as_of(value: str | None) -> str | None:
    """Undo the classic query-string mistake: an unencoded '+' in '+08:00' arrives as a space.
    Only the exact timestamp shape is repaired; anything else is left for `parse_cutoff`."""
    if value is None:
        return None
    m = _SPACE_FOR_PLUS.match(value.strip())
    return f"{m.group(1)}+{m.group(2)}" if m else value


def parse_pin(spec: str) -> tuple[str, datetime]:
    """'name=T' (from `--allow-pin`) → (name, cutoff)."""
    name, sep, at = spec.partition("=")
    name = name.strip()
    if not sep or not PIN_NAME.match(name):
        raise InvalidArgumentsError(
            f"invalid pin {spec[:60]!r}: expected NAME=DATE_OR_TIMESTAMP, "
            "NAME of letters, digits, '_', '.', '-'"
        )
    return name, parse_cutoff(at.strip())


def pin_table(pins: dict[str, str | datetime] | Iterable[str] | None) -> dict[str, datetime]:
    """Allowed pins from a mapping {name: T} or from 'name=T' strings."""
    if pins is None:
        return {}
    if isinstance(pins, dict):
        out: dict[str, datetime] = {}
        for name, at in pins.items():
            if not PIN_NAME.match(name):
                raise InvalidArgumentsError(f"invalid pin name {name[:60]!r}")
            out[name] = parse_cutoff(at)
        return out
    return dict(parse_pin(s) for s in pins)
