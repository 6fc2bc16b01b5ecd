"""A result said with its figures: "March wrap-up: 18,400 tonnes received across both sites",
"January numbers landed, digital subs at 6,240, up 310 from December", 上个月路考通过率83%,
二月份六家店一共接了2130台车. Something that came out, counted, worth keeping as it happened;
not a standing count ("We have 40 people in the newsroom", 我们在重庆一共6家门店), a plan or a
question.
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine.change_terms import HAN

# A counted figure: a share, a thousand, a score, or a number before what it counts.
_FIGURE_EN: Final = re.compile(
    r"(?<![\w/:.-])\d[\d,]*(?:\.\d+)?(?:\s*(?:%|percent\b|k\b|/\d+\b)|\s+(?:[a-z-]+\s+){0,2}?"
    r"(?!(?:days?|weeks?|months?|years?|hours?|minutes?|am|pm|times)\b)[a-z-]{3,}s\b)"
    r"|\b(?:up|down)\s+\d[\d,.]*%?",
    re.IGNORECASE,
)
# How the figure came about: counted, sold, received, grown or fallen, at the end of a period.
_OUTCOME_EN: Final = re.compile(
    r"\b(?:got|sold|received|pulled|hit|reached|raised|scored|rated|landed|wrapped|came\s+in"
    r"|came\s+to|brought\s+in|grew|rose|fell|dropped|jumped|signed\s+up|booked|closed|finished"
    r"|shipped|processed|handled|served|collected|up|down|wrap-up|numbers|avg|average|averaged"
    r"|spent|done|uptime|on\s+time|utili[sz]ation|median)\b",
    re.IGNORECASE,
)
# A comparison with a budget is no budget set: "$38,650 spent against a $44,200 budget".
_AGAINST_BUDGET: Final = re.compile(
    r"\b(?:against|over|under)\s+(?:a|the|our)\s+\S+\s+budget\b", re.I
)
_NOT_DONE_EN: Final = re.compile(
    r"\b(?:will|won't|'ll|going\s+to|gonna|plan(?:ning)?|hope|hoping|expect(?:ing)?|target"
    r"|goal|aim(?:ing)?|if|should|could|would|need|needs|next|tomorrow|forecast|budget(?:ed)?"
    r"|estimate[sd]?|projected)\b",
    re.IGNORECASE,
)
_FIGURE_ZH: Final = re.compile(
    r"\d[\d,]*(?:\.\d+)?\s*(?:%|％|万|萬|千|个|個|台|盒|人|次|分|单|單|件|箱|吨|噸|元|块|塊|位|单|单"
    r"|份|桌|车|車|辆|輛|张|張|瓶|斤|公斤|kg)|百分之|个百分点|個百分點|[一二三四五六七八九十两兩几幾]成"
    r"|[一二两兩三几幾\d]倍"
    # A score or a place: "才98", "408考了96", "数一112", "拿了…第二", "进了八强", "一次过".
    r"|(?:才|考了|得了|数[一二三])\s*\d+|第[一二三四五六七八九十\d]+名?(?=[，。！,.!]|$)"
    r"|冠军|亚军|季军|[金银铜]牌|[八四]强|决赛|一次过"
    # "从80降到72": a rise or a fall between two figures.
    r"|从\s*\d[\d.,]*[^，。！？\d]{0,4}?(?:涨|漲|降|增加|减少|提升|下降|提高)到\s*\d"
)
# Counted as it came out: a rate, a total that rose or fell, a score given, a count done.
_OUTCOME_ZH: Final = re.compile(
    r"率|比[^，。！？；]{0,10}(?:高|多|涨|漲|增|降|少|低|提升|下滑)了?|打了|达到|達到|卖了|賣了"
    r"|接了|收了|完成了|加起来|加起來|共计|共計|结果出来|結果出來"
    # "从1.9万单涨到2.3万单", "评分也出来了，平均87.3分", "拿了…第二", "做完一套真题，才98".
    r"|(?:涨|漲|降|增加|减少|提升|下降|提高)到|出来了|出來了|平均|考了|拿了|进了|進了|做完|交了"
    r"|签了|簽了|谈下来|談下來|一次过|才\d"
)
_NOT_DONE_ZH: Final = re.compile(
    r"要|将|將|(?<!开)会(?![员議议计計])|會(?![員議])|打算|计划|計劃|准备|準備|预计|預計|目标|目標|争取|爭取|希望|明天|下(?:周|週|个月"
    r"|個月|礼拜|禮拜|季度)|明年|如果|假如|应该|應該|多少|吗|嗎"
)


def states_result(sentence: str) -> bool:
    """Whether the sentence reports figures that came out (see the module's doc)."""
    if _FIGURE_ZH.search(sentence) and HAN.search(sentence):
        return bool(_OUTCOME_ZH.search(sentence)) and not _NOT_DONE_ZH.search(sentence)
    return (
        bool(_FIGURE_EN.search(sentence))
        and bool(_OUTCOME_EN.search(sentence))
        and not _NOT_DONE_EN.search(_AGAINST_BUDGET.sub("", sentence))
    )
