"""Statement files kept in memory per file identity, for latest-report reads of a few symbols.

A statements year file is one row group sorted by key, so 50 symbols spread over the market
(a snapshot's financials section) touch every row of every file: the latest-report read
scanned the key columns of all 20 year files for each report's newest period (~40 ms warm),
then the newest periods' files whole for those periods' versions (~25 ms). The stored rows
are a fact of the immutable files, so they are kept per (path, size, mtime, inode), like
`session_slices`: a rewritten file has another identity and is read again. Two kept forms,
each a byte-bounded LRU:

- a file's *index*: every stored version's key, known_at and ingested_at as numpy arrays,
  each symbol's versions together, with the symbol's range and the version's row number
  (~1.4 MB for a year of 5,000 symbols' statements; every file of the dataset is indexed);
- a file's *rows*: every column in file order (~19 MB a year), read only for the files
  holding an answer's reports (the newest year or two).

A read takes its symbols' ranges of every index, applies the cutoff (known_at, and
ingested_at when asked) per request, keeps each report's newest visible period and that
period's newest visible version (newest known_at, ties to the later ingestion), and takes
those rows from the kept files. Answers are never cached. A read that cannot use the kept
forms (a remote file, a NULL in a key, a file rewritten between the two look-ups, files
whose schemas differ) answers None, and the caller scans as before."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pitlake.read.cutoff import Ask
from pitlake.read.engine import Params, ident
from pitlake.read.kept import BoundedLRU, FileIdentity, file_identity
from pitlake.schemas import Dataset

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

# Bounds per Lake: the indexes of a 5,000-symbol, 20-year statements lake take ~28 MB; the
# kept rows hold about six year files.
MAX_INDEX_BYTES = 64 * 1024 * 1024
MAX_ROWS_BYTES = 128 * 1024 * 1024
PERIOD = "report_period"
VERSION = ("known_at", "ingested_at")
ROW = "__row"  # a version's row number in its file
EPOCH = date(1970, 1, 1).toordinal()  # date32's day 0


@dataclass(frozen=True)
class FileIndex:
    """One file's versions, each symbol's together: `symbols` (sorted) start at `starts` and
    end before `stops`; `codes[i]` indexes `values[i]`, the distinct values of the i-th key
    column after the symbol but the period; `period` in days, the instants as integers of
    their types; `rows` each version's row number in the file (None: the index's order)."""

    symbols: np.ndarray
    starts: np.ndarray
    stops: np.ndarray
    codes: tuple[np.ndarray, ...]
    values: tuple[list[Any], ...]
    period: np.ndarray
    known: np.ndarray
    ingested: np.ndarray
    instant_types: tuple[pa.DataType, pa.DataType]
    rows: np.ndarray | None

    @property
    def nbytes(self) -> int:
        arrays = [self.symbols, self.starts, self.stops, *self.codes, self.period, self.known]
        arrays += [self.ingested, *([] if self.rows is None else [self.rows])]
        return int(sum(a.nbytes for a in arrays))

    def picked(self, asked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The positions of the `asked` symbols' versions (sorted, distinct symbols), and
        each one's symbol as its place in `asked`."""
        at = np.searchsorted(self.symbols, asked)
        found = at < len(self.symbols)
        found[found] = self.symbols[at[found]] == asked[found]
        starts, stops = self.starts[at[found]], self.stops[at[found]]
        lengths = stops - starts
        firsts = np.cumsum(lengths) - lengths
        positions = np.repeat(starts - firsts, lengths) + np.arange(int(lengths.sum()))
        return positions, np.repeat(np.flatnonzero(found), lengths)


class KeptReports:
    """The kept indexes and rows of report-period files (see the module doc)."""

    def __init__(
        self, max_index_bytes: int = MAX_INDEX_BYTES, max_rows_bytes: int = MAX_ROWS_BYTES
    ) -> None:
        self.indexes: BoundedLRU[FileIndex] = BoundedLRU(max_bytes=max_index_bytes)
        self.rows: BoundedLRU[pa.Table] = BoundedLRU(max_bytes=max_rows_bytes)

    def index(
        self, schema: Dataset, files: Sequence[Any], scan: Callable[[str], pa.Table]
    ) -> list[tuple[FileIdentity, FileIndex]] | None:
        """Each file's identity and index, a missing one from `scan(path)` (the rows of
        `index_sql`). None when a file has no local identity or cannot be indexed."""
        out = []
        for path in files:
            fid = file_identity(path)
            if fid is None:
                return None
            key = (schema.name, fid)
            kept = self.indexes.get(key)
            if kept is None:
                kept = _file_index(schema, scan(str(path)))
                if kept is None:
                    return None
                if file_identity(path) == fid:  # not rewritten while scanned
                    self.indexes.keep(key, kept, kept.nbytes)
            out.append((fid, kept))
        return out

    def take(
        self,
        schema: Dataset,
        path: Any,
        fid: FileIdentity,
        numbers: np.ndarray,
        read: Callable[[str, np.ndarray | None], pa.Table | None],
        *,
        keep: bool,
    ) -> pa.Table | None:
        """The file's stored rows at `numbers` if it still has the identity `fid` (the one
        its index was read at), else None: from its kept rows, else (`keep`) from the file
        read whole (`read(path, None)`) and kept, else from those rows alone, read and not
        kept (`read(path, numbers)`), so that a read touching many old year files does not
        cycle them through the bound."""
        key = (schema.name, fid)
        kept = self.rows.get(key)
        if kept is None:
            if file_identity(path) != fid:
                return None
            table = read(str(path), None if keep else numbers)
            if table is None or file_identity(path) != fid:
                return None  # rewritten while read: its row numbers are not the index's
            if not keep:
                return table
            self.rows.keep(key, table, table.nbytes)
            kept = table
        return kept.take(pa.array(numbers, type=pa.int64()))  # type: ignore[no-any-return]

    def kept(self, schema: Dataset, fid: FileIdentity) -> bool:
        return self.rows.get((schema.name, fid)) is not None


