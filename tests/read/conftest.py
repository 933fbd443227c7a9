"""The read tests build their lakes with the storage tests' helpers and fixtures (a store, a
SQLite catalog, a Lake over them): the same lake layout on both sides."""

from tests.lake.conftest import (  # noqa: F401 (fixtures)
    _no_catalog_env,
    lake,
    lake_root,
    sqlite_catalog,
    store,
)
