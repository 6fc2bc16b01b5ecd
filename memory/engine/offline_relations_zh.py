"""Relation statements of ordinary team talk in Chinese → (subject, relation, object): the
Chinese half of `memory.engine.offline_relations` (which documents the relations and types)."""

from __future__ import annotations

import re
from typing import Final

from memory.engine.change_terms import ABOUT_ZH, han_unspaced
from memory.engine.offline_entities import (
    FAMILY_ZH,
    FUNCTION_NOUNS,
    ME,
    ZH_CITIES,
    ZH_CITY_PATTERN,
    ZH_ROLES,
    Entity,
    Relation,
    employer_of,
    function_noun,
    han_tool,
    known_tool,
)
from memory.engine.offline_relations_zh_verbs import ZH_RELATIONS
from memory.engine.short_names import fits

_ZH_SERVICE_NOUNS: Final = (
    "服务|系统|项目|平台|应用|网站|接口|后台|前端|后端|数据库|集群|仓库|网关|模块|中台|小程序|客户端"
    "|库|引擎|组件|框架|插件|模型|通道|看板|流水线|服务器|SDK|sdk|端"
    # Parts of a business: "高新店", "深圳办事处".
    "|门店|分店|(?<!我们)(?<!咱们)(?<!我)店|办事处|诊所"
    # "嘉兴仓": a warehouse of the business; "风控数仓", a data warehouse (not 仓库, a repository
    # above).
    "|(?<!仓)仓"
)
# Nouns that name a service alone ("我们的后端", "官网部署在Vercel上"): ours, named by its noun.
_ZH_BARE_SERVICES: Final = "官网|后端|前端|后台|网关|中台|小程序|客户端|博客|商城|文档站"
# A service: a name or a qualifier, then its noun (groups 1 and 2), or a bare noun (no groups).
ZH_SERVICE: Final = re.compile(
    rf"^(?:([A-Za-z][\w.-]{{0,30}}|[\u4e00-\u9fff]{{1,8}}?)({_ZH_SERVICE_NOUNS})"
    rf"|(?:{_ZH_BARE_SERVICES}))$"
)
_ZH_LED_TEAM: Final = re.compile(r"(?:组|团队|部门)$")  # not 中心: "用户中心" is a service too
# "广州安装队", "成人队", "启蒙班", "冲压车间": a unit of people.
_ZH_TEAM: Final = re.compile(
    r"^[\u4e00-\u9fffA-Za-z]{1,8}?(?:组|团队|部门|小组|中心|中台|队|(?<![上下中白夜早晚])班|车间"
    r"|(?<=[\u4e00-\u9fff]{2})[部科])$"
)
_ZH_SURNAMES: Final = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁"
    "任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴"
    "莫孔向汤"
)
ZH_PERSON: Final = re.compile(
    rf"^(?:[小老阿][{_ZH_SURNAMES}]|阿(?!里)[\u4e00-\u9fff]|[{_ZH_SURNAMES}][\u4e00-\u9fff]{{1,2}}"
    rf"|[{_ZH_SURNAMES}](?:经理|总|工|老师|师傅|姐|哥))$"
)
# The speaker's relative, named by the relation: "我老婆", "我的女儿".
_ZH_RELATIVE: Final = re.compile(rf"(?:我的?|我们的?)({FAMILY_ZH})")
_HAN_AFTER: Final = re.compile(r"[\u4e00-\u9fff]")
_ZH_LEADING: Final = re.compile(
    r"^(?:现在|目前|以后|往后|今后|另外|还有|而且|然后|其实|对了|顺便说一下|说起来|话说|所以|因此|于是"
    r"|白天|晚上|周末|平时|平常|每天)+"
)
# How someone is known to the speaker, before their name: "师兄李强", "同事小王", "我姐姐陈静".
_ZH_TITLE: Final = re.compile(
    rf"^(?:我的?)?(?:师兄|师姐|师弟|师妹|同事|同学|室友|老板|领导|导师|朋友|{FAMILY_ZH})(?=.{{2}})"
    # "他徒弟潘宇": someone's apprentice or assistant.
    r"|^(?:他|她)?的?(?:徒弟|助手|助理|搭档)(?=.{2})"
    # "新来的后端小周": a newcomer by their line of work.
    rf"|^新来的(?:后端|前端|同事|{ZH_ROLES})?(?=.{{2}})"
    # "新同事小周", "新人小周".
    r"|^新(?:同事|人|员工|实习生)(?=.{2})"
    # "我们唯一的设计师阿凯", "美编小苏", "店长老周": a role in any line of work.
    rf"|^(?:我们|咱们)?(?:的|唯一的)?(?:{ZH_ROLES})(?=.{{2}})"
)
_ZH_TRAILING: Final = re.compile(
    r"(?:从[^从]{1,6}?(?:开始|起)|从[^从]{1,6}?手里?|现在|目前|之后|以后|往后|今后|上周[一二三四五六日天]?|上个?月|昨天|前几天|最近|刚刚?|一般|平时"
    r"|通常|也|还是|还|已经|主要|都|一直|则|就|已|更|比较|习惯|总是|经常|只|一向|向来|基本上?|暂时|临时)+$"
)
_ZH_OBJECT_END: Final = re.compile(
    r"(?:那一?块|这一?块|那边|这边|那部分|这部分|上面|上|里|中|了|的|吧|呢|工作|上班|生活)+$"
)
_VERBS_ZH: Final = tuple((re.compile(p), r, s, o) for p, r, s, o in ZH_RELATIONS)
# "先交代下背景：我在…": a lead-in; "技术部归老王管——王德明": a dash before who that is; "中央厨房
# 是黄志强在管 所有门店的配菜…": a space between two clauses written without a comma.
_ZH_CLAUSE: Final = re.compile(
    r"[，。,；;！!？?：]|——|—|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])"
)
# A move said from where, with no one named: "从大巴窑搬到了榜鹅".
_ZH_MOVED_FROM: Final = re.compile(r"^从[^从，,]{1,8}?搬(?:到|去)")
# How long it has held, after what holds: "我在Shopee做数据分析也快两年了".
_ZH_HOW_LONG: Final = re.compile(
    r"(?:也|都|已经)*(?:快|有|差不多|将近)?[一二三四五六七八九十两半几\d]+个?多?(?:年|个月|月|星期|周|天)多?了$"
)
# The parts of a list said as one object: "Redis、Kafka和MySQL".
_ZH_AND: Final = re.compile(r"、|以及|和|与|及")
_ZH_NOT_SUBJECT: Final = frozenset(
    "我们 他 她 它 他们 她们 它们 大家 你 你们 这 那 这个 那个 谁 有人 团队 公司".split()  # noqa: SIM905
)


