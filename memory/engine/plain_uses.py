"""What a plain statement says is used (`plain_use`): "we deploy the billing service on Heroku",
"the API runs on Fly.io", "Our CI is GitHub Actions", "账单服务用MySQL", "代码都在GitLab上".
Split from `memory.engine.changes`, which reads changes ("switched from A to B") with the same
shapes of values and subjects and asks `plain_use` what a "now" clause uses; its docstring
says what a use is for. Pure rules, no model.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final

from memory.engine.change_terms import (
    HAN,
    han_unspaced,
    names_thing,
    split_label,
    subject_of,
    value_of,
)
from memory.engine.hant import simplified
from memory.engine.offline_entities import (
    FUNCTION_NOUNS,
    LIKED,
    ZH_CITY_PATTERN,
    function_noun,
    known_tool,
)

__all__ = [
    "HOSTING",
    "THING_EN",
    "USING",
    "VALUE_EN",
    "VALUE_ZH",
    "Use",
    "plain_use",
    "role_of",
]

_I: Final = re.IGNORECASE
HOSTING: Final = "host"
USING: Final = "use"


@dataclass(frozen=True, slots=True)
class Use:
    """A statement that `value` is what is used (for `subject`, when it names one)."""

    subject: str | None
    value: str
    role: str = USING


# -- the shapes of values and subjects inside patterns (cleaned and compared: `change_terms`) ---

# A value: up to five words, ended by punctuation or a word that opens a trailing clause.
_END_EN: Final = (
    r"(?=\s*$|\s*[,;:!?()]|\s*\.(?:[\s,;:!?)]|$)|\s+(?:because|since|as|for|so|but|and|or|instead|next"
    r"|this|last|by|in|at|after|before|when|until|to|from|onto|into|with|now|soon|today"
    r"|tomorrow|yesterday|anymore|any\s+more|again|too|also|which|that|who|where|while|once"
    r"|starting|effective|over|going|already|finally|entirely|completely|we|let's)\b)"
)
# A dot only inside a word ("Fly.io", "Node.js"): a full stop ends the value, even where more
# words follow that could close it ("ditching Dentrix. Signed with …" is Dentrix). A name may
# end in a possessive ("Can-Do Kevin's").
_WORD_EN: Final = r"[\w+#/-]+(?:\.[\w+#/-]+)*(?:['’]s)?"
VALUE_EN: Final = (
    rf"(?:the\s+|our\s+|my\s+|an?\s+|their\s+)?({_WORD_EN}(?:\s+{_WORD_EN}){{0,4}}?)" + _END_EN
)
THING_EN: Final = r"(?:(?!over\s)(.+?)\s+)?"  # "moved over to Trello" moved no thing called "over"

_ZH_END: Final = (
    # ("用酷家乐出方案效果图": what it turns out)
    r"(?=$|[，。,.;；！!？?、\s]|做|来|作为|上|了|的|当|替换|代替|取代|存|跑|跟|和|吧|啊|管理|沟通|供货"
    r"|出(?![租版口差])"
    r"|开发|记录|监控"
    # "物业费是用物管通收的": the verb before 的 is what is done with it.
    r"|[收管弄录记算排发订](?=的))"
)
# A value inside Chinese text: a Latin name ("MySQL", "GitHub Actions") or a short Han word ended
# by punctuation or a particle.
VALUE_ZH: Final = (
    r"((?:(?:(?!是)[\u4e00-\u9fff]){2,4}[A-Z][A-Za-z0-9]{1,10})|(?:[A-Za-z][A-Za-z0-9.+#-]*(?:\s*&\s*[A-Za-z][A-Za-z0-9.+#-]*|\s+[A-Za-z][A-Za-z0-9.+#-]*){0,3})"
    r"|(?:[\u4e00-\u9fff]{1,12}?" + _ZH_END + r"))"
)

_HOSTING_WORDS: Final = re.compile(
    r"\b(?:deploy\w*|host\w*|runs?\s+on|running\s+on|ran\s+on|lives?\s+on|mov\w*|migrat\w*"
    r"|port\w*)\b|部署|托管|跑在|运行在|迁移|迁|搬",
    _I,
)

# Uses an old event may state.
_USE_EN: Final = (
    # "Day to day I mostly live in our Jira Service Management queue": where one's work is.
    re.compile(r"^()(?:.*?\b)?(?:I|we)\s+(?:mostly\s+|basically\s+|pretty\s+much\s+|practically\s+)?"
               r"live\s+in\s+(?:our|the|my)\s+((?-i:[A-Z])[\w.+#-]*(?:\s+(?-i:[A-Z])[\w.+#-]*){0,3})"
               r"(?=\s+(?:queue|inbox|board|app|dashboard|calendar|spreadsheet|tracker|backlog"
               r"|instance)\b)", _I),
    re.compile(rf"^(.*?)\b(?:deploy|deploys|deployed|deploying|host|hosts|hosted|hosting|serve"
               rf"|serves|served)\s+{THING_EN}(?:on|to|with|in|at)\s+{VALUE_EN}", _I),
    re.compile(rf"^(.*?)\b(?:run|runs|running|ran)\s+{THING_EN}on\s+{VALUE_EN}", _I),
    # Where things are kept: "we store uploads in S3", "we keep the backups on B2".
    re.compile(rf"^(.*?)\b(?:store|stores|stored|keep|keeps|kept|save|saves|saved)\s+{THING_EN}"
               rf"(?:in|on)\s+{VALUE_EN}", _I),
    # "Feature flags, we run through LaunchDarkly", "Inventory, we track in Manhattan WMS": what
    # a function (said first) goes through.
    re.compile(r"^(.*?)\b(?:run|runs|track|tracks|keep|keeps|manage|manages|handle|handles)\s+"
               r"(?:it\s+|them\s+|everything\s+|all\s+of\s+it\s+)?(?:through|via|in)\s+"
               r"([A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)"),
    # "VOD review, we do all of it in Insights.gg", "We deliver every gallery through Pic-Time"
    # (not "I run every morning in Central Park": a time is no work item).
    re.compile(r"^(.*?)\b(?:[Ww]e|I)\s+(?:do|deliver|send|process)\s+"
               r"(?:it\s+|them\s+|everything\s+|all\s+of\s+it\s+|(?:every|each|all\s+our)\s+"
               r"(?!(?:morning|day|night|evening|week|weekend|month|year|time|summer|winter)s?\b)"
               r"[a-z]+\s+)(?:through|via|in)\s+([A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)"),
    # "Invoicing I do in InvoiceXpress": the function said first (not "We do in Berlin …").
    re.compile(r"^(.*?\w[,\s]\s*)(?:[Ww]e|I)\s+do\s+(?:through|via|in)\s+"
               r"([A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)"),
    # "We run Epic as the EHR": a tool in a role of the team's.
    re.compile(r"^(.*?)\b(?:run|runs|use|uses)\s+([A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)\s+as\s+"
               r"(?:the|our|an?)\s+"),
    # "We pay Astronomer to host it": a host paid for.
    re.compile(r"^(.*?)\b(?:pay|pays|paid)\s+([A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)\s+to\s+"
               r"(?:host|run|manage)\b"),
    # "Airflow schedules all of it": a tool named doing the team's work.
    re.compile(r"^(.*?)(?<![\w'])(?!(?:It|This|That|He|She|They|We|I|You)\b)([A-Z][\w.+#-]*)\s+"
               r"(?:schedules|orchestrates|monitors|handles)\s+(?:all|every|everything|our)\b"),
    # "Our robots talk to the scheduler over MQTT": what a service is spoken to over.
    re.compile(rf"^(.*?)\b(?:talk|talks|talked|communicate|communicates|connect|connects|speak"
               rf"|speaks)\s+(?:to|with)\s+(?:the\s+|our\s+)?(.+?)\s+(?:over|via|through)"
               rf"\s+{VALUE_EN}", _I),
    # "The team is all on Linear now": where the whole team works.
    # "The team has always been on Jira".
    re.compile(rf"^(.*?)\b(?:(?:the|our)\s+)?(?:whole\s+)?(?:team|company|everyone|everybody)\s+(?:is|are"
               rf"|has\s+(?:always\s+|long\s+)?been|have\s+(?:always\s+|long\s+)?been)\s+(?:all\s+)?(?:on"
               rf"|using)\s+{VALUE_EN}", _I),
    # "We're on AWS", "we're all on Postgres 15", "we've always been on Postgres", "we've been
    # on Postgres for years", "Everything runs in Docker".
    re.compile(rf"^(.*?)\b(?:we're|we\s+are|we've\s+(?:always\s+|long\s+)?been|we\s+have\s+"
               rf"(?:always\s+|long\s+)?been)\s+(?:all\s+|fully\s+|still\s+|now\s+)?(?:on|using"
               rf"|running\s+on)\s+{VALUE_EN}", _I),
    # "We're a Python shop": what the whole team works in.
    re.compile(r"^(.*?)\b(?:we're|we\s+are)\s+(?:mostly\s+|basically\s+|pretty\s+much\s+)?an?"
               r"\s+([\w.+#-]+(?:\s+[\w.+#-]+)?)\s+(?:shop|house)\b", _I),
    re.compile(rf"^(.*?)\b(?:runs?|running)\s+(?:in|inside)\s+{VALUE_EN}", _I),
    # "Everything we deploy goes through ArgoCD", "everything is on AWS": the whole stack's.
    re.compile(rf"^(.*?)\b(?:everything|all\s+of\s+it)(?:\s+(?:that\s+)?(?:we|i)\s+[a-z]+)?\s+"
               rf"(?:goes|go|runs|run|is|are|lives|live|sits|sit)\s+(?:all\s+)?(?:out\s+)?(?:through|via|on|in)"
               rf"\s+{VALUE_EN}", _I),
    # "Everything's drawn in Vectorworks": what all of the work is done in.
    re.compile(rf"^(.*?)\beverything(?:['’]s|\s+is)\s+(?:all\s+)?(?:drawn|done|built|designed|made"
               rf"|written|kept|modell?ed)\s+(?:in|on|with)\s+{VALUE_EN}", _I),
    # "Everything is containerized with Docker": what the stack is packaged or provisioned with.
    re.compile(r"^(.*?)\b(?:is|are)\s+(?:all\s+)?(?:containeri[sz]ed|packaged|orchestrated|provisioned)"
               rf"\s+(?:with|by|via|using|in)\s+{VALUE_EN}", _I),
    # "We don't host anything ourselves, it's all on AWS".
    re.compile(rf"^(.*?)\b(?:it's|it\s+is|everything's)\s+all\s+(?:on|in)\s+{VALUE_EN}", _I),
    # "I drive a Honda Fit"
    re.compile(rf"^(.*?)\b(?:drive|drives|ride|rides)\s+{VALUE_EN}", _I),
    # "we send email through Mailgun"
    re.compile(rf"^(.*?)\b(?:send|sends|sent|route|routes|routed)\s+{THING_EN}(?:through|via|with|using)"
               rf"\s+{VALUE_EN}", _I),
    re.compile(rf"^(.*?)\b(?:is|are|was|were|gets|get)\s+(?:deployed|hosted|running)\s+(?:on|to|at"
               rf"|in|with)\s+{VALUE_EN}", _I),
    re.compile(rf"^(.*?)\b(?:use|uses|used|using|rel(?:y|ies|ied)\s+(?:\w+ly\s+)?on|go\s+with"
               rf"|going\s+with|went\s+with|adopt|adopted|pick|picked|choose|chose|chosen"
               rf"|standardi[sz]e[ds]?\s+on"
               rf"|prefer|prefers"
               rf"|switch\s+to|switched\s+to|stick\s+with|sticking\s+with|built\s+on"
               rf"|build\s+on|builds\s+on|runs?\s+on|running\s+on|powered\s+by|depends?\s+on"
               rf"|depended\s+on"
               # "Signed with Curve Dental today": a vendor one has a contract with.
               rf"|signed\s+(?:up\s+)?with|signed\s+a\s+contract\s+with)\s+{VALUE_EN}", _I),
)  # fmt: skip
# A Chinese function said before its tool ("考勤走钉钉", "保养都送永泰汽车").
_FUNCTION_ZH: Final = "|".join(
    sorted((n for n in FUNCTION_NOUNS if not n.isascii()), key=len, reverse=True)
)
_USE_ZH: Final = (
    re.compile(rf"^(.*?)(?:部署在|跑在|运行在|托管在|放在|部署到){VALUE_ZH}"),
    # "温度监控是另一套系统叫冷眼云": a system named as it is introduced.
    re.compile(
        r"^(.*?)(?:是|用的是|用)?(?:另一套|另外一套|一套|一个|另一个)?(?:系统|平台|软件|工具|供应商|服务商"
        rf"|小程序|APP|App|app)(?:叫做|名叫|叫){VALUE_ZH}"
    ),
    # A supplier bought from: "锅底料是从成都川味源工厂直接进口的", "配件从渝配汽配城老周那拿货".
    re.compile(
        rf"^(.*?)从(?:{ZH_CITY_PATTERN})?([\u4e00-\u9fff]{{2,8}}?|[A-Za-z][\w.&-]*(?:\s+[A-Za-z][\w.&-]*)?)"
        r"(?:工厂|厂家|厂|公司)?(?:(?:老|小|阿)[\u4e00-\u9fff])?(?:那儿|那里|那边|那)?"
        r"(?:直接|统一|一直)?(?:进口|进货|拿货|采购|订货|(?:进|拿|买)(?![来去入行到步度展门]))"
    ),
    # "考勤走钉钉", "教练车保养都送附近的永泰汽车": a function's work through or sent to a firm.
    re.compile(
        rf"^(.*?(?:{_FUNCTION_ZH}))(?:都|全|全部|一般|基本)?(?:走(?![的了过路着])"
        r"|送(?:到|去)?(?:附近的|旁边的)?)"
        rf"{VALUE_ZH}"
    ),
    # "家里买菜我基本都在RedMart上下单": a shop ordered from.
    re.compile(rf"^(.*?)在(?=[A-Za-z]){VALUE_ZH}上(?:下单|买|订)"),
    # "喜欢用X" is a preference, not a statement of use.
    # Where data is kept: "日志目前存在Elasticsearch里".
    re.compile(
        rf"^(.*?)(?:存在|存放在|存到|保存在|打到|推到|写到|写入|导到|同步到){VALUE_ZH}(?=里|中|上)"
    ),
    # Where things are sent: "告警发到飞书群里", "制品推到Nexus".
    re.compile(
        r"^(.*?)(?:推到|推送到|发到|发送到)"
        r"(飞书|钉钉|企业微信|[A-Za-z][A-Za-z0-9.+#-]*(?:\s+[A-Z][A-Za-z0-9.+#-]*)?)"
        r"(?=群|里|中|上|[，。,.；;！!]|$)"
    ),
    # "数据都在PostgreSQL里", "设计稿都在Figma里": a function's things kept in a named tool.
    re.compile(
        rf"^(?!我(?!们)|他|她|你)(.*?)(?:都|全|全部)?在(?=[A-Za-z]){VALUE_ZH}"
        r"(?=(?:系统|平台|后台)?(?:里|中|上)(?:[，。,.；;！!]|$))"
    ),
    # "订单、库存这些都在聚水潭里跑", "成绩是在钉钉智慧校园里录": a system (Han names too)
    # that a function's work runs or is entered in.
    re.compile(
        # "后期剪辑目前在Premiere里做".
        r"^(?!我(?!们)|他|她|你)(.*?)(?:都|全|全部|是|目前|现在|一般)在"
        r"(?!家|公司|学校|办公室|线上|线下|外面|本地|群|手机|电脑|网上)"
        r"([\u4e00-\u9fff]{2,8}|[A-Za-z][A-Za-z0-9.+#-]*(?:\s+[A-Za-z][A-Za-z0-9.+#-]*)?)"
        r"(?:里|上)(?:跑|运行|录|录入|管理|处理|排|管(?=的)|弄|做|记|剪|调)"
    ),
    # Built by a firm: "点单小程序是找有赞做的".
    re.compile(
        rf"^(.*?)(?:是)?(?:找|请)(?![我你他她])(?=[\u4e00-\u9fffA-Za-z]){VALUE_ZH}(?:来)?(?:做|开发|搭|建)的"
    ),
    # A function outsourced to a firm: "报关我们是外包给鼎信报关行的", "电梯维保包给了恒升电梯".
    re.compile(
        rf"^(.*?)(?:外包给|包给了?|委托给)(?![我你他她])(?=[\u4e00-\u9fffA-Za-z]){VALUE_ZH}"
    ),
    # What is installed: "实验室的服务器都装的Ubuntu".
    re.compile(rf"^(.*?)装(?:的是|的|了)(?=[A-Za-z]){VALUE_ZH}"),
    # Not "用户" (user), and "喜欢用X" is a preference, not a statement of use.
    re.compile(
        rf"^(.*?)(?:使用|采用|选用|(?<!喜欢)(?<!爱)(?<![调应引费作信])用(?!户|不)(?:的是|的)?|就用|统一用|依赖)"
        rf"(?:一台|一个|一套|几台)?{VALUE_ZH}"
    ),
    # "我们全栈都是TypeScript", "我们是Java技术栈": a function said with its tool.
    re.compile(rf"^(.*?)(?:都是|全是|是)(?=[A-Za-z]){VALUE_ZH}"),
    # Who provides it: "我们的云服务是阿里云提供的" (a Latin name or a cloud: not
    # "午饭是公司提供的").
    re.compile(
        r"^(.*?)(?:是|由)([A-Za-z][A-Za-z0-9.+#-]*(?:\s+[A-Za-z][A-Za-z0-9.+#-]*){0,2}"
        r"|[\u4e00-\u9fff]{1,6}云)(?:来)?(?:提供|托管)的"
    ),
    # Who provides a line or a plan: "家里的宽带是电信的", "我的手机号是移动的".
    re.compile(
        r"^(.*?(?:宽带|网络|手机号|手机卡|电话卡|邮箱|保险))(?:用的)?是([\u4e00-\u9fff]{2,4}|[A-Za-z][\w.-]*)的"
        r"(?=[。！!]?$)"
    ),
    # What a service is wired to: "短信验证接的是腾讯云短信".
    # "支付走的是微信支付": what a flow goes through.
    re.compile(
        rf"^(.*?)(?:接的是|接入的是|对接的是|接入了|走的是|(?:基本|一般|全部)?都走){VALUE_ZH}"
    ),
)
# "Our CI is CircleCI", "we do our dashboards in Grafana", "on-call alerts go through Opsgenie":
# a team function (`offline_entities.FUNCTION_NOUNS`) said with the tool that serves it.
_FUNCTION_USE_EN: Final = (
    # "Our docs are in Notion"; "Files are in Google Drive now" (a function opening the sentence);
    # "On-call's handled through Opsgenie".
    # "Heads up, ticketing is on TeamDynamix now": after a lead-in clause too.
    re.compile(rf"^(.*?)(?:\b(?:our|the)\s+|^|(?<=[,:;—–]\s))((?:[\w/-]+\s+){{0,2}}?[\w/-]+)(?:\s+(?:(?:is|are)\s+(?:all\s+|still\s+|now\s+)?"
               rf"(?!(?:done|kept|handled|tracked|run|managed|booked|processed)\s)"
               rf"(?:on\s+|in\s+|through\s+|via\s+)?|(?:lives?|sits?)\s+in\s+)"
               # "Rota's on Deputy now".
               rf"|['’]s\s+(?:now\s+|still\s+)?(?:on|in)\s+(?=(?-i:[A-Z]))|(?:\s+(?:is|are)|['’]s"
               # "Payroll, that's all done through Gusto", "texting is handled by Weave"
               rf"|,\s+(?:that|it|this)(?:['’]s|\s+is))\s+(?:all\s+)?"
               # "Inventory and TTB reporting, that's all in Ekos"
               rf"(?:(?<=all\s)(?:in|on)\s+|"
               # "Warehouse is run by Luis Ortega": someone leads it (`offline_relations`).
               rf"(?!run\s+by\b)(?:done|kept|handled|tracked|run|managed|booked|processed)\s+"
               rf"(?:in|on|with|through|via|by)\s+)){VALUE_EN}", _I),
    # "Work orders? that's Maximo": the function asked as a topic, then answered.
    re.compile(rf"^()((?:[\w/-]+\s+){{0,2}}?[\w/-]+)\?\s+(?:that['’]s|it['’]s|that\s+is|it\s+is)"
               rf"\s+(?:all\s+)?(?:on\s+|in\s+|through\s+)?{VALUE_EN}", _I),
    # "Recipes I keep in Brewfather": the function said first.
    re.compile(rf"^(.*?)\b((?:[\w/-]+\s+){{0,2}}?[\w/-]+)\s+(?:I|we)\s+(?:keep|do|track|manage"
               rf"|handle|run|book|process)\s+(?:all\s+)?(?:in|on|with|through|via)\s+{VALUE_EN}",
               _I),
    re.compile(rf"^(.*?)\b(?:do|does|build|make|write|keep|track|handle|manage)\s+"
               rf"(?:(?:pretty\s+much|almost|nearly|basically|mostly)\s+)?(?:all\s+)?"
               rf"(?:of\s+)?(?:our|the|my)?\s*((?:[\w/-]+\s+){{0,2}}?[\w/-]+)\s+(?:in|with|on|via)"
               rf"\s+{VALUE_EN}", _I),
    re.compile(rf"^(.*?)\b(?:the\s+|our\s+)?((?:[\w/-]+\s+){{0,2}}?[\w/-]+)\s+(?:now\s+)?"
               rf"(?:(?:go|goes|run|runs|are\s+routed|is\s+routed|get\s+routed|gets\s+routed)\s+"
               rf"(?:out\s+)?(?:through|via|to|into)"
               # "Quotes + schedules all come out of JobTread".
               rf"|(?:all\s+)?comes?\s+out\s+of)\s+{VALUE_EN}", _I),
    # "logs are shipped to Datadog", "uploads are stored in S3", "secrets live in Vault"
    re.compile(rf"^(.*?)\b(?:the\s+|our\s+)?((?:[\w/-]+\s+){{0,2}}?[\w/-]+)\s+(?:(?:is|are|get"
               rf"|gets|got)\s+(?:stored|kept|shipped|sent|pushed|saved|backed\s+up|managed|handled"
               # "Rota gets built in Rotaready", "Software stack gets built with Spack".
               rf"|built|made|planned|scheduled|drafted|generated|logged|recorded|entered"
               # "Sequencing gets sent out to Azenta": a function outsourced to a firm.
               rf"|tracked|done|sent\s+out|outsourced|farmed\s+out|contracted\s+out)|live|lives)\s+"
               rf"(?:in|on|to|into|with)\s+{VALUE_EN}", _I),
)  # fmt: skip
_ONLY_IN: Final = re.compile(r"\s+(?:is|are)\s+(?:all\s+|still\s+)?in\s+", _I)
# Functions that sit somewhere ("The warehouse is in Rotterdam", "hosting is in Frankfurt"),
# unlike records kept in a tool ("the sponsor contacts are all in Bloomerang").
_SITED: Final = re.compile(
    r"\b(?:warehouse|storage|office|kitchen|labs?|depot|plant|yard|hosting|infra|infrastructure"
    r"|cloud|servers?|cdn|dns|stack|team|support|printing|catering|cleaning|maintenance)$",
    _I,
)
# A name shaped as a product, not a place: an inner capital or a domain ("ClipDeck",
# "Monday.com").
_PRODUCT_SHAPED: Final = re.compile(
    r"(?:[A-Z][a-z]+[A-Z][\w-]*|[A-Za-z][\w-]*\.(?:com|io|gg|app|ai|so))(?:\s+[A-Z][\w-]*)?"
)
_NOT_USED_EN: Final = re.compile(
    r"(?:n't\b|\b(?:not|never|nobody|no\s+one|none|no\s+longer|stopped|quit|from|off|instead\s+of|rather\s+than|than"
    r"|replace|replaced|replacing|without|if|whether|should|stop|could|might|maybe|considering"
    r"|consider|how|why|you)\b|\?)",
    _I,
)
_NOT_USED_ZH: Final = re.compile(r"不|没|别|从|禁止|严禁|替换|代替|取代|如果|是否|要不要|吗|你")


def role_of(text: str) -> str:
    return HOSTING if _HOSTING_WORDS.search(text) else USING


# "The billing service is on Fly.io": on a known technology only ("Priya is on PTO" is not).
_ON_KNOWN_EN: Final = re.compile(
    rf"^(.*?)\b(?:is|are)\s+(?:all\s+|still\s+|currently\s+)?(?:on|hosted\s+on|running\s+on)\s+{VALUE_EN}",
    _I,
)


# "Tech stack is pretty standard: Unity for the game itself, Sentry for crash reports": a tool
# named for what it does, in a list (a known tool, or a function's).
_FIRST_PERSON: Final = re.compile(r"\b(?:I|I'm|I've|I'd|my|me)\b")
_TOOL_FOR: Final = re.compile(
    r"(?:^|[:;,]\s*)(?:and\s+)?(?!(?:Thanks|Thank|Go|Good|Great|Cheers|Sorry|Congrats|Kudos|Love|Same"
    r"|Perfect|Happy|Ready|Hope|Time|Room|Fingers)\b)([A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)\s+for\s+"
    r"(?!(?:it|you|me|us|him|her|them|that|this|sure|now|real|good|free|once|sale|rent)\b)"
    r"(?:the\s+|our\s+|all\s+(?:the\s+|our\s+)?)?((?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)"
    r"(?:\s+itself)?\s*(?=[,.;]|$)"
)


def _tool_for(sentence: str) -> Use | None:
    if _FIRST_PERSON.search(sentence):
        return None  # "I use Procreate for sketching": one's own, not the team's stack
    for match in _TOOL_FOR.finditer(sentence):
        tool, what = match.group(1), match.group(2)
        if known_tool(tool) or function_noun(what):
            return Use(subject_of(what) if function_noun(what) else None, tool, USING)
    return None


def plain_use(text: str) -> Use | None:
    """The use a plain statement states ("we deploy the billing service on Heroku", "the API
    runs on Fly.io", "账单服务用MySQL"), or None. The value must name something (`_named`):
    "I love how you use color" states no use; neither does a negated or hedged clause or a
    statement about the listener."""
    # Traditional Chinese read as Simplified (`engine.hant`): values compare either way.
    sentence = han_unspaced(split_label(simplified(unicodedata.normalize("NFKC", text)).strip())[1])
    if not HAN.search(sentence):
        for pattern in _FUNCTION_USE_EN:
            match = pattern.search(sentence)
            if (
                match is None
                or _NOT_USED_EN.search(match.group(1))
                or _NOT_USED_EN.search(match.group(2))
            ):
                continue
            value = value_of(match.group(3))
            between = sentence[match.end(2) : match.start(3)]
            if re.search(r"['’]s\s", value or "") or (
                re.search(r"['’]s$", value or "") and re.fullmatch(r"\s+(?:is|are)\s+", between)
            ):
                continue  # "the NAS is Ines's job now": whose work it is, not a tool
            if LIKED.match(match.group(2)):
                continue  # "My favourite database is SQLite": a liking, not the team's database
            if (
                _ONLY_IN.fullmatch(between)
                and not known_tool(value or "")
                and not _PRODUCT_SHAPED.fullmatch(value or "")
                and _SITED.search(match.group(2))
            ):
                continue  # "The warehouse is in Rotterdam": a place, not a tool in use
            if value and names_thing(value) and function_noun(match.group(2)):
                return Use(subject_of(match.group(2)), value, USING)
    patterns = _USE_ZH if HAN.search(sentence) else ()
    for pattern in (*patterns, *_USE_EN):
        match = pattern.search(sentence)
        if match is None:
            continue
        prefix = match.group(1)
        guard = _NOT_USED_ZH if pattern in _USE_ZH else _NOT_USED_EN
        if guard.search(prefix) or _NOT_USED_EN.search(prefix):
            continue
        value = match.groups()[-1]
        if not names_thing(value):
            continue
        subject = None
        if len(match.groups()) == 3 and match.group(2):  # "deploy X on A": X is the subject
            subject = subject_of(match.group(2))
        else:
            subject = subject_of(prefix)
        return Use(subject, value_of(value) or value, role_of(match.group(0)))
    if not HAN.search(sentence) and (listed := _tool_for(sentence)) is not None:
        return listed
    on = None if HAN.search(sentence) else _ON_KNOWN_EN.search(sentence)
    platform = value_of(on.group(2)) if on else None
    if on and platform and known_tool(platform) and not _NOT_USED_EN.search(on.group(1)):
        return Use(subject_of(on.group(1)), platform, HOSTING)
    return None