def shown(
    known: np.ndarray,
    ingested: np.ndarray,
    instant_types: tuple[pa.DataType, pa.DataType],
    ask: Ask,
) -> np.ndarray:
    """`engine.visible`'s rule over kept instants (integers of `instant_types`, never NULL):
    known_at at or before the cutoff, and ingested_at at or before `as_ingested` if asked."""

    def value(which: int, at: datetime) -> int:
        return int(pa.scalar(at, type=instant_types[which]).value)

    keep = known <= value(0, ask.cutoff)
    if ask.as_ingested is not None:
        keep &= ingested <= value(1, ask.as_ingested)
    return keep


def index_sql(schema: Dataset, file: str) -> str:
    """Every version's key, instants and row number in the file bound as `file`."""
    cols = ", ".join(ident(c) for c in (*schema.key, *VERSION))
    return (
        f"SELECT {cols}, CAST(file_row_number AS BIGINT) AS {ROW} FROM read_parquet({file}, "
        "union_by_name = true, hive_partitioning = false, file_row_number = true)"
    )


def rows_sql(file: str, numbers: str | None = None) -> str:
    """The rows of the file bound as `file` (those numbered in the bound list `numbers`;
    None: every row), with their row numbers (checked, then dropped)."""
    sql = (
        f"SELECT * EXCLUDE (file_row_number), CAST(file_row_number AS BIGINT) AS {ROW} "
        f"FROM read_parquet({file}, union_by_name = true, hive_partitioning = false, "
        "file_row_number = true)"
    )
    return sql if numbers is None else f"{sql} WHERE file_row_number IN (SELECT unnest({numbers}))"


def _others(schema: Dataset) -> list[str]:
    """The key columns after the symbol but the period: with the symbol, one report."""
    return [c for c in schema.key[1:] if c != PERIOD]


def _file_index(schema: Dataset, part: pa.Table) -> FileIndex | None:
    """The index of one file's scanned versions (None: a NULL in them, or a period or
    instant of another type than date32 and microsecond timestamps)."""
    if any(part.column(c).null_count for c in part.column_names):
        return None
    types = [part.schema.field(c).type for c in (PERIOD, *VERSION)]
    if types[0] != pa.date32() or any(getattr(t, "unit", None) != "us" for t in types[1:]):
        return None
    symbol = part.column("symbol").combine_chunks()
    runs = pc.run_end_encode(symbol) if len(symbol) else None
    if runs is not None and len(runs.values) != len(pc.unique(runs.values)):
        order = pc.sort_indices(symbol)  # a symbol's rows apart: put them together
        part, symbol = part.take(order), symbol.take(order)
        runs = pc.run_end_encode(symbol)
    numbers = part.column(ROW).to_numpy()
    rows = None if np.array_equal(numbers, np.arange(len(numbers))) else numbers
    if runs is None:
        names, stops = np.asarray([], dtype=str), np.asarray([], dtype=np.int64)
    else:
        names = np.asarray(runs.values.to_pylist(), dtype=str)
        stops = runs.run_ends.to_numpy().astype(np.int64)
    starts = np.concatenate([[0], stops[:-1]]).astype(np.int64)
    by_name = np.argsort(names, kind="stable")
    codes, values = [], []
    for c in _others(schema):
        encoded = part.column(c).combine_chunks().dictionary_encode()
        values.append(encoded.dictionary.to_pylist())
        small = np.min_scalar_type(max(len(values[-1]) - 1, 0))
        codes.append(encoded.indices.to_numpy().astype(small))
    return FileIndex(
        symbols=names[by_name],
        starts=starts[by_name],
        stops=stops[by_name],
        codes=tuple(codes),
        values=tuple(values),
        period=part.column(PERIOD).cast(pa.int32()).to_numpy(),
        known=part.column(VERSION[0]).cast(pa.int64()).to_numpy(),
        ingested=part.column(VERSION[1]).cast(pa.int64()).to_numpy(),
        instant_types=(types[1], types[2]),
        rows=rows,
    )


