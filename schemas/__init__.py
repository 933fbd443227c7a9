"""One module per dataset; `SCHEMAS` is the registry everything else looks up."""

from pitlake.schemas import adj_factors, calendar, dragon_tiger, financials, news, quotes, valuation
from pitlake.schemas.base import BITEMPORAL_COLUMNS, BITEMPORAL_FIELDS, DatasetSchema

SCHEMAS: dict[str, DatasetSchema] = {
    m.SCHEMA.name: m.SCHEMA
    for m in (quotes, adj_factors, valuation, financials, news, dragon_tiger, calendar)
}
DATASETS: tuple[str, ...] = tuple(SCHEMAS)
# Datasets keyed by trade date: they must all carry the run's effective trade date.
TRADE_DATE_DATASETS: tuple[str, ...] = ("quotes", "adj_factors", "valuation", "dragon_tiger")
# What a nightly run ingests, in reporting order: the run summary, the API's freshness status
# and the dashboard all list these (the calendar is written by backfills only).
NIGHTLY_DATASETS: tuple[str, ...] = (*TRADE_DATE_DATASETS, "financials", "news")


def get(name: str) -> DatasetSchema:
    from pitlake.errors import InvalidArgumentsError

    try:
        return SCHEMAS[name]
    except KeyError:
        raise InvalidArgumentsError(
            f"unknown dataset {name!r}; expected one of {', '.join(SCHEMAS)}"
        ) from None


__all__ = [
    "BITEMPORAL_COLUMNS",
    "BITEMPORAL_FIELDS",
    "DATASETS",
    "NIGHTLY_DATASETS",
    "SCHEMAS",
    "TRADE_DATE_DATASETS",
    "DatasetSchema",
    "get",
]
