"""Vendor adapters (tushare, akshare, baostock), the replay source, and the router that chains
them."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_plugin(package: str) -> Callable[[str], Any]:
    """A vendor package's module `__getattr__`: its `PLUGIN` (the client, classifier and
    replay dialect, with their imports) loaded from `<package>.plugin` on first use, so that
    redaction can read the package's `SECRET_ENV` without loading any of it (decision 54)."""

    def __getattr__(name: str) -> Any:
        if name == "PLUGIN":
            plugin = import_module(f"{package}.plugin").PLUGIN
            import_module(package).PLUGIN = plugin  # later look-ups skip __getattr__
            return plugin
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
