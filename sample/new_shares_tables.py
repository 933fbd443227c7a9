"""The sample's new shares (SYNTHETIC terms), in Tushare `new_share`'s native shape.

One row per issuer the sample lists after the IPO calendar began: its subscription day
(`ipo_date`, the 7th session before its first trading day, as the exchanges' T … T+7
timetable puts it), listing day (`issue_date`, the first trading day of
sample/securities_tables.py), issue price (元), amounts (万股), funds (亿元 = price × amount
/ 10^4) and 中签率 (%), newest subscription first. `603398.SH 新股样本` (fictitious) subscribes
on 2025-05-29 at 18.00 (its first bar's pre_close) and lists on 2025-06-10, inside the window;
the others lie before it (a backfill of their years stores them). Registration-regime and
STAR/ChiNext/BSE listings have no first-day limit: the issue price is stored, not used there.
"""

from __future__ import annotations

from datetime import date

from pitlake.calendar import previous_session

SUBSCRIPTION_LEAD = 7  # sessions from the subscription day (T) to the listing day


# code → (short name, 申购代码, issue price 元, 发行总量 万股, 上网发行 万股, 发行市盈率,
#         申购上限 万股, 中签率 %)
TERMS: dict[str, tuple[str, str, float, float, float, float, float, float]] = {
    "603398.SH": ("新股样本", "732398", 18.00, 4000.0, 1600.0, 22.98, 1.6, 0.0312),
    "920099.BJ": ("北证样本", "920099", 8.20, 1800.0, 1530.0, 14.62, 80.0, 0.1187),
    "688981.SH": ("中芯国际", "787981", 27.10, 168562.0, 21824.0, 108.0, 10.0, 0.0986),
    "300750.SZ": ("宁德时代", "300750", 25.00, 21698.0, 19528.0, 22.99, 2.15, 0.0231),
}


def _subscription_day(listed: date) -> date:
    day = listed
    for _ in range(SUBSCRIPTION_LEAD):
        day = previous_session(day)
    return day


def ymd(d: date) -> str:
    return d.strftime("%Y%m%d")


def tushare_new_share(list_dates: dict[str, date]) -> list[dict]:
    rows = []
    for code, (name, sub, price, amount, online, pe, cap, ballot) in TERMS.items():
        listed = list_dates[code]
        rows.append(
            {
                "ts_code": code,
                "sub_code": sub,
                "name": name,
                "ipo_date": ymd(_subscription_day(listed)),
                "issue_date": ymd(listed),
                "amount": amount,
                "market_amount": online,
                "price": price,
                "pe": pe,
                "limit_amount": cap,
                "funds": round(price * amount / 10_000, 4),
                "ballot": ballot,
            }
        )
    return sorted(rows, key=lambda r: r["ipo_date"], reverse=True)


def render(out, list_dates: dict[str, date]) -> None:  # noqa: ANN001 (generate.Out)
    out.rows("tushare", "new_share", tushare_new_share(list_dates))
