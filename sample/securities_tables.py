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


def iso(x: date | None) -> str | None:
    return x.isoformat() if x else None


def _today_name(code: str, name: str) -> str:
    return names_of(code, name)[-1].name


def _listed_today(issuers: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    return [i for i in issuers if i[0] not in DELISTED and LIST_DATES[i[0]] <= TODAY]


def ak_sh_name_code(issuers: list[tuple[str, str, str]]) -> list[dict]:
    """SSE's lists as akshare returns them (stock_info.py:122-182): 主板A股 then 科创板."""
    rows = []
    for board, tag in (("main", "主板A股"), ("STAR", "科创板")):
        for code, name, b in _listed_today(issuers):
            if code.endswith(".SH") and b == board:
                short = _today_name(code, name)
                rows.append(
                    {
                        "_symbol": tag,
                        "证券代码": code[:6],
                        "证券简称": short,
                        "证券全称": short,
                        "公司简称": short,
                        "公司全称": f"{short}股份有限公司",
                        "上市日期": iso(LIST_DATES[code]),
                    }
                )
    return rows


def ak_sz_name_code(issuers: list[tuple[str, str, str]]) -> list[dict]:
    """SZSE's A-share list (stock_info.py:20-66): codes zero-filled, dates as text."""
    return [
        {
            "_symbol": "A股列表",
            "板块": "创业板" if b == "ChiNext" else "主板",
            "A股代码": code[:6],
            "A股简称": _today_name(code, name),
            "A股上市日期": iso(LIST_DATES[code]),
            "A股总股本": "1,000,000,000",
            "A股流通股本": "900,000,000",
            "所属行业": "综合",
        }
        for code, name, b in _listed_today(issuers)
        if code.endswith(".SZ")
    ]


def ak_bj_name_code(issuers: list[tuple[str, str, str]]) -> list[dict]:
    """BSE's list (stock_info.py:185-283)."""
    return [
        {
            "证券代码": code[:6],
            "证券简称": _today_name(code, name),
            "总股本": 100_000_000.0,
            "流通股本": 60_000_000.0,
            "上市日期": iso(LIST_DATES[code]),
            "所属行业": "综合",
            "地区": "北京",
            "报告日期": iso(TODAY),
        }
        for code, name, _ in _listed_today(issuers)
        if code.endswith(".BJ")
    ]


def ak_delist(issuers: list[tuple[str, str, str]], suffix: str) -> list[dict]:
    """The delisted companies of one exchange (stock_info.py:286-408)."""
    rows = []
    for code, name, _ in issuers:
        if code in DELISTED and code.endswith(suffix):
            if suffix == ".SH":
                rows.append(
                    {
                        "_symbol": "全部",
                        "公司代码": code[:6],
                        "公司简称": _today_name(code, name),
                        "上市日期": iso(LIST_DATES[code]),
                        "暂停上市日期": iso(DELISTED[code]),
                    }
                )
            else:
                rows.append(
                    {
                        "_symbol": "终止上市公司",
                        "证券代码": code[:6],
                        "证券简称": _today_name(code, name),
                        "上市日期": iso(LIST_DATES[code]),
                        "终止上市日期": iso(DELISTED[code]),
                    }
                )
    return rows


def ak_st_board(issuers: list[tuple[str, str, str]]) -> list[dict]:
    """Today's risk-warning board (stock_zh_a_special.py:20-107): the ST names in force today."""
    return [
        {"序号": n + 1, "代码": code[:6], "名称": _today_name(code, name)}
        for n, (code, name, _) in enumerate(
            i for i in _listed_today(issuers) if is_st_on(i[0], TODAY)
        )
    ]


def ak_tfp(issuers: list[tuple[str, str, str]]) -> list[dict]:
    """The suspensions by date (stock_tfp_em.py:13-76), one table per asked date."""
    names = {code: name for code, name, _ in issuers}
    rows = []
    for code, days in SUSPENDED_DAYS.items():
        for day in days:
            rows.append(
                {
                    "_date": ymd(day),
                    "序号": 1,
                    "代码": code[:6],
                    "名称": name_on(code, names[code], day),
                    "停牌时间": iso(days[0]),
                    "停牌截止时间": iso(days[-1]),
                    "停牌期限": "连续停牌",
                    "停牌原因": SUSPENSION_REASON,
                    "所属市场": "深交所主板",
                    "预计复牌时间": iso(RESUMED[code]),
                }
            )
    return rows


def render(out: object, issuers: list[tuple[str, str, str]]) -> None:
    """Write the securities tables (`out.rows(vendor, endpoint, rows)`)."""
    w = out.rows  # type: ignore[attr-defined]
    w("tushare", "stock_basic", tushare_stock_basic(issuers))
    w("tushare", "namechange", tushare_namechange(issuers))
    w("tushare", "suspend_d", tushare_suspend_d())
    w("akshare", "stock_info_sh_name_code", ak_sh_name_code(issuers))
    w("akshare", "stock_info_sz_name_code", ak_sz_name_code(issuers))
    w("akshare", "stock_info_bj_name_code", ak_bj_name_code(issuers))
    w("akshare", "stock_info_sh_delist", ak_delist(issuers, ".SH"))
    w("akshare", "stock_info_sz_delist", ak_delist(issuers, ".SZ"))
    w("akshare", "stock_zh_a_st_em", ak_st_board(issuers))
    w("akshare", "stock_tfp_em", ak_tfp(issuers))
