"""The vendor plugins: every package under `pitlake/vendors/` that registers a `PLUGIN`.

Adding a vendor is adding its package (docs/design.md §2); nothing here names one. Discovery
imports the packages' `__init__` modules only, once: they hold the names of their secret
variables (`SECRET_ENV`, which redaction reads through `secret_env_vars` on every answer) and
load their `PLUGIN` (client, classifier, replay dialect) on first use (decision 54).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING

import pitlake.vendors as _vendors_package
from pitlake.errors import InvalidArgumentsError

if TYPE_CHECKING:
    from pitlake.vendors.base import VendorPlugin


@cache
def _packages() -> tuple[ModuleType, ...]:
    """Every vendor package's own module, by name (no plugin loaded)."""
    return tuple(
        importlib.import_module(f"{_vendors_package.__name__}.{info.name}")
        for info in sorted(pkgutil.iter_modules(_vendors_package.__path__), key=lambda i: i.name)
        if info.ispkg
    )


@cache
def _registered() -> tuple[VendorPlugin, ...]:
    from pitlake.vendors.base import VendorPlugin

    found = [getattr(module, "PLUGIN", None) for module in _packages()]
    plugins = [p for p in found if isinstance(p, VendorPlugin)]
    return tuple(sorted(plugins, key=lambda p: (p.rank, p.name)))


def plugins() -> tuple[VendorPlugin, ...]:
    """Every registered vendor, in rank order."""
    return _registered()


def secret_env_vars() -> tuple[str, ...]:
    """Every vendor's secret variables, read from its package's `SECRET_ENV` without loading
    its plugin (each plugin's `secret_env` is that tuple: tests/vendors/test_plugins.py)."""
    return tuple(name for module in _packages() for name in getattr(module, "SECRET_ENV", ()))


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
