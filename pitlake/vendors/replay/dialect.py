"""A vendor's replay dialect: what replay must know of a vendor to answer as it does.

Each vendor package defines one (`<vendor>/replay.py`) and names it in its plugin: the filter
table of its endpoints, how its frames type their columns, which calls have a table of their
own (AkShare's `adjust`), whether `fields` selects columns (Tushare), the native exception it
raises for each injected failure kind, and how its failures are read. The generic replay
source (source.py) asks the dialect; it names no vendor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pitlake.errors import ERROR_BY_KIND, PitlakeError
from pitlake.vendors.replay.filters import EndpointSpec, Filter, Table

if TYPE_CHECKING:
    import pandas as pd

# (column name, column, the endpoint's spec, the file stored text) → the typed column, or
# None to leave it as read
ColumnTyper = Callable[[str, "pd.Series", EndpointSpec, bool], "pd.Series | None"]
# (the table, the filter, the call's value) → rows that match
Matcher = Callable[[Table, Filter, Any], "pd.Series"]


def _untyped(_name: str, _col: pd.Series, _spec: EndpointSpec, _text: bool) -> pd.Series | None:
    return None


def _generic_failure(kind: str, message: str | None) -> BaseException:
    return ERROR_BY_KIND[kind](message or kind)


@dataclass(frozen=True)
class ReplayDialect:
    specs: Mapping[str, EndpointSpec] = field(default_factory=dict)  # endpoint key → spec
    type_column: ColumnTyper = _untyped
    # A call with a non-empty `adjust` has its own table (`<endpoint>@<adjust>`, AkShare).
    adjust_tables: bool = False
    # The `fields` parameter selects and orders the answer's columns (Tushare).
    honours_fields: bool = False
    # The native exception for an injected failure kind (the vendor's real texts), so replay
    # exercises the same classification as live.
    native_failure: Callable[[str, str | None], BaseException] = _generic_failure
    # How a failure raised while answering is read (else the plugin's classifier).
    read_failure: Callable[[str, BaseException], PitlakeError] | None = None
    # Filter kinds of this vendor beyond the generic ones (they see a missing column too).
    matchers: Mapping[str, Matcher] = field(default_factory=dict)

    def endpoint_key(self, endpoint: str, params: Mapping[str, Any]) -> str:
        adjust = params.get("adjust") if self.adjust_tables else None
        return f"{endpoint}@{adjust}" if adjust else endpoint

    def spec_for(self, key: str) -> EndpointSpec | None:
        return self.specs.get(key) or self.specs.get(key.split("@")[0])


PLAIN = ReplayDialect()


def dialect_of(vendor: str) -> ReplayDialect:
    """The vendor's dialect; a vendor without a plugin (a test stub) gets the plain one."""
    from pitlake.vendors.plugins import find

    plugin = find(vendor)
    return plugin.replay if plugin is not None else PLAIN


def endpoint_key(vendor: str, endpoint: str, params: Mapping[str, Any]) -> str:
    """The file stem for a call (`<endpoint>` or `<endpoint>@<adjust>`)."""
    return dialect_of(vendor).endpoint_key(endpoint, params)


def spec_for(vendor: str, key: str) -> EndpointSpec | None:
    return dialect_of(vendor).spec_for(key)


def tags_for(vendor: str, endpoint: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The `_` tag columns a recorded answer needs so replay can filter it like the vendor."""
    dialect = dialect_of(vendor)
    spec = dialect.spec_for(dialect.endpoint_key(endpoint, params))
    if spec is None:
        return {}
    return {
        f.column: params[f.param]
        for f in spec.filters
        if f.column.startswith("_")
        and params.get(f.param) not in (None, "")
        and str(params[f.param]) not in f.unless
    }