# Where someone works that names no employer: "我在公司上班", "在家工作".
_ZH_NOT_EMPLOYER: Final = frozenset(
    "公司 家 家里 家中 单位 办公室 外地 老家 本地 现场 线上 远程 总部 分公司 楼下".split()  # noqa: SIM905
)


# "一家创业公司", "宁波一家货代": a kind of employer, not one named.
_ZH_SOME_PLACE: Final = re.compile(rf"(?:{ZH_CITY_PATTERN})?(?:一家|一个|一间|某)")


def zh_employer_named(text: str) -> bool:
    """Whether a place of work names an employer: not "公司" or "家里", not "一家创业公司"."""
    return text not in _ZH_NOT_EMPLOYER and _ZH_SOME_PLACE.match(text) is None


def zh_project_name(service: re.Match[str], text: str) -> str:
    """ "Atlas项目" → "Atlas" (as "the Atlas project"); "账单服务" stays whole."""
    head, noun = service.group(1), service.group(2)
    return head if noun == "项目" and head.isascii() else text


def _zh_subject(raw: str, kind: str) -> Entity | None:
    led = _ZH_LEADING.sub("", raw.strip()).strip()
    text = _ZH_TRAILING.sub("", led).strip()
    if len(led) == 2 and led.endswith("刚") and led[0] not in "我你他她它这那谁":
        text = led  # "吴刚负责支付服务": the 刚 of a name, not "just"
    text = re.sub(r"^(?:我们|咱们|我)的", "", text)  # "我们的后端": ours, named by its noun
    text = re.sub(r"^比起.{1,12}?(?=我)", "", text)  # "比起Jira我更喜欢Linear"
    titled = _ZH_TITLE.sub("", text)
    if titled != text and ZH_PERSON.match(titled):
        text = titled
    senior = re.sub(r"(?:师兄|师姐|师弟|师妹)$", "", text)  # "赵凯师兄": the name before the title
    if senior != text and ZH_PERSON.match(senior):
        text = senior
    if not text or text in _ZH_NOT_SUBJECT:
        return None
    if text == "我" or (
        kind in ("uses", "person") and re.fullmatch(r"[\u4e00-\u9fffA-Za-z]{1,8}我", text)
    ):
        # "记笔记我一般用Notion": what for, then the speaker
        return Entity(ME, "person") if kind in ("owner", "person", "uses") else None
    if text in FUNCTION_NOUNS and kind in ("project", "uses"):
        return None  # "数据库用的是MySQL": the team's database, the project's use (`changes`)
    service = ZH_SERVICE.match(text)
    if service:
        name = zh_project_name(service, text)
        return Entity(name, "project") if kind in ("project", "uses") else None
    owner = ZH_SERVICE.match(text.split("的", 1)[0]) if "的" in text else None
    if owner and kind == "uses":  # "训练集群的作业调度靠Slurm": the cluster's function
        return Entity(zh_project_name(owner, owner.group()), "project")
    if _ZH_TEAM.match(text):
        return Entity(text, "organization") if kind == "owner" else None
    if kind in ("project", "uses") and ZH_PERSON.match(text):
        return None if kind == "project" else Entity(text, "person")
    if ZH_PERSON.match(text):
        return Entity(text, "person") if kind in ("owner", "person") else None
    relative = _ZH_RELATIVE.fullmatch(text)
    if relative and kind == "person":  # "我老婆在协和医院当医生": the speaker's relative
        return Entity(relative.group(1), "person")
    if (
        re.fullmatch(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2}", text)
        and not known_tool(text)
        and not function_noun(text)  # "我们的CI用Jenkins": the team's function, not a service
    ):
        return Entity(text, "person" if kind in ("owner", "person") else "project")
    return None


