"""The panel's SQL, one ASOF JOIN per field family, over a point-in-time connection's
`_versions` relations (every version known by the panel's last cutoff) and a `sessions`
table (session, cutoff): each row (D, symbol) takes, per family, the newest version known
at D's own cutoff.

Statements: per (symbol, statement) the moments its knowledge changed (`events`: each
distinct known_at); at each moment the latest report period known and the versions of the
periods a derivation needs, each by its own ASOF JOIN at that moment, so a cell never mixes
versions known at different moments, and a component not known then leaves the cell null;
each line item derived once per moment. A row takes the moment that held at its cutoff
(asof.py: the ASOF JOIN's rule, by binary search)."""

from __future__ import annotations

from pitlake.read.engine import ident
from pitlake.read.panel.fields import Fields, LineItem
from pitlake.read.panel.returns import FACTORS, KEYS

CONSOLIDATED = "1"  # the report_type of consolidated statements (schemas/financials.py)
AMONG_ASKED = "AND symbol IN (SELECT symbol FROM asked)"  # a scan kept to given symbols


def _newest_per(key: str) -> str:
    return f"QUALIFY row_number() OVER (PARTITION BY {key} ORDER BY ingested_at DESC) = 1"


def listed_rows() -> str:
    """(session, cutoff, symbol) of every security listed on the session, by the listing rows
    known at its cutoff (delisted ones until their delisting day: end_date inclusive)."""
    return f"""
    listing AS (
      SELECT symbol, start_date, end_date, known_at FROM securities_versions
      WHERE attribute = 'listing' {_newest_per("symbol, start_date, known_at")}),
    listing_keys AS (SELECT DISTINCT symbol, start_date FROM listing),
    listing_asked AS (
      SELECT s.session, s.cutoff, k.symbol, k.start_date
      FROM sessions s JOIN listing_keys k ON k.start_date <= s.session),
    listing_known AS (
      SELECT a.session, a.cutoff, a.symbol, l.end_date
      FROM listing_asked a ASOF JOIN listing l
        ON l.symbol = a.symbol AND l.start_date = a.start_date AND l.known_at <= a.cutoff),
    listed AS (
      SELECT DISTINCT session, cutoff, symbol FROM listing_known
      WHERE end_date IS NULL OR end_date >= session)"""


def member_rows(index_code: str, name: str = "in_index") -> str:
    """(session, cutoff, symbol) of the index's members on each session, as the relation
    `name`: its newest snapshot dated on or before the session among the rows known at the
    cutoff (`<name>_snapshot`: the session and that snapshot, for a flag's null)."""
    code = index_code.replace("'", "''")
    return f"""
    {name}_members AS (
      SELECT trade_date, symbol, known_at FROM index_members_versions
      WHERE index_code = '{code}'),
    {name}_known AS (
      SELECT DISTINCT trade_date, min(known_at) OVER (PARTITION BY trade_date) AS first_known
      FROM {name}_members),
    {name}_snapshot AS (
      SELECT s.session, s.cutoff, max(k.trade_date) AS snap FROM sessions s
      JOIN {name}_known k ON k.trade_date <= s.session AND k.first_known <= s.cutoff
      GROUP BY ALL),
    {name} AS (
      SELECT DISTINCT o.session, o.cutoff, m.symbol FROM {name}_snapshot o
      JOIN {name}_members m ON m.trade_date = o.snap AND m.known_at <= o.cutoff)"""


def _trade_dated(
    name: str, relation: str, columns: tuple[str, ...], among: str = ""
) -> tuple[str, str, str]:
    cols = ", ".join(ident(c) for c in columns)
    cte = f"""
    {name} AS (
      SELECT symbol, trade_date, known_at, {cols} FROM {relation}
      WHERE trade_date BETWEEN $lo AND $hi {among} {_newest_per("symbol, trade_date, known_at")})"""
    join = f"""
    ASOF LEFT JOIN {name} ON {name}.symbol = r.symbol AND {name}.trade_date = r.session
      AND {name}.known_at <= r.cutoff"""
    select = ", ".join(f"{name}.{ident(c)} AS {ident(c)}" for c in columns)
    return cte, join, select


# The components each derivation reads: c0 the latest period, c1 its previous quarter, c2
# the prior year's annual, c3 the same period a year before.
_NEEDS = {"": ("c0",), "_q": ("c0", "c1"), "_ttm": ("c0", "c2", "c3"), "_yoy": ("c0", "c3")}
CELL = "cell_"  # a line item's column in its statement's state: CELL + the field's name


def _derived(li: LineItem) -> str:
    """The line item's value from the components of one state (each as known at its `t`)."""
    c = lambda k: f"c{k}.{ident(li.item)}"  # noqa: E731
    if li.derivation == "":
        expr = c(0)
    elif li.derivation == "_q":
        expr = f"CASE WHEN month(e.p) = 3 THEN {c(0)} ELSE {c(0)} - {c(1)} END"
    elif li.derivation == "_ttm":
        expr = f"CASE WHEN month(e.p) = 12 THEN {c(0)} ELSE {c(0)} + {c(2)} - {c(3)} END"
    else:  # _yoy: growth on the same period a year before, over its magnitude
        expr = f"({c(0)} - {c(3)}) / nullif(abs({c(3)}), 0)"
    return f"{expr} AS {ident(CELL + li.name)}"