def indexes(
    lake: Lake, schema: Dataset, files: list[Any], statement: str | None
) -> list[tuple[FileIdentity, FileIndex]] | None:
    """Each file's kept index, for a read the indexes can answer: a key that starts with the
    symbol and holds the period (and the statement, when one is asked for); None: scan."""
    if schema.key[0] != "symbol" or PERIOD not in schema.key or not files:
        return None
    if statement is not None and "statement" not in schema.key:
        return None

    def scan(path: str) -> pa.Table:
        p = Params()
        return lake.reader.table(index_sql(schema, p.add([path])), p)

    return lake.reports.index(schema, files, scan)


def latest_reports(
    lake: Lake,
    schema: Dataset,
    files: list[Any],
    symbols: list[str],
    ask: Ask,
    statement: str | None,
    periods: list[date] | None,
) -> pa.Table | None:
    """Per (symbol, statement, report_type), the newest visible version of its greatest
    report_period visible at the cutoff, sorted by key (the rows, columns and types of the
    scans' answer); None: not answerable from the kept files (the caller scans)."""
    others = _others(schema)
    indexed = indexes(lake, schema, files, statement)
    if indexed is None:
        return None
    asked = np.asarray(sorted(set(symbols)), dtype=str)
    wanted = None if periods is None else np.asarray([d.toordinal() for d in periods]) - EPOCH
    global_codes: list[dict[Any, int]] = [{} for _ in others]
    parts: list[dict[str, np.ndarray]] = []
    for n, (_, idx) in enumerate(indexed):
        at, sym = idx.picked(asked)
        keep = shown(idx.known[at], idx.ingested[at], idx.instant_types, ask)
        if statement is not None:
            named = idx.values[others.index("statement")]
            code = named.index(statement) if statement in named else -1
            keep &= idx.codes[others.index("statement")][at] == code
        if wanted is not None:
            keep &= np.isin(idx.period[at], wanted)
        at, sym = at[keep], sym[keep]
        part = {"sym": sym, "period": idx.period[at], "known": idx.known[at]}
        part |= {"ingested": idx.ingested[at], "file": np.full(len(at), n)}
        part["row"] = at if idx.rows is None else idx.rows[at]
        for i, values in enumerate(idx.values):  # the file's codes as the read's
            lut = np.asarray([global_codes[i].setdefault(v, len(global_codes[i])) for v in values])
            part[f"code{i}"] = lut[idx.codes[i][at]] if len(values) else idx.codes[i][at]
        parts.append(part)
    rows = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    if len(rows["sym"]) == 0:
        return schema.arrow_schema.empty_table()
    # a report's versions by period then version: its last is the newest period's newest
    report = [rows["sym"], *(rows[f"code{i}"] for i in range(len(others)))]
    order = np.lexsort([rows["ingested"], rows["known"], rows["period"], *report[::-1]])
    ordered = [r[order] for r in report]
    same = np.ones(len(order) - 1, dtype=bool)
    for r in ordered:
        same &= r[:-1] == r[1:]
    last = order[np.append(~same, True)]
    return _take_rows(lake, schema, files, indexed, rows["file"][last], rows["row"][last])


def _take_rows(
    lake: Lake,
    schema: Dataset,
    files: list[Any],
    indexed: list[tuple[FileIdentity, FileIndex]],
    where: np.ndarray,
    numbers: np.ndarray,
) -> pa.Table | None:
    """The stored rows at `numbers` of the files at `where`, sorted by key."""

    def read(path: str, wanted: np.ndarray | None) -> pa.Table | None:
        p = Params()
        rows = None if wanted is None else p.add(wanted.tolist())
        table = lake.reader.table(rows_sql(p.add([path]), rows), p)
        stored = table.column(ROW).to_numpy()
        if wanted is not None:  # just these rows, in any order: the answer is sorted
            return table.drop_columns([ROW]) if np.array_equal(np.sort(stored), wanted) else None
        if not np.array_equal(stored, np.arange(len(stored))):
            table = table.take(pa.array(np.argsort(stored, kind="stable")))
        return table.drop_columns([ROW])

    needed = np.unique(where)
    missing = [n for n in needed if not lake.reports.kept(schema, indexed[n][0])]
    # one file read whole and kept per read: the one holding most of the answer
    whole = max(missing, key=lambda n: int((where == n).sum())) if missing else None
    out = []
    for n in needed:
        wanted = np.sort(numbers[where == n])
        found = lake.reports.take(schema, files[n], indexed[n][0], wanted, read, keep=n == whole)
        if found is None:
            return None
        out.append(found)
    if len({t.schema for t in out}) > 1:
        return None  # the scans would unify the files' schemas by name: leave it to them
    table = pa.concat_tables(out) if len(out) > 1 else out[0]
    return table.sort_by([(c, "ascending") for c in schema.key])
