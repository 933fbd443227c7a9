"""Tushare's field names for pitlake's canonical columns (financial line items included).

The canonical line items and their statements are `pitlake.schemas.financials.LINE_ITEMS`;
which Tushare field carries each is said here and only here.
"""

from __future__ import annotations

from pitlake.schemas.financials import LINE_ITEMS

# canonical line item → Tushare field (income / balancesheet / cashflow)
LINE_ITEM_FIELDS: dict[str, str] = {
    "total_revenue": "total_revenue",
    "revenue": "revenue",
    "operating_cost": "oper_cost",
    "operating_profit": "operate_profit",
    "total_profit": "total_profit",
    "income_tax": "income_tax",
    "net_profit": "n_income",
    "net_profit_parent": "n_income_attr_p",
    "eps_basic": "basic_eps",
    "eps_diluted": "diluted_eps",
    "total_assets": "total_assets",
    "total_liabilities": "total_liab",
    "equity_parent": "total_hldr_eqy_exc_min_int",
    "total_equity": "total_hldr_eqy_inc_min_int",
    "cash": "money_cap",
    "current_assets": "total_cur_assets",
    "current_liabilities": "total_cur_liab",
    "net_cash_operating": "n_cashflow_act",
    "net_cash_investing": "n_cashflow_inv_act",
    "net_cash_financing": "n_cash_flows_fnc_act",
    "net_cash_change": "n_incr_cash_cash_equ",
}

STATEMENT_ENDPOINTS = {"income": "income", "balance": "balancesheet", "cashflow": "cashflow"}
STATEMENT_META = ("ts_code", "ann_date", "f_ann_date", "end_date", "report_type", "update_flag")
# Tushare returns only the fields asked for. Beyond the metadata and the canonical items these
# land in `extra`; names from the tushare.pro field lists [UNVERIFIED against live replies].
STATEMENT_EXTRA_FIELDS: dict[str, tuple[str, ...]] = {
    "income": tuple(
        "comp_type end_type total_cogs sell_exp admin_exp fin_exp rd_exp invest_income "
        "non_oper_income non_oper_exp minority_gain ebit ebitda t_compr_income".split()
    ),
    "balance": tuple(
        "comp_type end_type total_share cap_rese surplus_rese undistr_porfit accounts_receiv "
        "inventories fix_assets goodwill st_borr lt_borr total_nca total_ncl minority_int".split()
    ),
    "cashflow": tuple(
        "comp_type end_type c_fr_sale_sg c_paid_goods_s c_pay_acq_const_fiolta "
        "c_cash_equ_beg_period c_cash_equ_end_period free_cashflow".split()
    ),
}


def statement_fields(statement: str) -> dict[str, str]:
    """Tushare field → canonical item, for one statement (in LINE_ITEMS order)."""
    return {LINE_ITEM_FIELDS[item]: item for item, st in LINE_ITEMS.items() if st == statement}
