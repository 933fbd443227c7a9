"""Financial statements, one row per version of (symbol, statement, report_period, report_type).

Canonical line items (snake_case, 元 unless noted) are defined here; each vendor package maps
its fields to them (pitlake/vendors/<vendor>/fields.py). Vendor fields outside the canonical set
are kept in `extra` (a JSON object).
`report_type` uses Tushare's codes ('1' = consolidated, '2' = single quarter, …); East Money
`*_by_report_em` statements are consolidated cumulative, so they are '1'.
"""

from typing import Annotated, Literal

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_year
from pitlake.schemas.query import ReportPeriodQuery, query_model
from pydantic import Field

from pitlake import units
from pitlake.pit import END_OF_DAY, rule_financials

STATEMENTS = ("income", "balance", "cashflow")

# canonical line item → its statement (in CNY but PER_SHARE_ITEMS: `units` below). Which
# vendor field carries each is the vendor package's business (pitlake/vendors/<vendor>/fields.py).
LINE_ITEMS: dict[str, str] = {
    "total_revenue": "income",
    "revenue": "income",
    "operating_cost": "income",
    "operating_profit": "income",
    "total_profit": "income",
    "income_tax": "income",
    "net_profit": "income",
    "net_profit_parent": "income",
    "eps_basic": "income",  # per share (PER_SHARE_ITEMS)
    "eps_diluted": "income",
    "total_assets": "balance",
    "total_liabilities": "balance",
    "equity_parent": "balance",
    "total_equity": "balance",
    "cash": "balance",
    "current_assets": "balance",
    "current_liabilities": "balance",
    "net_cash_operating": "cashflow",
    "net_cash_investing": "cashflow",
    "net_cash_financing": "cashflow",
    "net_cash_change": "cashflow",
}


# The line items that are per share (CNY/share); every other one is in CNY.
PER_SHARE_ITEMS = ("eps_basic", "eps_diluted")


def items_for(statement: str) -> list[str]:
    return [k for k, st in LINE_ITEMS.items() if st == statement]


SCHEMA = Dataset(
    name="financials",
    fields=(
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("statement", pa.string(), nullable=False),
        pa.field("report_period", pa.date32(), nullable=False),
        pa.field("report_type", pa.string(), nullable=False),
        pa.field("ann_date", pa.date32()),
        pa.field("revision_date", pa.date32()),
        pa.field("update_flag", pa.string()),
        pa.field("undated_revision", pa.bool_()),
        *(pa.field(name, pa.float64()) for name in LINE_ITEMS),
        pa.field("extra", pa.string()),
    ),
    column_docs={
        "statement": "income | balance | cashflow",
        "report_period": "quarter end",
        "report_type": "Tushare codes",
        "ann_date": "first announcement (Tushare ann_date, EM NOTICE_DATE)",
        "revision_date": "Tushare f_ann_date, EM UPDATE_DATE",
        "update_flag": "Tushare: '1' latest, '0' pre-revision",
        "undated_revision": "restated with no distinct date → first_seen",
        "extra": "JSON: vendor fields outside the canonical set",
    },
    key=("symbol", "statement", "report_period", "report_type"),
    units={
        name: units.CNY_PER_SHARE if name in PER_SHARE_ITEMS else units.CNY for name in LINE_ITEMS
    },
    partitioning=by_year("report_period"),
    date_column="report_period",
    kind=Kind.REPORT_PERIOD,
    scope=Scope.RANGE,
    known_at=rule_financials,
    event_time=END_OF_DAY,  # the period has ended only at the end of its last day
    default_chain=("tushare", "akshare", "baostock"),
    quality=("statement_periods",),
    batch_versions=True,  # a batch may carry a statement and its restatement
    sort=("symbol", "statement", "report_period", "report_type"),
    # Dates and flags move when a vendor re-labels an unchanged version; only values make one.
    ignore_on_compare=("ann_date", "revision_date", "update_flag", "undated_revision"),
    query=query_model(
        "FinancialsQuery",
        ReportPeriodQuery,
        "Statement versions known at the as-of.\n\nThe latest version of each (symbol, "
        "statement, report period, report type) public by the as-of: a later restatement is "
        "invisible before its own date. latest_only keeps the greatest report period per "
        "statement (a late restatement of an old period never displaces a newer one). Lines "
        "in CNY.",
        statement=(
            Annotated[
                Literal[STATEMENTS] | None,  # type: ignore[valid-type]
                Field(description="One statement: income, balance or cashflow; omitted: all."),
            ],
            None,
        ),
        periods=(
            Annotated[
                list[str] | str | None,
                Field(description="Report period(s): quarter-end dates YYYY-MM-DD."),
            ],
            None,
        ),
        latest_only=(
            Annotated[bool, Field(description="Only the greatest report period per statement.")],
            False,
        ),
    ),
)