# A Han product name, then what it is used for: "印象笔记记东西", "Keep记录跑步".
_ZH_USED_FOR: Final = re.compile(
    r"([\u4e00-\u9fff]{2,6})(?:来|去)?(?:(?:记录|管理|沟通)[\u4e00-\u9fff]{0,4}"
    r"|(?:记|写|做|存|拍|看|听|学|跑|练|聊|画|剪|算)[\u4e00-\u9fff]{2,4})"
)


# A thing one uses that names no product, then what it did: "用手机拍照", "用电脑写代码",
# "用筷子吃饭".
_ZH_DEVICE_USE: Final = re.compile(
    r"(?:手机|电脑|笔记本|相机|平板|本子|纸|笔|脑子|手|筷子|勺子|刀叉)(?:来|去)?"
    r"[记写做存拍看听学跑练聊画剪算录打玩查吃喝][\u4e00-\u9fff]{0,3}"
)


def _zh_tool_before_verb(text: str, kind: str) -> str | None:
    """A tool opening a Han object, the rest saying what for: a known one ("飞书沟通" → 飞书), or
    a Han product name before a verb of use ("印象笔记记东西" → 印象笔记)."""
    if kind not in ("tool", "project_or_tool") or not re.match(r"[\u4e00-\u9fff]", text):
        return None
    for end in range(len(text) - 1, 1, -1):
        tool = known_tool(text[:end])
        if tool:
            return tool
    used_for = _ZH_USED_FOR.fullmatch(text)
    return used_for.group(1) if used_for and han_tool(used_for.group(1)) else None


