"""The relation facts a statement states, as comparable keys (issue 29: one event per fact, and
supersession by a new value of a single-valued relation). Pure rules, English and Chinese.

A statement's facts are (subject, role, value) triples read by the rules the graph projection
already uses, so an event and its edges agree:
- `memory.engine.offline_relations.relations`: owns, leads, maintains, uses, runs_on,
  deployed_on, depends_on, member_of, works_at, lives_in, prefers ("I"/"我" is the speaker);
- `memory.engine.offline_graph.person_relations`: works_at and lives_in of the speaker or someone
  named ("I work at Globex", "we moved to Seattle", "我住在温哥华");
- `memory.engine.changes.stated_uses`: what is used now, after a change or in a plain statement
  ("we switched X from A to B" → X uses B; "调度现在用Dagster"); a collective subject ("we",
  "我们") is the empty subject.

Keys compare normalised: NFKC, case-folded, a leading article or possessive dropped, 的 removed,
a known tool by its canonical name ("GCP" is "google cloud"); `runs_on` and `deployed_on` are
one role, `host`, as `changes` calls it. Two uses of the keys:

- `restates(new, old)`: every fact of `new` is a fact of `old` — the new statement adds
  nothing, whatever its wording or event type ("Reminder: I own the billing service", "Atlas
  runs on GCP now" after "Atlas now runs on GCP", "订单服务现在部署在腾讯云上" after the
  migration to 腾讯云);
- `replaces(new, old)`: `new` gives a single-valued relation a new value — a subject lives in,
  works at or runs on one place (`SINGLE_PER_SUBJECT`), a thing has one owner, lead or
  maintainer (`SINGLE_PER_OBJECT`) — or a change's old value is what `old` relates its subject
  to ("Priya moved from the platform team to the data team" ends "Priya joined the platform
  team");
- who holds a role of the speaker's or the team's is one person at a time (`role_holders`):
  "Laura left, my new manager is Pedro" replaces "My manager is Laura", "Omar is our designer
  now" replaces "Hana is our designer".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final

from memory.engine.change_terms import HAN, value_key
from memory.engine.changes import parse_change, stated_uses
from memory.engine.hant import simplified
from memory.engine.negation import affirmed
from memory.engine.offline_cues import STOPPED
from memory.engine.offline_entities import LIKED, ME, TEAM_NOUNS, function_noun, known_tool
from memory.engine.offline_entities_en import DISCIPLINE
from memory.engine.offline_relations import relations
from memory.engine.offline_relations_shapes import handed_from
from memory.engine.offline_relations_zh import ZH_PERSON
from memory.engine.person_facts import person_relations
from memory.engine.plain_clauses import ROLE_OF_TITLE
from memory.engine.prompts.graph import SINGLE_VALUED_RELATIONS
from memory.engine.slots import slot_of

__all__ = [
    "ANY",
    "SINGLE_PER_OBJECT",
    "SINGLE_PER_SUBJECT",
    "Fact",
    "ended_facts",
    "replaces",
    "restates",
    "stated_facts",
]

HOST: Final = "host"
USE: Final = "use"
_ROLE_OF: Final = {"runs_on": HOST, "deployed_on": HOST, "uses": USE}
# One value per subject: the graph's single-valued relations, runs_on and deployed_on as one.
SINGLE_PER_SUBJECT: Final = frozenset(_ROLE_OF.get(r, r) for r in SINGLE_VALUED_RELATIONS)
SINGLE_PER_OBJECT: Final = frozenset({"owns", "leads", "maintains"})
_ARTICLE: Final = re.compile(r"^(?:the|a|an|our|my|their|its)\s+")
# A capitalised word that does not open its sentence or clause.
_INNER_NAME: Final = re.compile(r"(?<![.!?:;,]\s)(?<!^)(?<![.!?:;,])\b([A-Z][\w.+#-]*)")
_SPEAKER_LABEL: Final = re.compile(r"^\s*[^\s:：]{1,40}(?:\s+[^\s:：]{1,40}){0,2}\s*[:：]\s*")


# A job change of the speaker's that names no new employer (`stated_facts`).
_NEW_JOB: Final = re.compile(
    r"我(?!们)[^，。,.]{0,6}(?:跳槽|换了?(?:一份)?(?:新)?工作|辞职了|离职了)"
    r"|\bI(?:'ve|\s+have)?\s+(?:just\s+|recently\s+)?(?:changed|switched)\s+jobs\b"
    r"|\bI(?:'ve|\s+have)?\s+(?:just\s+|recently\s+)?(?:quit|left)\s+my\s+job\b"
    r"|\bI(?:'ve|\s+have)?\s+(?:just\s+)?got\s+a\s+new\s+job\b",
    re.IGNORECASE,
)
UNNAMED_EMPLOYER: Final = "\x00unnamed employer"


@dataclass(frozen=True, slots=True)
class Fact:
    subject: str  # "" for a collective or unnamed subject
    role: str
    value: str


def _key(name: str) -> str:
    text = " ".join(unicodedata.normalize("NFKC", name).casefold().split())
    text = _ARTICLE.sub("", text.strip(" .,;:!?'\"，。；：！？、")).replace("的", "")
    return _SERVICE_WORD.sub("", text) or text  # "the billing service" is "billing"


_SERVICE_WORD: Final = re.compile(r"\s+(?:service|svc)$")


def _without_label(text: str) -> str:
    stripped = _SPEAKER_LABEL.sub("", text, count=1)
    return stripped if stripped.strip() else text


def stated_facts(text: str, speaker: str) -> frozenset[Fact]:
    """The relation facts `text` states, said by `speaker` (whose "I" it is)."""
    sentence = simplified(_without_label(text).strip())  # Traditional read as Simplified
    if not sentence:
        return frozenset()
    facts: set[Fact] = set()
    for found in relations(sentence):
        subject = speaker if found.subject.name == ME else found.subject.name
        role = _ROLE_OF.get(found.relation, found.relation)
        facts.add(Fact(_key(subject), role, value_key(found.object.name)))
    for whose, relation, where in person_relations(sentence, speaker):
        facts.add(Fact(_key(whose), relation, value_key(where)))
    me = _key(speaker)
    if _NEW_JOB.search(sentence) and not any(
        f.subject == me and f.role == "works_at" for f in facts
    ):
        # "我跳槽到了一家互联网公司", "I quit my job": the employer before holds no more, though
        # the new one goes unnamed.
        facts.add(Fact(me, "works_at", UNNAMED_EMPLOYER))
    facts |= role_holders(sentence, speaker) | declined(sentence)
    said_of = {f.subject for f in facts}
    for use in stated_uses(sentence):
        # "缓存是Redis", "Our CI is CircleCI": a function is the team's, as "we use …" says.
        subject = "" if use.subject and function_noun(use.subject) else _key(use.subject or "")
        if subject and subject in said_of:
            continue  # "Bob moved to the search team": a membership, not where Bob runs
        facts.add(Fact(subject, use.role, value_key(use.value)))
    return frozenset(f for f in facts if f.value)


# Who holds a role of the speaker's or the team's: one person at a time ("My manager is Laura",
# "Omar is our designer now", "我的主管是李明").
HOLDER: Final = "holder:"
_ROLE_WORD: Final = r"[a-z][a-z-]*(?:\s+(?!now\b)[a-z][a-z-]*)?"
_HOLDER_EN: Final = (
    re.compile(
        rf"\b(?P<whose>my|our)\s+(?:new\s+|current\s+)?(?P<role>{_ROLE_WORD})\s+is\s+(?:now\s+)?"
        r"(?P<who>(?-i:[A-Z])[\w'’-]+)\b",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?:^|[,;:]\s*)(?P<who>[A-Z][\w'’-]+)\s+is\s+(?:now\s+)?(?P<whose>my|our)\s+"
        rf"(?:new\s+)?(?P<role>{_ROLE_WORD})(?:\s+now)?\s*(?:[.!,;]|$)",
    ),
)
_HOLDER_ZH: Final = (
    re.compile(
        r"(?P<whose>我们|我)的?(?P<role>[\u4e00-\u9fff]{2,4}?)(?:现在|目前)?是(?P<who>[\u4e00-\u9fff]{2,3})(?:[。！，,!]|$)"
    ),
    re.compile(
        r"(?:^|[，,])(?:现在|目前)?(?P<who>[\u4e00-\u9fff]{2,3})是(?P<whose>我们|我)的(?P<role>[\u4e00-\u9fff]{2,4})(?:[。！，,!]|$)"
    ),
)
_NOT_ROLE: Final = frozenset(
    """
    name birthday email phone number address plan goal idea point problem question answer guess
    bet
    """.split()  # noqa: SIM905
)


# A line the team does not take on, said again in other words ("we don't do structural", "we
# don't touch structural, full stop"; "实木家具的单我们不接", "我们不接实木家具"): one fact.
DECLINES: Final = "declines"
_DECLINED: Final = (
    re.compile(
        r"\bwe\s+(?:don't|dont|do\s+not|never|won't)\s+(?:do|touch|take(?:\s+on)?|accept|offer"
        r"|sell|handle|carry|stock|teach)\s+(?:any\s+)?(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"
        r"(?=\s*(?:$|[,.;:!?—–-]|\s(?:work|jobs|anymore|at\s+all|either|ever)\b))",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?:我们|咱们)(?:是|也|都|一律|从来)?不(?:做|接|收|卖|教|碰)"
        r"(?P<what>[\u4e00-\u9fff]{2,10}?)(?:的单|的活)?(?:的|了|哈)?(?=[，。,.!！]|$)"
    ),
    re.compile(
        r"^(?P<what>[\u4e00-\u9fff]{2,10}?)(?:的单|的活)?(?:我们|咱们)(?:是|也|都|一律|从来)?"
        r"不(?:做|接|收|卖|教|碰)"
    ),
)


def declined(sentence: str) -> frozenset[Fact]:
    """The team's lines it does not take on (`DECLINES` facts, subject "")."""
    return frozenset(
        Fact("", DECLINES, value_key(found.group("what")))
        for pattern in _DECLINED
        if (found := pattern.search(sentence)) is not None
    )


