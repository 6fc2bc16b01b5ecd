"""The values and subjects of change and use statements (`memory.engine.changes`): how a
parsed value or subject is cleaned, and how two of them compare. Plain Python.

A value is compared on normalised words (NFKC, case-folded, articles dropped) and lexicon
spellings by their canonical name ("postgres" is PostgreSQL); a count or a machine said with it
is not part of it ("three Hetzner machines", "a Jenkins box" are Hetzner and Jenkins). A subject
is the clause before the verb, without leading discourse words, auxiliaries or a determiner; a
collective one ("we", "our team", 团队) or a pronoun is no subject.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from memory.engine.hant import simplified
from memory.engine.slots import slot_of

_I: Final = re.IGNORECASE
HAN: Final = re.compile(r"[\u4e00-\u9fff]")
ARTICLES: Final = frozenset({"the", "our", "my", "a", "an", "their", "its", "this", "that"})
_LEAD_EN: Final = re.compile(
    r"^(?:(?:ok(?:ay)?|so|also|and|but|then|well|yes|yeah|now|currently|actually|anyway|today"
    r"|though|although"
    r"|please|just|still|always|never|usually|generally|normally|mostly|only|going\s+forward"
    r"|from\s+now\s+on|as\s+of\s+\w+|starting\s+\w+)\b[,:]?\s*)+",
    _I,
)
# "we moved all four clinics from IDEXX to Antech": the whole of the team's sites or shops.
ALL_SITES: Final = re.compile(
    r"\b(?:all|every|each|both)\s+(?:(?:of\s+)?(?:the|our)\s+)?(?:\d+\s+|two\s+|three\s+"
    r"|four\s+|five\s+|six\s+|seven\s+|eight\s+|nine\s+|ten\s+)?(?:sites?|clinics?|stores?"
    r"|shops?|branch(?:es)?|offices?|locations?|restaurants?|venues?|depots?|warehouses?|studios?"
    r"|labs?|teams?|schools?|campuses?|practices?|hotels?)\b",
    _I,
)
_COLLECTIVE_EN: Final = re.compile(
    r"^(?:we|i|they|let'?s|let\s+us|everyone|everybody|(?:the|our|my)\s+(?:whole\s+)?"
    r"(?:team|company|org|organi[sz]ation|group|department|startup|family|household))\b"
    rf"|^{ALL_SITES.pattern}",
    _I,
)
_PRONOUN_EN: Final = re.compile(
    r"^(?:it|this|that|these|those|them|he|she|you|everything|all\s+of\s+(?:it|them))\s*$", _I
)
_AUX_TAIL_EN: Final = re.compile(
    r"(?:\s+(?:will|shall|should|must|can|is|are|am|was|were|has|have|had|been|being|now|currently"
    r"|still|also|all|just|finally|already|officially|to|do|does|did|decided|going|gonna|want"
    r"|need|plan|planning|agreed|get|gets|got|'ll|'s|'re|'ve|fully|entirely))+\s*$",
    _I,
)
_DETERMINER_EN: Final = re.compile(r"^(?:the|our|my|their|its|a|an|this|that|your)\s+", _I)
_LEAD_ZH: Final = re.compile(
    r"^(?:上个?月|下个?月|这个?月|本月|今年|去年|明年|昨天|今天|明天|最近|现在|目前|以后|之后|后来"
    # 会 and 要 as the modal, not the first character of 会员/会议/会计…, 要求/要点
    r"|我们|我|咱们|大家|团队|公司|已经|决定|打算|准备|计划|要(?![求点])|会(?![员议计场所长费话谈])"
    r"|都|也|就|还有|对了|还|一直|正在|统一|那就|直接"
    r"|好的?|所以|另外|然后|那|的|用的|，|,|\s)+"
)
_TAIL_ZH: Final = re.compile(
    r"(?:我们组|我们团队|我们|咱们|我|现在|目前|平时|平常|一般|通常|主要|基本上?|已经|全部|全|都|也|就|还"
    r"|一直|正在|直接|统一"
    # "订单服务上周迁到了AWS": when it moved is no part of what moved.
    r"|上个?周末|这个?周末|上周|上个?月|上星期|这周|本周|昨天|前天|今天|今年|去年|前年|最近|刚刚?"
    r"|前几天|周末|春节后|节后|年后"
    r"|决定|打算|要|会|的|了|是|这些|那些|这一?块|那一?块|这一?套|那一?套|这一?层|那一?层|这边|那边|方面|，|,|\s)+$"
)
_MAX_SUBJECT_WORDS: Final = 6


def folded(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed, Simplified (黑貓 is 黑猫): how values and
    subjects compare."""
    return " ".join(simplified(unicodedata.normalize("NFKC", text)).casefold().split())


def value_key(value: str) -> str:
    """A value compared on normalised words: "the Fly.io platform." ~ "fly.io platform";
    lexicon spellings by their canonical name ("postgres" is "postgresql")."""
    text = folded(value).strip(" .,;:!?'\"，。；：！？、")
    words = [w for w in text.split() if w not in ARTICLES]
    text = " ".join(words)
    hit = slot_of(text)
    return hit[1].casefold() if hit is not None else text


def value_of(value: str | None) -> str | None:
    """A parsed value without the sentence's closing punctuation ("Fly.io." is "Fly.io")."""
    if value is None:
        return None
    value = value.strip().rstrip(" .,;:!?。，；：！？")
    # "three Hetzner machines", "a couple of Hetzner boxes": the platform, not the count.
    counted = _COUNTED.fullmatch(value) or _MACHINE.fullmatch(value)
    return (counted.group(1) if counted else value) or None


