"""What the vendors' fetch modules share about a request: its window, its symbols, the parts.

A fetch over a range needs both of its ends (a session alone sets both); a per-symbol vendor
asks for the request's symbols, else the run's universe, each once and canonical; a fetch of
many calls concatenates the parts that have rows. The vendor's own facts (which exchanges it
carries, its name in the error) are passed in by its `fetch.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import TYPE_CHECKING

from pitlake.errors import InvalidArgumentsError, VendorNotConfiguredError
from pitlake.symbols import canonical
from pitlake.vendors.base import FetchRequest

if TYPE_CHECKING:
    import pandas as pd


def window(req: FetchRequest, vendor: str | None = None) -> tuple[date, date]:
    """The request's first and last day; a fetch over a range cannot guess a missing end.
    With `vendor`, the error says which vendor's fetch needs them."""
    first, last = req.first_day, req.last_day
    if first is None or last is None:
        if vendor is not None:
            raise InvalidArgumentsError(
                f"{req.dataset} from {vendor}: give a trade_date, or start and end"
            )
        raise InvalidArgumentsError(f"{req.dataset}: give trade_date, or both start and end")
    return first, last


def concat(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The parts that have rows, one frame (an empty one when none has)."""
    import pandas as pd

    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def canonical_symbols(
    symbols: Iterable[str], keep: Callable[[str], bool] | None = None
) -> list[str]:
    """Each symbol once, canonical, in the order given (only those `keep` accepts)."""
    out: list[str] = []
    for s in symbols:
        c = canonical(s)
        if (keep is None or keep(c)) and c not in out:
            out.append(c)
    return out


def per_symbol(
    req: FetchRequest, vendor: str, keep: Callable[[str], bool] | None = None
) -> list[str]:
    """The request's symbols, else its universe, for a vendor that answers per symbol."""
    symbols = req.symbols or req.universe
    if not symbols:
        raise VendorNotConfiguredError(
            f"{vendor} {req.dataset} are per symbol: give symbols or a universe", vendor=vendor
        )
    return canonical_symbols(symbols, keep)