def _part_cut(text: str) -> str:
    """`text` without 这块, 那边, 里… at its end, unless that leaves under two characters (the
    里 of "阿里" is part of the name)."""
    bare = _ZH_OBJECT_END.sub("", text).strip()
    return bare if len(bare) >= 2 else text


def _zh_object(raw: str, kind: str) -> Entity | None:
    text = _ZH_OBJECT_END.sub("", raw.strip()).strip()
    if len(text) < 2 <= len(raw.strip()):
        text = raw.strip()  # "阿里": its 里 is part of the name, not "in"
    text = _ZH_TRAILING.sub("", re.sub(r"^(?:了|的|是)+", "", text)).strip()  # "数据平台现在"
    text = _part_cut(text)  # "订舱这块一直": 一直, then 这块
    text = re.sub(r"^(?:我们|咱们|我)的", "", text)  # "我们的前端团队": ours, named by its noun
    text = _ZH_LEADING.sub("", text)  # "现在前端组归小李管": the team is 前端组
    if not text or len(text) > 30 or re.match(r"[这那哪](?:个|些|种|套)?", text):
        return None  # "这个模块": a reference to something said before names nothing
    product = re.fullmatch(r"([\u4e00-\u9fff]{2,4})([A-Z][A-Za-z0-9]{1,10})", text)
    if product and kind in ("tool", "project_or_tool") and known_tool(product.group(1)):
        return Entity(text, "tool")  # "阿里云ECS": a cloud's product keeps its name
    if kind in ("tool", "project_or_tool") and "的" in text:
        where = text.rsplit("的", 1)[1]  # "自建机房的K8s": the tool, not where it stands
        if known_tool(where):
            text = where
    if kind == "known_tool":
        return Entity(tool, "tool") if (tool := known_tool(text)) else None
    if kind in ("tool", "project_or_tool") and _ZH_DEVICE_USE.fullmatch(text):
        return None  # "用手机拍照": a device, no product
    tool = known_tool(text) or _zh_tool_before_verb(text, kind)
    if kind in ("tool", "project_or_tool") and tool:
        return Entity(tool, "tool")
    service = ZH_SERVICE.match(text)
    if service and kind in ("project", "project_or_tool"):
        name = zh_project_name(service, text)
        return Entity(name, "project")
    if kind in ("team", "project") and _ZH_TEAM.match(text):
        return Entity(text, "organization")  # "前端团队由Lily带": a team is led like a project
    han_name = re.fullmatch(r"[\u4e00-\u9fff]{2,8}", text)
    if kind == "organization" and han_name and zh_employer_named(text):
        return Entity(text, "organization")  # "小周在字节跳动上班"
    lead = re.match(r"[A-Za-z][A-Za-z0-9.+#-]*(?:\s+[A-Z][A-Za-z0-9.+#-]*)?", text)
    if kind in ("tool", "project_or_tool") and lead:
        # "用Vim写代码", "用VS Code写代码": a tool, then what it is used for.
        named = known_tool(lead.group()) or known_tool(lead.group().split()[0])
        if named or (lead.group()[:1].isupper() and _HAN_AFTER.match(text, lead.end())):
            return Entity(named or lead.group(), "tool")
    latin = re.fullmatch(r"[A-Z][A-Za-z0-9.+#-]*(?:\s+[A-Z][A-Za-z0-9.+#-]*){0,2}", text)
    if kind in ("tool", "organization", "team") and latin:
        return Entity(text, "tool" if kind == "tool" else "organization")
    place = re.fullmatch(r"[\u4e00-\u9fff]{2,6}|[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?", text)
    if kind == "place" and place:
        return Entity(text, "place")
    return None


# "考务那台服务器": a demonstrative and its measure word inside a thing's name.
_ZH_THAT_ONE: Final = re.compile(r"(?:那|这)(?:台|个|套|块|部)")


