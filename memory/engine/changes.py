"""Change statements and what they supersede (issue 29: supersession beyond the fixed slots).

A plain-Python rule shared by the offline processor and the model path: the offline rules use
`parse_change` / `plain_use` to tell that a sentence states an event at all, and the service
that stores extracted events (`memory.services.supersession`) asks
`memory.engine.change_ends.change_supersedes` (the matching half) about a bounded set of the
namespace's recent active events.

`parse_change` reads one statement as (subject X, old value A, new value B, kind), English and
Chinese, case-insensitive:

- switch: "switch/move/migrate/port [X] from A to B", "… to B from A", "move X off A onto B",
  "把X从A换成/迁移到B", "X从A换成B"; without "from": "we moved the billing service to Fly.io"
  (X, B), "把数据迁移到新集群";
- replace: "replace A with B", "A was replaced by B", "用B替换/代替/取代A", "把A换成B";
- instead: "instead of A, use B", "use B instead of A", "X now uses B instead of A";
- stop: "we no longer use A", "we don't use A anymore", "stopped using A", "不再用A", "不用A了";
- now: "X now runs on B", "X is now hosted on B", "we now use B", "改用B", "X现在跑在B上".

Articles and possessives ("the", "our") are dropped, a trailing clause ("… because it is
cheaper", "for caching", "next week") ends a value, and a collective subject ("we", "our team",
"团队") counts as no subject. A hedged or negated statement ("should we switch…", "we won't
move…", "考虑换成…") is not clearly a change and parses as none.

`change_ends.change_supersedes(change, texts)` is True when an earlier event's texts (summary,
title, quotes) state a use the change ends:

- with an old value A: the event states A as the thing used (`plain_use`: "we deploy the
  billing service on Heroku", "use Heroku", "账单服务用MySQL", or an earlier change's new value)
  for the same subject; with no subject on the change, any subject; for a subject said in
  other words that shares a word with it ("实验记录" / "实验管理", Han text by its first two
  characters); and, when the change's subject is a team function ("on-call", "error
  tracking"), for a use said of the whole project ("we use PagerDuty for paging");
- with only a new value B (a move or "now runs on"): the event states another value for the
  same subject in the same role (hosting: deploy/run/host on; or the same tool slot), or, with
  no subject, another value of B's slot (`memory.engine.slots`).

What it must NOT do: supersede an event that only mentions A in passing ("Heroku's pricing page
is confusing", "we moved off Heroku's free tier last year" says no use of A), an event about a
different subject ("the search service runs on Heroku" is not ended by moving the billing
service), an event that already says A is not used ("we no longer use Redis"), or a general
statement ("we deploy on Heroku") when the change names one subject: the other services may
still be there. Values and subjects compare on normalised words (NFKC, case-folded, articles
dropped, canonical tool names); subjects as five-letter stems without generic words
("service", "app"), Han text as a substring.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final

from memory.engine.change_terms import (
    ALL_SITES,
    HAN,
    han_unspaced,
    names_thing,
    same_value,
    split_label,
    subject_of,
    value_of,
)
from memory.engine.hant import simplified
from memory.engine.offline_entities import CALENDAR_WORDS, ZH_ROLES, known_tool
from memory.engine.offline_relations_zh import ZH_PERSON, zh_corrected
from memory.engine.plain_clauses import corrected

# The shapes of values and subjects, shared with the uses (short names keep the tables legible).
from memory.engine.plain_uses import HOSTING, USING, Use, plain_use
from memory.engine.plain_uses import THING_EN as _X
from memory.engine.plain_uses import VALUE_EN as _V
from memory.engine.plain_uses import VALUE_ZH as _ZV
from memory.engine.plain_uses import role_of as _role

__all__ = [
    "HOSTING",
    "USING",
    "Change",
    "Use",
    "parse_change",
    "plain_use",
    "said_of_others",
    "stated_uses",
]

_I: Final = re.IGNORECASE


@dataclass(frozen=True, slots=True)
class Change:
    """A statement that something changed: X moved from A to B, A replaced, A dropped."""

    kind: str  # switch | replace | instead | stop | now
    subject: str | None
    old: str | None
    new: str | None
    role: str = USING  # "host" when the value is where X runs (deploy/host/run on, move to)


# -- hedges and the words of a change (values and subjects: `plain_uses`) ---------------------

_HEDGE_EN: Final = re.compile(
    r"\b(?:not|never|should\s+we|shall\s+we|could|might|maybe|perhaps|whether|if|consider"
    r"|considering|thinking\s+(?:about|of)|propos\w*|suggest\w*|what\s+if|wonder\w*|unless"
    r"|would|why|how)\b|n't\b|\?",
    _I,
)
_HEDGE_ZH: Final = re.compile(r"不|没|别|考虑|也许|可能|要不要|是否|如果|建议|能不能|会不会|吗|？")
_ZM: Final = r"(.{1,30}?)"  # a Chinese value followed by more of the pattern
# No longer used, said after the tool: "已经彻底不用了".
_ZH_NO_MORE: Final = r"(?:已经|早就|现在)?(?:彻底|完全|都|也)?(?:不(?:再)?用了|停用了)"
_ZH_TO: Final = (
    r"(?:换成|改成|改为|切换到|切换成|切到|迁移到|迁到|转到|搬到|换到|迁至|迁移至|改到|升级成|升级到"
    r"|升级为|替换成)了?"
)

# "The billing service is on Fly.io now": "now" said last, of a known technology only ("Priya is
# on PTO now" is no change of tool).
_NOW_SAID_LAST: Final = re.compile(
    r"^(.*?)\b(?:is|are)\s+(?:all\s+|fully\s+)?(?:on|running\s+on|hosted\s+on|deployed\s+(?:on|to)"
    r"|using)\s+(?:the\s+)?([\w.+#/-]+(?:\s+[\w.+#/-]+){0,2}?)\s+now\b",
    _I,
)
_SWITCH_VERB: Final = (
    r"(?:\b(?:switch|mov|migrat|chang|convert|port|transition|swap|shift|upgrad|downgrad)"
    r"(?:e|es|ed|ing|s)?\b"
    # "we cut every interface over from Rhapsody to Mirth Connect", "we cut over from …": a
    # cutover.
    r"|\bcut(?:\s+over(?=\s+from\b)|(?=\s+(?:[\w-]+\s+){1,3}over\s+from\b)))"
)
# Verbs that end a use: "we retired Jenkins", "dropped Jira".
_ENDED: Final = (
    r"(?<!\ba\s)(?<!\ban\s)(?<!\bthe\s)(?<!\bour\s)(?:ditched|dropped|retired|abandoned|gave\s+up\s+on"
    r"|decommissioned|deprecated|phased\s+out|sunset(?:ted)?)"
)  # not an adjective: "a retired firefighter"
_CALENDAR: Final = "|".join(sorted(CALENDAR_WORDS))  # "we're off Monday" left no tool
_CHANGES_EN: Final = (
    # switch/move/migrate [X] from A to B
    ("switch", "xab", re.compile(rf"{_SWITCH_VERB}\s+{_X}(?:over\s+)?(?:from|off(?:\s+of)?)\s+{_V}"
                                 rf"\s+(?:over\s+)?(?:to|onto|into|for)\s+{_V}", _I)),
    # … [X] to B from A
    ("switch", "xba", re.compile(rf"{_SWITCH_VERB}\s+{_X}(?:over\s+)?(?:to|onto|into)\s+{_V}"
                                 rf"\s+(?:from|off)\s+{_V}", _I)),
    # replace A with B; A was replaced by B
    ("replace", "ab", re.compile(rf"\breplac(?:e|es|ed|ing)\s+{_V}\s+(?:with|by|for)\s+{_V}", _I)),
    ("replace", "ab", re.compile(rf"^(?:the\s+|our\s+)?(.+?)\s+(?:was|were|has\s+been|have\s+been"
                                 rf"|is\s+being|got|is|gets)\s+replaced\s+(?:with|by)\s+{_V}", _I)),
    # retire/drop A in favour of B; A was retired in favour of B
    ("replace", "ab", re.compile(rf"\b(?:{_ENDED})\s+{_V}\s+in\s+favou?r\s+of\s+{_V}", _I)),
    ("replace", "ab", re.compile(rf"^(?:the\s+|our\s+)?(.+?)\s+(?:was|were|has\s+been|have\s+been"
                                 rf"|is|are|got)\s+(?:{_ENDED})\s+in\s+favou?r\s+of\s+{_V}", _I)),
    # went from A to B, both named: "Our CI went from CircleCI to Buildkite in May"
    ("switch", "xab", re.compile(rf"\bwent\s+{_X}from\s+(?=(?-i:[A-Z])){_V}\s+to\s+"
                                 rf"(?=(?-i:[A-Z])){_V}", _I)),
    # swapped A for B: "We swapped Datadog for Grafana Cloud"
    ("replace", "ab", re.compile(rf"\bswap(?:s|ped|ping)?\s+{_V}\s+(?:out\s+)?for\s+{_V}", _I)),
    # "I also ditched InvoiceXpress for Moloni", "we swapped dbt out for SQLMesh".
    ("replace", "ab", re.compile(rf"\b(?:ditched|dropped|swapped|traded|replaced)\s+{_V}\s+"
                                 rf"(?:out\s+)?for\s+(?=(?-i:[A-Z])){_V}", _I)),
    # sold A and bought B: "We sold the Honda and bought a Toyota Aqua"
    ("replace", "ab", re.compile(rf"\bsold\s+{_V}\s+and\s+(?:then\s+)?bought\s+{_V}", _I)),
    # instead of A, use B
    ("instead", "ab", re.compile(rf"\binstead\s+of\s+{_V}\s*,?\s*(?:(?:we|i|let'?s|let\s+us)"
                                 rf"(?:'ll|\s+will|\s+now|\s+should|\s+are\s+going\s+to)?\s+)?"
                                 rf"(?:use|go\s+with|pick|adopt|choose|switch\s+to|move\s+to"
                                 rf"|run\s+on|deploy\s+(?:on|to)|host\s+on)\s+{_V}", _I)),
    # use B instead of A
    ("instead", "pba", re.compile(rf"^(.*?)\b(?:use|uses|using|used|go\s+with|went\s+with|run\s+on"
                                  rf"|runs\s+on|deploy\s+(?:on|to)|deploys\s+(?:on|to)|host\s+on"
                                  rf"|hosts\s+on)\s+{_V}\s+instead\s+of\s+{_V}", _I)),
    # X is handled by B (now) instead of A: "Auth is handled by Clerk now instead of Auth0"
    ("instead", "pba", re.compile(rf"^(.*?)\b(?:is|are)\s+(?:now\s+)?(?:handled|done|run|served"
                                  rf"|managed)\s+(?:by|with|in|through|on)\s+{_V}\s+(?:now\s+)?"
                                  rf"instead\s+of\s+{_V}", _I)),
    # instead of A, X (now) goes through B: "Instead of Opsgenie, on-call alerts now go through
    # PagerDuty"
    ("instead", "axb", re.compile(rf"\binstead\s+of\s+{_V}\s*,\s*(?:the\s+|our\s+)?(.+?)\s+"
                                  rf"(?:now\s+)?(?:go(?:es)?\s+(?:now\s+)?(?:through|via)"
                                  rf"|(?:is|are)\s+(?:now\s+)?(?:routed|sent|handled|done)\s+"
                                  rf"(?:through|via|in|with|by))\s+{_V}", _I)),
    # "Instead of Mailchimp we now send newsletters with Buttondown"
    ("instead", "axb", re.compile(rf"\binstead\s+of\s+{_V}\s*,?\s*(?:we|i)\s+(?:now\s+)?"
                                  rf"(?:send|route)\s+(?:the\s+|our\s+)?(.+?)\s+"
                                  rf"(?:through|via|with|using)\s+{_V}", _I)),
    # we no longer use A; X no longer runs on A; stopped using A; don't use A anymore
    ("stop", "pa", re.compile(rf"^(.*?)\bno\s+longer\s+(?:use|uses|need|needs|run\s+on|runs\s+on"
                              rf"|deploy\s+(?:on|to)|deploys\s+(?:on|to)|host\s+on|is\s+on"
                              rf"|are\s+on|rely\s+on|relies\s+on|using|on)\s+{_V}", _I)),
    # "Central IT made every department get off Jira SM".
    ("stop", "pa", re.compile(rf"^()(?:.*?)\b(?:(?:made|forced|had)\s+(?:[\w-]+\s+){{0,3}}get"
                              rf"|got|gotten)\s+off\s+(?:of\s+)?"
                              rf"(?=(?-i:[A-Z])){_V}", _I)),
    # "crash reporting moved off Sentry" (where it went, if said, is read by the "switch" forms).
    ("stop", "pa", re.compile(rf"^(.*?)\b(?:moved|migrated|switched)\s+(?:away\s+)?(?:off(?:\s+of)?"
                              rf"|away\s+from)\s+{_V}", _I)),
    ("stop", "pa", re.compile(rf"^(.*?)\b(?:stopped|quit)\s+(?:using|running\s+on|deploying\s+"
                              rf"(?:on|to)|hosting\s+on)\s+{_V}", _I)),
    ("stop", "pa", re.compile(rf"^(.*?)\b(?:got\s+rid\s+of|dropped\s+support\s+for|{_ENDED})"
                              rf"\s+{_V}", _I)),
    # A named product being left: "we're off ezyVet" (not "we're off Monday", "I'm off work"),
    # "we're ditching Dentrix", "we're done with Can-Do Kevin's". Said of "we": the team's use,
    # whatever opens the sentence ("Big one though: we're …").
    ("stop", "pa", re.compile(rf"^()(?:.*?\b)?(?:we're|we\s+are|we've(?:\s+moved)?|we\s+have)\s+"
                              rf"(?:finally\s+|now\s+|officially\s+)?"
                              rf"(?:off\s+(?!(?:{_CALENDAR})\b)(?=(?-i:[A-Z]|[a-z]+[A-Z]))"
                              rf"|(?:ditching|dumping|dropping|done\s+with)\s+(?=(?-i:[A-Z]))){_V}",
                              _I)),
    ("stop", "pa", re.compile(rf"^(.*?)\b(?:don't|do\s+not|doesn't|does\s+not)\s+(?:use|run\s+on"
                              rf"|need)\s+{_V}\s+(?:anymore|any\s+more)\b", _I)),
    # "I'm not using Chrome anymore", "We aren't using Jira any more".
    ("stop", "pa", re.compile(rf"^(.*?)(?:\b(?:i'm|i\s+am|we're|we\s+are|(?:it|he|she)(?:'s|\s+is))"
                              rf"\s+not|\b(?:we|they)\s+aren't|\b(?:it|he|she)\s+isn't)\s+"
                              rf"(?:using|running\s+on)\s+{_V}\s+(?:anymore|any\s+more)\b", _I)),
    # X now runs on B; X is now hosted on B; we now use B
    ("now", "pb", re.compile(rf"^(.*?)\b(?:(?:is|are)\s+)?now\s+(?:runs?\s+on|is\s+running\s+on"
                             rf"|lives\s+on|(?:is\s+|are\s+)?(?:hosted|deployed|running)\s+(?:on|to|at)"
                             rf"|is\s+on|are\s+on|on"
                             rf"|uses|use|using|deploys?\s+(?:on|to))\s+{_V}", _I)),
    ("now", "pb", _NOW_SAID_LAST),
    # move/migrate X to B (no from)
    ("switch", "xb", re.compile(rf"{_SWITCH_VERB}\s+{_X}(?:over\s+)?(?:to|onto)\s+{_V}", _I)),
    # "We moved inventory into ShelfWise": into a named tool (not "moved into a new flat").
    ("switch", "xb", re.compile(rf"{_SWITCH_VERB}\s+{_X}into\s+(?=(?-i:[A-Z])){_V}", _I)),
    # back to an earlier choice: "I've gone back to Vim", "we went back to Jenkins"
    ("now", "pb", re.compile(rf"^(.*?)\b(?:gone|went|going|switched|moved|reverted|come|came)\s+"
                             rf"back\s+to\s+(?=(?-i:[A-Z])){_V}", _I)),
    # "We rewrote the API in Go": what it is written in now.
    ("switch", "xb", re.compile(rf"\brewr(?:ote|itten|ite|iting)\s+{_X}in\s+{_V}", _I)),
)  # fmt: skip
_CHANGES_ZH: Final = (
    ("switch", "xab", re.compile(rf"把(.+?)从{_ZM}{_ZH_TO}{_ZV}")),
    ("switch", "pab", re.compile(rf"^(.*?)从{_ZM}{_ZH_TO}{_ZV}")),
    ("replace", "ba", re.compile(rf"用{_ZM}(?:替换|代替|取代|替代)(?:了|掉)?{_ZV}")),
    ("replace", "ab", re.compile(rf"把{_ZM}(?:换成|替换成|改成)了?{_ZV}")),
    (
        "switch",
        "xb",
        re.compile(rf"把(.+?)(?:迁移到|迁到|搬到|换到|切换到|迁至|迁移至)了?{_ZV}"),
    ),
    # "反欺诈引擎已经迁到华为云了": the subject opens the clause (a named one only, see _parse_zh).
    (
        "switch",
        "xb",
        re.compile(
            rf"^([^，,。把从]+?)(?:迁移到|迁到|换到|切换到|切换成|切到|迁至|迁移至|换成"
            rf"|替换成|升级成|升级到|升级为)了?{_ZV}"
        ),
    ),
    (
        "stop",
        "pa",
        re.compile(rf"^(.*?)(?:不再|已经不|再也不)(?:使用|用|采用|依赖|跑在|部署在){_ZV}"),
    ),
    ("stop", "pa", re.compile(rf"^(.*?)(?:停用了?|弃用了?|去掉了?){_ZV}")),
    # "订单服务不跑在阿里云上了，迁到了腾讯云": where it no longer runs, then where it went.
    ("stop", "pa", re.compile(rf"^(.*?)不(?:再)?(?:跑在|部署在|运行在|托管在){_ZV}上?了")),
    # "……，不用ELK了": a named tool no longer used (not "不用担心了", no need to worry)
    (
        "stop",
        "pa",
        re.compile(
            r"^(.*?)不(?:再)?用([A-Za-z][A-Za-z0-9.+#-]*(?:\s+[A-Za-z][A-Za-z0-9.+#-]*){0,3})了"
        ),
    ),
    # "记账不用随手记了，现在改用鲨鱼记账": a Han name no longer used, said with what replaces it.
    (
        "stop",
        "pa",
        re.compile(
            r"^(.*?)不(?:再)?用(?!担心|着急|急|怕|管|理|去|来|说|想|做|等)([\u4e00-\u9fff]{2,6}?)了?[，,](?=(?:现在|目前|已经)?(?:改用|换用|换成|转用|改成|改为))"
        ),
    ),
    (
        "now",
        "pb",
        re.compile(rf"^(.*?)(?:现在|目前)(?:改)?(?:跑在|部署在|运行在|托管在|放在){_ZV}"),
    ),
    # "会员系统我们之前用健客云，现在换成氧气管家了": what was used before, then what replaced it.
    (
        "switch",
        "pab",
        re.compile(
            rf"^(.*?)(?:之前|以前|原来|本来)(?:一直|都)?(?:用的是|用的|用|在用|是){_ZM}[，,]"
            rf"[^，,。]{{0,8}}?(?:换成|改成|改用|换用|切到|切换到|迁到|换到)了?{_ZV}"
        ),
    ),
    # "FeastPOS合同到期没续，从这周起改用MenuKit": a contract not renewed, then what replaces it.
    (
        "stop",
        "pa",
        re.compile(
            r"^(.*?)([A-Za-z][A-Za-z0-9.+#-]*(?:\s+[A-Za-z][A-Za-z0-9.+#-]*){0,2}|[\u4e00-\u9fff]{2,6}?)"
            r"(?:的)?(?:合同|订阅|服务|年费|授权)(?:已经)?到期了?(?:就|也|后)?(?:没|不)(?:再)?续"
        ),
    ),
    ("now", "pb", re.compile(rf"^(.*?)(?:改用|换用|改为使用|转用)了?{_ZV}")),
    # "后期那块Premiere已经彻底不用了", "会员系统有赞不用了": the tool said first, then dropped.
    (
        "stop",
        "pa",
        re.compile(
            r"^(.*?)(?<![A-Za-z])([A-Za-z][A-Za-z0-9.+#-]*(?:\s+[A-Za-z0-9.+#-]+){0,2})"
            rf"{_ZH_NO_MORE}"
        ),
    ),
    (
        "stop",
        "pa",
        re.compile(
            rf"^(.*?(?:系统|那块|这块|那边|软件|平台|工具))([\u4e00-\u9fff]{{2,6}}?){_ZH_NO_MORE}"
        ),
    ),
    # "板材现在全改从千年舟进了": a supplier changed.
    (
        "now",
        "pb",
        re.compile(
            r"^(.*?)(?:现在|已经|目前)?(?:全|都|全部)?改(?:从|找)([\u4e00-\u9fffA-Za-z]{2,10}?)"
            r"(?:那边|那里|那)?(?:进货|拿货|采购|订货|进|拿|买)"
        ),
    ),
    # "前端已经用React重写了": rewritten in B
    ("switch", "xb", re.compile(rf"^([^，,。把从用]+?)(?:已经)?(?:改)?用{_ZM}重写")),
)
_ZH_THEN_USE: Final = re.compile(
    rf"(?:改用|换用|改为使用|转用|换成|改成|改为|迁到|迁移到|搬到|换到|切到|切换到)了?{_ZV}"
    # "…不用了，现在全在趣运动上": where it all is now.
    rf"|(?:现在|目前)(?:全|都|全部)?在{_ZV}"
)
_ZH_NEGATED_STOP: Final = re.compile(r"(?:不再|已经不|再也不|停用|弃用|去掉|不用)")

# -- parsing ----------------------------------------------------------------------------------


def parse_change(text: str) -> Change | None:
    """The change `text` states, or None (see the module docstring for the forms)."""
    # Traditional Chinese read as Simplified (`engine.hant`): values compare either way.
    sentence = han_unspaced(split_label(simplified(unicodedata.normalize("NFKC", text)).strip())[1])
    if HAN.search(sentence):
        found = _parse_zh(sentence)
        if found is not None:
            return found
    return _parse_en(sentence)


def _parse_en(sentence: str) -> Change | None:
    for kind, shape, pattern in _CHANGES_EN:
        match = pattern.search(sentence)
        if match is None:
            continue
        values = dict(zip(shape, match.groups(), strict=True))
        if pattern is _NOW_SAID_LAST and known_tool(values["b"] or "") is None:
            continue
        before = sentence[: match.start()]
        # A stop statement carries its own negation ("no longer", "don't … anymore"): only what
        # comes before it may hedge it. Any other change is hedged by anything up to its end
        # ("we won't switch …", "should we move … ?").
        guard = values["p"] or "" if kind == "stop" else sentence[: match.end()]
        if kind == "stop":
            guard = f"{before}{guard}"
        if _HEDGE_EN.search(guard):
            return None
        if "x" in shape:  # "move X to B", or "X moved to B" with the subject before the verb
            raw = values["x"] if values["x"] is not None else before
        else:
            raw = values.get("p")
        subject = subject_of(raw)
        new = values.get("b")
        if (
            shape == "xb"
            and not names_thing(new or "")
            and (subject is None or _NO_THING.match(subject))
        ):
            # "we moved to the next item": nothing named to supersede by; "stacked PRs make large
            # changes much easier to review": "changes" a noun, and no thing moved
            return None
        if kind == "stop" and new is None:
            # "we've stopped using Xero. Invoicing moved over to QuickBooks": what replaced it,
            # said next with no old value of its own.
            then = _parse_en(sentence[match.end() :].lstrip(" .;,"))
            if then is None and "a" in shape:
                # "ticketing is on TeamDynamix now. Central IT made every department get off Jira
                # SM": what replaced it, said in the sentence before.
                earlier = _SENTENCE_END.split(sentence[: match.start(shape.index("a") + 1)])
                then = _parse_en(earlier[-2]) if len(earlier) > 1 else None
            if then is not None and then.new is not None and then.old in (None, values.get("a")):
                new = then.new
        return Change(
            kind, subject, value_of(values.get("a")), value_of(new), _role(match.group(0))
        )
    return _now_use_en(sentence)


_SENTENCE_END: Final = re.compile(r"(?<=[.!?])\s+")
# Words that open no subject of a move: "changes much easier to review", "Morag's moved across to
# be marine superintendent".
_NO_THING: Final = re.compile(
    r"(?:much|more|less|very|so|way|far|too|quite|across|along|around|away|up|back|out)\b", _I
)


# A plain use said as what holds from now on ("payments now go through Adyen", "going forward
# we deploy the frontend to Netlify"), and what it no longer is (", not S3", "instead of …").
_NOW_EN: Final = re.compile(
    r"(?:,\s*)?\b(?:from\s+now\s+on|going\s+forward|these\s+days|nowadays|now"
    # "Everything is on Hetzner since March": what holds since a past time, said now.
    r"|since\s+(?:(?:early|mid|late|the\s+(?:start|end)\s+of)\s+)?(?:january|february|march|april"
    r"|may|june|july|august|september|october|november|december|last\s+(?:week|month|year"
    r"|quarter|spring|summer|fall|autumn|winter)|(?:19|20)\d\d|q[1-4]))\b,?",
    _I,
)
_NOT_OLD_EN: Final = re.compile(
    rf"(?:,\s*|\s+)(?:not|instead\s+of|rather\s+than)\s+{_V}\s*[.!]?\s*$", _I
)


def _now_use_en(sentence: str) -> Change | None:
    """A plain use with a now-marker, as a change to its value (`_NOW_EN`)."""
    if not _NOW_EN.search(sentence):
        return None
    ended = _NOT_OLD_EN.search(sentence)
    rest = sentence[: ended.start()] if ended else sentence
    if _HEDGE_EN.search(rest):
        return None
    # "Rota's on Deputy now, crew can …": the clause still ends where the comma was.
    use = plain_use(_NOW_EN.sub(lambda m: ", " if m.group().endswith(",") else " ", rest))
    if use is None:
        return None
    old = value_of(ended.group(1)) if ended else None
    return Change("now", use.subject, old, use.value, use.role)


_ZH_NOT_DONE: Final = re.compile(r"(?:没有|没|不会|不|别)$")


_ZH_DROPPED: Final = re.compile(
    r"[，,]\s*(?:也)?(?:不再|不)(?:用|使用)([^，。,.！!；;]{2,20}?)了?(?=[，。,.！!；;]|$)"
    # "…，兔宝宝那边价格谈不拢，不合作了": a supplier no longer worked with.
    r"|[，,]\s*([^，。,.！!；;\s]{2,8}?)那边[^。.！!；;]{0,16}?(?:不合作了|不再合作|停止合作)"
    # "…，黑猫这个月开始就不再用": what is dropped said first.
    r"|[，,]\s*([^，。,.！!；;\s]{2,8}?)(?:这个月|下个月|下周|从现在|以后)?(?:开始|起)?(?:就|也)?"
    r"(?:不再用|不用了|停用了?)(?=[，。,.！!；;]|$)"
)


_WE_ZH_OPENING: Final = re.compile(r"^(?:我们|咱们)(?:公司|团队|组)?")


def _parse_zh(sentence: str) -> Change | None:
    for kind, shape, pattern in _CHANGES_ZH:
        match = pattern.search(sentence)
        if match is None:
            continue
        groups = match.groups()
        values = dict(zip(shape, groups, strict=True))
        prefix = values.get("p", sentence[: match.start()])
        guard = prefix
        if kind == "stop":
            guard = _ZH_NEGATED_STOP.sub("", prefix)
        if _HEDGE_ZH.search(guard) or _HEDGE_EN.search(guard):
            return None
        if _ZH_NOT_DONE.search(values.get("x") or ""):
            return None  # "我们没有迁移到Kubernetes": a move not made
        subject = subject_of(values["x"]) if "x" in values else subject_of(prefix)
        if (
            shape == "xb"
            and "把" not in match.group(0)
            and subject is None
            and not (_WE_ZH_OPENING.match(sentence) and known_tool(values.get("b") or ""))
        ):
            continue  # "我们已经迁到新办公室了": nothing named moved; "…迁到PostgreSQL了" did
        old, new = value_of(values.get("a")), value_of(values.get("b"))
        if new is not None and _OUR_OWN.fullmatch(new):
            # "从有赞迁到我们自己的“茶屿点单”了": the name said after "our own".
            quoted = _QUOTED_NAME.search(sentence, match.start())
            new = quoted.group(1) if quoted else None
        said_of = f"{prefix}{values.get('x') or ''}"
        if new is not None and _ZH_ROLE_END.search(said_of) and ZH_PERSON.match(new):
            return None  # "中班年级组长现在换成王蕾了": who holds a role, not what is used
        if kind == "stop" and new is None:  # "不再用A了，改用B": what replaces A
            then = _ZH_THEN_USE.search(sentence, match.end())
            new = value_of(next(g for g in then.groups() if g)) if then else None
        if kind != "stop" and old is None:  # "改用Notion了，不用印象笔记了": what B replaces
            dropped = _ZH_DROPPED.search(sentence, match.end())
            old = value_of(next(g for g in dropped.groups() if g)) if dropped else None
        return Change(kind, subject, old, new, _role(match.group(0)))
    return None


_OUR_OWN: Final = re.compile(r"(?:我们|咱们|我)?自己(?:的)?|自家(?:的)?")
_QUOTED_NAME: Final = re.compile(r"[“「『\"]([^”」』\"]{2,16})[”」』\"]")
# A role said before a change: whoever holds it is a person, not a tool.
_ZH_ROLE_END: Final = re.compile(rf"(?:长|负责人|师傅|{ZH_ROLES})(?:现在|目前)?$")


def stated_uses(text: str) -> list[Use]:
    """What a statement says is used now: a change's new value, or a plain use."""
    if said_of_others(text):
        return []
    text = corrected(text) or zh_corrected(text)  # "推荐服务不是跑在AWS上的，是跑在阿里云上"
    change = parse_change(text)
    if change is not None and change.new is not None:
        role = change.role
        if ALL_SITES.search(text) and change.subject is None and not known_tool(change.new):
            role = USING  # "we moved all four clinics from IDEXX over to Antech": a supplier
        return [Use(change.subject, change.new, role)]
    # "We use PagerDuty for paging, and the runbooks live in Confluence": each clause's use;
    # "Nobody uses the old wiki anymore, docs live in Notion": what is used beside what ended.
    uses: list[Use] = []
    clauses = _CLAUSES.split(text)
    for clause in [text, *clauses] if len(clauses) > 1 else [text]:
        use = plain_use(clause)
        if use is None:
            continue
        # "Our frontend uses React with TypeScript": a known tool said alongside is used too.
        along = [Use(use.subject, t, use.role) for t in _along(clause, use.value)]
        for found in (use, *along):
            ended = change is not None and same_value(change.old or "", found.value)
            if not ended and not any(same_value(u.value, found.value) for u in uses):
                uses.append(found)
    return uses