_COUNTED: Final = re.compile(
    r"(?:a\s+(?:couple|pair|handful)\s+of|a\s+few|several|some|two|three|four|five|six|\d+)\s+"
    r"([A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)\s+(?:machines?|boxes|box|servers?|nodes?|instances?"
    r"|vms?|hosts?|droplets?)",
    re.IGNORECASE,
)


# "a Jenkins box", "the Postgres server": the tool, not the machine it is on.
_MACHINE: Final = re.compile(
    r"([A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)\s+(?:machine|box|server|instance|vm|host|setup"
    r"|install|installation)"
)


# "Priya: …" or "陈静： …" before a statement names who said it, not what it says.
_SPEAKER_LABEL: Final = re.compile(r"^[^\s:：]{1,40}(?:\s[^\s:：]{1,40}){0,2}(?::\s+|：\s*)")


# A space set between Han and Latin text ("文档站已经从 Netlify 搬到 Cloudflare Pages 了"), as
# many write Chinese: the rules read it as if unspaced; spaces inside a Latin name stay.
_HAN_SPACE: Final = re.compile(
    r"(?<=[\u4e00-\u9fff，。：；！？])\s+(?=[A-Za-z0-9])|(?<=[A-Za-z0-9.+#])\s+(?=[\u4e00-\u9fff])"
)


def han_unspaced(text: str) -> str:
    """`text` without the spaces between Han and Latin words."""
    return _HAN_SPACE.sub("", text) if HAN.search(text) else text


def split_label(text: str) -> tuple[str, str]:
    """ "Alex: I don't work at …", as an event's summary says it → ("Alex: ", "I don't …");
    ("", text) when there is no label, or nothing after it."""
    label = _SPEAKER_LABEL.match(text)
    if label is None or not text[label.end() :].strip():
        return "", text
    return label.group(), text[label.end() :]


def same_value(a: str, b: str) -> bool:
    return bool(a) and value_key(a) == value_key(b)


# A version after a tool's name: "Postgres 15", "Unity 2022 LTS", "Python 3.12".
VERSION: Final = re.compile(r"\s+v?\d+(?:\.\d+)*(?:\s+LTS)?$", re.IGNORECASE)
# "我们组用飞书沟通": the speakers' own group is "we" (_LEAD_ZH takes 我们, 团队 and 公司 off).
_COLLECTIVE_ZH: Final = frozenset({"组", "小组", "部门"})
# What a clause is about, before what it says of it: "后端是一个Django单体".
ABOUT_ZH: Final = re.compile(
    r"^([\u4e00-\u9fff]{2,6}?)(?:我们|咱们)?(?:改用|换用|是|用的是|用|跑在|部署在)"
)


def subject_of(prefix: str | None) -> str | None:
    """The subject a clause names before its verb, or None for none or a collective one."""
    if prefix is None:
        return None
    if HAN.search(prefix):
        clauses = re.split(r"[，,；;:：]", prefix.strip())  # "跟你更新下：板材现在…"
        text = _TAIL_ZH.sub("", _LEAD_ZH.sub("", clauses[-1].strip()))  # "提醒一下，监控那套…"
        if not text and len(clauses) > 1:
            # "前端是Next.js写的，直接部署在Vercel上": the clause before says what it is about.
            about = ABOUT_ZH.match(clauses[-2].strip())
            text = about.group(1) if about else ""
        return None if text in _COLLECTIVE_ZH else text or None
    text = prefix.strip(" ,;:")
    if re.search(r"[,:—–]", text):  # "For billing, we …", "Big admin change — we've …"
        text = re.split(r"[,:—–]", text)[-1].strip()
    text = _LEAD_EN.sub("", text)
    if not text or _COLLECTIVE_EN.match(text) or _PRONOUN_EN.match(text):
        return None
    text = _AUX_TAIL_EN.sub("", text)
    text = _DETERMINER_EN.sub("", text).strip(" ,;:")
    if not text or len(text.split()) > _MAX_SUBJECT_WORDS or _PRONOUN_EN.match(text):
        return None
    return text


# "The demo build is due on the 14th": a state, not a thing used.
_STATE_WORDS: Final = frozenset(
    "due scheduled planned expected ready done late over finished booked set".split()  # noqa: SIM905
)
_DATE_WORDS: Final = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december""".split()  # noqa: SIM905
)


_HAN_REFERENCE: Final = re.compile(r"[它他她这那哪啥][个些种样]?")


def names_thing(value: str) -> bool:
    """A value that names something: capitalised, a lexicon tool, with a digit, a dot or a
    capital inside, or a Han word; a day or a month names a time, not a thing used."""
    value = value.strip(" .,;:!?")
    if not value or value.split()[0].casefold() in _DATE_WORDS | _STATE_WORDS:
        return False
    if _HAN_REFERENCE.match(value):
        return False  # "平时都用它写代码", "我们都用这个": a reference, not a name
    if HAN.search(value) or slot_of(value) is not None:
        return True
    if re.search(r"\d|\w\.\w|[a-z][A-Z]", value):  # "ezyVet", "iCloud": a capital inside
        return True
    return any(word[:1].isupper() for word in value.split() if word.casefold() not in ARTICLES)