def _zh_objects(raw: str, kind: str) -> list[Entity]:
    """The object a clause names, or each of a list of tools or services said as one
    ("订单服务依赖Redis、Kafka和MySQL")."""
    parts = _ZH_AND.split(raw)
    # "校园网和考务那台服务器都是刘工在维护": each of two things one looks after.
    if len(parts) == 2 and kind == "project":
        plain = [_ZH_THAT_ONE.sub("", part).strip() for part in parts]
        each = [_zh_object(part, kind) for part in plain]
        # One named as a service or a system; the other may be a bare noun ("校园网").
        if any(e is not None and e.type == "project" for e in each) and all(
            (e is not None and e.type == "project")
            or (re.fullmatch(r"[\u4e00-\u9fff]{2,6}", part) and not ZH_PERSON.match(part))
            for e, part in zip(each, plain, strict=True)
        ):
            return [e or Entity(part, "project") for e, part in zip(each, plain, strict=True)]
    if len(parts) > 1 and kind in ("tool", "project_or_tool"):
        each = [_zh_object(part, kind) for part in parts]
        if all(each):
            return [e for e in each if e is not None]
    return _some(_zh_object(raw, kind))


def _zh_subjects(raw: str, kind: str) -> list[Entity]:
    """The subject a clause names, or each of two people said as one ("前端是小马和小王在维护")."""
    pair = re.fullmatch(r"([\u4e00-\u9fff]{2,3})(?:和|与|跟)([\u4e00-\u9fff]{2,3})", raw.strip())
    if pair and kind in ("owner", "person"):
        each = [_zh_subject(pair.group(1), kind), _zh_subject(pair.group(2), kind)]
        if all(e is not None and e.type == "person" for e in each):
            return [e for e in each if e is not None]
    return _some(_zh_subject(raw, kind))


def _some(entity: Entity | None) -> list[Entity]:
    return [entity] if entity is not None else []


def _zh_named_product(raw: str) -> Entity | None:
    """A Han product name said as what is used, ending the clause: "客服系统用的是智齿",
    "记账我一直用随手记"; not "用手机拍的" (what it did with it follows)."""
    text = raw.strip()
    if text.endswith(("的", "了")):
        return None
    text = re.sub(r"^(?:的是|是)", "", text)
    if _ZH_DEVICE_USE.fullmatch(text):
        return None  # "用手机拍照": a device and what it did
    return Entity(text, "tool") if han_tool(text) else None


def _zh_owned_thing(raw: str, owner: Entity) -> Entity | None:
    """What a named person is responsible for, said with any noun: "李强负责实验室的机械臂" →
    机械臂. Not the speaker's own tasks ("我负责写文档"), an activity ("负责招人") or a manner
    ("老王管得很严")."""
    if owner.type != "person" or owner.name == ME:
        return None
    text = _ZH_TRAILING.sub("", _ZH_OBJECT_END.sub("", raw.strip()).strip()).strip()
    text = _part_cut(text)  # "订舱这块一直": 一直, then 这块
    text = _ZH_LEADING.sub("", text)  # "现在保安那块归小吴管": 保安
    text = text.rsplit("的", 1)[-1]
    if not re.fullmatch(r"[\u4e00-\u9fff]{2,6}", text) or _ZH_ACTIVITY.match(text):
        return None
    return Entity(text, "project")


_ZH_ACTIVITY: Final = re.compile(
    r"[写做跟处理对接带管招测看开跑搞弄聊谈找买卖教学得着过很太挺都也还]|这|那"
)