def role_holders(sentence: str, speaker: str) -> frozenset[Fact]:
    """(whose, holder:role, who): the person a statement says holds a role of the speaker's
    ("my") or the team's ("our", subject "")."""
    found: set[Fact] = set()
    for pattern in (*_HOLDER_EN, *_HOLDER_ZH):
        for match in pattern.finditer(sentence):
            role, who = match.group("role").casefold(), match.group("who")
            if role.split()[0] in _NOT_ROLE or LIKED.match(role) or known_tool(who):
                continue  # "my name is …", "my favourite editor is Neovim"
            if HAN.search(who) and not ZH_PERSON.match(who):
                continue
            whose = _key(speaker) if match.group("whose").casefold() in ("my", "我") else ""
            found.add(Fact(whose, HOLDER + role, value_key(who)))
    return frozenset(found)


_STOP_WORDS: Final = re.compile(r"\s*\b(?:anymore|any\s+more)\b|已经|了(?=\s*[。！!.]?\s*$)", re.I)


def ended_facts(text: str, speaker: str) -> frozenset[Fact]:
    """The relation facts `text` says hold no more (the facts of its affirmative form), or
    none when it says no such stop. A plain negation ("We don't use Kafka for billing") is no
    stop: it may contradict, it does not end. The speaker leaving a job ends where they work:
    "I quit Spotify" that employer, "I quit my job" / 我辞职了 any (value `ANY`)."""
    sentence = _without_label(text).strip()
    found: set[Fact] = set()
    for pattern in _QUIT:
        quit_job = pattern.search(sentence)
        if quit_job is not None:
            employer = quit_job.group(1)
            found.add(Fact(_key(speaker), "works_at", value_key(employer) if employer else ANY))
            break
    for down in _STEPPED_DOWN.finditer(sentence):
        area = (down.group(2) or down.group(4) or "").strip()
        if area:
            area = f"{area} team" if DISCIPLINE.fullmatch(area) else area
            role = ROLE_OF_TITLE[down.group(3).casefold()]
            found.add(Fact(_key(down.group(1)), role, value_key(area)))
    for pattern in _LEFT_TEAM:
        for left in pattern.finditer(sentence):
            who = speaker if left.group(1) in ("I", "我") else left.group(1)
            found.add(Fact(_key(who), "member_of", value_key(left.group(2))))
    if STOPPED.search(sentence):
        found |= stated_facts(_STOP_WORDS.sub("", affirmed(sentence)), speaker)
    return frozenset(found)


