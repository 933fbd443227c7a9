"""The security master of the sample, rendered in the vendors' native shapes (SYNTHETIC).

One truth per issuer (its listing, its names over time, its suspensions) → Tushare
`stock_basic` (one list per list_status, with list_date and delist_date), `namechange`
(ann_date, start_date, end_date, change_reason) and `suspend_d` (S / R per session); AkShare's
exchange lists (`stock_info_sh_name_code`, `stock_info_sz_name_code`, `stock_info_bj_name_code`,
`stock_info_sh_delist`, `stock_info_sz_delist`), today's ST list (`stock_zh_a_st_em`) and the
suspensions by date (`stock_tfp_em`).

The planted cases (sample/README.md):
- `000666.SZ 甲乙科技` (fictitious) goes *ST on 2025-04-25 (announced 04-24), trades its last
  session on 2025-06-20 and is delisted on 2025-06-23: in the universe on 2025-06-03, not
  after;
- `600234.SH ST样本` (fictitious) has its ST designation removed from 2025-06-16 (announced
  06-13): its name is `样本股份` from then;
- `000002.SZ` is suspended 2025-05-12 … 05-14 (Tushare S rows, an R row on 05-15);
- `603398.SH 新股样本` (fictitious) lists on 2025-06-10: no price limit on its first day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta


def d(s: str) -> date:
    return date.fromisoformat(s)


@dataclass(frozen=True)
class Name:
    name: str
    start: date
    ann: date | None
    reason: str | None


# First trading day of every issuer (synthetic where the issuer is).
LIST_DATES: dict[str, date] = {
    "600519.SH": d("2001-08-27"),
    "601318.SH": d("2007-03-01"),
    "000001.SZ": d("1991-04-03"),
    "000002.SZ": d("1991-01-29"),
    "688981.SH": d("2020-07-16"),
    "300750.SZ": d("2018-06-11"),
    "002594.SZ": d("2011-06-30"),
    "430047.BJ": d("2021-11-15"),
    "920099.BJ": d("2024-11-18"),
    "600234.SH": d("1996-07-19"),
    "000666.SZ": d("2010-03-19"),
    "603398.SH": d("2025-06-10"),
}
# Delisted companies: the delisting date (the day after the last session's week ends here).
DELISTED: dict[str, date] = {"000666.SZ": d("2025-06-23")}
LAST_SESSION: dict[str, date] = {"000666.SZ": d("2025-06-20")}
# Name histories that change (every other issuer keeps its name since listing).
NAMES: dict[str, tuple[Name, ...]] = {
    "600234.SH": (
        Name("样本股份", d("1996-07-19"), None, None),
        Name("ST样本", d("2024-05-06"), d("2024-04-30"), "ST"),
        Name("样本股份", d("2025-06-16"), d("2025-06-13"), "撤销ST"),
    ),
    "000666.SZ": (
        Name("甲乙科技", d("2010-03-19"), None, None),
        Name("*ST甲乙", d("2025-04-25"), d("2025-04-24"), "*ST"),
    ),
}
SUSPENDED_DAYS: dict[str, tuple[date, ...]] = {
    "000002.SZ": (d("2025-05-12"), d("2025-05-13"), d("2025-05-14")),
}
RESUMED: dict[str, date] = {"000002.SZ": d("2025-05-15")}
SUSPENSION_REASON = "重大事项"
# The sample's "today": the lists that carry no date (AkShare's) are as of this day.
TODAY = d("2025-06-30")

TS_MARKET = {"main": "主板", "STAR": "科创板", "ChiNext": "创业板", "BSE": "北交所"}
TS_EXCHANGE = {"SH": "SSE", "SZ": "SZSE", "BJ": "BSE"}


def is_st_on(code: str, day: date) -> bool:
    """Is the name in force on `day` an ST name?"""
    names = [n for n in NAMES.get(code, ()) if n.start <= day]
    return bool(names) and names[-1].name.lstrip("S").lstrip("*").startswith("ST")


def names_of(code: str, current: str) -> tuple[Name, ...]:
    return NAMES.get(code, (Name(current, LIST_DATES[code], None, None),))


def name_on(code: str, current: str, day: date) -> str:
    return [n for n in names_of(code, current) if n.start <= day][-1].name


def ymd(x: date | None) -> str | None:
    return x.strftime("%Y%m%d") if x else None


def _status(code: str) -> str:
    return "D" if code in DELISTED else "L"


def tushare_stock_basic(issuers: list[tuple[str, str, str]]) -> list[dict]:
    """`issuers`: (ts_code, current name, board). Rows by list_status, then code."""
    rows = []
    for code, name, board in sorted(issuers, key=lambda t: (_status(t[0]), t[0])):
        rows.append(
            {
                "ts_code": code,
                "symbol": code[:6],
                "name": names_of(code, name)[-1].name,
                "area": "深圳"
                if code.endswith(".SZ")
                else "上海"
                if code.endswith(".SH")
                else "北京",
                "industry": "综合",
                "market": TS_MARKET[board],
                "exchange": TS_EXCHANGE[code[7:]],
                "list_status": _status(code),
                "list_date": ymd(LIST_DATES[code]),
                "delist_date": ymd(DELISTED.get(code)),
                "is_hs": "N",
            }
        )
    return rows


def tushare_namechange(issuers: list[tuple[str, str, str]]) -> list[dict]:
    """Every name interval; the newest announcements first, as Tushare lists them."""
    rows = []
    for code, name, _ in issuers:
        hist = names_of(code, name)
        for i, n in enumerate(hist):
            end = hist[i + 1].start - timedelta(days=1) if i + 1 < len(hist) else None
            if end is None and code in DELISTED:
                end = DELISTED[code] - timedelta(days=1)
            rows.append(
                {
                    "ts_code": code,
                    "name": n.name,
                    "start_date": ymd(n.start),
                    "end_date": ymd(end),
                    "ann_date": ymd(n.ann or n.start),
                    "change_reason": n.reason,
                }
            )
    rows.sort(key=lambda r: (r["ann_date"], r["ts_code"]), reverse=True)
    return rows


def tushare_suspend_d() -> list[dict]:
    rows = []
    for code, days in SUSPENDED_DAYS.items():
        for day in days:
            rows.append(
                {
                    "ts_code": code,
                    "trade_date": ymd(day),
                    "suspend_timing": None,
                    "suspend_type": "S",
                }
            )
        rows.append(
            {
                "ts_code": code,
                "trade_date": ymd(RESUMED[code]),
                "suspend_timing": None,
                "suspend_type": "R",
            }
        )
    rows.sort(key=lambda r: (r["trade_date"], r["ts_code"]), reverse=True)
    return rows


def render(out: object, issuers: list[tuple[str, str, str]]) -> None:
    """Write the securities tables (`out.rows(vendor, endpoint, rows)`)."""
    out.rows("tushare", "stock_basic", tushare_stock_basic(issuers))  # type: ignore[attr-defined]
    out.rows("tushare", "namechange", tushare_namechange(issuers))  # type: ignore[attr-defined]
    out.rows("tushare", "suspend_d", tushare_suspend_d())  # type: ignore[attr-defined]
