"""The cue lexicon of offline event extraction: which wording marks which kind of event.

Kept apart from `memory.engine.offline_events` so the rules read as a table. Each cue is a
case-insensitive pattern over one sentence, English and Chinese side by side. The order of
`KIND_ORDER` is the priority when a sentence matches several kinds (one event per sentence).
"""

from __future__ import annotations

import re
from typing import Final

_I = re.IGNORECASE


def _cue(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(parts), _I)


CANCELLATION: Final = _cue(
    r"\b(?:cancel(?:l?ed|s|ling)?|called\s+off|call(?:ing)?\s+off|scrapped|scrap)\b",
    r"\b(?:we|i)(?:\s+won't|\s+will\s+not|(?:'re|'m|\s+are|\s+am)\s+not\s+going\s+to"
    r"|\s+aren't\s+going\s+to)\b",
    r"取消|作废|不去了|不办了|不做了|不搞了",
)
DECISION: Final = _cue(
    r"\b(?:let'?s|let\s+us)\s+(?:just\s+)?(?:use|switch\s+to|go\s+with|move\s+to|adopt|pick|choose"
    r"|stick\s+with|stay\s+with|migrate\s+to|standardi[sz]e\s+on)\b",
    r"\b(?:we|i)(?:'ll|\s+will|\s+shall|(?:'re|'m|\s+are|\s+am)\s+going\s+to)\s+(?:use|go\s+with"
    r"|switch\s+to|adopt|stick\s+with|standardi[sz]e\s+on)\b",
    r"\b(?:we|i|they|team)\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*decided\b",
    r"\bdecided\s+(?:to|on|that|against)\b|\bthe\s+decision\s+(?:is|was)\b|\bdecision\s*:",
    r"\b(?:we're|we\s+are|i'm|i\s+am)\s+going\s+with\b|\bwe'll\s+go\s+with\b",
    r"^(?:(?:ok(?:ay)?|so|then|alright|right|please)[,!.]?\s+)*(?:use|switch\s+to|go\s+with"
    r"|adopt|stick\s+with)\s+\S",
    r"决定|改用|就用|选用|采用|定了|拍板|统一用|用.{1,20}吧",
)
# Verb forms only: "the migration guide" is not a migration.
MIGRATION: Final = _cue(r"\bmigrat(?:e|ed|es|ing)\b", r"迁移")
CHANGE: Final = _cue(
    r"\b(?:switched|changed|moved|converted|transitioned|swapped)\b.*\b(?:from|to)\b",
    r"\bswitched\b|\bno\s+longer\b|\bnot\b.{1,40}\banymore\b|\bstopped\s+(?:using|doing|going)\b",
    r"\breplaced\b.*\bwith\b",
    r"从.{1,30}(?:换成|改成|改为|切换到|转到|搬到)|换成了|改成了|不再|搬到|搬家到",
)
SAFETY: Final = _cue(
    r"\b(?:allergic|allerg(?:y|ies)|anaphyla\w*|epilep\w*|diabet\w*|asthma)\b",
    r"过敏|哮喘|糖尿病|癫痫",
)
IDENTITY: Final = _cue(
    r"\bmy\s+name\s+is\b|\bcall\s+me\b",
    r"\bi(?:'m|\s+am)\s+(?:an?)\s+(?!bit\b|little\b|lot\b|tad\b|fan\b|big\s+fan\b|huge\s+fan\b)\w",
    r"\bi(?:'m|\s+am)?\s+(?:work|working)\s+(?:at|for|as)\b",
    r"\bi(?:'m|\s+am)?\s+(?:live|living)\s+in\b|\bi(?:'m|\s+am)\s+(?:from|based\s+in)\b",
    r"\bi(?:'m|\s+am)\s+\d{1,3}\s+years?\s+old\b|\bmy\s+(?:job|role|title|pronouns)\s+(?:is|are)\b",
    r"我是(?![说不在想觉真很挺来去否吗])|我叫|我的名字是|我在.{1,20}(?:工作|上班)|我住在|我来自",
)
PREFERENCE: Final = _cue(
    r"\bi\s+(?:really\s+|strongly\s+|much\s+|totally\s+)?(?:prefer|like|love|enjoy|hate|dislike"
    r"|adore|can't\s+stand|don't\s+like|do\s+not\s+like)\b",
    r"\bi\s+(?:always|never|usually)\b|\bmy\s+favou?rite\b",
    r"\bi(?:'m|\s+am)\s+(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of\b",
    r"我(?:更|最|很|非常|特别|比较|真的|也)?(?:喜欢|讨厌|偏好|热爱|爱|不喜欢|受不了)",
    r"我(?:总是|从不|从来不|一直都?)",
)
PLAN: Final = _cue(
    r"\b(?:i|we)(?:'ll|\s+will|\s+shall)\b",
    r"\b(?:i'm|i\s+am|we're|we\s+are)\s+(?:going\s+to|gonna|planning\s+(?:to|on)|about\s+to"
    r"|hoping\s+to)\b",
    r"\bplan(?:ning)?\s+(?:to|on)\b|\bintend\s+to\b|\bmy\s+(?:plan|goal)\s+is\b",
    r"打算|计划|准备|将要|要去|会去|安排",
)
TYPED: Final = (
    (
        "release",
        _cue(
            r"\b(?:released|release|shipped|shipping|launched|launching|deployed|published"
            r"|went\s+live|go\s+live)\b",
            r"发布|上线|发版",
        ),
    ),
    (
        "task_completed",
        _cue(
            r"\b(?:finished|completed|wrapped\s+up|accomplished|done\s+with|got\s+done|graduated)\b",
            r"完成了|做完了|搞定了|毕业了",
        ),
    ),
    (
        "meeting",
        _cue(
            r"\b(?:meeting|met\s+(?:with|up)|meet\s+(?:with|up)|meetup|stand-?up|interview"
            r"|a\s+call\s+with|catch\s+up\s+with|caught\s+up\s+with)\b",
            r"会议|开会|见面|碰头|聚会",
        ),
    ),
    (
        "incident",
        _cue(
            r"\b(?:outage|incident|crashed|crash(?:es|ing)?|went\s+down|broke|bug|failure"
            r"|data\s+loss)\b",
            r"故障|宕机|崩溃|事故|出错|挂了",
        ),
    ),
    (
        "collaboration",
        _cue(
            r"\b(?:collaborat\w*|partnered|teamed\s+up|pair(?:ed)?\s+with|worked\s+with)\b",
            r"合作|协作",
        ),
    ),
)
# An assistant restating memory is not new evidence (notes §5.2): such sentences are skipped.
RECALL: Final = _cue(
    r"\b(?:you\s+(?:said|mentioned|told\s+me)|as\s+you\s+(?:said|mentioned)|according\s+to\s+"
    r"(?:my|your|the)\s+(?:memory|memories|notes)|i\s+remember\s+that|previously\s+you)\b",
    r"你说过|你提到|我记得|根据记忆|之前你说",
)
FIRST_PERSON: Final = _cue(r"\b(?:i|i'm|i've|i'd|me|my|mine|we|we're|we've|us|our)\b", r"我")
PROJECT_WORDS: Final = _cue(
    r"\b(?:project|prototype|repo|repository|codebase|code|build|deploy\w*|feature|release|api"
    r"|server|database|sprint|deadline|ticket|migration|frontend|backend|ci|pr|tests?)\b",
    r"项目|代码|上线|发布|接口|数据库|服务器|前端|后端",
)
# Leading discourse words dropped from titles.
FILLER_PREFIX: Final = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|alright|yes|yeah|sure|great|cool|hmm+|also|and|but|then|right"
    r"|actually|anyway|btw|by\s+the\s+way)\b[,!.;:]?\s*|(?:好的?|嗯+|那就|那么|所以|另外|对了)[，,。！\s]*)+",
    _I,
)
LETS_PREFIX: Final = re.compile(r"^(?:let'?s|let\s+us)\s+", _I)
# A word list reads best as words; the split happens once at import.
STOP_WORDS: Final = frozenset(
    """
    about after again also always an and any are because been before being both but can could
    did does doing done each even ever every for from going gonna have having here into just
    know later let lets like love made make many maybe more most much must need never next not
    now only other our ours over prefer really same should since some still such than that the
    their them then there these they thing things think this those through today tomorrow
    very want was week were what when where which while will with would yesterday your yours
    you i'm i've we're we'll it's that's don't didn't won't can't let's went got called caused
    last night ago days weeks months years month year morning evening afternoon tonight weekend
    monday tuesday wednesday thursday friday saturday sunday switch switched decided decide
    going work works live lives okay sure thanks
    """.split()  # noqa: SIM905
)
