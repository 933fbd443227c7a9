"""One module per dataset; `SCHEMAS` is the registry, and every list of datasets is derived
from the specs here, never typed again."""

from pitlake.schemas import (
    adj_factors,
    announcements,
    calendar,
    disclosure_schedule,
    dragon_tiger,
    financials,
    index_members,
    index_quotes,
    limit_pools,
    limit_prices,
    new_shares,
    news,
    quotes,
    securities,
    valuation,
)
from pitlake.schemas.base import BITEMPORAL_COLUMNS, BITEMPORAL_FIELDS, Dataset, Kind, Scope

SCHEMAS: dict[str, Dataset] = {
    m.SCHEMA.name: m.SCHEMA
    for m in (
        quotes,
        adj_factors,
        valuation,
        index_quotes,
        financials,
        news,
        dragon_tiger,
        calendar,
        announcements,
        disclosure_schedule,
        securities,
        index_members,
        limit_prices,
        limit_pools,
        new_shares,
    )
}
DATASETS: tuple[str, ...] = tuple(SCHEMAS)


def of_kind(*kinds: Kind) -> tuple[str, ...]:
    """Datasets of these kinds, in registry order."""
    return tuple(name for name, spec in SCHEMAS.items() if spec.kind in kinds)


# Datasets keyed by trade date: they must all carry the run's effective trade date.
TRADE_DATE_DATASETS: tuple[str, ...] = of_kind(Kind.TRADE_DATED)
# What a nightly run ingests, in reporting order (the trade-dated stage first): the run
# summary, the API's freshness status and the dashboard all list these.
NIGHTLY_DATASETS: tuple[str, ...] = (
    *(d for d in TRADE_DATE_DATASETS if SCHEMAS[d].nightly),
    *(d for d, s in SCHEMAS.items() if s.nightly and s.kind is not Kind.TRADE_DATED),
)
# The second stage of a run: nightly datasets that are not trade-dated (statements, news) run
# after the trade-dated ones, whose universe they use.
LATER_STAGE: tuple[str, ...] = tuple(
    d for d in NIGHTLY_DATASETS if SCHEMAS[d].kind is not Kind.TRADE_DATED
)
# State datasets (the security master): the gate judges other datasets' rows with their
# states (ST flags, new listings), so runs ingest them first.
STATE_DATASETS: tuple[str, ...] = of_kind(Kind.STATE)
# The dataset holding listings' issue prices (the base of an approval-regime first day's
# limits): the gate and the derived market read it (pitlake.read.issue_prices).
(ISSUE_PRICES,) = (d for d, s in SCHEMAS.items() if s.issue_price_column)
# Datasets the gate reads facts from (the master's states, the issue prices): runs ingest
# them first, before the bars they judge.
GATE_FACT_DATASETS: tuple[str, ...] = (*STATE_DATASETS, ISSUE_PRICES)
# What a backfill can write: the nightly datasets, then the backfill-only ones.
BACKFILL_DATASETS: tuple[str, ...] = (
    *NIGHTLY_DATASETS,
    *(d for d, s in SCHEMAS.items() if not s.nightly),
)
# Datasets with a query surface of their own (the CLI's DATASET, the snapshot's `datasets`).
QUERY_DATASETS: tuple[str, ...] = tuple(d for d, s in SCHEMAS.items() if s.queryable)
DEFAULT_CHAINS: dict[str, tuple[str, ...]] = {d: s.default_chain for d, s in SCHEMAS.items()}
# The bars dataset (quotes): the run's reference bars for the gate and the limit checks.
# (The symbols per-symbol fetches ask about come from SECURITY_MASTER, below.)
(UNIVERSE_SOURCE,) = (d for d, s in SCHEMAS.items() if s.defines_universe)
# The security master (the state dataset with a view): the symbols per-symbol fetches ask
# about come from its stored rows, never from another dataset's (decision 38).
(SECURITY_MASTER,) = (d for d, s in SCHEMAS.items() if s.kind is Kind.STATE and s.state)
# Datasets whose series per symbol is kept from one vendor (the router holds a symbol to it).
ONE_VENDOR_SERIES: tuple[str, ...] = tuple(d for d, s in SCHEMAS.items() if s.one_vendor_per_symbol)


def run_symbols(symbols: object) -> tuple[str, ...]:
    """A run's symbols (a list or a comma-separated string), each an A-share code (made
    canonical) or an instrument some dataset holds (an index code, as written there);
    de-duplicated in order. Anything else is an InvalidArgumentsError naming it."""
    from pitlake.errors import InvalidArgumentsError
    from pitlake.symbols import canonical, instrument_members

    instruments = tuple(dict.fromkeys(i for s in SCHEMAS.values() for i in s.instruments))
    raws = symbols.split(",") if isinstance(symbols, str) else list(symbols or ())
    out: list[str] = []
    for raw in raws:
        if isinstance(raw, str) and not raw.strip():
            continue
        try:
            out.append(canonical(raw))
        except InvalidArgumentsError as stock_error:
            try:
                out.extend(instrument_members([raw], instruments))
            except InvalidArgumentsError:
                raise InvalidArgumentsError(
                    f"{stock_error}; nor is it an index code ({', '.join(instruments)})"
                ) from None
    return tuple(dict.fromkeys(out))


def get(name: str) -> Dataset:
    from pitlake.errors import InvalidArgumentsError

    try:
        return SCHEMAS[name]
    except KeyError:
        raise InvalidArgumentsError(
            f"unknown dataset {name!r}; expected one of {', '.join(SCHEMAS)}"
        ) from None


__all__ = [
    "BACKFILL_DATASETS",
    "BITEMPORAL_COLUMNS",
    "BITEMPORAL_FIELDS",
    "DATASETS",
    "DEFAULT_CHAINS",
    "GATE_FACT_DATASETS",
    "ISSUE_PRICES",
    "LATER_STAGE",
    "NIGHTLY_DATASETS",
    "ONE_VENDOR_SERIES",
    "QUERY_DATASETS",
    "SCHEMAS",
    "SECURITY_MASTER",
    "STATE_DATASETS",
    "TRADE_DATE_DATASETS",
    "UNIVERSE_SOURCE",
    "Dataset",
    "Kind",
    "Scope",
    "get",
    "of_kind",
    "run_symbols",
]