# Someone stepping down from a role ends it: "Maria stepped down as design lead", "Tom stepped
# down as maintainer of the SDK" (group 2 or 4: what the role was over).
_STEPPED_DOWN: Final = re.compile(
    r"(?:^|[,;:]\s*)([A-Z][\w'’-]+)\s+(?:has\s+|just\s+)*stepped\s+down\s+as\s+(?:the\s+|our\s+)?"
    r"(?:([\w-]+(?:\s+[\w-]+)?)\s+)?(lead|head|manager|owner|maintainer)\b"
    r"(?:\s+(?:of|for|on)\s+(?:the\s+|our\s+)?([\w\s-]{2,40}?))?(?=\s*(?:[,;.!]|$))"
)
# Someone leaving a team ends the membership: "Yuki left the search team", 张伟离开了数据组.
_LEFT_TEAM: Final = (
    re.compile(rf"(?:^|[,;:]\s*)(I|[A-Z][\w'’-]+)\s+(?:has\s+|just\s+|recently\s+)*left\s+"
               rf"(?:the\s+|our\s+)?((?:[\w-]+\s+){{0,2}}{TEAM_NOUNS})\b"),
    re.compile(r"(?:^|[，,：:]\s*)(我(?!们)|[\u4e00-\u9fff]{2,3}?)(?:已经|上周|上个?月)?离开了?"
               r"([\u4e00-\u9fff]{1,8}?(?:组|团队|部门|小组))"),
    # "李娜现在不在支付组了": no longer on a team.
    re.compile(r"(?:^|[，,：:]\s*)(我(?!们)|[\u4e00-\u9fff]{2,3}?)(?:现在|已经)?不在"
               r"([\u4e00-\u9fff]{1,8}?(?:组|团队|部门|小组))了"),
)  # fmt: skip


