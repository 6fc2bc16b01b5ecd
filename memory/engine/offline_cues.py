"""The cue lexicon of offline event extraction: which wording marks which kind of event.

Kept apart from `memory.engine.offline_events` so the rules read as a table. Each cue is a
case-insensitive pattern over one sentence, English and Chinese side by side. The order of
`KIND_ORDER` is the priority when a sentence matches several kinds (one event per sentence).
"""

from __future__ import annotations

import re
from typing import Final

_I = re.IGNORECASE


def cue(*parts: str) -> re.Pattern[str]:
    """One case-insensitive pattern of English and Chinese alternatives."""
    return re.compile("|".join(parts), _I)


CANCELLATION: Final = cue(
    r"\b(?:cancel(?:l?ed|s|ling)?|called\s+off|call(?:ing)?\s+off|scrapped|scrap)\b",
    # "The village-hall tour's off though", "the deal is off": a thing said to be off.
    r"^(?:(?:oh\s+)?(?:and|also|so|but|sadly|unfortunately)[,:]?\s+)*(?:the|our|that|this)\s+"
    r"[\w'’-]+(?:\s+[\w'’-]+){0,4}?(?:['’]s|\s+is)\s+(?:officially\s+)?off\b"
    r"(?=\s*(?:though|now|for\s+now|after\s+all|[,.;!—–]|$))",
    # "we're not doing the Steam Next Fest demo after all".
    r"\b(?:we're|we\s+are|i'm|i\s+am)\s+not\s+doing\s+[^.;!?]{1,60}?\bafter\s+all\b",
    # Not going any more: "won't" alone is also a resolve ("I won't give up"), so it needs
    # a verb of attending or holding something.
    r"\b(?:we|i)(?:\s+won't|\s+will\s+not|\s+can't|\s+cannot|(?:'re|'m|\s+are|\s+am)\s+not"
    r"\s+(?:going\s+to|gonna)|\s+aren't\s+(?:going\s+to|gonna))\s+(?:be\s+able\s+to\s+)?"
    r"(?:make\s+it\s+to|attend|come\s+to|go\s+to|join|be\s+(?:there|coming|joining|attending)"
    r"|travel|fly|host|hold|run\s+the|do\s+the|have\s+the)\b",
    r"\b(?:we're|we\s+are|i'm|i\s+am)\s+not\s+(?:going|coming)\s+to\s+(?:the|a|an|her|his|their"
    r"|our|my|your)\b",
    r"取消|作废|不去了|不办了|不做了|不搞了|不来了|去不了|来不了"
    # "深圳办事处不弄了", "那家店不开了", "春节不搞业主联欢会了" (not "到期就不续了": said with what
    # replaces it, a change).
    r"|不弄了|不开了|不搞[\u4e00-\u9fff]{1,8}了",
    # "We're not renewing Geneious", "we didn't renew".
    r"\b(?:not|n't)\s+(?:be\s+)?renew(?:ing)?\b",
)
DECISION: Final = cue(
    r"\b(?:let'?s|let\s+us)\s+(?:just\s+)?(?:use|switch\s+to|go\s+with|move\s+to|adopt|pick|choose"
    r"|stick\s+with|stay\s+with|migrate\s+to|standardi[sz]e\s+on)\b",
    r"\b(?:we|i)(?:'ll|\s+will|\s+shall|(?:'re|'m|\s+are|\s+am)\s+going\s+to)\s+(?:use|go\s+with"
    r"|switch\s+to|adopt|stick\s+with|standardi[sz]e\s+on)\b",
    r"\b(?:we|i|they|team)\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*decided\b",
    r"\b(?:we|i|they|team)\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:ruled\s+out|rejected"
    r"|vetoed)\s+(?-i:[A-Z])",
    r"\b(?:agreed|settled|landed)\s+(?:to|on|that)\b|\bfinal\s+(?:call|decision|answer)\b"
    r"|\b(?:we're|we\s+are|i'm|i\s+am)\s+(?:sticking|staying)\s+with\b|\bopted\s+(?:for|to)\b"
    r"|\b(?:i|we)(?:'ve|\s+have)\s+(?:now\s+|finally\s+)?(?:chosen|picked|gone\s+with"
    r"|standardi[sz]ed\s+on)\b"
    r"|\bmade\s+up\s+(?:my|our|his|her|their)\s+minds?\b"
    # "Board signed off on a second silo bag line": approved by whoever decides.
    r"|^(?:the\s+)?[\w'’]+\s+(?:has\s+|just\s+|finally\s+)?(?:signed\s+off\s+on|green-?lit)\b"
    r"|\bgave\s+(?:it\s+|us\s+)?the\s+go-?ahead\b"
    r"|\bfrom\s+now\s+on\b|\bgoing\s+forward\b",
    r"\bdecided\s+(?:to|on|that|against)\b|\bthe\s+decision\s+(?:is|was)\b|\bdecision\s*:",
    r"\b(?:we're|we\s+are|i'm|i\s+am)\s+going\s+with\b|\bwe'll\s+go\s+with\b",
    r"^(?:(?:ok(?:ay)?|so|then|alright|right|please)[,!.]?\s+)*(?:use|switch\s+to|go\s+with"
    r"|adopt|stick\s+with)\s+\S",
    r"决定|改用|就用|选用|采用|(?<!搞)定了|定下来|(?:最终|最后|还是)(?:选|定)了?|敲定|拍板|统一用|用.{1,20}吧|以后.{0,6}?(?:都|统一|一律)|一律|从现在起|一致同意",
)
# A subscription ended for another one: "I cancelled Spotify and use Apple Music now" is a
# change of what is used, not an event called off.
CANCELLED_FOR: Final = cue(
    r"\bcancel(?:l?ed)\b[^.;!?]{1,40}?\b(?:and|,)\s+(?:(?:i|we)\s+)?(?:now\s+)?(?:(?:i|we)\s+)?"
    r"(?:use|using|switched\s+to|moved\s+to|went\s+with|signed\s+up\s+for|got)\b",
)
# Verb forms only: "the migration guide" is not a migration.
MIGRATION: Final = cue(
    r"(?<!n't\s)(?<!not\s)(?<!never\s)\bmigrat(?:e|ed|es|ing)\b|\bported\b"
    r"|\bmoved\s+(?:[\w-]+\s+){1,4}over\s+to\b",
    # "我们没有迁移到Kubernetes" is no migration; "我们已经迁到PostgreSQL了" is one.
    r"(?<!没有)(?<!没)(?<!不)(?<!不会)迁(?:移|到|至)",
)
# Something said to hold no more: "Priya no longer leads the mobile team", "Tom doesn't work at
# Google anymore", "不再用Jenkins", "我已经不在腾讯工作了" (a change, and what it ends:
# `stated_facts.ended_facts`).
_STOPPED_EN: Final = (
    r"\bno\s+longer\b|(?:\bnot\b|n't\b|\bnobody\b|\bno\s+one\b).{1,40}?\b(?:anymore|any\s+more)\b"
)
_STOPPED_ZH: Final = r"不再|已经不.{1,10}了"
STOPPED: Final = cue(_STOPPED_EN, _STOPPED_ZH)
# "…now." said last, with no contrast of two values before it: the value before it is the
# current one ("I grew up in Madrid but live in Barcelona now" contrasts two places, it tells no
# change; "Boxes everywhere, but we live in Rochester now" contrasts no value).
NOW_SAID_LAST: Final = re.compile(
    r"^(?!.*\b(?:in|at|from|with|for)\s+(?-i:[A-Z])[^.;!?]*\bbut\b).*\bnow\s*[.!]?$", re.IGNORECASE
)
CHANGE: Final = cue(
    r"\b(?:switched|changed|moved|converted|transitioned|swapped)\b.*\b(?:from|to|off|onto)\b",
    _STOPPED_EN,
    _STOPPED_ZH,
    r"\bswitched\b|\bstopped\s+(?:using|doing|going)\b",
    r"\breplaced\b.*\bwith\b",
    r"\b(?:changed|updated|reset|renamed|rotated)\s+(?:the|our|my|its|their|his|her)\b"
    r"|\b(?:gave|given)\s+up\s+(?!on\b|hope\b)[a-z]"
    r"|\b(?:use|uses|using|switched|moved|went|go|going|drink|drinks|eat|eats)\b.{1,40}\binstead\s+of\b"
    r"|\bleft\s+(?:the|our|my|his|her|their)\s+(?:[\w-]+\s+){0,2}(?:team|company|job|firm|group"
    r"|band|department|project|role|position|board|club|startup|agency)\b",
    r"从.{1,30}(?:换成|改成|改为|切换到|转到|搬到)|换成了|改成了|搬到|搬去|搬家到|跳槽"
    # "CI已经全部切到GitHub Actions了": switched over to a named tool.
    r"|(?<!没有)(?<!没)(?<!不)(?:切换?到|换到)了?(?=[A-Za-z]|飞书|钉钉|企业微信|阿里云|腾讯云)"
    # ("周五之前要把报告交给老板" is a task, not a hand-over.)
    r"|^(?!.*(?:要|得|需要|必须|记得|别忘了?)把)"
    r".*(?:交给|移交给|转交给|交接给)了?(?![我你他她它])[\u4e00-\u9fffA-Z][^吧吗？?]*$",
    # "We relocated to Manchester", "Raj handed the data pipeline to Mei", "Ben took over",
    # "We rewrote the API in Go".
    r"\brelocat(?:ed|ing)\b|\btook\s+over\b"
    # "Rosa's leaving", "Lorna Pike is taking over the box office", "we're ditching Dentrix".
    r"|(?-i:\b[A-Z][\w-]+)(?:\s*\([^)]{1,40}\))?(?:['’]s|\s+is|\s+has)?\s+(?:leaving|quitting"
    r"|resigning|resigned)\b"
    # Someone new, or standing in: "Jarrah Moore started with us Monday as agronomist", "Luis
    # Ortega takes over the desk once Dana's gone", "Tomasz will cover as art lead".
    r"|\b(?:started|joined)\s+(?:with\s+us|us|the\s+team|our\s+team)\b|\bcame\s+on\s*board\b"
    r"|\btakes\s+over\b|\bwill\s+(?:take\s+over|step\s+in|cover\s+as|cover\s+for)\b"
    r"|\b(?:is|are|'s)\s+(?:taking\s+over|stepping\s+(?:up|in))\b"
    r"|\b(?:we're|we\s+are|we've|we\s+have)\s+(?:ditching|ditched|dumping|dropping|dropped|done\s+with)"
    r"\s+(?-i:[A-Z])"
    r"|\bhanded\s+(?:over\s+)?(?:the|our|his|her|their|my)\s+[\w\s-]{0,30}?(?:team|service|project"
    r"|pipeline|module|repo|codebase|app|api|system|platform|process|account|on-call|rotation)"
    r"\s+(?:over\s+)?to\b"
    r"|\bstepped\s+down\b|\brewr(?:ote|itten)\b[\w\s-]{1,40}?\bin\s+(?-i:[A-Z])",
    r"改(?:到|喝|吃|去|成|为|学|练|打|玩)|推迟|延期|改期|提前到|挪到",
    r"(?:刚|新)(?:报到|入职)|(?:报到|入职)了|顶上|接替|调(?:去|到|往)(?!了解|查|研)",
    # Rescheduling: "the offsite got pushed to May".
    r"\b(?:pushed|moved|postponed|rescheduled|delayed|bumped|slipped|slid)\s+(?:back\s+|out\s+)?(?:to|until|till"
    r"|by)\b|\b(?:postponed|rescheduled)\b|\bbrought\s+forward\b",
    # Back to an earlier choice, and a team said as where someone works now: "I've gone back to
    # Vim", "Marta now works on the growth team", "Ken is now on the data team".
    r"\b(?:gone|went|going|switched|moved|came|come)\s+back\s+to\s+(?-i:[A-Z])"
    # "I left Globex, I'm at Initech now".
    r"|\b(?:left|quit)\s+(?-i:[A-Z])[\w&.'’-]*(?:\s+(?-i:[A-Z])[\w&.'’-]*)?\s*[,;]\s*(?:and\s+)?"
    r"(?:i'm|i\s+am|he's|she's|he\s+is|she\s+is)\s+(?:now\s+)?(?:at|with)\b"
    # "Felix left Spotify last year and now works at Klarna", "Felix now works at Klarna".
    r"|\b(?:left|quit)\s+(?-i:[A-Z])[^.;!?]{0,40}?\band\s+(?:now\s+)?(?:(?:i|he|she)\s+)?"
    r"(?:works?|is\s+working|am\s+working)"
    r"\s+(?:at|for)\b|\bnow\s+works?\s+(?:at|for)\s+(?-i:[A-Z])"
    r"|\b(?:now\s+works?|works?\s+now|is\s+now|'s\s+now)\s+(?:on|in|with|for|part\s+of)\s+the\s+"
    r"[\w\s-]{1,30}?team\b"
    r"|\b(?:i'm|i\s+am|we're|we\s+are)\s+now\s+(?:living|based)\s+in\b"
    r"|\b(?:is|'s|am|'m|are|'re)\s+back\s+(?:on|in|with)\s+the\s+[\w\s-]{1,30}?team\b",
    # Roles and memberships: "Maria moved to the data team", "Sam got promoted".
    r"\b(?:joined|rejoined|resigned|transferred\s+to|became\s+(?:a|an|the|our))\b"
    # Someone leaving and a hand-over: "Yusuf left last month", "is now handled by Mei".
    r"|\b(?-i:[A-Z])[\w-]+\s+(?:has\s+)?left\s+(?:the\s+company|us|last\s+(?:week|month|year)"
    r"|recently|yesterday|this\s+(?:week|month))\b"
    r"|\b(?-i:[A-Z])[\w-]+\s+(?:has\s+)?(?:quit|left|resigned)(?:\s+(?:last\s+(?:week|month|year)"
    r"|yesterday|today|recently|this\s+(?:week|month)|on\s+\w+))?\s*(?:[,;.!]|$)"
    r"|\b(?:took|(?:has|have|had)\s+taken|is\s+taking)\s+over\b"
    r"|\b(?:stepped|steps|stepping)\s+down\b|\bhanded\s+(?:over\b|.{1,40}\bover\s+to\b)"
    r"|\bsold\s+(?:the|our|my|his|her)\b.{1,40}\bbought\b"
    # Someone arriving: "We hired a new backend engineer, Tariq", "Chloe started on the mobile
    # team today".
    r"|\b(?:hired|onboarded)\b|\bstarted\s+(?:on|in|with)\s+(?:the|our)\s+(?:[\w-]+\s+){1,2}team\b"
    r"|\bstarted\s+(?:a\s+new\s+job\s+|orientation\s+|onboarding\s+|training\s+)?at\s+(?-i:[A-Z])"
    r"|\b(?:is|are)\s+now\s+(?:owned|handled|maintained|led|run|managed|looked\s+after)\s+by\b"
    # Who holds it now: "Devin Marsh is running night grooming now", "Lustre is Ravi Sundaram's
    # responsibility now", "Kayla now runs the front desk".
    r"|\b(?:is|'s|are)\s+(?:now\s+)?(?:running|leading|heading(?:\s+up)?|managing|in\s+charge\s+of)"
    r"\b[^.;!?]{1,40}?\bnow\b"
    r"|\bnow\s+(?:runs|leads|heads\s+up|manages|looks\s+after|owns|maintains)\b"
    # "ticketing is on TeamDynamix now": a function's tool, said as now (not "Priya is on PTO
    # now").
    r"|(?<![\w-])(?-i:[a-z])[\w-]*\s+(?:is|are)\s+(?:all\s+)?(?:on|in)\s+(?-i:[A-Z])[\w.-]*"
    r"(?:\s+(?-i:[A-Z])[\w.-]*)?\s+now\b"
    r"|['’]s\s+(?:responsibility|job|baby|dept|department|team)\s+now\b"
    # "retired in January", not "a retired firefighter"
    r"|\bretired\b(?!\s+(?:[\w-]+\s+){0,2}(?:[\w-]+(?:er|or|ist|ian|ant|ent)|teacher|nurse|chef)\b)"
    r"|(?<!n't\s)(?<!not\s)(?<!never\s)\bquit\s+(?:my|his|her|their|our|the)\b"
    r"|\bi\s+(?:just\s+|finally\s+|recently\s+)?quit\s+(?-i:[A-Z])"
    r"|\b(?:got|was|been|were|get|gets)\s+promoted\b|\bpromoted\s+to\b|\btook\s+over\s+as\b"
    r"|\bmoved\s+into\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,2}role\b",
    # Leaving a team or company, as English "left the … team": "张伟离开了数据组".
    r"调到|调去|升职|升为|晋升|跳槽|辞职|离职|入职|退休|加入了|离开了?(?:[^，。,.]{0,8}?(?:组|团队|部门|公司))"
    r"|(?:转到|回到)了?[^，。,.]{0,8}?(?:组|团队|部门)"
    r"|去了[^，。,.]{0,8}?(?:组|团队|部门)(?=$|[，。,.！!])"
    # "我现在在字节跳动做产品", "我现在住在深圳": the speaker's job or home said as now (as "I'm now
    # living in …"); not 目前 ("currently") nor "我现在在公司" (where one is this minute).
    r"|^我现在(?:在[^，。,.在]{2,12}?(?:工作|上班|做|当|任职)|住在)"
    # Someone gone, and who is there now: "李明走了，现在我的主管是张华".
    r"|(?:^|[，,])(?!我|你|他|她|咱)[\u4e00-\u9fff]{2,3}(?:已经)?走了[，,]\s*(?:现在|目前|接下来)"
    # Someone arriving: "我们组新来了一个实习生叫刘畅".
    r"|(?:新来了|招了)一?[个位名](?=[^，。,.]{0,8}?(?:叫|名叫))",
    # A hand-over: "短信通道现在交给小付", "排序模型之后由许嘉接手".
    # (not "这种一般都转给…机构": where such cases usually go)
    r"交给了|(?:现在|暂时|临时)交给|(?<!一般都)(?<!一般)(?<!通常)转给了?|移交给?|交接给|接手|接管|(?:现在|目前|今后|以后)(?:改)?(?:由|归).{1,8}?(?:负责|维护|管)"
    # "广州安装队现在是他徒弟潘宇在带", "中班年级组长现在换成王蕾了".
    r"|现在是[^，。,.]{1,8}?在?(?:带|管|负责)|现在换成",
)
SAFETY: Final = cue(
    r"\b(?:allergic|allerg(?:y|ies)|anaphyla\w*|epilep\w*|diabet\w*|asthma)\b",
    r"过敏|哮喘|糖尿病|癫痫",
)
# "I'm a bit tired", "I'm a mix of excited and scared": "I'm a …" that names no role.
NOT_A_ROLE: Final = (
    r"(?!(?:bit|little|lot|tad|fan|big|huge|massive|mix|kind|sort|total|real|complete|bundle"
    r"|mess|wreck|believer|sucker|fool|lucky|proud|happy|nervous|firm|strong|great|good)\b)"
)
# Nouns that name a job or a role, for "Tom is our new tech lead" / "王经理是我们新的负责人".
ROLE_NOUNS: Final = (
    r"(?:lead|leader|manager|owner|director|head|engineer|developer|designer|architect|analyst"
    r"|scientist|researcher|consultant|founder|co-founder|ceo|cto|cfo|coo|vp|president|chair"
    r"|intern|teacher|professor|student|nurse|doctor|lawyer|accountant|editor|writer|coach"
    r"|pharmacist|officer|admin|administrator|coordinator|recruiter|specialist|representative"
    r"|contact|point\s+of\s+contact|maintainer|reviewer|mentor|assistant|supervisor|boss"
    r"|firefighter|chef|cook|pilot|farmer|plumber|electrician|mechanic|dentist|surgeon|therapist"
    r"|counsel(?:l)?or|social\s+worker|artist|musician|photographer|journalist|programmer"
    r"|librarian|vet|veterinarian|pastor|priest|soldier|police\s+officer|cop|driver|clerk|cashier"
    r"|barista|waiter|waitress|realtor|banker|paramedic|carpenter|architect|tutor|principal)"
)
ROLE_NOUNS_ZH: Final = (
    r"(?:负责人|经理|主管|总监|组长|老师|教师|护士|医生|律师|会计|工程师|设计师|程序员|产品经理"
    r"|架构师|实习生|学生|老板|创始人|总裁|主任|队长|班长|对接人|编辑|记者|教练)"
)
IDENTITY: Final = cue(
    r"\bmy\s+name\s+is\b|\bcall\s+me\b",
    rf"\bi(?:'m|\s+am)\s+(?:an?)\s+{NOT_A_ROLE}\w",
    r"\bi(?:'m|\s+am)?\s+(?:work|working)\s+(?:at|for|as)\b"
    r"|\bi(?:'m|\s+am)?\s+(?:study|studying)\s+at\s+(?-i:[A-Z])",
    r"\b(?:i|we)(?:'m|\s+am|'re|\s+are)?\s+(?:live|living)\s+in\b"
    r"|\bi(?:'m|\s+am)\s+(?:originally\s+)?(?:from|based\s+in)\b",
    r"\bi(?:'m|\s+am)\s+\d{1,3}\s+years?\s+old\b|\bmy\s+(?:job|role|title|pronouns)\s+(?:is|are)\b",
    r"我是(?![说不在想觉真很挺来去否吗])|我叫|我的名字是|我(?:现在|目前|一直)?在.{1,20}(?:工作|上班)"
    r"|我(?:现在|目前|一直)?在(?:一家|一个|一间)[^，。,]{1,10}(?:做|当|担任)"
    r"|我住在|我来自",
    r"\bi(?:'ve|\s+have)\s+been\s+(?:living|working|based)\s+(?:in|at|for|as)\b",
    # A role or a subject held at a named place: "I'm the lead designer at Pinecone Games", "I
    # teach math at Lincoln High".
    r"\bi(?:'m|\s+am)\s+(?:the|an?)\s+[\w\s-]{2,40}?\s+at\s+(?-i:[A-Z])"
    r"|\bi\s+(?:teach|coach)\s+(?:[a-z]+\s+){0,2}at\s+(?-i:[A-Z])",
    # States that describe the person: "I'm vegetarian", "I'm left-handed".
    r"\bi(?:'m|\s+am)\s+(?:a\s+|an\s+)?(?:strict\s+)?(?:vegetarian|vegan|pescatarian|teetotal"
    r"|left-handed|right-handed|colou?r-?blind|pregnant|retired|married|divorced|engaged|widowed"
    r"|diabetic|deaf|blind|lactose\s+intolerant|gluten[\s-]intolerant)\b",
    # A named or related third person's job, role or home.
    # "works for"/"lives in" only before a name: "that works for me" is no job.
    rf"\b(?:works|worked|is\s+working)\s+(?:as\b|(?:at|for)\s+(?-i:[A-Z]))"
    rf"|\blives\s+in\s+(?:the\s+)?(?-i:[A-Z])"
    # Two people named with one job or home: "Emma and Liam both work at Spotify".
    rf"|(?-i:[A-Z])[\w'’-]+\s+and\s+(?-i:[A-Z])[\w'’-]+\s+(?:both\s+)?(?:work\s+(?:at|for)|live"
    rf"\s+in)\s+(?-i:[A-Z])"
    rf"|\b(?!(?:it|that|this|there|what|which|who|here|where)\b)[\w-]+(?:'s|\s+is)\s+(?:now\s+)?"
    rf"(?:our|the|my|their|a|an)\s+(?:new\s+|current\s+|former\s+)?"
    rf"(?:[\w-]+\s+){{0,3}}{ROLE_NOUNS}\b",
    rf"住在|我在.{{1,12}}住|(?:(?<![这那])是|当|做|担任)(?:了)?(?:我们|我的|公司|团队|他们)?(?:的)?(?:新的?)?"
    rf"(?:一名|一个|一位)?[\u4e00-\u9fff]{{0,6}}{ROLE_NOUNS_ZH}",
)
PREFERENCE: Final = cue(
    r"\bi\s+(?:\w+ly\s+|much\s+|just\s+|also\s+|kinda\s+)?(?:prefer|like|love|enjoy|hate|dislike"
    r"|adore|can't\s+stand|don't\s+like|do\s+not\s+like)\b",
    r"\bi\s+(?:always|never|usually)\b|\bmy\s+favou?rite\b",
    r"\bi(?:'m|\s+am)\s+(?:not\s+)?(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of\b",
    r"\bi(?:'ve|\s+have)\s+always\s+preferred\b|\bi(?:'m|\s+am)\s+more\s+comfortable\s+(?:in|with)\b",
    # "I'd prefer if we didn't use Kubernetes", "I'm more of a cat person".
    r"\bi(?:'d|\s+would)\s+(?:much\s+)?prefer\b"
    r"|\bi(?:'m|\s+am)\s+(?:more\s+of\s+|definitely\s+|totally\s+)?an?\s+[\w-]+\s+person\b",
    r"我(?:个人|自己)?(?:更|最|很|非常|特别|比较|真的|也)?(?:喜欢|讨厌|偏好|热爱|爱|不喜欢|不太喜欢|不怎么喜欢|受不了)",
    r"我(?:总是|从不|从来不|一直都?)",
    r"我(?:一般|通常|平时|平常|经常|习惯)",
    r"\bi'd\s+(?:much\s+)?rather\b|\bi(?:'m|\s+am)\s+(?:\w+ly\s+|so\s+|totally\s+)?into\b",
    r"\bfavou?rite\b",
)
# A standing instruction about how the assistant answers: "Please keep your answers short",
# "Always answer in English", "From now on, no emojis in replies", "以后回答尽量简短".
INSTRUCTION: Final = cue(
    r"\b(?:keep|make)\s+(?:your\s+|the\s+)?(?:answers|replies|responses|explanations"
    r"|summaries|messages)\s+(?:short|shorter|brief|concise|simple|detailed|in\s+\w+)\b",
    r"^(?:please\s+)?(?:always|never|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future)"
    r"\s*,?\s*(?:please\s+)?(?:answer|reply|respond|write\s+(?:to\s+me\s+)?in|explain|format"
    r"|call\s+me)\b",
    r"\b(?:don't|do\s+not|never)\s+use\s+(?:emojis?|emoji|jargon|bullet\s+points|markdown"
    r"|tables|exclamation\s+marks)\b",
    r"^(?:please\s+)?(?:answer|reply|respond|talk|write)\s+(?:to\s+me\s+)?in\s+(?-i:[A-Z])\w+"
    r"(?:\s+from\s+now\s+on|\s+please)?\s*[.!]?$",
    r"(?:以后|今后|之后)?(?:请)?(?:回答|回复|解释)(?:我)?(?:的时候)?(?:尽量|请|都|要|最好)?"
    r"(?:简短|简洁|详细|用中文|用英文|短一点|长一点|别太长)",
    r"^(?:以后|今后)(?:请|都)?(?:用|不要|别)",
    # "以后发给我的报表按门店分开列就好", "pls text me rather than email".
    r"^(?:以后|今后)[^，。！？]{0,12}(?:给我|跟我|对我|我)[^，。！？]{0,16}(?:就好|就行|就可以)"
    r"(?=[，。！,.!]|$)",
    r"\b(?:text|call|email|message|ping|whatsapp|slack)\s+me\s+(?:rather\s+than|instead\s+of)\b",
)
# What "don't have" / "there's no" leaves out as chatter, not a missing thing.
_NO_THING_EN: Final = (
    r"(?:time|idea|clue|energy|chance|choice|money|much|enough|to|it|that|this|them|plans?"
    r"|anything|problems?|a\s+problem|say|access|patience|words)"
)
_WE_ZH: Final = r"(?:我们|咱们|我们家|我家|家里|公司|团队|我们组|我们公司|我们团队)"
# A standing negative fact about what is (not) used or eaten: "we don't use Kafka", "我不吃香菜".
# Not a resolve ("I won't give up") or a dislike of an activity (PREFERENCE has those).
NEGATIVE_FACT: Final = cue(
    r"\b(?:we|i)\s+(?:don't|do\s+not|never)\s+(?:use|run|deploy|eat|drink|do|play|allow|smoke"
    r"|touch)\s+(?!it\b|that\b|this\b|them\b|any\b|anything\b|much\b|well\b|so\b|that\b|a\s+lot\b"
    r"|enough\b|too\b|very\b|really\b|what\b|mind\b)\S",
    # A rule against something named: "Docker Swarm is not allowed in production".
    r"^(?:the\s+)?(?!(?:it|this|that|there|he|she|they|you|we|i|what|which|who)\b)(?-i:[A-Z])"
    r"[\w.+#-]*(?:\s+[\w.+#-]+){0,2}\s+(?:is|are)\s+(?:not\s+allowed"
    r"|not\s+permitted|banned|forbidden|prohibited|off[-\s]limits)\b(?!\s+(?:to|from)\b)",
    # "不用" alone is mostly "no need to" (我们不用担心): a use needs a Latin name after it.
    r"(?:我们|咱们|我)(?:公司|团队|组)?(?:绝对|从来|根本|完全|一直|也)?(?:不|从不)(?:让|许|准)?"
    r"(?:(?:用|使用)(?=[A-Za-z])|(?:吃|喝|玩|抽|碰|搞)(?![了过吗呢]))\S",
    # "我们没用MongoDB", "我们没有用过Kafka".
    rf"^{_WE_ZH}(?:目前|现在|从来|根本|一直|也)?没(?:有)?(?:用|使用)过?(?=[A-Za-z])",
    r"(?:禁止|严禁|不许|不准|不让|不允许)(?:用|使用)\S",
    # What is not there: "We don't have a staging fleet", "I don't own a car", "There's no
    # staging environment", "We haven't adopted GraphQL"; never "I don't have time", "There's
    # no way", "I haven't used it".
    r"\b(?:we|i)\s+(?:don't|do\s+not|no\s+longer)\s+(?:have|own|keep)\s+"
    rf"(?!(?:an?\s+|any\s+)?{_NO_THING_EN}\b)(?:an?\s+|any\s+)?[a-z][\w-]*",
    r"^(?:there's|there\s+is|there\s+are)\s+no\s+(?!way\b|need\b|rush\b|hurry\b|doubt\b"
    rf"|worries\b|reason\b|point\b|question\b|excuse\b|shame\b|harm\b|{_NO_THING_EN}\b)[a-z]",
    r"\b(?:we|i)(?:'re|\s+are|'m|\s+am)\s+not\s+(?:on|using)\s+(?-i:[A-Z])",
    # What the product lacks: "The app doesn't support Android yet".
    r"^(?:the|our)\s+(?:[\w-]+\s+){0,3}?(?:app|apps|api|service|site|website|product|backend"
    r"|frontend|platform|sdk|cli|dashboard|plugin|extension)\s+(?:doesn't|does\s+not|can't|cannot"
    r"|won't)\s+(?:yet\s+)?(?:support|have|offer|handle|run\s+on|work\s+on|work\s+with)\s+\S",
    # "Nobody on the team uses a Mac", "None of us drink coffee".
    r"^(?:nobody|no\s+one|none\s+of\s+us)(?:\s+(?:on|in)\s+(?:the|our|my)\s+[\w-]+|\s+here)?"
    r"\s+(?:uses?|runs?|deploys?|touch(?:es)?|drinks?|eats?|smokes?|owns?)\s+(?!it\b|that\b)\S",
    r"\b(?:we|i)\s+(?:haven't|have\s+not|never)\s+(?:adopted|set\s+up|introduced|rolled\s+out"
    r"|migrated\s+to|moved\s+to)\s+(?!it\b|that\b|this\b|them\b|anything\b|any\b)\S",
    # "我们没有专职的测试人员", "我们家没有养宠物", "我们不做安卓原生应用": a team or household
    # without something, or a line it does not do; never "我们没有时间", "我们没有去".
    rf"^{_WE_ZH}(?:目前|现在|暂时|还|也|从来|根本|一直)?没有(?:养|配|招|买|建|搭|开|请)?"
    r"(?!时间|办法|问题|想到|必要|关系|空|钱|计划|决定|什么|任何|多少|那么|这么|太|很|说|去|来"
    r"|看|做|想|听|发现|注意|吃|玩|聊|见|谈|用过)[\u4e00-\u9fffA-Za-z]{2}",
    rf"^(?:另外|还有|而且|对了|顺便说下|说一下)?[，,]?{_WE_ZH}(?:园|店|校|厂|所|院|馆)?"
    r"(?:目前|现在|暂时|从来|根本|也|都|一律|是)?不(?:做|搞|支持|提供|接|招|开发|上|教|卖|收|送|代理"
    r"|碰|允许)(?![了过吗呢完好得这那去来])[\u4e00-\u9fffA-Za-z]{2}",
    # The line named first: "实木家具的单我们不接哈", "婚礼跟拍我们是不接的".
    rf"^[\u4e00-\u9fffA-Za-z]{{2,12}}?{_WE_ZH}(?:是|也|都|一律|从来|目前|现在)?不(?:做|搞|接|收|卖"
    r"|教|招|送|代理|碰)(?:的|哈|啊|呀|了)?(?=[，。,.!！~～]|$)",
    # A choice not to: "报班就算了，不报".
    r"^(?!那|这)[\u4e00-\u9fff]{2,8}就算了[，,]\s*不",
    # A line a team does not take on: "we dont do exotics", "we never paywall obits", "we don't
    # trade futures"; never a thought or a need ("we don't know yet", "we never got to it").
    r"\bwe\s+(?:don't|dont|do\s+not|never)\s+(?!(?:know|think|need|want|mind|care|see|get|got"
    r"|understand|remember|believe|expect|feel|mean|have|usually|really|always|often|just|even"
    r"|plan|like|love|hate|go|went|come|talk|hear|say|tell|let|make|be|seem|agree|ever"
    r"|actually|quite)\b)[a-z]+\s+(?!(?:it|that|this|them|any|anything|much|well|so|a\s+lot"
    r"|enough|too|very|really|what|to|you|me|us|him|her|out|up|back|on|about|with|for|in|at"
    r"|if|when|how|why|yet|either|anymore)\b)[a-z]",
)
PLAN: Final = cue(
    r"\b(?:i|we)(?:'ll|\s+will|\s+shall)\b",
    r"\b(?:is|are)\s+(?:planned|scheduled|booked|slated|set)\s+for\b|\bscheduled\s+for\b",
    r"\b(?:i'm|i\s+am|we're|we\s+are)\s+(?:going\s+to|gonna|planning\s+(?:to|on)|about\s+to"
    r"|hoping\s+to)\b",
    r"\bplan(?:ning)?\s+(?:to|on)\b|\bintend\s+to\b|\bmy\s+(?:plan|goal)\s+is\b",
    # "We're planning a styled shoot in May", "Big plan for this year: soft launch …" (said of
    # the team: "I'm planning a …" as a plan cost LoCoMo dev a single-hop question's evidence).
    r"\b(?:we're|we\s+are)\s+planning\s+(?:a|an|the|our|for|some)\b"
    r"|\b(?:big|main|the)\s+plan\s+for\s+(?:this|next|the)\b",
    r"\b(?:is|are)\s+due\s+(?:on|by|in|at\s+the\s+end|before|next|this|tomorrow|today)\b",
    # An obligation with its end: "The audit must be finished this week", 合同六月底到期.
    r"\b(?:must|has\s+to|have\s+to|needs?\s+to|got\s+to)\s+be\s+(?:done|finished|completed|ready"
    r"|shipped|submitted|live|out|signed|approved)\b",
    # A deadline said as one, or as work that must come before something: "The deadline for the
    # paper is March 3", "Submission closes tonight", "I have to finish the slides before
    # Thursday's meeting" (a plan, not the meeting).
    r"\bdeadline\b[^.;!?]{0,80}?\s(?:is|was)\s+(?:on\s+|by\s+)?(?:this|next|tomorrow|today"
    r"|tonight|in\s|the\s+\d|\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed"
    r"|thu|fri|sat|sun)[a-z]*\b|end\s+of)",
    r"\b(?:submissions?|applications?|registration|enrol?lment|voting|entries|the\s+(?:form"
    r"|window|call|portal|poll))\s+closes?\b",
    r"\b(?:i|we)\s+(?:(?:have|need|got)\s+to|must)\s+\w+[^.;!?]{0,60}?\b(?:by|before)\s+"
    r"(?!(?:i|we|you|he|she|they|it|that|then|now)\b)\w",
    r"到期|截止|截稿",
    r"打算|计划|准备|将要|要去|会去|安排",
    # A reminder to oneself: "记得把钥匙交给房东" (not "我记得他说过", a memory).
    r"^(?:记得|别忘了?)(?!他|她|你|我|当时|以前|之前|那|这)[\u4e00-\u9fff]",
)
TYPED: Final = (
    (
        "release",
        cue(
            r"\b(?:released|release|shipped|shipping|launched|launching|deployed|published"
            r"|went\s+live|go\s+live)\b",
            # A piece of work sent out: "the routing docs went out on Friday".
            r"\b(?:docs?|documentation|release|version|update|newsletter|report|dashboard|feature"
            r"|patch|notes|changelog|email|announcement|post|v\d[\w.]*)\s+(?:went|is|are|was|were)"
            r"\s+(?:out|live)\b",
            r"发布|上线|发版",
        ),
    ),
    (
        "task_completed",
        cue(
            r"\b(?:finished|completed|wrapped\s+up|accomplished|done\s+with|got\s+done|graduated"
            r"|submitted|handed\s+in|turned\s+in|passed\s+(?:my|the|our|his|her))\b"
            r"|\b(?:got|received|accepted)\s+(?:the|an|my|a)\s+(?:job\s+)?offer\b"
            # "lease is signed", "we signed the contract".
            r"|\b(?:is|was|got)\s+(?:finally\s+)?signed\b|\bsigned\s+the\s+(?:lease|contract|deal|papers)\b",
            # Making a piece of work: "I painted a lake sunrise", not "made me think".
            r"\b(?:built|created|wrote|painted|designed|knitted|baked|drew|composed|recorded|sewed"
            r"|made)\s+(?:a|an|my|our|this|that|these|some|another|two|three|several)\s+"
            r"(?!(?:\w+\s+)?(?:difference|change|point|mistake|decision|effort|impact|joke|call"
            r"|deal|friends?|sense|progress|memor(?:y|ies)|move|choice|promise|connection"
            r"|statement|comeback|living|wish|plan)\b)",
            r"完成了|搞定了|毕业了|[写做干弄画改修读看学拍理测备谈签]完了?(?=了|[，。！,.!]|$)|[写做画]好了|[考拿]下来了|考过了|通过了|拿到了"
            # Handing work in: "季度总结昨天交了" (a deadline "之前要交了" is planned, so a plan).
            r"|(?:交|提交|交付)了(?=[，。！,.!]|$)|(?:交|递|报)上去了",
            # "the PI upgrade to 2024 went through on the weekend".
            r"\b(?:upgrade|migration|cutover|rollout|deploy(?:ment)?|release|launch|payment|transfer"
            r"|application|filing|submission|deal|sale|merger|order|paperwork)\b[^.;!?]{0,30}?"
            r"\bwent\s+(?:through|live|out|smoothly|fine|well)\b",
        ),
    ),
    (
        "meeting",
        cue(
            r"\b(?:meeting|met\s+(?:with|up)|meet\s+(?:with|up)|meetup|stand-?up|interview"
            r"|a\s+call\s+with|catch\s+up\s+with|caught\s+up\s+with|town\s+hall|all-hands"
            r"|kick-?off|retro(?:spective)?|one-on-one|walk-?through)\b"
            r"|\bpresent(?:ing)?\s+(?:it|this|the\s+\w+|our\s+\w+)\s+to\s+(?:the|our|my)\b"
            r"|\b(?:had|have|having|grabbed|grab|over)\s+(?:a\s+)?(?:lunch|dinner|breakfast|brunch|coffee"
            r"|drinks?)\s+with\b",
            # Going to a gathering, not only naming one ("the support group has helped me").
            r"\b(?:went|go|goes|going|attended|attend|attending|spoke|speaking|joined|at|to)\s+"
            r"(?:\S+\s+){0,4}?(?:conference|workshop|seminar|summit|support\s+group|meetup"
            r"|convention|hackathon|symposium|webinar)s?\b",
            r"和.{1,10}?(?:见面|见了|吃了?饭|聚了?|碰了?面|喝了?(?:咖啡|茶|酒))|会议|开会|见面|碰头|聚会|[例周晨组早班]会|开[^，。！？]{1,3}会(?=[。，！,.!]|$)|研讨会|座谈",
            r"跟[^，。！？]{1,8}对一下",
        ),
    ),
    (
        "incident",
        cue(
            r"\b(?:outage|incident(?!\s+(?:report|review|template|response\s+plan|doc))|crashed|crash(?:es|ing)?|went\s+down|broke|bug|failure"
            r"|data\s+loss|accident|injur(?:y|ed|ies)|got\s+hurt|hurt\s+my|sprained|fractured"
            r"|(?:broke|broken)\s+(?:my|his|her|an?)|fell\s+(?:off|down)|was\s+robbed|got\s+stolen"
            r"|(?:was|were|is|are|went)\s+(?:down|offline)|stopped\s+working|got\s+hacked"
            r"|(?:drive|disk|battery|laptop|phone|computer|server|car|engine|screen)\s+(?:died|failed))\b",
            r"\b(?:derailed|flooded|caught\s+fire|burst|leaked|got\s+hacked|was\s+hacked|hacked"
            r"|was\s+attacked|got\s+robbed|was\s+stolen|power\s+(?:cut|outage|went\s+out))\b",
            # "the bow ramp is leaking hydraulic oil again", "walk-in cooler #2 died tonight",
            # "Lustre MDS fell over around 10 tonight", "the boiler broke down".
            r"\b(?:is|are|'s|started)\s+leaking\b|\b(?:died|fell\s+over|broke\s+down|blew\s+up"
            r"|seized\s+up|tripped|froze\s+up)\b(?!\s+(?:laughing|of\s+laughter))",
            r"故障|宕机|崩溃|事故|出错|挂了|车祸|受伤|摔伤|扭伤|骨折|被偷|丢了"
            r"|被(?:攻击|盗|黑|骗)|打不开|停电|漏水|着火|失火"
            # "主轴烧了", "椰浆断货了", "王奶奶…起夜摔了一下", "冷库报警了".
            r"|烧了|坏了|断货|缺货|停机|摔了(?!一跤)|摔倒|漏油|罢工了|出事了",
        ),
    ),
    (
        "collaboration",
        cue(
            r"\b(?:collaborat\w*|partnered|teamed\s+up|pair(?:ed)?\s+with|worked\s+with)\b",
            # (not a partner named by it: "合作医院的周医生", "合作茶农")
            r"合作(?!医院|方|伙伴|商|单位|社|银行|机构|茶农|农户|门店|厂家|品牌|的)|协作",
        ),
    ),
)
# Something that broke, said plainly by the user (an incident whoever it happened to): only
# the verbs of breaking, not nouns that name the kind of work ("crash reports", "bug fixing").
BROKE: Final = cue(
    r"\b(?:died|fell\s+over|broke(?:\s+down)?|crashed|went\s+(?:down|offline)|(?:is|are|'s)\s+"
    r"(?:down|offline|leaking)|started\s+leaking|burst|caught\s+fire|stopped\s+working"
    r"|blew\s+up|seized\s+up|froze\s+up|got\s+hacked|was\s+hacked)\b",
    # (not "摔了一跤", a tumble of one's own)
    r"宕机|挂了|崩溃了|烧了|坏了|断货|缺货|停机了|摔了(?!一跤)|摔倒了?|跌倒了|停电|漏水|漏油|着火|失火"
    r"|出事了",
)
# An exam or a test passed, said by the person who sat it: "科目二过了", "路考终于过了".
EXAM_PASSED: Final = cue(
    r"(?:考试|科目[一二三四]|路考|驾考|面试|答辩|考核|体检|笔试|雅思|托福)(?:也|终于|顺利|都)*"
    r"(?:通过|过)了",
)
_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
# A recurrence ("every Tuesday", "on Sunday mornings", "每周") names no single occurrence.
RECURRING: Final = cue(
    rf"\bevery\s+(?:other\s+|single\s+)?(?:day|week|month|year|morning|evening|night|weekend|{_DAYS})\b",
    rf"\b{_DAYS}s\b|\bweekends\b|\b{_DAYS}\s+(?:mornings|afternoons|evenings|nights)\b",
    r"\b(?:daily|weekly|monthly|yearly|annually|nightly|fortnightly)\b",
    r"每(?:天|日|周|星期|个?月|年|晚|早|逢)|一般|通常|平时|经常",
)
# Resolutions, encouragement, remembering and leave-taking: future wording with nothing planned
# ("I'll do my best", "I'm gonna make it", "I'll never forget", "Talk to you soon"). A sentence
# matching these is a plan only when it also names a date.
RESOLUTION: Final = cue(
    r"\b(?:do|try)\s+(?:my|our|your|his|her|their)\s+(?:very\s+)?best\b",
    r"\bmake\s+it(?:\s+(?:happen|work|through|big))?\s*(?:[.!,]|$)|\bmake\s+it\s+(?:happen|work)\b",
    r"\bget\s+through\s+(?:this|it|that|these)\b|\bhang\s+in\s+there\b",
    r"\bkeep\s+(?:it\s+up|at\s+it|(?:on\s+)?(?:going|pushing|trying|plugging|chasing|working"
    r"|believing|fighting|moving|dreaming|rocking|smiling|learning|growing)|you\s+posted"
    r"|ya\s+posted|you\s+updated|in\s+touch|that\s+in\s+mind)\b",
    r"\b(?:never|not|won't|will\s+not|n't\s+going\s+to|not\s+gonna)\s+(?:ever\s+)?(?:give\s+up"
    r"|quit|stop|let\s+\w+(?:\s+\w+)?\s+(?:get\s+me\s+)?down|forget|back\s+down)\b",
    r"\b(?:always|forever)\s+(?:remember|cherish|treasure)\b|\bnever\s+forget\b",
    r"\bbe\s+(?:ok(?:ay)?|fine|alright|all\s+right|there\s+for|right\s+(?:here|there|by))\b",
    r"\b(?:talk|speak|chat)\s+(?:to\s+you\s+|with\s+you\s+)?(?:soon|later)\b|\bsee\s+(?:you|ya)\b"
    r"|\bcatch\s+(?:you|ya)\b|\blet\s+(?:you|ya)\s+know\b|\bkeep\s+(?:you|ya)\s+(?:posted|updated)\b",
    r"\b(?:reach|chase|achieve|pursue|follow|live|make)\s+(?:my|our|your|their)\s+(?:own\s+)?"
    r"(?:dreams?|goals?|path)\b|\bdreams?\s+come\s+true\b|\bmake\s+(?:some\s+)?(?:\w+\s+)?memories\b",
    r"\bstart\s+thinking\b|\bthink\s+about\s+it\b|\bdo\s+that\b|\bfigure\s+it\s+out\b"
    r"|\bsee\s+(?:how|what|if|where|whether)\b|\btry\s*(?:[,.!]|$)",
    # Carrying on ("I'm going to keep using my voice") is a resolve, not a new plan.
    r"\bkeep\s+(?:on\s+)?\w+ing\b",
    r"尽力|努力|加油|坚持|不会放弃|不放弃|忘不了|不会忘|难忘|一定(?:可以|能行|行|没问题)|会好的"
    r"|回头(?:聊|再说)|再聊|保持联系",
)
# Small talk about how the day felt ("Long day today, I'm exhausted", "今天的会开得好累"): a
# mood, not a happening worth keeping, unless another cue says more.
FEELING: Final = cue(
    r"\b(?:i'm|i\s+am|i\s+feel|feeling)\s+(?:so\s+|really\s+|totally\s+|completely\s+|pretty\s+)?"
    r"(?:exhausted|tired|beat|knackered|sleepy|drained|wiped(?:\s+out)?|worn\s+out|shattered)\b"
    r"|^(?:what\s+a\s+|such\s+a\s+)?long\s+day\b",
    r"得(?:好|太|真|很|特别|超|有点)(?:累|长|久|烦|困|无聊|闷)|好累|累死|好困|困死|太累了",
)
FIRST_PERSON: Final = cue(r"\b(?:i|i'm|i've|i'd|me|my|mine|we|we're|we've|us|our)\b", r"我")
PROJECT_WORDS: Final = cue(
    r"\b(?:project|prototype|repo|repository|codebase|code|build|deploy\w*|feature|release|api"
    r"|server|database|sprint|deadline|ticket|migration|frontend|backend|ci|pr|tests?)\b",
    r"项目|代码|上线|发布|接口|数据库|服务器|前端|后端",
)
# Leading discourse words dropped from titles.
FILLER_PREFIX: Final = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|alright|yes|yeah|sure|great|cool|hmm+|also|and|but|then|right"
    r"|actually|anyway|btw|by\s+the\s+way"
    # A restatement's opener: "As I said, Go is my favourite".
    r"|(?:as|like)\s+i\s+(?:said|mentioned|told\s+you)(?:\s+(?:before|earlier))?)\b[,!.;:]?\s*"
    r"|(?:好的?|嗯+|那就|那么|所以|另外|对了)[，,。！\s]*)+",
    _I,
)
# An acknowledgement opening an assistant's sentence ("Noted:", "Got it,", "好的，记下了："): not
# content, so left out when judging whether the rest restates the user.
ACKNOWLEDGEMENT: Final = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|sure|noted|understood|got\s+it|great|perfect|alright|all\s+right"
    r"|thanks|thank\s+you|good|will\s+do|好的|好|收到|明白了?|了解|知道了|记下了?|没问题|嗯)"
    r"\s*[,，.。:：!！—–-]*\s*)+",
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
