"""Where a person works and lives, said of the speaker or of someone named (SPEC §6, issue 29):
"I work at Globex", "Caroline lives in Boston", "我在字节跳动做产品经理", "Felix left Spotify
and now works at Klarna", "Kai doesn't live in Paris anymore, he moved to Lyon". Split from
`memory.engine.offline_graph`, which turns them into `works_at` / `lives_in` edges and
`employer` / `residence` facts; `memory.engine.stated_facts` compares them. Pure rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from memory.engine.change_terms import han_unspaced, split_label
from memory.engine.offline_entities import (
    FAMILY_EN,
    TEAM_NOUNS,
    ZH_CITIES,
    ZH_CITY_PATTERN,
    ZH_ROLES,
    function_noun,
    known_tool,
)
from memory.engine.offline_relations_zh import zh_employer_named
from memory.engine.plain_clauses import (
    asides_apart,
    corrected,
    one_subject_each,
    without_apposition,
)
from memory.engine.slots import slot_of

__all__ = ["HAN_NAME", "NAME", "clean_name", "first_name", "person_relations"]

# A capitalised name of up to five words ("Acme Corp", "New York", "Bank of America"); connectors
# count only between two capitalised words, and `clean_name` cuts what the pattern over-reads.
# A kind of place written in lower case ends it too: "Rush hospital", "Lincoln high school".
NAME: Final = (
    r"(?:the\s+)?([A-Z0-9][\w&.'’-]*(?:(?:\s+(?:of|and|&|de|la|del|van|von|der|du))?"
    r"\s+[A-Z0-9][\w&.'’-]*){0,4}(?:\s+(?:high\s+school|hospital|university|college|school"
    r"|clinic|bank|hotel|library|museum|academy|institute|bakery|restaurant|cafe)\b)?)"
)
# Capitalised words that end a name rather than continue it: the pronoun "I", days, months and
# sentence openers ("I moved to Berlin In March", "Acme Corp. I love it").
_NOT_NAME_WORDS: Final = frozenset(
    """
    i i'm i've i'll i'd i’m we've we're we'd we'll you've you're they've they're
    monday tuesday wednesday thursday friday saturday sunday january
    february march april may june july august september october november december in on at
    and but so then the a an my our it this that we he she they since for from to with
    """.split()  # noqa: SIM905
)
_CONNECTORS: Final = frozenset({"of", "and", "&", "de", "la", "del", "van", "von", "der", "du"})
_ABBREVIATION: Final = re.compile(r"^(?:[A-Z][a-z]{0,3}|[A-Z]{1,3})\.$")  # "St.", "Corp.", "U."
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")
_HAN_STOP: Final = re.compile(r"(?:做|当|负责|从事|担任|干).*$")
HAN_NAME: Final = r"([^\s，。,.!！？?、]{1,20}?)"
# What may follow a place in "我搬到了上海工作。": the place ends before the verb, not after it.
# "我搬到杭州已经三年了": how long ago, after the place.
_HAN_AFTER_PLACE: Final = (
    r"(?:工作|上班|生活|学习|读书|定居|居住|发展|了)?"
    r"(?:(?:已经|快|有|都)*[一二三四五六七八九十两半几\d]+个?(?:多个?)?(?:年|月|星期|礼拜|周|天)多?了?)?"
    r"(?:[，。,.!！]|$)"
)
# "我们上周搬到了杭州": when, between the speaker and the move (not "我们公司搬到了…").
_HAN_WHEN: Final = r"(?:上周|上个?月|去年|今年|前年|最近|刚刚?|已经|昨天|前几天|年初|年底|终于)*"
# "I work as a nurse at St Mary's", "Ana works as a data analyst for Globex": the role between.
_AS_ROLE: Final = r"(?:(?i:as)\s+(?i:an?)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}\s+)?"
# A role before "at" and the organisation: "a nurse at", "the CFO at" (not "a regular at").
_ROLE_AT: Final = (
    r"(?!(?i:regular|customer|member|guest|visitor|patient|fan|client|friend|big|huge)\b)"
    r"[A-Za-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?\s+(?i:at)\s+"
)
# What one's work is, in "I do UX research at Canva" and "I run IT for Fenwick Hospitality".
_WORK_AREA: Final = (
    r"(?:IT|HR|(?i:research|design|engineering|marketing|sales|support|consulting|analytics|work"
    r"|development|testing|ops|operations|finance|product|security|infrastructure|infra|data"
    r"|comms|communications|logistics|procurement|recruiting|partnerships))"
)
_WORKS_AT: Final = (
    re.compile(r"\b(?i:i|we|i'm|i\s+am|we're|we\s+are)\s+(?i:currently\s+|now\s+)?"
               r"(?i:work|working|study|studying)\s+(?i:(?:remotely|full[- ]time|part[- ]time)\s+)?"
               # "I work in IT at Mercy Ridge Hospital": a department before the employer.
               r"(?:(?i:in)\s+(?:IT|HR|[a-z]+(?:\s+[a-z]+)?)\s+(?=(?i:at|for)\s))?"
               rf"{_AS_ROLE}(?i:at|for)\s+"
               rf"(?:(?i:an?)\s+[\w\s-]{{1,30}}?\s+(?i:called|named)\s+)?{NAME}"),
    # "I left Globex and now work at Initech".
    re.compile(r"\b(?i:i)\s+(?i:left|quit)\s+[^.;!?]{1,40}?\s+(?i:and)\s+(?i:now\s+)?"
               rf"(?i:work|am\s+working)\s+(?i:at|for)\s+{NAME}"),
    # "I just started at Canva", "I started a new job at Figma", "I've left Canva and started
    # at Atlassian".
    re.compile(r"\b(?i:i|i've)\s+(?:(?i:left|quit)\s+[^.;!?]{1,40}?\s+(?i:and)\s+)?"
               # "I started orientation at Foothills on Monday".
               r"(?i:just\s+|recently\s+)?(?i:started)\s+"
               r"(?i:(?:a\s+new\s+job|orientation|onboarding|training|work)\s+)?"
               rf"(?i:at)\s+{NAME}"),
    # "I do UX research at Canva", "I do backend work for Monzo": the speaker's work there.
    re.compile(rf"\b(?i:i)\s+(?i:do)\s+(?:[a-zA-Z][\w-]*\s+){{0,2}}{_WORK_AREA}\s+"
               rf"(?i:at|for)\s+{NAME}"),
    # "I'm Ifeoma, a data engineer on the data platform team at Tramline": a role said after
    # the speaker's name.
    # "I'm Helen Marsh, managing editor at the Valley Courier": a full name, no article.
    re.compile(r"\b(?i:i'm|i\s+am)\s+[A-Z][\w-]+(?:\s+[A-Z][\w-]+){0,2},\s+"
               r"(?:(?i:an?|the|one\s+of\s+the)\s+)?(?!(?i:regular|customer|member|guest|visitor"
               r"|patient|fan|client|friend|big|huge)\b)[a-z][^,.;!?]{1,60}?"
               rf"\s+(?i:at)\s+{NAME}"),
    # "Hey, Tom here, head brewer at Sixpenny Hollow Brewing": a role after "<name> here";
    # "Hi! Marisol Vega here, research computing facilitator at Greystone University".
    re.compile(r"(?:^|[,.!:—–]\s*)[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?\s+(?i:here),\s+"
               r"(?:(?i:an?|the)\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}\s+(?i:at)\s+"
               rf"{NAME}"),
    # "hi! Dana Okafor, director of operations at Cedar Valley Food Bank", "Morning! Erin
    # Caldwell, I run lift operations at Silver Pine": one's full name, then one's role there.
    re.compile(r"^(?:(?i:hi|hey|hello|morning|good\s+morning|evening|afternoon)[!.]+\s+)?"
               r"(?!(?i:hi|hey|hello|thanks|thank|dear|morning|ok|okay|great|good|sorry|cheers"
               r"|welcome|congrats)\b)[A-Z][\w'’-]+\s+[A-Z][\w'’-]+,\s+"
               r"(?:(?i:an?|the)\s+|(?i:i)\s+(?i:run|lead|manage|head\s+up|look\s+after)\s+)?"
               r"(?!(?i:regular|customer|member|guest|visitor|patient|fan|client|friend|see|great"
               r"|good|nice|meet|glad|happy)\b)"
               r"[a-z][\w-]*(?:\s+(?!you\b|your\b)(?:[a-z][\w-]*|&)){0,4}\s+(?i:at)\s+"
               rf"{NAME}"),
    # "I'm a postdoc in Adaeze Okafor's lab at Rutgers": the lab or team, then the employer.
    re.compile(r"\b(?i:i'm|i\s+am)\s+(?i:an?)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}\s+(?i:in|on)\s+"
               rf"[^,.;!?]{{2,40}}?\s(?i:lab|group|team)\s+(?i:at)\s+{NAME}"),
    # "我在宁波一家货代做操作主管，公司叫恒舟国际物流": the employer named after the clause.
    re.compile(rf"我(?:现在|目前)?在[^，。,.]{{1,16}}[，,]\s*(?:公司|单位)(?:名字?)?叫{HAN_NAME}"
               r"(?:[，。,.!！]|$)"),
    re.compile(rf"我(?:现在|目前)?在{HAN_NAME}(?:工作|上班)"),
    # "我在燃动健身做运营", "我在嘉禾物业当项目经理": a line of work at a named place (not
    # "我在家做饭": the work is named).
    re.compile(rf"我(?:现在|目前)?在{HAN_NAME}(?:做|当|干)(?=(?:{ZH_ROLES})(?:[，。,.!！]|$))"),
    # "我是青禾出版社文学编辑部的责编": one's role in a named organisation's department.
    re.compile(r"我是([\u4e00-\u9fff]{2,10}?(?:出版社|公司|集团|医院|学校|大学|律师事务所|事务所|工作室"
               rf"|银行))[\u4e00-\u9fff]{{0,8}}的(?:{ZH_ROLES})(?:[，。,.!！]|$)"),
    # "我是小橡树幼儿园的园长", "我是北辰冷链的运营经理陈立新": one's role, a modifier before it, at
    # a named place (not "我是孩子的老师").
    re.compile(r"我是((?!我们|他们|她们|你们|孩子|大家|学生|家里|班上|这里|那里|这家|那家|一家|一个)"
               r"[\u4e00-\u9fff]{2,10}?)的[\u4e00-\u9fff]{0,4}?(?:"
               rf"{ZH_ROLES}|园长|校长|院长|厂长|馆长|老板|创始人|负责人|合伙人)"
               r"(?:[\u4e00-\u9fff]{2,3})?(?:[，。,.!！；;]|$)"),
    # "我在得物的交易中台": a team of a named company.
    re.compile(r"我(?:现在|目前)?在([^\s，。,.的在]{2,10})的[^\s，。,.]{1,10}?(?:组|团队|部门|中台|事业部|事业群)"
               r"(?:[，。,.!！]|$)"),
    re.compile(rf"我(?:已经|刚|刚刚|上个?月|去年)?跳槽(?:去|到)了?{HAN_NAME}{_HAN_AFTER_PLACE}"),
    # "我已经不在阿里工作了，现在在字节": the old employer, then the new one without a subject.
    re.compile(rf"我(?!们)(?:已经)?不在[^，。,]{{1,12}}(?:工作|上班)了?[，,]\s*(?:现在|目前)(?:在|去了)"
               rf"{HAN_NAME}(?:工作|上班|了)?(?:[，。,.!！]|$)"),
    # "I lead the routing team here at Kargo", "I'm the Android lead at Medora": a role or a team
    # of the speaker's, at a named organisation.
    re.compile(r"\b(?i:i|i'm|i\s+am)\s+(?:(?!(?i:not|never|was|used|visited|met)\b)[^.;!?])"
               r"{0,50}?\b(?i:team|squad|group|department|lead|engineer|developer|manager|designer"
               r"|analyst|scientist"
               rf"|intern|founder|director|cto|ceo)\s+(?i:here\s+)?(?i:at)\s+{NAME}"),
    re.compile(rf"\b(?i:i)\s+(?i:teach|coach)\s+(?:[a-z]+\s+){{0,2}}(?i:at)\s+{NAME}"),
    # "I left Globex last month for a job at Initech".
    re.compile(r"\b(?i:i|i've)\s+(?i:just\s+|recently\s+)?(?i:left|quit)\b[^.;!?,]{0,30}?\s(?i:for)\s+"
               rf"(?i:an?\s+(?:new\s+)?(?:job|role|position|gig)\s+(?:at|with))\s+{NAME}"),
    # "I run IT for Fenwick Hospitality": a function one heads for an organisation.
    re.compile(rf"\b(?i:i)\s+(?i:run|head|lead|manage|handle|coordinate|oversee|supervise|direct)"
               rf"\s+{_WORK_AREA}\s+(?i:at|for)\s+{NAME}"),
    # "I'm head coach for Tidebreak Gaming's Valorant roster": a senior role, no article.
    re.compile(r"\b(?i:i'm|i\s+am)\s+(?:(?i:the)\s+)?(?i:head|lead|chief|senior|principal|staff"
               rf"|assistant)\s+[a-z]+\s+(?i:at|for)\s+{NAME}"),
    # "I freelance, mostly for a Toronto agency called Northpine": whom one's freelance work is for.
    re.compile(r"\b(?i:i)\s+(?i:freelance|contract|consult)\b[^.;!?]{0,40}?\s(?i:for)\s+"
               rf"(?:(?i:an?)\s+[\w\s-]{{1,30}}?\s+(?i:called|named)\s+)?{NAME}"),
    # "I'm a backend dev at Zalando", "I'm a student at MIT": any role (not a regular or a guest).
    re.compile(r"\b(?i:i'm|i\s+am)\s+(?i:an?|the)\s+" + _ROLE_AT + rf"{NAME}"),
    # "I've been at Google for three years": at a named organisation for a while.
    re.compile(rf"\b(?i:i've|i\s+have)\s+been\s+(?i:at|with)\s+{NAME}\s+(?i:for|since)\b"),
    # "I left Globex, I'm at Initech now": where the speaker is after a job change.
    re.compile(rf"\b(?i:left|quit|(?:switched|changed)\s+jobs)\b[^.;!?]{{0,30}}?[,;]\s*(?i:and\s+)?"
               rf"(?i:i'm|i\s+am)\s+(?i:now\s+)?(?i:at|with)\s+{NAME}"),
)  # fmt: skip
# The same said of someone else: the person is the name right before the verb.
_WORKS_AT_OTHER: Final = (
    # "Ryan Feld left last week for a job at Banfield": where someone went.
    re.compile(r"\b(?i:left|quit)\b[^.;!?,]{0,20}?\s(?i:for)\s+(?i:an?\s+(?:new\s+)?(?:job|role"
               rf"|position|gig)\s+(?:at|with))\s+{NAME}"),
    re.compile(rf"\b(?i:works|is\s+working|studies|is\s+studying)\s+{_AS_ROLE}(?i:at|for)\s+{NAME}"),
    # "Leo switched jobs, he's at Accenture now".
    re.compile(rf"\b(?i:left|quit|(?:switched|changed)\s+jobs)\b[^.;!?]{{0,30}}?[,;]\s*(?i:and\s+)?"
               rf"(?i:he's|she's|he\s+is|she\s+is)\s+(?i:now\s+)?(?i:at|with)\s+{NAME}"),
    # "Grace has started as a paediatric nurse at the Royal Children's Hospital".
    re.compile(r"\b(?i:has\s+|'s\s+)?(?i:just\s+|recently\s+)?(?i:started)\s+(?i:a\s+new\s+job\s+)?"
               r"(?:(?i:as)\s+(?i:an?)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}\s+)?"
               rf"(?i:at)\s+{NAME}"),
    # "Priya is a nurse at Rush", "Tom is the CFO at Globex": a role at a named organisation
    # ("the tech lead of Nimbus" leads a project: `offline_relations`).
    re.compile(r"\b(?i:is|'s)\s+(?i:an?|the)\s+" + _ROLE_AT + rf"{NAME}"),
)  # fmt: skip
# What one moves to that is no home: a number ("Standup moved to 10"), an office or a building
# ("我们搬到了新办公室").
_NO_HOME: Final = re.compile(
    r"^\d|办公室|公司|工位|写字楼|大楼|园区|新家$|(?i:office|building|desk)\b"
)
# "she moved to the ML team": a team one moves to is no home (`member_of`, offline_relations).
_TEAM_AFTER: Final = rf"\s+(?i:{TEAM_NOUNS})\b"


def _a_team(name: str, text: str) -> bool:
    return re.search(re.escape(name) + _TEAM_AFTER, text) is not None


_LIVES_IN: Final = (
    re.compile(r"\b(?i:i|we|i'm|i\s+am|we're|we\s+are)\s+(?i:currently\s+|now\s+)?"
               rf"(?i:live|living)\s+(?i:in)\s+{NAME}"),
    re.compile(rf"\b(?i:i'm|i\s+am|we're|we\s+are)\s+(?i:now\s+)?(?i:based)\s+(?i:in|out\s+of)\s+{NAME}"),
    re.compile(rf"\b(?i:i|we)(?i:\s+have|['’]ve)?\s+(?i:just\s+|recently\s+|finally\s+)?(?i:moved|relocated)\s+"
               rf"(?:(?i:from)\s+[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*)?\s+)?(?i:to)\s+{NAME}"),
    # "I left Berlin and moved to Lyon", "Theo and I took the plunge and moved to Coburg": the
    # speaker's later clause.
    re.compile(r"(?:^|[:：]\s*)(?:[A-Z][\w-]+\s+(?i:and)\s+)?(?i:i)\b[^.;!?:]{0,40}?\s(?i:and|then)\s+"
               r"(?i:just\s+|recently\s+|finally\s+)?"
               rf"(?i:moved|relocated)\s+(?i:to)\s+{NAME}"),
    # "We made it!! Moved into the Varsity house in Calgary on the 14th": a home moved into, the
    # speaker's when no one else opens the sentence.
    re.compile(r"(?:^|[!.]\s+)(?:(?i:we|i)\s+(?:(?i:just|finally)\s+)?)?(?i:moved)\s+(?i:into)\s+"
               r"(?i:an?|the|our|my)\s+(?:[\w'’-]+\s+){0,3}?(?i:flat|apartment|house|place|condo|home)"
               rf"\s+(?i:in)\s+{NAME}"),
    # "My partner Theo and I rent a flat in Brunswick": a home one rents or owns.
    re.compile(r"\b(?i:i|we)\s+(?:(?i:now|currently|still)\s+)?(?i:rent|own|share|bought)\s+"
               r"(?i:an?|the|our|my)\s+(?:(?i:small|tiny|little|new|two-bedroom|one-bedroom)\s+)?"
               rf"(?i:flat|apartment|house|place|condo|room|home)\s+(?i:in)\s+{NAME}"),
    # "I'm renting in Irvine, like ten minutes from the team house".
    re.compile(rf"\b(?i:i'm|i\s+am|we're|we\s+are)\s+(?i:now\s+|currently\s+|still\s+)?(?i:renting)\s+"
               rf"(?:(?i:an?|the)\s+(?i:flat|apartment|house|place|room|condo)\s+)?(?i:in)\s+{NAME}"),
    # "We're in Lisbon, renting a flat in Campo de Ourique": where one is, then one's home there.
    re.compile(rf"\b(?i:i'm|i\s+am|we're|we\s+are)\s+(?i:now\s+)?(?i:in)\s+{NAME}\s*,\s*"
               r"(?i:renting|settled)\b"),
    # "I no longer live in Boston; I'm in Denver now": where the speaker is after a home ended.
    re.compile(rf"\b(?i:live|lived|living)\s+(?i:in)\s+[^.;!?]{{1,40}}?[,;]\s*(?i:i'm|i\s+am)\s+"
               rf"(?i:now\s+)?(?i:in|based\s+in)\s+{NAME}"),
    # "I grew up in Madrid but live in Barcelona now": the speaker's later clause.
    re.compile(r"(?:^|[:：]\s*)(?i:i)\b[^.;!?:]{0,60}?\b(?i:but|and)\s+(?i:now\s+)?(?i:live|living)\s+(?i:in)\s+"
               rf"{NAME}"),
    # "Home is Melbourne these days", "I'm in Toronto these days", "I'm in Manchester now" (not
    # "I'm in London now for the conference").
    re.compile(rf"(?:^|[:：]\s*)(?i:my\s+)?(?i:home)\s+(?i:is)\s+(?i:now\s+)?{NAME}"),
    re.compile(rf"\b(?i:i'm|i\s+am)\s+(?i:now\s+)?(?i:in)\s+{NAME}\s+(?i:these\s+days|now)(?=\s*(?:[.!;,]|$))"),
    re.compile(rf"我(?:现在|目前)?住在{HAN_NAME}{_HAN_AFTER_PLACE}"),
    # "我住浦东" (no 在), "我在上海" (a city, the clause ending there).
    re.compile(r"我(?:现在|目前)?住(?![在得的了过着])([\u4e00-\u9fff]{2,4})(?:[，。,.!！]|$)"),
    re.compile(rf"(?:^|[:：]\s*)我(?:现在|目前)?在({ZH_CITY_PATTERN})(?:[，。,.!！]|$)"),
    re.compile(rf"我(?:们)?{_HAN_WHEN}搬到了?{HAN_NAME}{_HAN_AFTER_PLACE}"),
    # "我上个月从杭州搬到了苏州": a time word and the old home before the move.
    re.compile(rf"我(?:们)?[^，。,.!！从]{{0,6}}从[^，。,.!！]{{1,12}}?搬到了?{HAN_NAME}{_HAN_AFTER_PLACE}"),
    # "我不在北京住了，搬到上海了": the speaker's clause, then the move said without a subject.
    re.compile(rf"我(?!们)[^，。,.!！]{{1,14}}[，,]\s*(?:后来|已经|现在|就|又)?搬(?:到|去)了?{HAN_NAME}"
               rf"{_HAN_AFTER_PLACE}"),
)  # fmt: skip
_LIVES_IN_OTHER: Final = (
    # "Omar lives with his parents in Cairo".
    re.compile(rf"\b(?i:lives)\s+(?:(?i:with)\s+[^.,;!?]{{1,30}}?\s+)?(?i:in)\s+{NAME}"),
    # "Julia is based in Lisbon", "Chloe works remotely from Montreal".
    re.compile(rf"\b(?i:is\s+based\s+(?:in|out\s+of)|works\s+(?:remotely\s+)?from)\s+{NAME}"),
    re.compile(rf"\b(?i:just\s+|recently\s+)?(?i:moved|relocated)\s+(?i:to)\s+{NAME}"),
)
# A name of one to three capitalised words opening the clause right before such a verb.
_NAMED_SUBJECT: Final = re.compile(
    r"(?:^|[,;:—–]\s*)(?:(?i:my|our)\s+(?:(?i:older|younger|little|big|best)\s+)?"
    rf"(?i:{FAMILY_EN}|friend|roommate|flatmate|boss|manager|colleague|coworker)\s+)?"
    r"((?:[A-Z][\w'’-]*\s+){1,3})(?:(?i:now|still|currently|also|already)\s+)?$"
)
# A later clause said of "he" or "she", and the name that opens the sentence.
_PRONOUN_BEFORE: Final = re.compile(
    r"[,;]\s*(?:(?i:and|but|so)\s+)?(?i:he|she)\s+(?:(?i:now|then|just|recently|has)\s+)?$"
)
_OPENING_NAME: Final = re.compile(r"^(?:[^\s:：]{1,40}[:：]\s*)?([A-Z][\w'’-]+)\s+(?=[a-z])")
# "Felix left Spotify last year and now works at Klarna": the one who left is who works.
_LEFT_AND: Final = re.compile(
    r"(?:^|[:：]\s*)([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)\s+(?:has\s+)?(?:left|quit)\b[^.;!?:]*"
    r"\band\s+"
    r"(?:(?i:now|then)\s+)?$"
)


# "Rosa's leaving, she got the GM job at Tumalo Ferment Works", "Callum left last week, he's gone
# to Gensler": someone named as leaving, then where "he" or "she" goes.
_LEAVER: Final = re.compile(
    r"\b(?!(?:Also|And|But|So|Oh|Plus|Well|Now|Then|Anyway|Sadly|Btw|Meanwhile)\b)"
    r"([A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)(?:['’]s|\s+is|\s+has|\s+just)?\s+"
    r"(?:leaving|left|quit|quitting|resigned|resigning)\b"
)
_GOES_TO: Final = re.compile(
    r"[,;:—–(]\s*(?:(?i:and|so)\s+)?(?i:he|she)(?:['’]s|\s+is|\s+has)?\s+"
    r"(?:(?i:gone|going|moving|headed|heading|off)\s+(?i:to)\s+(?=[A-Z])|(?i:joining)\s+"
    r"|(?i:off\s+to|taking|got|landed|accepted|starting)\b[^.;!?]{0,40}?\s(?i:at|with)\s+)" + NAME
)


def first_name(patterns: Sequence[re.Pattern[str]], text: str) -> str | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            name = clean_name(match.group(1))
            if name:
                return name
    return None


# The noun of an institution's name after a possessive ("Royal Children's Hospital").
_INSTITUTION: Final = re.compile(
    r"(?:Hospital|Clinic|College|School|University|Church|Cathedral|Academy|Institute|Centre"
    r"|Center|Hall|Park|Bay|Bank|Inn|Pub|Kitchen|Bakery|Café|Cafe)\b"
)


def clean_name(raw: str) -> str:
    """The name a pattern captured, cut before a word that cannot continue it and without
    trailing connectors or punctuation."""
    raw = raw.strip()
    if _HAN_STOP.search(raw) and not raw.isascii():
        raw = _HAN_STOP.sub("", raw)
        raw = re.sub(r"^(?:一家|一个|一所|某)", "", raw)
    words: list[str] = []
    split = raw.split()
    for index, word in enumerate(split):
        if (
            words
            and index + 1 < len(split)
            and re.fullmatch(r"[A-Z][\w-]*['’]s", word)
            and not _INSTITUTION.match(split[index + 1])
        ):
            # "Tidebreak Gaming's Valorant roster": the owner is the name ("McDonald's" at the
            # end and "St Mary's Hospital" stay whole).
            words.append(word[:-2])
            break
        bare = word.strip(".,;:!?\"'").replace("’", "'").lower()
        if words and bare in _NOT_NAME_WORDS:
            break
        if not words and bare in _NOT_NAME_WORDS and bare not in ("the",):
            return ""
        words.append(word)
        if word.endswith((".", ",", ";", "!", "?")) and not _ABBREVIATION.match(word):
            break  # the sentence or the clause ended inside the capture
    while words and words[-1].strip(".,").lower() in _CONNECTORS:
        words.pop()
    return " ".join(words).strip(" .,;:!?'\"")


def _stated(
    own: Sequence[re.Pattern[str]],
    others: Sequence[re.Pattern[str]],
    text: str,
    speaker: str,
) -> tuple[str, str] | None:
    """(whose, what) a sentence states: "I live in Porto" → the speaker's; "Caroline lives in
    Boston" → Caroline's; "she lives in Oslo" or "the team moved to Slack" name no one: None."""
    value = first_name(own, text)
    if value:
        return speaker, value
    for pattern in others:
        for match in pattern.finditer(text):
            before = text[: match.start()]
            subject = _NAMED_SUBJECT.search(before) or _LEFT_AND.search(before)
            if subject is None and _PRONOUN_BEFORE.search(before):
                # "Kai doesn't live in Paris anymore, he moved to Lyon": the one named first.
                subject = _OPENING_NAME.match(text)
            who = clean_name(subject.group(1)) if subject else ""
            value = clean_name(match.group(1))
            if who and value and who.lower() not in _NOT_NAME_WORDS:
                return who, value
    return None


