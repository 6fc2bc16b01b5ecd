"""Plain statements of fact with no cue word (issue 29: "the rules catch statements with
decision, preference or plan cue words, and miss most plain facts"). Pure rules, English and
Chinese.

A sentence states a plain fact when it is a declaration about something named, with something
specific in what it says of it:

- its subject is a named thing or person: "the/our/my …" ("The API rate limit …", "Our office
  …", "My manager …"), a capitalised name ("Sofia is …"), or "I/we" holding something ("I have
  two kids", "We have about 40 engineers"); in Chinese a subject before 是/在/有/每天 …;
- its verb is a finite one ("is", "was trained", "retries", "ships", "run");
- what it says holds something specific: a number (digits or a number word), a name written
  with a capital inside the sentence, a known technology, a day, month or time of day, a
  frequency ("nightly", "every day", 每天), or, for a person's family or role ("My wife is a
  nurse", "产品经理是小陈"), the role itself.

Never a fact: a question, a feeling, a wish or a greeting, a statement about the listener
("you", "your", 你), a pronoun subject ("it", "that", "this", "there", 这, 那), a hedge
("maybe", "I think", 可能), an imperative, or a sentence holding a secret (its specific part
would be the credential itself). These rules run after every cue-based rule of
`memory.engine.offline_events`, so they only add what nothing else claims.
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine.offline_entities import FAMILY_EN, FAMILY_ZH, known_tool
from memory.engine.plain_clauses import without_apposition
from memory.engine.redact import redact

_I: Final = re.IGNORECASE
_DISCOURSE_EN: Final = re.compile(
    r"^(?:(?:so|also|and|but|oh|btw|fyi|by\s+the\s+way|anyway|well|plus|just\s+so\s+you\s+know"
    r"|for\s+context|quick\s+context|background|context)\b[,:]?\s*)+",
    _I,
)
_NOT_FACT_EN: Final = re.compile(
    r"\b(?:you|your|you're|yours|maybe|perhaps|probably|might|i\s+think|i\s+guess|i\s+hope"
    r"|i\s+wish|wondering|not\s+sure|if|whether|should|could|would|let's|please)\b|\?",
    _I,
)
_PRONOUN_START_EN: Final = re.compile(
    r"^(?:it|it's|that|that's|this|these|those|there|there's|here|here's|he|she|they|they're"
    r"|what|which|who|how|why|when|where)\b",
    _I,
)
_SUBJECT_EN: Final = re.compile(
    r"^(?:(?:the|our|my|his|her|their)\s+[\w.+#&'-]+(?:\s+[\w.+#&'-]+){0,4}?"
    r"|(?!(?:I|We|You|They|He|She|It|No|Go|Yes|Yeah|Yep|Thanks|Sorry|Wow|Oh|Hey|Hi|Hello|Ok"
    r"|Okay|Sure|Cool|Great|Nice|Awesome|Congrats|Haha|Lol|Omg|Ugh|Well|Glad|Same|Totally"
    r"|Exactly|Right|Since|When|While|After|Before|Because|As|Until|Although|Though|Once)\b)"
    r"(?-i:[A-Z])[\w.+#&'-]*(?:\s+(?-i:[A-Z])[\w.+#&'-]*){0,2}?"
    # Something of a named person: "Marco's birthday", "Lena's team".
    r"(?:(?<=['’]s)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?)?"
    r"|(?:i|we)(?=\s+(?:have|own|run|ship|release|deploy|meet|pay|spend|get|work|commute|speak"
    r"|store|keep|retain|go|start|finish|train|swim|cycle|walk|wake)\b)"
    # "Most of our users are on Android", "Half of the team works remotely".
    r"|(?:most|all|half|some|none|many|few)\s+of\s+(?:the|our|my)\s+[\w-]+(?:\s+[\w-]+)?)"
    r"\s+"
    r"(?:(?:also|still|now|usually|always|currently|mostly|only|already)\s+)?"
    r"(?P<verb>is|are|was|were|has|have|had|'s|[a-z]+s|[a-z]+ed|run|ship|release|deploy|meet|pay"
    r"|spend|get|live|work|sit|go|use|own|cost|take|start|end|open|close|speak|commute|store|keep"
    r"|retain|sold|bought|left|got|go|finish|train|swim|cycle|walk|wake"
    r"|went|took|made|lost|won|quit|found|gave|began|became|came|met|wrote|built|broke|spent"
    r"|paid|sent|ran|shut|sat)\b",
    _I,
)
# Who is responsible for what is itself specific: "Leo owns the release checklist", "Lisa is
# responsible for the mobile release", "Nina handles customer escalations".
_DUTY_EN: Final = re.compile(
    r"(?:(?:also|still|now|usually|always|currently|mostly|only)\s+)?(?:owns|handles|manages"
    r"|maintains|runs|leads|coordinates|organi[sz]es|looks\s+after|takes\s+care\s+of"
    r"|is\s+(?:responsible|in\s+charge)\s+(?:for|of)|is\s+the\s+only\s+one\s+who\s+knows"
    r"|works\s+on|is\s+working\s+on)\s+"
    r"(?!it\b|that\b|this\b|them\b|everything\b|things\b|stuff\b)(?:the\s+|our\s+|all\s+)?[a-z]",
    _I,
)
# What is said of the product, the code or the business is specific by itself ("The public API is
# rate limited", "Our users are mostly teachers", "Staging mirrors production", "The beta is
# invite-only"); how a day or a meeting went is not (`_TODAY_EN`, and no meeting nouns here).
_WORK_NOUNS: Final = (
    r"(?:apis?|apps?|services?|backend|frontend|codebase|repos?|monorepo|databases?|db|staging"
    r"|production|prod|beta|alpha|builds?|pipelines?|tests|test\s+suite|deploys|deployments"
    r"|customers|users|clients|traffic|pricing|prices|plans|subscriptions?|passwords|tokens"
    r"|office|offices|headquarters|hq|warehouse|dashboards?|docs|documentation|wiki|clusters?"
    r"|servers?|logs|backups|contracts?|invoices|refunds|orders|website|site|product|products"
    r"|company|startup|budget|roadmap|sprints|releases|library|sdk|cli|schema|queue|cache|cdn"
    r"|endpoints?|integrations?|platform|infrastructure|infra|code|data|storage)"
)
_WORK_THING_EN: Final = re.compile(
    # "Ask the users …", "Check the logs …": an imperative, not a statement about them.
    r"^(?!(?:ask|check|update|fix|tell|send|make|let|get|put|add|remove|delete|move|run|use|try"
    r"|call|email|ping|remind|review|read|write|open|close|restart|deploy|clean|test|see|look"
    r"|keep|give|take|find|show|help|please|don't|do|go|set|turn|stop|start|merge|ship|push"
    r"|pull|rename|clear|reset|rerun)\b)"
    r"(?:(?:the|our|my|all\s+(?:of\s+)?our|most\s+of\s+our|half\s+of\s+our)\s+)?"
    rf"(?:[\w-]+\s+){{0,2}}?{_WORK_NOUNS}\s+"
    r"(?:(?:also|still|now|usually|always|currently|mostly|mainly|only|all|never)\s+)?"
    r"(?!(?:is|are|was|were|be)\s+(?:it|that|this|so|too|very|really|just|down|up|back|ok|okay|fine"
    r"|good|bad|done|broken|slow|fast|freezing|cold|hot|warm|quiet|empty|packed|noisy|happy"
    r"|unhappy|upset|annoyed|dead|excited|mad)\b)[a-z][\w-]*\s+\S",
    _I,
)
_TODAY_EN: Final = re.compile(
    r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening|week)|yesterday|right\s+now|again)\b",
    _I,
)
# What the business does: "We sell to hospitals", "We mostly serve small clinics".
_WE_SELL_EN: Final = re.compile(
    r"^we\s+(?:mostly\s+|mainly\s+|only\s+|also\s+)?(?:sell|serve|target|supply|build\s+software"
    r"|make\s+software)\s+(?:to\s+|for\s+)?(?!it\b|that\b|this\b|them\b|you\b)[a-z]",
    _I,
)
_DETERMINER_EN: Final = re.compile(r"^(?:the|our|my|his|her|their)\s", _I)
_NUMBER_WORDS: Final = (
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty"
    r"|fifty|hundred|thousand|million|dozen|twice"
)
_TIME_WORDS: Final = (
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|mondays|tuesdays|wednesdays"
    r"|thursdays|fridays|saturdays|sundays|january|february|march|april|may|june|july|august"
    r"|september|october|november|december|daily|nightly|weekly|hourly|monthly|quarterly"
    r"|yearly|annually|every\s+\w+|noon|midnight|morning|evening|weekend|weekends"
    r"|yesterday|tomorrow|(?:last|next|this)\s+(?:week|month|year|spring|summer|fall|autumn|winter)"
    r"|ago|(?:in\s+the\s+)?(?:spring|summer|fall|autumn|winter)"
    # An amount said with "a": "about an hour each way", "half a day".
    r"|(?:an?|half\s+an?|one)\s+(?:hour|minute|day|week|month|year|mile|kilometer|km)s?"
    # "on the fourth floor", "in third grade"
    r"|(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)"
    r"\s+(?:floor|grade|year|place)"
    # "I commute by bike", "we get to work on foot"
    r"|(?:by|on)\s+(?:bike|bicycle|car|train|bus|subway|metro|tube|tram|ferry|foot|scooter)"
)
_SPECIFIC_EN: Final = re.compile(rf"\d|\b(?:{_NUMBER_WORDS}|{_TIME_WORDS})\b", _I)
# A capitalised word inside the sentence, not "I" and not its first word.
_INNER_CAPITAL: Final = re.compile(r"(?<=\s)(?!I\b|I'm\b|I've\b)[A-Z][\w.+#&'-]*")
_WORD: Final = re.compile(r"[\w.+#-]+")
# "…, Mel!", "I get it, Jon.": the person spoken to is no part of the statement.
_VOCATIVE_EN: Final = re.compile(r",\s*(?-i:[A-Z])[\w'’-]*\s*([.!]*)$")
# A person's family or role said with "my"/"our": "My wife is a nurse", "Our PM is Luca".
_RELATIVE_EN: Final = re.compile(
    rf"^(?:my|our)\s+(?:\w+\s+)?(?:{FAMILY_EN}|kids?|children|parents?|manager|boss|lead|cto"
    r"|ceo|pm|designer|mentor|roommate|flatmate|landlord)(?:\s+(?-i:[A-Z])[\w'-]+)?\s+(?:(?:is|are|was)\s+(?:an?\s|the\s"
    r"|(?-i:[A-Z]))|works?\s|lives?\s|runs?\s|owns?\s|teach(?:es)?\s|stud(?:y|ies)\s)",
    _I,
)

_WE_ARE_A_EN: Final = re.compile(
    rf"^(?:we're|we\s+are)\s+a\s+(?:small\s+|tiny\s+)?(?:team|company|startup|group|family"
    rf"|household|shop)\s+of\s+(?:about\s+|around\s+)?(?:\d+|{_NUMBER_WORDS})\b",
    _I,
)
_FEELING_EN: Final = re.compile(
    r"\b(?:great|awesome|amazing|cool|nice|lovely|fun|beautiful|awful|terrible|crazy|insane"
    r"|exhausting|tiring|hectic|busy|rough|tough|boring|hilarious|weird|funny|sucks|killer"
    r"|brutal|wild|nuts|lol|haha|blast|motivating|inspiring|thrilled|cute|fave|faves)\b",
    _I,
)

_ZH_NOT_FACT: Final = re.compile(
    # 大概 / 大约 before a figure is "about" ("大概四十分钟"), not a hedge.
    r"[？?]|吗|呢|吧|你|您|可能|也许|(?:大概|大约)(?![\d一二两三四五六七八九十半]|[有是要][\d一二两三四五六七八九十半])"
    r"|好像|觉得|希望|如果"
    r"|是否|要不要|^[这那](?:个|些|样)?"
    # How it felt, and a figure of one happening ("我一共就睡了五个小时", "今天大约三点到").
    r"|很|太(?![太原阳])|(?<!积)累(?!计)|忙|烦|开心|高兴|难过|无聊|辛苦|郁闷|(?:一共|总共).*了|(?:大概|大约|约)[\d一二两三四五六七八九十]+点"
)
_ZH_SUBJECT_VERB: Final = re.compile(
    r"^[^，,。！!]{1,12}?(?:是|在|有|定在|设在|位于|一共|总共|共有|保留|保存"
    r"|每[\d一两二三四五六七八九十]*(?:天|周|星期|月|个月|年|晚|季度)"
    # "我们两周发一次版": an interval, then what happens once in it.
    r"|[\d一两二三四五六七八九十]+(?:天|周|星期|个月|年)(?=.{1,6}一次)"
    # "构建大概要十分钟", "我养了两只猫": how long it takes, how many there are.
    r"|(?:大概|大约|约)?(?:要|需要|得)(?=[\d一二两三四五六七八九十半])|养了?(?=[\d一二两三四五六七八九十])"
    # "我们的日活大概五万": a subject, then its figure.
    r"|(?:大概|大约|约|差不多|将近|超过)(?=[\d一二两三四五六七八九十百千万]))"
)
_ZH_SPECIFIC: Final = re.compile(
    r"\d|[一二两三四五六七八九十百千万]+(?:个|人|位|台|张|次|年|岁|天|小时|分钟|点|号|月|块|元|周|只|条|辆|套"
    r"|间|本)"
    r"|[一二两三四五六七八九十百千]+万"
    r"|[A-Za-z][\w.+#-]*|每天|每周|每月|每晚|凌晨|周[一二三四五六日]|星期[一二三四五六日天]"
)
# How the speaker gets to work or school: "我开车上班，单程四十分钟".
_ZH_COMMUTE: Final = re.compile(
    r"^我(?:们)?(?:每天|平时|一般)?(?:都)?(?:开车|骑车|骑自行车|骑电动车|坐地铁|坐公交|坐高铁|走路|步行|打车)"
    r"(?:上班|上学|通勤|去公司)(?=$|[，,。；;]|要|需要|单程|来回)"
)
# Where the company or its machines are, who its customers are: "我们公司在望京", "我们的服务器在
# 新加坡", "我们的客户主要是学校".
_ZH_WORK_THING: Final = re.compile(
    r"^(?:我们|咱们)(?:的)?(?:公司|办公室|总部|服务器|机房|数据中心|仓库|客户|用户|产品)(?:都|主要|大多|基本上?)?"
    r"(?:在|是|位于)[\u4e00-\u9fffA-Za-z]{2,12}[。！!]?$"
)
# Whose a household's or a team's thing is: "家里的宽带是电信的", "我们的域名是阿里云的".
_ZH_OWNED: Final = re.compile(
    r"^(?:家里|我家|我们|公司|我)的(?!心情|感觉|想法|意思)[\u4e00-\u9fff]{1,6}是[\u4e00-\u9fffA-Za-z]{2,8}的[。！!]?$"
)
# What the speaker eats or cannot: "我吃素", "我对花生过敏".
_ZH_DIET: Final = re.compile(
    r"^我(?!们)(?:吃素|是素食者|不吃[\u4e00-\u9fff]{1,4}|对[\u4e00-\u9fff]{1,6}过敏)"
)
_ZH_RELATIVE: Final = re.compile(
    # "现在我的主管是张华", "李明走了，现在我的主管是张华": a clause of its own too.
    rf"(?:^|[，,]\s*)(?:现在|目前|如今)?(?:我的?|我们的?)?(?:新的?)?(?:{FAMILY_ZH}"
    r"|领导|老板|经理|产品经理|组长|主管|室友|房东|导师|教练|医生|律师|师兄|师姐|班主任|同事|合伙人"
    r"|老家|家乡|籍贯)"
    r"(?:是|在|有|今年)"
)


def states_plain_fact(sentence: str) -> bool:
    """True when `sentence` declares something specific about a named thing or person (the
    module docstring)."""
    text = sentence.strip()
    if not text or redact(text) != text:  # "My key is api_key=sk-…": a secret is no fact to keep
        return False
    if re.search(r"[\u4e00-\u9fff]", text):
        return _chinese(text)
    return _english(text)


def _english(text: str) -> bool:
    body = _VOCATIVE_EN.sub(r"\1", without_apposition(_DISCOURSE_EN.sub("", text).strip()))
    if not body or _NOT_FACT_EN.search(body) or _PRONOUN_START_EN.match(body):
        return False
    if _WE_ARE_A_EN.match(body):  # "We're a team of twelve"
        return True
    if body.endswith("!") and not re.search(r"\d", body):  # an exclamation is chatter
        return False
    if _RELATIVE_EN.match(body):
        return True
    if _WE_SELL_EN.match(body) or (
        _WORK_THING_EN.match(body) and not _TODAY_EN.search(body) and not _FEELING_EN.search(body)
    ):
        return True
    subject = _SUBJECT_EN.match(body)
    if subject is None:
        return False
    said = body[subject.end("verb") :]
    if _FEELING_EN.search(said):  # "Traffic was crazy this morning": how it felt
        return False
    if _SPECIFIC_EN.search(said) or _INNER_CAPITAL.search(" " + said):
        return True
    if subject.group()[:1].isupper() and _DUTY_EN.match(body[subject.start("verb") :]):
        return not _DETERMINER_EN.match(body) and known_tool(subject.group().split()[0]) is None
    return any(_tool_named(word) for word in _WORD.findall(said))


# Known technologies whose names are everyday words when written in lower case ("go after my
# goals", "a rust stain"): only their capitalised spelling names the tool.
_EVERYDAY: Final = frozenset(
    """
    go rust swift dart ruby spring express flask rails make next nest remix ember meteor salt
    chef puppet vault consul nomad jest mocha karma bun deno node react vue angular svelte
    elixir julia crystal zoom envoy caddy spinnaker
    """.split()  # noqa: SIM905
)


def _tool_named(word: str) -> bool:
    if word.islower() and word.strip(".") in _EVERYDAY:
        return False
    return known_tool(word) is not None


# When a recurring meeting starts: "站会九点半开始", "周会每周一上午十点".
_ZH_MEETING_TIME: Final = re.compile(
    r"^(?:我们的?)?(?:站会|周会|例会|晨会|早会|组会|周例会|双周会|复盘会)"
    r"(?:每天|每周[一二三四五六日天]|每个?(?:周|星期|礼拜)[一二三四五六日天])?(?:都)?(?:是|在)?"
    r"(?:早上|上午|中午|下午|晚上)?[一二三四五六七八九十两\d]+点(?:半|[一二三四五六七八九十\d]+分?)?"
    r"(?:开始|开)?[。！!]?$"
)
# "我会说英语和日语": the languages someone speaks.
_ZH_LANGUAGES: Final = re.compile(r"^我(?:们)?(?:会|能)?说[\u4e00-\u9fff]{1,4}语")


def _chinese(text: str) -> bool:
    if _ZH_NOT_FACT.search(text):
        return False
    if _ZH_RELATIVE.search(text) or _ZH_COMMUTE.match(text) or _ZH_LANGUAGES.match(text):
        return True
    if _ZH_MEETING_TIME.match(text):
        return True
    if _ZH_WORK_THING.match(text) or _ZH_DIET.match(text) or _ZH_OWNED.match(text):
        return True
    return _ZH_SUBJECT_VERB.match(text) is not None and bool(_ZH_SPECIFIC.search(text))