# A clause that opens with its verb shares the subject of the clause before it:
# "我在风控组，主要负责反欺诈引擎".
_ZH_SUBJECTLESS: Final = re.compile(
    r"^(?:主要|也|还|同时|另外|并且|而且|目前|现在)*(?:负责|维护|管理|带|加入|(?:更|比较|还是)喜欢"
    r"|(?:被)?(?:调到|调去|转到|转去|回到)|(?:已经)?搬(?:到|去)"
    # "我不用微信办公，用钉钉": what the one who opened the sentence uses instead.
    r"|(?:只|就|都|还是|改)?用(?=[A-Za-z\u4e00-\u9fff])"
    # "李娜不在支付组了，去了风控组": the team gone to.
    r"|去了(?=[^，,。；;]{1,8}(?:组|团队|部门|小组)$)"
    r"|在(?=[^，,。；;]{1,10}(?:组|团队|部门|部)$)"
    # "室友叫小王，在腾讯上班": where the one just named works.
    r"|在(?=[^，,。；;在]{1,12}?(?:上班|工作|实习|当|做|担任)))"
)
# "李雷不维护支付服务了", then "交给了韩梅梅": someone no longer looks after a thing, given to
# someone else in the next clause.
_ZH_LET_GO: Final = re.compile(
    r"^(我(?!们)|[\u4e00-\u9fff]{2,3}?)(?:已经|现在)?不(?:再)?(?:维护|负责|管)(.{2,12}?)了?$"
)
_ZH_GIVEN_TO: Final = re.compile(
    r"^(?:已经|现在)?(?:交给|转给|移交给|交接给)了?([\u4e00-\u9fff]{2,3})(?:来)?(?:负责|管|维护)?了?$"
)
# Who opens a negated clause: "我不喜欢Java", "老李不在运维组了".
_ZH_NEGATED_BY: Final = re.compile(r"^(我(?!们)|[\u4e00-\u9fff]{2,3}?)(?:已经|现在|也)?(?:不|没)")
# Two people with one predicate: "小张和小李都在测试组".
_ZH_PAIR: Final = re.compile(r"^([\u4e00-\u9fff]{2,3})和([\u4e00-\u9fff]{2,3})(?:都|也都|也)(.+)$")
# A person introduced by name: "新来的实习生叫陈晨", then "在前端组" is said of 陈晨.
_ZH_CALLED: Final = re.compile(
    r"^(?:我们)?(?:组里?|团队里?|公司)?(?:新来的|新来了一?[个位名])?[\u4e00-\u9fff]{1,6}?"
    r"(?:叫|名叫|叫做)([\u4e00-\u9fff]{2,3}|[A-Z][a-z]+)$"
    # "我们组招了一个前端叫小雨".
    r"|^(?:我们)?(?:组里?|团队里?|公司)?(?:新)?招了一?[个位名][\u4e00-\u9fff]{1,6}?"
    r"(?:叫|名叫|叫做)([\u4e00-\u9fff]{2,3}|[A-Z][a-z]+)$"
)


# Someone leaving, then where they went: "刘洋离开了我们公司，去了腾讯" (they work there now).
_ZH_LEFT: Final = re.compile(
    r"^(?P<a>我|[\u4e00-\u9fff]{2,3}?)(?:也|已经|上个?月|去年|最近|前段时间)*"
    r"(?:离职|辞职|跳槽|换工作|离开了?[^，,。]{0,8}?(?:公司|单位|集团|团队))了?$"
)
# Where someone who left went: "去了腾讯", "现在在华侨银行做风控".
_ZH_WENT_TO: Final = re.compile(
    r"^(?:去了|去|到了|跳槽到了?|跳槽去了?|加入了?)(?P<b>[^，,。了]{2,12})了?$"
    r"|^(?:现在|目前|(?:从)?(?:上|这|本)周起|(?:从)?(?:上|这|本)个?月起)在(?P<at>[^，,。在]{2,10}?)"
    r"(?:做|当|工作|上班)[\u4e00-\u9fff]{0,6}$"
)