_THEIRS: Final = re.compile(r"^(?:他们|她们|they\b|they're\b|they\s+are\b)", _I)


def said_of_others(text: str) -> bool:
    """ "他们没有用React，用的是Vue", "They switched to GitLab CI": another team's stack, not
    this one's."""
    return bool(_THEIRS.match(text.strip()))


_ALONG: Final = re.compile(
    # "… Zoom for standups and Slack for everything else": a purpose may stand between.
    r"(?:\s+for\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)?\s*,?\s+(?:with|and|plus)\s+"
    r"([A-Z][\w+#-]*(?:\.[\w+#-]+)*(?:\s+[A-Z][\w+#-]*)?)"
)


def _along(clause: str, value: str) -> list[str]:
    """Known tools joined to `value` by "with" / "and" / "plus" right after it in `clause`."""
    at = clause.find(value)
    if at < 0:
        return []
    tail = clause[at + len(value) :]
    found: list[str] = []
    while (match := _ALONG.match(tail)) is not None and known_tool(match.group(1)):
        found.append(match.group(1))
        tail = tail[match.end() :]
    return found


# Clauses: "…, and …", "…; …", and a comma before a new subject ("We aren't on GCP, we're on
# AWS"; "We don't use Swarm, everything is on Kubernetes").
_CLAUSES: Final = re.compile(
    r",\s*(?:and|but|while|though|although)\s+|;\s*|[，；]|,\s*(?=(?:we|we're|we've|i|i'm|it|it's|they|they're|everything|everything's)\s)"
    # "…, docs live in Notion": a clause with its own subject and verb of place.
    r"|,\s*(?=(?:the\s+|our\s+|all\s+)?[a-z][\w-]*\s+(?:now\s+)?(?:live|lives|sit|sits|go|goes)\s+(?:in|on|through)\s)"
    # "We no longer run on Heroku, the API is on Fly.io".
    r"|,\s*(?=(?:the|our)\s+[\w-]+\s+(?:is|are|runs|run)\s+(?:now\s+)?(?:on|in)\s)"
    # "Ditched Insights.gg, VOD review is all in ClipDeck now": a function and where it is now.
    r"|,\s*(?=(?:[\w/-]+\s+){1,2}(?:is|are)\s+(?:all\s+|now\s+)?(?:in|on)\s+(?-i:[A-Z]))",
    _I,
)
