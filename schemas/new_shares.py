"""Initial public offerings: each new share's subscription day, listing day and issue terms
(Tushare `new_share`), one row per version of a symbol.

The issue price is the base of an approval-regime first day's price limits (+44 % / −36 %:
`pitlake.limit_rules`), so the derived pools and the gate read it from here
(`issue_price_column`); where no row is known at the cutoff the first day's limit stays
`unknown`, never guessed. Known at the end of the session after the subscription day, never
later than the listing day's call auction (`pitlake.pit.rule_issue_terms` says why). Money in
元 (Tushare's 亿元 funds converted), share counts in shares (万股 converted); the 中签率 as
Tushare gives it (percent [UNVERIFIED]).
"""

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_unit, by_year
from pitlake.schemas.query import ScheduledQuery, query_model

from pitlake import units
from pitlake.pit import rule_issue_terms

SCHEMA = Dataset(
    name="new_shares",
    fields=(
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("sub_code", pa.string()),
        pa.field("name", pa.string()),
        pa.field("ipo_date", pa.date32(), nullable=False),
        pa.field("list_date", pa.date32()),
        pa.field("issue_price", pa.float64()),
        pa.field("issue_pe", pa.float64()),
        pa.field("shares_offered", pa.float64()),
        pa.field("shares_online", pa.float64()),
        pa.field("subscription_cap", pa.float64()),
        pa.field("funds", pa.float64()),
        pa.field("ballot_rate", pa.float64()),
    ),
    column_docs={
        "sub_code": "申购代码 (e.g. 732398 for 603398.SH)",
        "ipo_date": "上网发行日期: subscription day T",
        "list_date": "上市日期 (Tushare issue_date); null until set",
        "issue_price": "发行价格; null until priced",
        "issue_pe": "发行市盈率",
        "shares_offered": "发行总量, 万股 × 10^4",
        "shares_online": "上网发行总量",
        "subscription_cap": "个人申购上限",
        "funds": "募集资金, 亿元 × 10^8",
        "ballot_rate": "中签率, as given [unit UNVERIFIED: percent]",
    },
    key=("symbol",),
    units=by_unit(
        {
            units.CNY_PER_SHARE: ("issue_price",),
            units.SHARES: (
                "shares_offered",
                "shares_online",
                "subscription_cap",
            ),
            units.CNY: ("funds",),
        }
    ),
    partitioning=by_year("ipo_date"),
    date_column="ipo_date",
    kind=Kind.SCHEDULED,
    scope=Scope.RANGE,  # one whole-market call per window of subscription days
    known_at=rule_issue_terms,
    default_chain=("tushare",),
    issue_price_column="issue_price",
    ignore_on_compare=("name",),
    description="New shares: subscription and listing days, issue price and terms.",
    query=query_model(
        "NewSharesQuery",
        ScheduledQuery,
        "New shares (IPOs) whose subscription day falls in a Beijing-day window, as known at "
        "the as-of.\n\nThe latest terms of each new share public by the as-of (default window: "
        "the as-of's day and the 30 days after it); issue price in CNY, share counts in "
        "shares. A listing's first-day price limit on the approval regime is based on this "
        "issue price.",
    ),
)