def carried_clauses(sentence: str) -> list[str] | None:
    """ "我在客服平台组，主要负责工单系统" → ["我在客服平台组", "我主要负责工单系统"]: a sentence
    whose later clauses open with their verb and share the first clause's person, each clause
    stating one relation with that subject carried in; None for any other sentence."""
    clauses = [c.strip() for c in _ZH_CLAUSE.split(sentence) if c.strip()]
    if len(clauses) < 2 or not all(_ZH_SUBJECTLESS.match(c) for c in clauses[1:]):
        return None
    subject = _person_subject(clauses[0])
    if subject is None:
        return None
    out = [clauses[0], *(subject + c for c in clauses[1:])]
    return out if all(len(chinese_relations(c)) == 1 for c in out) else None


# A later clause that says where or with what the service named before runs, with no subject
# of its own: "前端是Next.js写的，直接部署在Vercel上".
_ZH_SERVICE_VERB: Final = re.compile(r"^(?:直接|也|都|还|目前|现在)*(?:部署|跑在|托管|运行在|用)")


def carried_service(clauses: list[str]) -> list[str]:
    """The clauses, each later one that opens with a verb of where or with what a service
    runs read with the service the first clause is about ("前端是Next.js写的，直接部署在
    Vercel上" → [..., "前端直接部署在Vercel上"])."""
    about = ABOUT_ZH.match(clauses[0]) if clauses else None
    if about is None or not ZH_SERVICE.match(about.group(1)):
        return clauses
    return [
        clauses[0],
        *(about.group(1) + c if _ZH_SERVICE_VERB.match(c) else c for c in clauses[1:]),
    ]


def _person_subject(clause: str) -> str | None:
    """The words naming the person a clause's relation is said of ("我", "孙悦"), or None."""
    for pattern, _, subject_kind, object_kind in _VERBS_ZH:
        match = pattern.match(clause)
        if not match:
            continue
        subject = _zh_subject(match.group("a"), subject_kind)
        if (
            subject is not None
            and subject.type == "person"
            and _zh_object(match.group("b"), object_kind)
        ):
            return match.group("a")
    return None


# A denial put right: "订单服务不是用Java写的，是用Go写的" → "订单服务是用Go写的".
_ZH_NOT_BUT: Final = re.compile(
    r"^(?P<s>[^，,。；;不]{1,12}?)(?:并|其实|根本)?不是[^，,。；;]{1,20}?[，,]\s*(?:而|其实|实际上)?"
    r"是(?P<b>[^，,。；;]{1,24})(?P<end>[。！!]?)$"
)


def zh_corrected(sentence: str) -> str:
    """The sentence with a denial put right said as what holds: "订单服务不是用Java写的，是用Go
    写的" → "订单服务是用Go写的"."""
    text = sentence.strip()
    if put_right := _ZH_NOT_BUT.match(text):
        text = f"{put_right.group('s')}是{put_right.group('b')}{put_right.group('end')}"
    return text


def chinese_relations(sentence: str) -> list[Relation]:
    """The relations a Chinese sentence states, clause by clause; a person said by 老/小 and the
    surname and named in full in a clause of its own ("保安那块都是老黄在管，黄德胜，干了十来年了")
    is that full name."""
    clauses = _ZH_CLAUSE.split(zh_corrected(han_unspaced(sentence)))
    found = [_led_if_a_unit(r) for r in _clause_relations(clauses)]
    named = [c.strip() for c in clauses if _ZH_FULL_NAME.fullmatch(c.strip())]
    if not named:
        return found

    def in_full(entity: Entity) -> Entity:
        fitting = [n for n in named if entity.type == "person" and fits(entity.name, n)]
        return Entity(fitting[0], "person") if len(fitting) == 1 else entity

    return [Relation(in_full(r.subject), r.relation, in_full(r.object)) for r in found]


# A unit of people or a place of the business: someone in charge of it leads it ("技术部归老王管",
# "保健室由刘秀芬负责", "淡滨尼店是陈俊杰在管").
# Not 用户中心 (a service), nor 数仓 (a data warehouse, owned).
_UNIT_ZH: Final = re.compile(r"(?:部|组|室|科|处|团队|班|店|园|校|馆|厂|车间|(?<!数)仓)$")