# A fact's value that stands for any value: the speaker's job ended, whichever it was.
ANY: Final = ""
# The speaker leaving a job: "I quit Spotify", "I just left Globex", "I quit my job", 我辞职了,
# 我从京东离职了 (group 1: the employer, when named).
_QUIT: Final = (
    re.compile(r"\b(?:I|i)\s+(?:just\s+|finally\s+|recently\s+)?(?:quit|left)\s+"
               r"(?:my\s+job\s+at\s+)?((?-i:[A-Z])[\w&.'’-]*(?:\s+(?-i:[A-Z])[\w&.'’-]*){0,2})"),
    re.compile(r"\b(?:I|i)\s+(?:just\s+|finally\s+|recently\s+)?(?:quit|left)\s+my\s+job\b()"),
    re.compile(r"我(?!们)(?:已经|刚|刚刚|上个?月|上周|去年)?(?:从([\u4e00-\u9fffA-Za-z]{2,8}))?(?:辞职|离职)"),
)  # fmt: skip


def names_agree(new_text: str, old_text: str) -> bool:
    """Every proper noun `new_text` says inside a clause (a capitalised word not opening it:
    "… of Altair", "Just to confirm, Atlas …") is said in `old_text` too: "Bob moved to the
    search team of Altair" does not restate "… of Orion" although both read as Bob's team."""
    old = _without_label(old_text).casefold()
    body = _without_label(new_text)
    names = (m.group(1).rstrip(".").casefold() for m in _INNER_NAME.finditer(body))
    return all(name in old for name in names)


def restates(new: frozenset[Fact], old: frozenset[Fact], new_text: str, old_text: str = "") -> bool:
    """`new` states only facts `old` states already. A change with an old value ("moved X from
    A to B") is news even when B was said before, unless `old_text` told of leaving the same
    old value ("… all in Bloomerang now that we're off DonorPerfect" after "we switched donor
    management from DonorPerfect to Bloomerang")."""
    if not new or not new <= old:
        return False
    change = parse_change(_without_label(new_text))
    if change is None or change.old is None:
        return True
    before = parse_change(_without_label(old_text)) if old_text else None
    return (
        before is not None
        and before.old is not None
        and value_key(before.old) == value_key(change.old)
    )


