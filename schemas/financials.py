"""Financial statements, one row per version of (symbol, statement, report_period, report_type).

Canonical line items (snake_case, 元 unless noted) are mapped from each vendor's fields here and
only here. Vendor fields outside the canonical set are kept in `extra` (a JSON object).
`report_type` uses Tushare's codes ('1' = consolidated, '2' = single quarter, …); East Money
`*_by_report_em` statements are consolidated cumulative, so they are '1'.
"""

from typing import Annotated, Literal

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_year
from pitlake.schemas.query import ReportPeriodQuery, query_model
from pydantic import Field

from pitlake.pit import END_OF_DAY, rule_financials

STATEMENTS = ("income", "balance", "cashflow")

# canonical item → (statement, Tushare field, East Money field)
LINE_ITEMS: dict[str, tuple[str, str, str]] = {
    "total_revenue": ("income", "total_revenue", "TOTAL_OPERATE_INCOME"),
    "revenue": ("income", "revenue", "OPERATE_INCOME"),
    "operating_cost": ("income", "oper_cost", "OPERATE_COST"),
    "operating_profit": ("income", "operate_profit", "OPERATE_PROFIT"),
    "total_profit": ("income", "total_profit", "TOTAL_PROFIT"),
    "income_tax": ("income", "income_tax", "INCOME_TAX"),
    "net_profit": ("income", "n_income", "NETPROFIT"),
    "net_profit_parent": ("income", "n_income_attr_p", "PARENT_NETPROFIT"),
    "eps_basic": ("income", "basic_eps", "BASIC_EPS"),  # 元 per share
    "eps_diluted": ("income", "diluted_eps", "DILUTED_EPS"),  # 元 per share
    "total_assets": ("balance", "total_assets", "TOTAL_ASSETS"),
    "total_liabilities": ("balance", "total_liab", "TOTAL_LIABILITIES"),
    "equity_parent": ("balance", "total_hldr_eqy_exc_min_int", "TOTAL_PARENT_EQUITY"),
    "total_equity": ("balance", "total_hldr_eqy_inc_min_int", "TOTAL_EQUITY"),
    "cash": ("balance", "money_cap", "MONETARYFUNDS"),
    "current_assets": ("balance", "total_cur_assets", "TOTAL_CURRENT_ASSETS"),
    "current_liabilities": ("balance", "total_cur_liab", "TOTAL_CURRENT_LIAB"),
    "net_cash_operating": ("cashflow", "n_cashflow_act", "NETCASH_OPERATE"),
    "net_cash_investing": ("cashflow", "n_cashflow_inv_act", "NETCASH_INVEST"),
    "net_cash_financing": ("cashflow", "n_cash_flows_fnc_act", "NETCASH_FINANCE"),
    "net_cash_change": ("cashflow", "n_incr_cash_cash_equ", "CCE_ADD"),
}


def items_for(statement: str) -> list[str]:
    return [k for k, (st, _, _) in LINE_ITEMS.items() if st == statement]


def vendor_map(statement: str, vendor: str) -> dict[str, str]:
    """vendor field → canonical item, for one statement. vendor: 'tushare' | 'akshare'."""
    idx = {"tushare": 1, "akshare": 2}[vendor]
    return {v[idx]: k for k, v in LINE_ITEMS.items() if v[0] == statement}


SCHEMA = Dataset(
    name="financials",
    fields=(
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("statement", pa.string(), nullable=False),  # income | balance | cashflow
        pa.field("report_period", pa.date32(), nullable=False),  # quarter end
        pa.field("report_type", pa.string(), nullable=False),  # Tushare codes
        pa.field("ann_date", pa.date32()),  # first announcement (Tushare ann_date, EM NOTICE_DATE)
        pa.field("revision_date", pa.date32()),  # Tushare f_ann_date, EM UPDATE_DATE
        pa.field("update_flag", pa.string()),  # Tushare: '1' latest, '0' pre-revision
        pa.field("undated_revision", pa.bool_()),  # restated with no distinct date → first_seen
        *(pa.field(name, pa.float64()) for name in LINE_ITEMS),
        pa.field("extra", pa.string()),  # JSON: vendor fields outside the canonical set
    ),
    key=("symbol", "statement", "report_period", "report_type"),
    partitioning=by_year("report_period"),
    date_column="report_period",
    kind=Kind.REPORT_PERIOD,
    scope=Scope.RANGE,
    known_at=rule_financials,
    event_time=END_OF_DAY,  # the period has ended only at the end of its last day
    default_chain=("tushare", "akshare"),
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