def _statement(statement: str, items: list[LineItem], symbols: list[str] | None) -> str:
    """The statement's state at each moment its knowledge changed, per symbol (`t`): the
    latest period `p`, the known_at of p's version (c0_known_at) and each line item's value
    from p, its previous quarter (pq), the prior year's annual (pa) and the same period a
    year before (py), each as known at that moment. A panel row takes the state that held
    at its cutoff (asof.py)."""
    s = statement
    cols = ", ".join(ident(i) for i in dict.fromkeys(li.item for li in items))
    needed = {c for li in items for c in _NEEDS[li.derivation]}
    every = {"c0": "e.p", "c1": "e.pq", "c2": "e.pa", "c3": "e.py"}
    comps = {c: p for c, p in every.items() if c in needed}  # join only what is read
    picks = ", ".join(["c0.known_at AS c0_known_at", *(_derived(li) for li in items)])
    joins = "".join(
        f"""
      ASOF LEFT JOIN v_{s} {c} ON {c}.symbol = e.symbol AND {c}.report_period = {p}
        AND {c}.known_at <= e.t"""
        for c, p in comps.items()
    )
    among = AMONG_ASKED if symbols is not None else ""
    return f"""WITH
    v_{s} AS (
      SELECT symbol, report_period, known_at, {cols} FROM financials_versions
      WHERE statement = '{s}' AND report_type = '{CONSOLIDATED}' {among}
      {_newest_per("symbol, report_period, known_at")}),
    m_{s} AS (SELECT symbol, known_at AS t, max(report_period) AS p FROM v_{s} GROUP BY ALL),
    e_{s} AS (
      SELECT symbol, t, p, last_day(p - INTERVAL 3 MONTH) AS pq,
        make_date(year(p) - 1, 12, 31) AS pa, last_day(p - INTERVAL 12 MONTH) AS py
      FROM (SELECT symbol, t, max(p) OVER (PARTITION BY symbol ORDER BY t
              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS p FROM m_{s}))
    SELECT e.symbol, e.t, e.p, {picks} FROM e_{s} e {joins}"""


def statement_states(fields: Fields, symbols: list[str] | None) -> dict[str, str]:
    """Per statement asked, the query of its states (`_statement`), run once per panel
    before its chunks (only the given `symbols`' rows when the universe is a list)."""
    return {
        statement: _statement(
            statement, [li for li in fields.items if li.statement == statement], symbols
        )
        for statement in fields.statements()
    }


def _flag(name: str, code: str) -> tuple[str, str, str]:
    """Membership of `code` on the row's session as known at its cutoff; null when no
    snapshot of it was public by then (`Lake.index_members` has no list to say)."""
    rel = f"f_{name}"
    join = f"""
    LEFT JOIN {rel} ON {rel}.session = r.session AND {rel}.symbol = r.symbol
    LEFT JOIN {rel}_snapshot ON {rel}_snapshot.session = r.session"""
    select = (
        f"CASE WHEN {rel}_snapshot.snap IS NULL THEN NULL "
        f"ELSE {rel}.symbol IS NOT NULL END AS {ident(name)}"
    )
    return member_rows(code, rel), join, select


def return_factors(among: str) -> str:
    """The factor versions a chunk's ret_1d reads (returns.FACTORS, with each version's
    `until`: the next version's known_at): of one vendor per symbol (its latest factor's,
    as `scans.factor_series` picks), those dated in the chunk (from its first session's
    previous one) and each symbol's last key before (every version); the vendor and that
    key from one aggregate. `among` limits them to
    the asked symbols; $plo/$hi as in panel_sql."""
    until = "lead(known_at) OVER (PARTITION BY symbol, trade_date ORDER BY known_at) AS until"
    return f"""WITH
    f_vendor AS (
      SELECT symbol, arg_max(source, trade_date) AS source,
        max(trade_date) FILTER (WHERE trade_date < $plo) AS before
      FROM adj_factors_versions WHERE trade_date <= $hi {among} GROUP BY symbol)
    SELECT *, {until} FROM (
      SELECT v.symbol, v.trade_date, v.known_at, v.adj_factor FROM adj_factors_versions v
      JOIN f_vendor w ON w.symbol = v.symbol AND w.source = v.source
      WHERE v.trade_date BETWEEN $plo AND $hi OR v.trade_date = w.before
      QUALIFY row_number() OVER (
        PARTITION BY v.symbol, v.trade_date, v.known_at ORDER BY v.ingested_at DESC) = 1)"""