def replaces(new: frozenset[Fact], old: frozenset[Fact], new_text: str) -> bool:
    """Every fact of `old` is restated or given a new value by `new`, and at least one is given
    a new value (see the module docstring)."""
    if not new or not old or old <= new:
        return False
    change = parse_change(_without_label(new_text))
    ended = _key(change.old) if change is not None and change.old else None
    changed_subject = _key(change.subject) if change is not None and change.subject else None
    replaced = False
    team_moved = bool(_TEAM_MOVE.search(new_text))
    taken_over = bool(_TAKEN_OVER.search(new_text))
    handed = _handed_over(_without_label(new_text).strip())
    for fact in old - new:
        if (
            handed is not None
            and fact.role in _HANDED_ROLES
            and fact.subject == _key(handed[0])
            and value_key(fact.value) == value_key(handed[1])
        ):
            replaced = True  # "Priya handed the search service over to Tom": hers no more
            continue
        # "I moved from the platform team to the data team": the old value named, said of the
        # speaker (no subject of its own) or of the subject the change names.
        said_of = changed_subject or (
            fact.subject if any(n.subject == fact.subject for n in new) else None
        )
        if any(_new_value(fact, n, team_moved=team_moved, taken_over=taken_over) for n in new) or (
            ended is not None
            and value_key(fact.value) == value_key(ended)
            and fact.subject == said_of
        ):
            replaced = True
            continue
        return False
    return replaced


# Taking over what someone owned or maintained ends either: "Bartek has taken over the geocoding
# lib from Ines" (owns) ends "Ines maintains the geocoding lib". Only a change or a decision
# replaces anything (`services.supersession`), so a plain "Tom maintains it" beside "Priya owns
# it" stays beside it.
_RESPONSIBLE: Final = frozenset({"owns", "maintains"})


# "Priya handed the search service over to Tom": the one who hands a thing over no longer
# leads, owns or maintains it.
# "Ana took over the mobile team from Ben": the one it was taken from.
_TAKEN_FROM: Final = re.compile(
    r"\b(?:took|has\s+taken|have\s+taken|is\s+taking)\s+over\s+(?:the\s+|our\s+)?(.+?)\s+"
    r"from\s+([A-Z][\w'’-]+)"
)
_HANDED_ROLES: Final = frozenset({"owns", "maintains", "leads"})
# A take-over ends whoever led it too: "Lucia's taken over the service desk" after "Desmond runs
# the service desk".
_TAKEN_OVER: Final = re.compile(r"\b(?:took|taken|taking)\s+over\b|接手|接管|交给", re.IGNORECASE)


def _handed_over(sentence: str) -> tuple[str, str] | None:
    """(who gave it up, what) a hand-over or a take-over says, or None."""
    handed = handed_from(sentence)
    if handed is not None:
        return handed
    taken = _TAKEN_FROM.search(sentence)
    return (taken.group(2), taken.group(1)) if taken is not None else None


# A move to another team ends the membership it leaves: "Lucas switched to the web team".
_TEAM_MOVE: Final = re.compile(
    r"\b(?:switched|moved|transferred|changed)\s+(?:over\s+)?to\s+(?:the\s+)?[\w\s-]{1,30}?team\b"
    r"|\b(?:now\s+works?|works?\s+now|is\s+now|'s\s+now)\s+(?:on|in|with|for)\s+the\s+"
    r"[\w\s-]{1,30}?team\b"
    r"|调到|调去|转到|转去",
    re.IGNORECASE,
)


def _new_value(old: Fact, new: Fact, *, team_moved: bool = False, taken_over: bool = False) -> bool:
    responsible = _RESPONSIBLE | ({"leads"} if taken_over else set())
    if old.role in responsible and new.role in responsible:
        return old.value == new.value and old.subject != new.subject
    if old.role != new.role:
        return False
    if old.role == USE and old.subject and old.subject == new.subject and old.value != new.value:
        # "We rewrote the API in Go" after "The API is written in Python": one language.
        slots = slot_of(old.value), slot_of(new.value)
        return slots[0] is not None and slots[1] is not None and slots[0][0] == slots[1][0]
    if old.role.startswith(HOLDER):
        return old.subject == new.subject and old.value != new.value
    if old.role in SINGLE_PER_SUBJECT or (team_moved and old.role == "member_of"):
        return bool(old.subject) and old.subject == new.subject and old.value != new.value
    if old.role in SINGLE_PER_OBJECT:
        return old.value == new.value and old.subject != new.subject
    return False
