"""The vendor plugins: every package under `pitlake/vendors/` that registers a `PLUGIN`.

Adding a vendor is adding its package (docs/design.md §2); nothing here names one. Discovery
imports the packages' `__init__` modules only (light: no vendor library, no fetcher), once.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

import pitlake.vendors as _vendors_package
from pitlake.errors import InvalidArgumentsError
from pitlake.vendors.base import VendorPlugin


@cache
def _registered() -> tuple[VendorPlugin, ...]:
    found = []
    for info in pkgutil.iter_modules(_vendors_package.__path__):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{_vendors_package.__name__}.{info.name}")
        plugin = getattr(module, "PLUGIN", None)
        if isinstance(plugin, VendorPlugin):
            found.append(plugin)
    return tuple(sorted(found, key=lambda p: (p.rank, p.name)))


def plugins() -> tuple[VendorPlugin, ...]:
    """Every registered vendor, in rank order."""
    return _registered()


def known_vendors() -> tuple[str, ...]:
    return tuple(p.name for p in _registered())


def find(name: str) -> VendorPlugin | None:
    return next((p for p in _registered() if p.name == name), None)


def plugin(name: str) -> VendorPlugin:
    found = find(name)
    if found is None:
        raise InvalidArgumentsError(
            f"unknown vendor {name!r}; expected one of {', '.join(known_vendors())}"
        )
    return found