def _led_if_a_unit(relation: Relation) -> Relation:
    if relation.relation == "owns" and _UNIT_ZH.search(relation.object.name):
        return Relation(relation.subject, "leads", relation.object)
    return relation


# A person's full Han name said alone, as an apposition: a surname and one or two characters.
_ZH_FULL_NAME: Final = re.compile(rf"[{_ZH_SURNAMES}][\u4e00-\u9fff]{{1,2}}")


def _clause_relations(clauses: list[str]) -> list[Relation]:
    out: list[Relation] = []
    previous = left_by = ""
    dropped = ""  # what the clause before said someone no longer looks after
    for clause in clauses:
        clause = _ZH_HOW_LONG.sub("", clause.strip())
        if dropped and (given := _ZH_GIVEN_TO.match(clause)):
            # "李雷不维护支付服务了，交给了韩梅梅": the one it went to owns it now.
            receiver = _zh_subject(given.group(1), "owner")
            if receiver is not None and receiver.type == "person":
                out.append(Relation(receiver, "owns", Entity(dropped, "project")))
            dropped = ""
            continue
        let_go = _ZH_LET_GO.match(clause)
        thing = _zh_subject(let_go.group(2), "project") if let_go else None
        dropped = thing.name if thing is not None and thing.type == "project" else ""
        conditional = clause.startswith(("如果", "要是", "是否", "假如"))
        if not clause or conditional or "不" in clause:
            # "我不喜欢Java，更喜欢Go", "老李不在运维组了，调到了安全组": what the next clause
            # says is still of the one who opened this one.
            opener = None if conditional else _ZH_NEGATED_BY.match(clause)
            named = opener.group(1) if opener else ""
            previous = named if named and _zh_subject(named, "person") else ""
            continue
        if left_by and (went := _ZH_WENT_TO.match(clause)):
            clause = f"{left_by}在{went.group('b') or went.group('at')}工作"
        left_by = ""
        if previous and _ZH_SUBJECTLESS.match(_ZH_LEADING.sub("", clause)):
            clause = previous + _ZH_LEADING.sub("", clause)  # "…，白天在蚂蚁上班"
        elif not previous and _ZH_MOVED_FROM.match(clause):
            clause = "我" + clause  # "上个月搬家了，从大巴窑搬到了榜鹅": the speaker's move
        elif previous and clause[:1] in ("他", "她"):  # "陈晨负责前端，她在前端组"
            clause = previous + clause[1:]
        previous = ""
        if called := _ZH_CALLED.match(clause):
            previous = called.group(1) or called.group(2)
            continue
        if (left := _ZH_LEFT.match(clause)) and _zh_subject(left.group("a"), "person"):
            left_by = left.group("a")  # the next clause may say where they went
            continue
        if pair := _ZH_PAIR.match(clause):  # "小张和小李都在测试组"
            for person in (pair.group(1), pair.group(2)):
                out += [r for r in chinese_relations(person + pair.group(3)) if r not in out]
            continue
        for pattern, relation, subject_kind, object_kind in _VERBS_ZH:
            match = pattern.match(clause)
            if not match:
                continue
            subjects = _zh_subjects(match.group("a"), subject_kind)
            subject = subjects[0] if subjects else None
            targets = _zh_objects(match.group("b"), object_kind)
            if not targets and subject is not None and relation in ("owns", "maintains"):
                targets = _some(_zh_owned_thing(match.group("b"), subject))
            if not targets and relation == "uses":
                targets = _some(_zh_named_product(match.group("b")))
            if subject and targets:
                for one in subjects:
                    for target in targets:
                        # "数据组现在归王芳管": a team someone is in charge of is one they lead.
                        led = relation == "owns" and _ZH_LED_TEAM.search(target.name) is not None
                        made = employer_of(Relation(one, "leads" if led else relation, target))
                        if made.relation == "works_at" and target.name in ZH_CITIES:
                            made = Relation(one, "lives_in", Entity(target.name, "place"))
                        out.append(made)
                previous = match.group("a") if subject.type == "person" else ""
                break
    return out