def person_relations(text: str, speaker: str) -> list[tuple[str, str, str]]:
    """(whose, works_at | lives_in, where) a sentence states of the speaker or someone named:
    "I work at Globex" → (speaker, works_at, Globex), "Caroline lives in Boston" → Caroline's."""
    found: list[tuple[str, str, str]] = []
    # "Emma and Liam both work at Spotify"; "I don't work at Stripe, I'm at Shopify now".
    parts = [
        part
        for whole in asides_apart(han_unspaced(split_label(corrected(text) or text)[1]))
        for part in one_subject_each(without_apposition(whole))
    ]
    for part in parts:
        employed = _stated(_WORKS_AT, _WORKS_AT_OTHER, part, speaker)
        if employed and employed[1] in ZH_CITIES:  # "我在杭州上班": where one is based
            found.append((employed[0], "lives_in", employed[1]))
        elif employed and zh_employer_named(employed[1]):  # "我在公司上班" names no employer
            found.append((employed[0], "works_at", employed[1]))
        elif (leaver := _LEAVER.search(part)) and (gone := _GOES_TO.search(part, leaver.end())):
            who, where = clean_name(leaver.group(1)), clean_name(gone.group(1))
            if who and where and who.lower() not in _NOT_NAME_WORDS:
                found.append((who, "works_at", where))
        housed = _stated(_LIVES_IN, _LIVES_IN_OTHER, part, speaker)
        if (
            housed
            and not function_noun(housed[0])  # "Inventory lives in Primarius": a tool in use
            and slot_of(housed[1]) is None
            and known_tool(housed[1]) is None
            and not _NO_HOME.search(housed[1])
            and not _a_team(housed[1], part)
        ):
            found.append((housed[0], "lives_in", housed[1]))
    return found
