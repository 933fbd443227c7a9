"""The lake's storage: Parquet files (store) and the SQLAlchemy catalog and ledger. The reads
over it are `pitlake.read` (`pitlake.Lake`).

Imports are lazy so that `pitlake.lake.store` can be used without DuckDB or SQLAlchemy loaded.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Catalog", "LakeStore", "WriteResult"]


def __getattr__(name: str) -> Any:
    if name in ("LakeStore", "WriteResult"):
        from pitlake.lake import store

        return getattr(store, name)
    if name == "Catalog":
        from pitlake.lake.catalog import Catalog

        return Catalog
    raise AttributeError(name)
