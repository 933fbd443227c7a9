"""Writes tests/vendors/wire/akshare/*.json: the vendors' wire replies for every akshare
function pitlake calls, each shaped by reading the installed akshare 1.19.5 source (cited per
file), in four kinds: normal, empty, blocked (an anti-bot HTML page with HTTP 200), rate_limited
(HTTP 429). The values are synthetic (documented per file); the shapes are the vendor's.

    .venv/bin/python -m tests.vendors.wire.make_akshare_replies    # rewrites the files

The Sina bodies are encoded with `sina_klc` and checked by akshare's own decoder in the tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from tests.vendors.wire.sina_klc import Bar, encode_bars, encode_calendar

OUT = Path(__file__).resolve().parent / "akshare"
AK = "akshare/"  # citations are relative to site-packages

EM_KLINE = r"push2his\.eastmoney\.com/api/qt/stock/kline/get"
SINA_HIST = r"finance\.sina\.com\.cn/realstock/company/\w+/hisdata_klc2/klc_kl\.js"
SINA_INDEX = r"finance\.sina\.com\.cn/realstock/company/\w+/hisdata/klc_kl\.js"
SINA_AMOUNT = r"stock\.finance\.sina\.com\.cn/stock/api/jsonp\.php/"
SINA_HFQ = r"finance\.sina\.com\.cn/realstock/company/\w+/hfq\.js"
SINA_CAL = r"finance\.sina\.com\.cn/realstock/company/klc_td_sh\.txt"
TX_START = r"web\.ifzq\.gtimg\.cn/other/klineweb/klineWeb/weekTrends"
TX_KLINE = r"proxy\.finance\.qq\.com/ifzqgtimg/appstock/app/newfqkline/get"
EM_F10 = r"emweb\.securities\.eastmoney\.com/PC_HSF10/NewFinanceAnalysis/"
EM_NOTICE = r"np-anotice-stock\.eastmoney\.com/api/security/ann"
EM_SEARCH = r"search-api-web\.eastmoney\.com/search/jsonp"
EM_FAST = r"np-weblist\.eastmoney\.com/comm/web/getFastNewsList"
EM_DATACENTER = r"datacenter-web\.eastmoney\.com/api/data/v1/get"

JSONP_CB = "jQuery35101792940631092459_1764599530165"  # news_stock.py:45, stripped at :68-69
SINA_JS = "application/javascript; charset=utf-8"

BLOCKED_PAGE = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>访问受限</title></head>'
    '<body><div class="box"><p>您的访问过于频繁，请稍后再试。</p></div></body></html>'
)
RATE_LIMITED_BODY = "<html><body><h1>429 Too Many Requests</h1></body></html>"

SYNTHETIC = "synthetic values in the vendor's wire shape"


def reply(cites: list[str], url: str, **kw: Any) -> dict[str, Any]:
    return {"cites": cites, "url": url, **kw}


def blocked(cites: list[str], url: str) -> dict[str, Any]:
    return reply(
        cites,
        url,
        body=BLOCKED_PAGE,
        headers={"Content-Type": "text/html; charset=utf-8"},
        note="an anti-bot page answered with HTTP 200 instead of data",
    )


def rate_limited(cites: list[str], url: str) -> dict[str, Any]:
    return reply(
        cites,
        url,
        status=429,
        body=RATE_LIMITED_BODY,
        headers={"Content-Type": "text/html", "Retry-After": "30"},
        note="HTTP 429 with the server's Retry-After",
    )


# ---------------------------------------------------------------- East Money bars

KLINE_CITES = [AK + "stock_feature/stock_hist_em.py:976-1004"]


def em_kline() -> dict[str, list[dict[str, Any]] | dict[str, Any]]:
    # f51..f61: 日期,开盘,收盘,最高,最低,成交量(手),成交额(元),振幅,涨跌幅,涨跌额,换手率
    klines = [
        "2025-06-03,1523.00,1530.50,1535.00,1520.10,25000,3815000000.00,0.98,0.69,10.50,0.20",
        "2025-06-04,1530.00,1528.88,1540.00,1525.50,18000,2751234567.00,0.95,-0.11,-1.62,0.14",
    ]
    data = {"code": "600519", "market": 1, "name": "贵州茅台", "decimal": 2, "klines": klines}
    return {
        "normal": reply(
            KLINE_CITES, EM_KLINE, json={"rc": 0, "rt": 17, "data": data}, note=SYNTHETIC
        ),
        # `if not (data_json["data"] and data_json["data"]["klines"])` → pd.DataFrame()
        "empty": reply(KLINE_CITES, EM_KLINE, json={"rc": 0, "rt": 17, "data": None}),
        "blocked": blocked(KLINE_CITES, EM_KLINE),
        "rate_limited": rate_limited(KLINE_CITES, EM_KLINE),
    }


# ---------------------------------------------------------------- Sina bars, factors, calendar

SINA_CITES = [
    AK + "stock/stock_zh_a_sina.py:182-205 (hisdata_klc2/klc_kl.js, decoded by hk_js_decode)",
    AK + "stock/stock_zh_a_sina.py:200-205 (share amounts, jsonp)",
    AK + "stock/cons.py:54-60 (URLs)",
]
SINA_BARS = [
    Bar(date(2025, 6, 3), 1523.00, 1535.00, 1520.10, 1530.50, 2_500_000, 3_815_000_000),
    Bar(date(2025, 6, 4), 1530.00, 1540.00, 1525.50, 1528.88, 1_800_000, 2_751_234_567),
]


def sina_daily() -> dict[str, Any]:
    amount = (
        'var KKE_ShareAmount_sh600519=({data:[{date:"2024-06-28",amount:"125619.78"}],total:1});'
    )
    share = reply(SINA_CITES, SINA_AMOUNT, body=amount, headers={"Content-Type": SINA_JS})
    hist = f'var KLC_KL_sh600519="{encode_bars(SINA_BARS, prev_close=1520.00)}";\n'
    empty = f'var KLC_KL_sh600519="{encode_bars([])}";\n'
    js = {"Content-Type": SINA_JS}
    return {
        "normal": [reply(SINA_CITES, SINA_HIST, body=hist, headers=js, note=SYNTHETIC), share],
        "empty": [reply(SINA_CITES, SINA_HIST, body=empty, headers=js), share],
        "blocked": blocked(SINA_CITES, r"sina\.com\.cn"),
        "rate_limited": rate_limited(SINA_CITES, r"sina\.com\.cn"),
    }


INDEX_CITES = [
    AK + "index/index_stock_zh.py:293-316 (hisdata/klc_kl.js, decoded by hk_js_decode)",
    AK + "index/cons.py:86-88 (URL)",
]
INDEX_BARS = [  # CSI 300 (sh000300); volume in shares (small: the encoder's field widths)
    Bar(date(2025, 6, 3), 3838.90, 3860.12, 3831.47, 3852.01, 120_000, 461_460_000),
    Bar(date(2025, 6, 4), 3852.50, 3870.00, 3845.10, 3866.66, 110_000, 424_600_000),
]


def sina_index() -> dict[str, Any]:
    hist = f'var KLC_KL_sh000300="{encode_bars(INDEX_BARS, prev_close=3840.23)}";\n'
    empty = f'var KLC_KL_sh000300="{encode_bars([])}";\n'
    js = {"Content-Type": SINA_JS}
    return {
        "normal": reply(INDEX_CITES, SINA_INDEX, body=hist, headers=js, note=SYNTHETIC),
        "empty": reply(INDEX_CITES, SINA_INDEX, body=empty, headers=js),
        "blocked": blocked(INDEX_CITES, r"sina\.com\.cn"),
        "rate_limited": rate_limited(INDEX_CITES, r"sina\.com\.cn"),
    }


FACTOR_CITES = [AK + "stock/stock_zh_a_sina.py:152-165 (hfq.js: eval of the object literal)"]


def sina_factor() -> dict[str, Any]:
    points = [
        {"d": "2025-06-26", "f": "8.8421"},
        {"d": "2024-06-19", "f": "8.6123"},
        {"d": "1900-01-01", "f": "1.0000"},
    ]
    body = f"var hfq_sh600519={json.dumps({'total': 3, 'data': points})}\n/* 2025-06-30 */"
    none = f"var hfq_sh600519={json.dumps({'total': 0, 'data': []})}\n"
    js = {"Content-Type": SINA_JS}
    return {
        "normal": reply(FACTOR_CITES, SINA_HFQ, body=body, headers=js, note=SYNTHETIC),
        "empty": reply(FACTOR_CITES, SINA_HFQ, body=none, headers=js),
        "blocked": blocked(FACTOR_CITES, SINA_HFQ),
        "rate_limited": rate_limited(FACTOR_CITES, SINA_HFQ),
    }


CAL_CITES = [AK + "tool/trade_date_hist.py:26-37 (klc_td_sh.txt, decoded by hk_js_decode)"]
CAL_SESSIONS = [
    date(2025, 5, 29),
    date(2025, 5, 30),  # 2025-06-02 (Mon) closed: 端午
    date(2025, 6, 3),
    date(2025, 6, 4),
    date(2025, 6, 5),
    date(2025, 6, 6),
    date(2025, 6, 9),
    date(2025, 6, 10),
]


def sina_calendar() -> dict[str, Any]:
    body = f'var datelist="{encode_calendar(CAL_SESSIONS)}";var KLC_TD_SH=datelist;'
    text = {"Content-Type": "text/plain"}
    return {
        "normal": reply(CAL_CITES, SINA_CAL, body=body, headers=text),
        # an empty list: ValueError (Length mismatch) at trade_date_hist.py:32
        "empty": reply(
            CAL_CITES, SINA_CAL, body='var datelist="";var KLC_TD_SH=datelist;', headers=text
        ),
        "blocked": blocked(CAL_CITES, SINA_CAL),
        "rate_limited": rate_limited(CAL_CITES, SINA_CAL),
    }


# ---------------------------------------------------------------- Tencent bars

TX_CITES = [
    AK + "index/index_stock_zh.py:319-351 (get_tx_start_year)",
    AK + "stock_feature/stock_hist_tx.py:63-120 (one newfqkline call per year)",
]


def tencent() -> dict[str, Any]:
    start = reply(
        TX_CITES,
        TX_START,
        body='trend_qfq={"code":0,"msg":"","data":[["1991-04-05","0.73"],["1991-04-12","0.72"]]}',
    )

    def year(y: int, rows: list[list[Any]]) -> dict[str, Any]:
        payload = {"code": 0, "msg": "", "data": {"sz000001": {"day": rows, "qt": {}}}}
        return reply(
            TX_CITES,
            TX_KLINE,
            params={"_var": f"kline_day{y}"},
            body=f"kline_day{y}={json.dumps(payload)}",
        )

    # [date, open, close, high, low, volume (手 for sz000), {}, turnover %, amount 万元]
    rows = [
        ["2025-06-03", "11.50", "11.60", "11.70", "11.40", "1234567.000", {}, "0.64", "143210.56"],
        ["2025-06-04", "11.60", "11.55", "11.66", "11.48", "987654.000", {}, "0.51", "114000.12"],
    ]
    other = reply(  # any later year (akshare walks to the current year: stock_hist_tx.py:67-70)
        TX_CITES,
        TX_KLINE,
        body='kline_day={"code":0,"msg":"","data":{"sz000001":{"day":[],"qt":{}}}}',
    )
    return {
        "normal": [start, year(2025, rows), other],
        "empty": [start, year(2025, []), other],
        "blocked": blocked(TX_CITES, r"(gtimg\.cn|qq\.com)"),
        "rate_limited": rate_limited(TX_CITES, r"(gtimg\.cn|qq\.com)"),
    }


# ---------------------------------------------------------------- East Money statements

STATEMENTS = {  # endpoint → (URL stem, EM items with synthetic values in 元)
    "stock_profit_sheet_by_report_em": (
        "lrb",
        {
            "TOTAL_OPERATE_INCOME": 50600000000.0,
            "OPERATE_INCOME": 50600000000.0,
            "OPERATE_COST": 4100000000.0,
            "OPERATE_PROFIT": 36200000000.0,
            "TOTAL_PROFIT": 36100000000.0,
            "INCOME_TAX": 9000000000.0,
            "NETPROFIT": 27100000000.0,
            "PARENT_NETPROFIT": 26800000000.0,
            "BASIC_EPS": 21.38,
            "DILUTED_EPS": 21.38,
        },
    ),
    "stock_balance_sheet_by_report_em": (
        "zcfzb",
        {
            "TOTAL_ASSETS": 300000000000.0,
            "TOTAL_LIABILITIES": 40000000000.0,
            "TOTAL_PARENT_EQUITY": 250000000000.0,
            "TOTAL_EQUITY": 260000000000.0,
            "MONETARYFUNDS": 60000000000.0,
            "TOTAL_CURRENT_ASSETS": 250000000000.0,
            "TOTAL_CURRENT_LIAB": 39000000000.0,
        },
    ),
    "stock_cash_flow_sheet_by_report_em": (
        "xjllb",
        {
            "NETCASH_OPERATE": 8000000000.0,
            "NETCASH_INVEST": -500000000.0,
            "NETCASH_FINANCE": -100000000.0,
            "CCE_ADD": 7400000000.0,
        },
    ),
}
STATEMENT_CITES = [
    AK + "stock_feature/stock_three_report_em.py:17-32 (company type from hidctype)",
    AK + "stock_feature/stock_three_report_em.py:35-80,142-188,291-337 (periods, then values)",
]


def f10_page(code: str) -> dict[str, Any]:
    page = (
        "<!DOCTYPE html><html><head><title>财务分析</title></head><body>"
        f'<input type="hidden" id="hidctype" value="4" /><input type="hidden" id="hidcode" '
        f'value="{code}" /></body></html>'
    )
    return reply(
        STATEMENT_CITES,
        EM_F10 + "Index",
        params={"code": code.lower()},
        body=page,
        headers={"Content-Type": "text/html; charset=utf-8"},
    )


def statement(endpoint: str) -> dict[str, Any]:
    stem, items = STATEMENTS[endpoint]
    row = {
        "SECUCODE": "600519.SH",
        "SECURITY_CODE": "600519",
        "SECURITY_NAME_ABBR": "贵州茅台",
        "ORG_CODE": "10002602",
        "REPORT_DATE": "2025-03-31 00:00:00",
        "REPORT_TYPE": "一季报",
        "REPORT_DATE_NAME": "2025一季报",
        "SECURITY_TYPE_CODE": "058001001",
        "NOTICE_DATE": "2025-04-29 00:00:00",
        "UPDATE_DATE": "2025-04-29 00:00:00",
        "CURRENCY": "CNY",
        **items,
        "OPINION_TYPE": None,
    }
    dates = {"data": [{"REPORT_DATE": "2025-03-31 00:00:00", "REPORT_TYPE": "一季报"}]}
    code = {"code": "SH600519"}
    return {
        "normal": [
            f10_page("SH600519"),
            reply(STATEMENT_CITES, EM_F10 + f"{stem}DateAjaxNew", params=code, json=dates),
            reply(
                STATEMENT_CITES,
                EM_F10 + f"{stem}AjaxNew",
                params=code,
                json={"data": [row]},
                note=SYNTHETIC,
            ),
        ],
        # a company East Money has no periods for (`{"data": []}` → KeyError at :54/:161/:312)
        "empty": [
            f10_page("SZ000001"),
            reply(
                STATEMENT_CITES,
                EM_F10 + f"{stem}DateAjaxNew",
                params={"code": "SZ000001"},
                json={"data": []},
            ),
        ],
        "blocked": blocked(STATEMENT_CITES, EM_F10),
        "rate_limited": rate_limited(STATEMENT_CITES, EM_F10),
    }


# ---------------------------------------------------------------- notices

NOTICE_CITES = [AK + "stock_fundamental/stock_notice.py:36-130"]


def notice_item(code: str, name: str, title: str, column: str, day: str, n: int) -> dict:
    market = "1" if code.startswith("6") else "0"
    return {
        "art_code": f"AN{day.replace('-', '')}{n:010d}",
        "codes": [
            {
                "ann_type": "A,SHA" if market == "1" else "A,SZA",
                "inner_code": f"{n:016d}",
                "market_code": market,
                "short_name": name,
                "stock_code": code,
            }
        ],
        "columns": [{"column_code": "001002004001", "column_name": column}],
        "display_time": f"{day} 15:30:21:489",
        "eiTime": f"{day} 15:30:00:000",
        "language": "0",
        "notice_date": f"{day} 00:00:00",
        "product_code": "",
        "sort_date": f"{day} 15:30:21",
        "source_type": "0",
        "title": f"{name}:{title}",
        "title_ch": f"{name}:{title}",
        "title_en": "",
    }


def notices() -> dict[str, Any]:
    items = [
        notice_item("600519", "贵州茅台", "2025年第一季度报告", "一季度报告全文", "2025-06-03", 1),
        notice_item("000001", "平安银行", "2025年一季度报告", "一季度报告全文", "2025-06-03", 2),
    ]
    page = {"list": items, "page_index": 1, "page_size": 100, "total_hits": len(items)}
    empty = {"list": [], "page_index": 1, "page_size": 100, "total_hits": 0}
    broken = [dict(items[0], codes=[{"ann_type": "A,SHA", "short_name": "贵州茅台"}])]
    return {
        "normal": reply(
            NOTICE_CITES,
            EM_NOTICE,
            params={"f_node": "1", "begin_time": "2025-06-03"},
            json={"data": page, "success": 1},
            note=SYNTHETIC,
        ),
        # zero hits: KeyError('代码') at stock_notice.py:118 (akfamily/akshare#6853)
        "empty": reply(NOTICE_CITES, EM_NOTICE, json={"data": empty, "success": 1}),
        # a non-empty answer whose codes lack stock_code: the same KeyError, on real rows
        "drifted": reply(
            NOTICE_CITES,
            EM_NOTICE,
            json={"data": dict(page, list=broken, total_hits=1), "success": 1},
        ),
        "blocked": blocked(NOTICE_CITES, EM_NOTICE),
        "rate_limited": rate_limited(NOTICE_CITES, EM_NOTICE),
    }


# ---------------------------------------------------------------- news

NEWS_CITES = [AK + "news/news_stock.py:24-118 (curl_cffi GET, JSONP, cmsArticleWebOld)"]


def jsonp(payload: dict[str, Any]) -> str:
    return f"{JSONP_CB}({json.dumps(payload, ensure_ascii=False)})"


def stock_news() -> dict[str, Any]:
    arts = [
        {
            "date": "2025-06-03 19:45:12",
            "mediaName": "证券时报网",
            "code": "202506033420000001",
            "title": "<em>贵州茅台</em>：2024年年度权益分派实施公告",
            "content": "<em>贵州茅台</em>发布公告\u3000每股派发现金红利27.673元。\r\n",
            "url": "http://finance.eastmoney.com/a/202506033420000001.html",
            "image": "",
        }
    ]
    js = {"Content-Type": "application/javascript; charset=utf-8"}

    def body(result: dict[str, Any]) -> str:
        return jsonp({"code": 0, "msg": "成功", "hitsTotal": len(arts), "result": result})

    return {
        "normal": reply(NEWS_CITES, EM_SEARCH, body=body({"cmsArticleWebOld": arts}), headers=js),
        # zero hits: KeyError('code') at news_stock.py:72
        "empty": reply(NEWS_CITES, EM_SEARCH, body=body({"cmsArticleWebOld": []}), headers=js),
        # no hits and no container: KeyError('cmsArticleWebOld') at news_stock.py:71
        "no_container": reply(NEWS_CITES, EM_SEARCH, body=body({}), headers=js),
        "blocked": blocked(NEWS_CITES, EM_SEARCH),
        "rate_limited": rate_limited(NEWS_CITES, EM_SEARCH),
    }


FAST_CITES = [AK + "stock_feature/stock_info.py:61-95 (getFastNewsList, 200 items)"]


def global_news() -> dict[str, Any]:
    items = [
        {
            "code": "202506033420000002",
            "image": [],
            "pinglun_Num": 0,
            "realSort": "1749000130067890",
            "share": 12,
            "showTime": "2025-06-03 15:02:10",
            "stockList": ["1.000001"],
            "summary": "沪指收复3400点，两市成交额1.2万亿元。",
            "title": "沪指收复3400点",
            "titleColor": 0,
        }
    ]

    def body(rows: list[dict]) -> dict[str, Any]:
        return {"code": "1", "message": "success", "data": {"fastNewsList": rows, "sortEnd": ""}}

    return {
        "normal": reply(FAST_CITES, EM_FAST, json=body(items), note=SYNTHETIC),
        # an empty list: KeyError (pandas: "None of [...] are in the [columns]") at :80
        "empty": reply(FAST_CITES, EM_FAST, json=body([])),
        "blocked": blocked(FAST_CITES, EM_FAST),
        "rate_limited": rate_limited(FAST_CITES, EM_FAST),
    }


# ---------------------------------------------------------------- dragon-tiger

LHB_CITES = [AK + "stock_feature/stock_lhb_em.py:14-135 (RPT_DAILYBILLBOARD_DETAILSNEW)"]
SEAT_CITES = [AK + "stock_feature/stock_lhb_em.py:766-900 (columns=ALL, assigned by position)"]
EM_NO_DATA = {
    "version": None,
    "result": None,
    "success": False,
    "message": "返回数据为空",
    "code": 9201,
}


def lhb_detail() -> dict[str, Any]:
    row = {
        "SECURITY_CODE": "688981",
        "SECUCODE": "688981.SH",
        "SECURITY_NAME_ABBR": "中芯国际",
        "TRADE_DATE": "2025-06-18 00:00:00",
        "EXPLAIN": "机构净买入",
        "CLOSE_PRICE": 95.2,
        "CHANGE_RATE": 15.3,
        "BILLBOARD_NET_AMT": 123000000.0,
        "BILLBOARD_BUY_AMT": 456000000.0,
        "BILLBOARD_SELL_AMT": 333000000.0,
        "BILLBOARD_DEAL_AMT": 789000000.0,
        "ACCUM_AMOUNT": 9870000000.0,
        "DEAL_NET_RATIO": 1.25,
        "DEAL_AMOUNT_RATIO": 7.99,
        "TURNOVERRATE": 5.1,
        "FREE_MARKET_CAP": 190000000000.0,
        "EXPLANATION": "有价格涨跌幅限制的日收盘价格涨幅达到15%的前五只证券",
        "D1_CLOSE_ADJCHRATE": 2.1,
        "D2_CLOSE_ADJCHRATE": -0.5,
        "D5_CLOSE_ADJCHRATE": 3.3,
        "D10_CLOSE_ADJCHRATE": 4.4,
        "SECURITY_TYPE_CODE": "058001001",
    }
    ok = {"version": "x", "result": {"pages": 1, "data": [row], "count": 1}, "success": True}
    return {
        "normal": reply(LHB_CITES, EM_DATACENTER, json=ok, note=SYNTHETIC),
        "empty": reply(LHB_CITES, EM_DATACENTER, json=EM_NO_DATA),  # TypeError at :46
        "blocked": blocked(LHB_CITES, EM_DATACENTER),
        "rate_limited": rate_limited(LHB_CITES, EM_DATACENTER),
    }


def seat(name: str, kind: str, buy: float, sell: float, n: int) -> dict[str, Any]:
    # 20 EM fields; akshare keeps positions 5 (营业部), 6 (类型), 11-13 (买/卖/净), 18-19 (占比)
    return {
        "TRADE_DATE": "2025-06-18 00:00:00",
        "SECURITY_CODE": "688981",
        "SECUCODE": "688981.SH",
        "OPERATEDEPT_CODE": f"1000{n:04d}",
        "OPERATEDEPT_NAME": name,
        "EXPLANATION": kind,
        "CHANGE_RATE": 15.3,
        "CLOSE_PRICE": 95.2,
        "ACCUM_AMOUNT": 9870000000.0,
        "ACCUM_VOLUME": 103000000.0,
        "BUY": buy,
        "SELL": sell,
        "NET": buy - sell,
        "RISE_PROBABILITY_3DAY": 50.0,
        "TOTAL_BUYER_SALESTIMES_3DAY": 3,
        "TOTAL_SELLER_SALESTIMES_3DAY": 1,
        "OPERATEDEPT_CODE_OLD": f"8000{n:04d}",
        "ORG_NAME_ABBR": name[:4],
        "TOTAL_BUYRIO": round(buy / 9870000000.0 * 100, 4),
        "TOTAL_SELLRIO": round(sell / 9870000000.0 * 100, 4),
    }


def lhb_seats() -> dict[str, Any]:
    reason = "有价格涨跌幅限制的日收盘价格涨幅达到15%的前五只证券"
    buy = [
        seat("机构专用", reason, 120000000.0, 0.0, 1),
        seat("中信证券上海分公司", reason, 80000000.0, 1000000.0, 2),
    ]
    sell = [seat("华泰证券深圳益田路", reason, 2000000.0, 90000000.0, 3)]

    def ok(rows: list[dict]) -> dict[str, Any]:
        return {
            "version": "x",
            "result": {"pages": 1, "data": rows, "count": len(rows)},
            "success": True,
        }

    return {
        "normal": [
            reply(
                SEAT_CITES,
                EM_DATACENTER,
                params={"reportName": "RPT_BILLBOARD_DAILYDETAILSBUY"},
                json=ok(buy),
            ),
            reply(
                SEAT_CITES,
                EM_DATACENTER,
                params={"reportName": "RPT_BILLBOARD_DAILYDETAILSSELL"},
                json=ok(sell),
            ),
        ],
        "empty": reply(SEAT_CITES, EM_DATACENTER, json=EM_NO_DATA),  # TypeError at :803
        "empty_list": reply(SEAT_CITES, EM_DATACENTER, json=ok([])),  # ValueError at :808
        "blocked": blocked(SEAT_CITES, EM_DATACENTER),
        "rate_limited": rate_limited(SEAT_CITES, EM_DATACENTER),
    }


# ---------------------------------------------------------------- appointments

YYSJ_CITES = [AK + "stock_feature/stock_yjyg_em.py:223-346 (RPT_PUBLIC_BS_APPOIN, pageSize 500)"]
YYSJ = {"reportName": "RPT_PUBLIC_BS_APPOIN"}


def appointment(code: str, name: str, first: str, changed: str | None) -> dict[str, Any]:
    return {
        "SECURITY_CODE": code,
        "SECURITY_NAME_ABBR": name,
        "TRADE_MARKET_CODE": "069001001001" if code.startswith("6") else "069001002001",
        "REPORT_DATE": "2025-06-30 00:00:00",
        "FIRST_APPOINT_DATE": f"{first} 00:00:00",
        "FIRST_CHANGE_DATE": None if changed is None else f"{changed} 00:00:00",
        "SECOND_CHANGE_DATE": None,
        "THIRD_CHANGE_DATE": None,
        "ACTUAL_PUBLISH_DATE": None,
        "SECURITY_TYPE_CODE": "058001001",
    }


def appointments() -> dict[str, Any]:
    rows = [
        appointment("600519", "贵州茅台", "2025-08-08", None),
        appointment("002594", "比亚迪", "2025-08-29", "2025-08-22"),
    ]
    ok = {"version": "x", "result": {"pages": 1, "data": rows, "count": 2}, "success": True}
    return {
        "normal": reply(YYSJ_CITES, EM_DATACENTER, params=YYSJ, json=ok, note=SYNTHETIC),
        # result: null → TypeError at stock_yjyg_em.py:291
        "empty": reply(YYSJ_CITES, EM_DATACENTER, params=YYSJ, json=EM_NO_DATA),
        "blocked": {**blocked(YYSJ_CITES, EM_DATACENTER), "params": YYSJ},
        "rate_limited": {**rate_limited(YYSJ_CITES, EM_DATACENTER), "params": YYSJ},
    }


# ---------------------------------------------------------------- csindex constituent lists

CSINDEX = r"oss-ch\.csindex\.com\.cn/static/html/csindex/public/uploads/file/autofile/"
CONS_CITES = [AK + "index/index_cons.py:126-157 (cons/{symbol}cons.xls, read by pd.read_excel)"]
WEIGHT_CITES = [
    AK + "index/index_cons.py:160-193 (closeweight/{symbol}closeweight.xls, read by pd.read_excel)"
]
CSINDEX_TYPE = "application/vnd.ms-excel"  # what csindex serves its .xls as
CSINDEX_HEADER = [
    "日期Date",
    "指数代码 Index Code",
    "指数名称 Index Name",
    "指数英文名称Index Name(Eng)",
    "成份券代码Constituent Code",
    "成份券名称Constituent Name",
    "成份券英文名称Constituent Name(Eng)",
    "交易所Exchange",
    "交易所英文名称Exchange(Eng)",
]
CSINDEX_ROWS = [  # CSI 300 as csindex lists it: the date as YYYYMMDD, codes as numbers
    [
        20250630,
        300,
        "沪深300",
        "CSI 300",
        600519,
        "贵州茅台",
        "Kweichow Moutai",
        "上海证券交易所",
        "Shanghai Stock Exchange",
        5.2176,
    ],
    [
        20250630,
        300,
        "沪深300",
        "CSI 300",
        1,
        "平安银行",
        "Ping An Bank",
        "深圳证券交易所",
        "Shenzhen Stock Exchange",
        3.5544,
    ],
    [
        20250630,
        300,
        "沪深300",
        "CSI 300",
        688981,
        "中芯国际",
        "SMIC",
        "上海证券交易所",
        "Shanghai Stock Exchange",
        4.2746,
    ],
]
# Alibaba OSS's answer for a file it does not hold (an index csindex publishes no such list
# for) [shape of OSS NoSuchKey; UNVERIFIED against a live csindex reply].
NO_SUCH_KEY = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error>\n  <Code>NoSuchKey</Code>\n'
    "  <Message>The specified key does not exist.</Message>\n</Error>\n"
)


def csindex_xlsx(rows: list[list[Any]]) -> str:
    """An Excel workbook (base64) holding `rows` under one header row, byte-stable: pandas
    reads it by its content (csindex's .xls files are served the same way) [xlsx rather
    than BIFF .xls: no xls writer is installed; pd.read_excel reads both]."""
    import base64
    import io
    import re
    import zipfile
    from datetime import datetime

    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    for row in rows:
        ws.append(row)
    wb.properties.created = wb.properties.modified = datetime(2025, 6, 30)
    raw = io.BytesIO()
    wb.save(raw)
    stable = io.BytesIO()
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(stable, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in sorted(src.infolist(), key=lambda i: i.filename):
            info = zipfile.ZipInfo(item.filename, date_time=(2025, 6, 30, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            data = src.read(item.filename)
            if item.filename == "docProps/core.xml":  # openpyxl stamps the save time
                data = re.sub(rb"(<dcterms:\w+[^>]*>)[^<]*", rb"\g<1>2025-06-30T00:00:00Z", data)
            dst.writestr(info, data)
    return base64.b64encode(stable.getvalue()).decode("ascii")


def csindex(cites: list[str], file: str, with_weights: bool) -> dict[str, Any]:
    url = CSINDEX + file
    header = [*CSINDEX_HEADER, *(["权重(%)weight"] if with_weights else [])]
    rows = [r if with_weights else r[:-1] for r in CSINDEX_ROWS]
    return {
        "normal": reply(
            cites,
            url,
            body_base64=csindex_xlsx([header, *rows]),
            headers={"Content-Type": CSINDEX_TYPE},
            note=SYNTHETIC,
        ),
        "empty": reply(
            cites,
            url,
            status=404,
            body=NO_SUCH_KEY,
            headers={"Content-Type": "application/xml"},
            note="no such file: csindex publishes no such list for this index",
        ),
        "blocked": blocked(cites, url),
        "rate_limited": rate_limited(cites, url),
    }


# ---------------------------------------------------------------- limit pools

EM_POOL = r"push2ex\.eastmoney\.com/getTopic{}Pool"
POOL_CITES = {
    "stock_zt_pool_em": [AK + "stock_feature/stock_ztb_em.py:24-107 (getTopicZTPool, 16 fields)"],
    "stock_zt_pool_dtgc_em": [
        AK + "stock_feature/stock_ztb_em.py:439-527 (getTopicDTPool, 16 fields)"
    ],
    "stock_zt_pool_zbgc_em": [
        AK + "stock_feature/stock_ztb_em.py:357-436 (getTopicZBPool, 16 fields)"
    ],
}
POOL_URL = {
    "stock_zt_pool_em": EM_POOL.format("ZT"),
    "stock_zt_pool_dtgc_em": EM_POOL.format("DT"),
    "stock_zt_pool_zbgc_em": EM_POOL.format("ZB"),
}
# East Money's pool items, in the field order akshare renames by position (prices × 1000)
POOL_ITEMS = {
    "stock_zt_pool_em": [
        {
            "c": "002594",
            "m": 0,
            "n": "比亚迪",
            "p": 398200,
            "zdp": 10.0,
            "amount": 6512345678.0,
            "ltsz": 463060000000.0,
            "tshare": 1210155000000.0,
            "hs": 1.41,
            "lbc": 2,
            "fbt": 93156,
            "lbt": 95052,
            "fund": 812000000.0,
            "zbc": 0,
            "hybk": "汽车整车",
            "zttj": {"days": 2, "ct": 2},
        }
    ],
    "stock_zt_pool_dtgc_em": [
        {
            "c": "000002",
            "m": 0,
            "n": "万科A",
            "p": 6270,
            "zdp": -10.04,
            "amount": 2330000000.0,
            "ltsz": 60920000000.0,
            "tshare": 74800000000.0,
            "pe": -12.5,
            "hs": 3.4,
            "fund": 410000000.0,
            "lbt": 105654,
            "fba": 699000000.0,
            "days": 1,
            "oc": 2,
            "hybk": "房地产开发",
        }
    ],
    "stock_zt_pool_zbgc_em": [
        {
            "c": "002594",
            "m": 0,
            "n": "比亚迪",
            "p": 414130,
            "ztp": 438020,
            "zdp": 4.0,
            "amount": 9100000000.0,
            "ltsz": 481580000000.0,
            "tshare": 1258560000000.0,
            "hs": 2.05,
            "fbt": 110916,
            "zbc": 3,
            "zf": 9.8,
            "zs": -0.12,
            "zttj": {"days": 4, "ct": 3},
            "hybk": "汽车整车",
        }
    ],
}


def pool(function: str) -> Callable[[], dict[str, Any]]:
    cites, url = POOL_CITES[function], POOL_URL[function]

    def make() -> dict[str, Any]:
        items = POOL_ITEMS[function]
        ok = {
            "rc": 0,
            "rt": 4,
            "svr": 182481222,
            "lt": 1,
            "full": 1,
            "dlmkts": "",
            "data": {"tc": len(items), "pool": items, "qdate": 20250610},
        }
        none = {"rc": 0, "rt": 4, "svr": 182481222, "lt": 1, "full": 1, "dlmkts": "", "data": None}
        kinds = {
            "normal": reply(cites, url, json=ok, note=SYNTHETIC),
            # no pool for the day: `data` is None (zt, zbgc: pd.DataFrame() at :44-45/:382-383;
            # dtgc: TypeError at :464, which has no None check)
            "empty": reply(cites, url, json=none),
            "blocked": blocked(cites, url),
            "rate_limited": rate_limited(cites, url),
        }
        if function != "stock_zt_pool_dtgc_em":  # an empty list: pd.DataFrame() at :46-47
            kinds["empty_list"] = reply(cites, url, json={**ok, "data": {"tc": 0, "pool": []}})
        return kinds

    return make


# ---------------------------------------------------------------- write


# ---------------------------------------------------------------- securities (exchange lists)

SSE_LIST = r"query\.sse\.com\.cn/sseQuery/commonQuery\.do"
SSE_DELIST = r"query\.sse\.com\.cn/commonQuery\.do"
SZSE_REPORT = r"www\.szse\.cn/api/report/ShowReport"
BSE_LIST = r"www\.bse\.cn/nqxxController/nqxxCnzq\.do"
EM_CLIST = r"push2\.eastmoney\.com/api/qt/clist/get"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
FIXED_ZIP_TIME = (2025, 6, 30, 0, 0, 0)


def xlsx(columns: list[str], rows: list[list[Any]]) -> str:
    """An .xlsx workbook as base64, byte for byte the same on every run (fixed document and
    zip entry times): the SZSE report pages answer spreadsheets (stock_info.py:40-43)."""
    import base64
    import io
    import zipfile
    from datetime import datetime

    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.append(columns)
    for row in rows:
        ws.append(row)
    wb.properties.created = wb.properties.modified = datetime(2025, 6, 30)
    raw = io.BytesIO()
    wb.save(raw)
    fixed = io.BytesIO()
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(fixed, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in sorted(src.infolist(), key=lambda i: i.filename):
            entry = zipfile.ZipInfo(info.filename, date_time=FIXED_ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            data = src.read(info.filename)
            if info.filename == "docProps/core.xml":  # openpyxl stamps the save time
                data = re.sub(rb">\d{4}-\d\d-\d\dT[\d:.]+Z<", b">2025-06-30T00:00:00Z<", data)
            dst.writestr(entry, data)
    return base64.b64encode(fixed.getvalue()).decode()


def _kinds(cites: list[str], url: str, normal: dict, empty: dict) -> dict[str, Any]:
    return {
        "normal": reply(cites, url, note=SYNTHETIC, **normal),
        "empty": reply(cites, url, **empty),
        "blocked": blocked(cites, url),
        "rate_limited": rate_limited(cites, url),
    }


SH_LIST_CITES = [AK + "stock/stock_info.py:122-182 (SSE COMMON_SSE_CP_GPJCTPZ_GPLB_GP_L)"]


def sh_name_code() -> dict[str, Any]:
    rows = [
        {
            "A_STOCK_CODE": "600519",
            "B_STOCK_CODE": "-",
            "SEC_NAME_CN": "贵州茅台",
            "SEC_NAME_FULL": "贵州茅台",
            "COMPANY_ABBR": "贵州茅台",
            "FULL_NAME": "贵州茅台酒股份有限公司",
            "LIST_DATE": "20010827",
        },
        {
            "A_STOCK_CODE": "603398",
            "B_STOCK_CODE": "-",
            "SEC_NAME_CN": "新股样本",
            "SEC_NAME_FULL": "新股样本",
            "COMPANY_ABBR": "新股样本",
            "FULL_NAME": "新股样本股份有限公司",
            "LIST_DATE": "20250610",
        },
    ]
    return _kinds(
        SH_LIST_CITES,
        SSE_LIST,
        {"json": {"result": rows, "pageHelp": {"total": 2}}},
        {"json": {"result": [], "pageHelp": {"total": 0}}},  # KeyError at :174-183
    )


SZ_LIST_CITES = [AK + "stock/stock_info.py:20-66 (SZSE CATALOGID 1110 tab1, more than 10 rows)"]
SZ_COLUMNS = ["板块", "A股代码", "A股简称", "A股上市日期", "A股总股本", "A股流通股本", "所属行业"]


def sz_name_code() -> dict[str, Any]:
    # more than 10 rows, or akshare hands the sheet back unprocessed (stock_info.py:44)
    rows = [
        ["主板", "000001", "平安银行", "1991-04-03", "19,405,918,198", "19,405,601,041", "J 金融业"]
    ]
    rows += [
        ["主板", f"{n:06d}", f"样本{n}", "2000-01-04", "100,000,000", "90,000,000", "C 制造业"]
        for n in range(3, 13)
    ]
    return _kinds(
        SZ_LIST_CITES,
        SZSE_REPORT,
        {"body_base64": xlsx(SZ_COLUMNS, rows), "headers": {"Content-Type": XLSX}},
        {"body_base64": xlsx([], []), "headers": {"Content-Type": XLSX}},  # no columns
    )


BJ_CITES = [AK + "stock/stock_info.py:185-283 (BSE nqxxCnzq.do, columns by position)"]
# The 48 fields akshare names by position (stock_info.py:224-272); the keys are BSE's
# [their names UNVERIFIED: akshare reads the values by position only].
BJ_KEYS = [f"f{i:02d}" for i in range(48)]
BJ_AT = {
    0: "20211115",
    11: 6.0e7,
    17: "医药制造业",
    22: "20250630",
    29: "北京",
    35: "样本证券",
    36: 1.0e8,
    38: "430047",
    40: "诺思兰德",
}


def _bse(content: list[dict], pages: int) -> str:
    return (
        "null([" + json.dumps({"totalPages": pages, "content": content}, ensure_ascii=False) + "])"
    )


def bj_name_code() -> dict[str, Any]:
    row = {k: BJ_AT.get(i, "-") for i, k in enumerate(BJ_KEYS)}
    return _kinds(
        BJ_CITES,
        BSE_LIST,
        {"body": _bse([row], 1), "headers": {"Content-Type": "text/html; charset=utf-8"}},
        # no pages: an empty frame whose 48 names fail (ValueError, stock_info.py:224)
        {"body": _bse([], 0), "headers": {"Content-Type": "text/html; charset=utf-8"}},
    )


SH_DELIST_CITES = [AK + "stock/stock_info.py:286-352 (SSE COMPANY_STATUS 3)"]


def sh_delist() -> dict[str, Any]:
    row = {
        "COMPANY_CODE": "600087",
        "COMPANY_ABBR": "退市长油",
        "LIST_DATE": "19970612",
        "DELIST_DATE": "20140605",
    }
    return _kinds(
        SH_DELIST_CITES,
        SSE_DELIST,
        {"json": {"result": [row], "pageHelp": {"total": 1}}},
        {"json": {"result": [], "pageHelp": {"total": 0}}},  # KeyError at :338-345
    )


SZ_DELIST_CITES = [AK + "stock/stock_info.py:355-380 (SZSE CATALOGID 1793_ssgs tab2)"]


def sz_delist() -> dict[str, Any]:
    rows = [["000666", "*ST甲乙", "2010-03-19", "2025-06-23"]]
    return _kinds(
        SZ_DELIST_CITES,
        SZSE_REPORT,
        {
            "body_base64": xlsx(["证券代码", "证券简称", "上市日期", "终止上市日期"], rows),
            "headers": {"Content-Type": XLSX},
        },
        {"body_base64": xlsx([], []), "headers": {"Content-Type": XLSX}},  # :372-373
    )


ST_CITES = [
    AK + "stock/stock_zh_a_special.py:20-107 (the risk-warning board, columns by position)",
    AK + "utils/func.py:18-60 (fetch_paginated_data)",
]
# The 30 keys East Money returns per row, in its order (akshare names them by position).
ST_KEYS = [
    f"f{i}" for i in (*range(2, 19), 20, 21, 22, 23, 24, 25, 62, 115, 128, 136, 140, 141, 152)
]


def st_board() -> dict[str, Any]:
    def row(code: str, name: str) -> dict[str, Any]:
        values = {"f12": code, "f14": name, "f13": 0, "f3": -1.2, "f2": 3.3}
        return {k: values.get(k, 0) for k in ST_KEYS}

    ok = {
        "rc": 0,
        "data": {"total": 2, "diff": [row("000666", "*ST甲乙"), row("600234", "ST样本")]},
    }
    return _kinds(
        ST_CITES,
        EM_CLIST,
        {"json": ok},
        {"json": {"rc": 0, "data": None}},  # TypeError at utils/func.py:37
    )


TFP_CITES = [AK + "stock_feature/stock_tfp_em.py:13-76 (RPT_CUSTOM_SUSPEND_DATA_INTERFACE)"]


def tfp() -> dict[str, Any]:
    row = {
        "SECURITY_CODE": "000002",
        "SECURITY_NAME_ABBR": "万科A",
        "SUSPEND_START_TIME": "2025-05-12 09:30:00",
        "SUSPEND_END_TIME": "2025-05-14 15:00:00",
        "SUSPEND_EXPIRE": "连续停牌",
        "SUSPEND_REASON": "重大事项",
        "TRADE_MARKET": "深交所主板",
        "SUSPEND_START_DATE": "2025-05-12 00:00:00",
        "PREDICT_RESUME_TIME": "2025-05-15 00:00:00",
        "TRADE_MARKET_CODE": "069001002001",
        "SECUCODE": "000002.SZ",
        "SORT_TIME": "2025-05-12 00:00:00",
    }
    ok = {"version": "x", "result": {"pages": 1, "data": [row], "count": 1}, "success": True}
    return _kinds(TFP_CITES, EM_DATACENTER, {"json": ok}, {"json": EM_NO_DATA})  # TypeError :38


FUNCTIONS = {
    "stock_zh_a_hist": em_kline,
    "stock_zh_a_daily": sina_daily,
    "stock_zh_a_daily@hfq-factor": sina_factor,
    "stock_zh_a_hist_tx": tencent,
    "stock_zh_index_daily": sina_index,
    "stock_profit_sheet_by_report_em": lambda: statement("stock_profit_sheet_by_report_em"),
    "stock_balance_sheet_by_report_em": lambda: statement("stock_balance_sheet_by_report_em"),
    "stock_cash_flow_sheet_by_report_em": lambda: statement("stock_cash_flow_sheet_by_report_em"),
    "stock_notice_report": notices,
    "stock_news_em": stock_news,
    "stock_info_global_em": global_news,
    "stock_lhb_detail_em": lhb_detail,
    "stock_lhb_stock_detail_em": lhb_seats,
    "tool_trade_date_hist_sina": sina_calendar,
    "stock_yysj_em": appointments,
    "stock_info_sh_name_code": sh_name_code,
    "stock_info_sz_name_code": sz_name_code,
    "stock_info_bj_name_code": bj_name_code,
    "stock_info_sh_delist": sh_delist,
    "stock_info_sz_delist": sz_delist,
    "stock_zh_a_st_em": st_board,
    "stock_tfp_em": tfp,
    "index_stock_cons_weight_csindex": lambda: csindex(
        WEIGHT_CITES, r"closeweight/\d{6}closeweight\.xls", True
    ),
    "index_stock_cons_csindex": lambda: csindex(CONS_CITES, r"cons/\d{6}cons\.xls", False),
    **{function: pool(function) for function in POOL_ITEMS},
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    n = 0
    for function, make in FUNCTIONS.items():
        for kind, content in make().items():
            path = OUT / f"{function}.{kind}.json"
            path.write_text(
                json.dumps(content, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
            )
            n += 1
    print(f"wrote {n} reply files under {OUT}")


if __name__ == "__main__":
    main()
