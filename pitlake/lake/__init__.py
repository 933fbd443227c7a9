"""The lake: Parquet files (store), the SQLAlchemy catalog and ledger, and as-of reads (query).

Imports are lazy so that `pitlake.lake.store` can be used without DuckDB or SQLAlchemy loaded.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Catalog", "Lake", "LakeStore", "WriteResult"]


def __getattr__(name: str) -> Any:
    if name in ("LakeStore", "WriteResult"):
        from pitlake.lake import store

        return getattr(store, name)
    if name == "Catalog":
        from pitlake.lake.catalog import Catalog

        return Catalog
    if name == "Lake":
        from pitlake.lake.query import Lake

        return Lake
    raise AttributeError(name)
