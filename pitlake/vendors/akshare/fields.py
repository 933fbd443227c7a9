"""AkShare's (East Money's) field names for pitlake's canonical columns.

The canonical line items and their statements are `pitlake.schemas.financials.LINE_ITEMS`;
which East Money `*_by_report_em` field carries each is said here and only here.
"""

from __future__ import annotations

from pitlake.schemas.financials import LINE_ITEMS

# canonical line item → East Money field
LINE_ITEM_FIELDS: dict[str, str] = {
    "total_revenue": "TOTAL_OPERATE_INCOME",
    "revenue": "OPERATE_INCOME",
    "operating_cost": "OPERATE_COST",
    "operating_profit": "OPERATE_PROFIT",
    "total_profit": "TOTAL_PROFIT",
    "income_tax": "INCOME_TAX",
    "net_profit": "NETPROFIT",
    "net_profit_parent": "PARENT_NETPROFIT",
    "eps_basic": "BASIC_EPS",
    "eps_diluted": "DILUTED_EPS",
    "total_assets": "TOTAL_ASSETS",
    "total_liabilities": "TOTAL_LIABILITIES",
    "equity_parent": "TOTAL_PARENT_EQUITY",
    "total_equity": "TOTAL_EQUITY",
    "cash": "MONETARYFUNDS",
    "current_assets": "TOTAL_CURRENT_ASSETS",
    "current_liabilities": "TOTAL_CURRENT_LIAB",
    "net_cash_operating": "NETCASH_OPERATE",
    "net_cash_investing": "NETCASH_INVEST",
    "net_cash_financing": "NETCASH_FINANCE",
    "net_cash_change": "CCE_ADD",
}

# East Money statement columns that are identity or dates already mapped to canonical columns.
EM_STATEMENT_MAPPED = (
    "SECUCODE",
    "SECURITY_CODE",
    "SECURITY_NAME_ABBR",  # a name, not a value of the statement (renames are noise)
    "REPORT_DATE",
    "NOTICE_DATE",
    "UPDATE_DATE",
)
EM_REPORT_TYPE = "1"  # *_by_report_em = consolidated, cumulative (Tushare code 1)


def statement_fields(statement: str) -> dict[str, str]:
    """East Money field → canonical item, for one statement (in LINE_ITEMS order)."""
    return {LINE_ITEM_FIELDS[item]: item for item, st in LINE_ITEMS.items() if st == statement}