def _returns(among: str) -> tuple[str, str, str]:
    """ret_1d: close × factor over the previous session's, minus one, every value as known
    at the row's cutoff. A session's factor is the latest dated on or before it among the
    factors known then (change points or every session; `return_factors`), not served where
    the factors do not cover the session (`adjust.adjusted`: no factor dated on or after
    it, no successful fetch of it). The latest dated key is found as the lesser of the
    latest dated on or before the session and the latest known by the cutoff (returns.py's
    `ret_keys`): factors become public in date order (each at its ex-date's open).
    A bar's or a factor's version known at a cutoff is the one whose interval [known_at,
    the next version's known_at) holds it: a hash join (an ASOF JOIN keyed on (symbol,
    date) sorts a partition per key: 25% more CPU, measured); the rows are joined directly,
    not through a table of returns joined back. CTEs after `panel_rows`; `among` limits
    them to the asked symbols."""
    newest = _newest_per("symbol, trade_date, known_at")
    until = "lead(known_at) OVER (PARTITION BY symbol, trade_date ORDER BY known_at) AS until"
    ctes = f"""
    rq AS (
      SELECT *, {until} FROM (
        SELECT symbol, trade_date, known_at, close FROM quotes_versions
        WHERE trade_date BETWEEN $plo AND $hi {among} {newest}))"""

    def version(alias: str, relation: str, day: str) -> str:
        return f"""
    LEFT JOIN {relation} {alias} ON {alias}.symbol = r.symbol AND {alias}.trade_date = {day}
      AND {alias}.known_at <= r.cutoff AND ({alias}.until IS NULL OR {alias}.until > r.cutoff)"""

    join = (
        f"""
    LEFT JOIN {KEYS} rk ON rk.symbol = r.symbol AND rk.session = r.session"""
        + version("rq0", "rq", "r.session")
        + version("rq1", "rq", "r.prev")
        + version("fv0", FACTORS, "rk.t0")
        + version("fv1", FACTORS, "rk.t1")
        + """
    LEFT JOIN factor_fetched ff_all ON ff_all.d = r.session AND ff_all.symbol = '*'
    LEFT JOIN factor_fetched ff_sym ON ff_sym.d = r.session AND ff_sym.symbol = r.symbol"""
    )
    select = """CASE WHEN rk.kt >= r.session OR ff_all.d IS NOT NULL OR ff_sym.d IS NOT NULL
      THEN (rq0.close * fv0.adj_factor) / nullif(rq1.close * fv1.adj_factor, 0) - 1
    END AS ret_1d"""
    return ctes, join, select


def panel_sql(
    fields: Fields,
    rows_ctes: str,
    rows: str,
    index_flags: dict[str, str],
    given: bool = False,
) -> str:
    """One chunk's statement: `rows_ctes` define the relation `rows` of (session, cutoff,
    symbol) to answer; $lo/$hi bound the chunk's sessions ($plo: the session before $lo);
    per chunk the tables `sessions` (session, cutoff, prev), `panel_states`, `panel_limits`,
    and `factor_fetched`, `ret_fv` and `ret_keys` (returns.py), when those fields are asked. `index_flags`: flag name → index
    code. `given`: the universe is the table `asked` of symbols, which every scan keeps to.
    Line items are not in it: each row takes its statement's state after (asof.py)."""
    among = AMONG_ASKED if given else ""
    ctes: list[str] = [rows_ctes]
    after_rows: list[str] = []
    joins: list[str] = []
    selects: list[str] = ["r.session AS trade_date", "r.symbol AS symbol"]
    by_name: dict[str, str] = {}
    if fields.bars:
        cte, join, _ = _trade_dated("q", "quotes_versions", fields.bars, among)
        ctes.append(cte)
        joins.append(join)
        by_name.update({n: f"q.{ident(n)} AS {ident(n)}" for n in fields.bars})
    if fields.valuation:
        cte, join, _ = _trade_dated("val", "valuation_versions", fields.valuation, among)
        ctes.append(cte)
        joins.append(join)
        by_name.update({n: f"val.{ident(n)} AS {ident(n)}" for n in fields.valuation})
    for name in fields.flags:
        cte, join, select = _flag(name, index_flags[name])
        ctes.append(cte)
        joins.append(join)
        by_name[name] = select
    if fields.returns:
        cte, join, select = _returns(among)
        after_rows.append(cte)
        joins.append(join)
        by_name["ret_1d"] = select
    if fields.states:
        joins.append(
            """
    LEFT JOIN panel_states st ON st.session = r.session AND st.symbol = r.symbol"""
        )
        by_name.update({n: f"st.{ident(n)} AS {ident(n)}" for n in fields.states})
    if fields.limit:
        joins.append(
            """
    LEFT JOIN panel_limits lim ON lim.session = r.session AND lim.symbol = r.symbol"""
        )
        by_name["limit_state"] = "lim.limit_state AS limit_state"
    selects += [by_name[n] for n in fields.order if n in by_name]  # line items: asof.py
    rows_with_prev = (
        f"SELECT x.*, s.prev FROM {rows} x JOIN sessions s ON s.session = x.session"
        if fields.returns
        else f"SELECT * FROM {rows}"
    )
    return (
        "WITH "
        + ",".join([*ctes, f"\n    panel_rows AS ({rows_with_prev})", *after_rows])
        + f"\nSELECT {', '.join(selects)} FROM panel_rows r"
        + "".join(joins)
        + "\nORDER BY r.session, r.symbol"
    )
