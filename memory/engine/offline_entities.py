"""What the offline relation rules name (`offline_relations`, English; `offline_relations_zh`,
Chinese): an entity and its type, a relation between two, the known technologies, the platforms
among them, and the nouns that name a team's function rather than a thing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from memory.engine.slots import slot_of

AMBIGUOUS: Final = ""
ME: Final = "\x00me"  # the speaker's own "I"/"我": the caller puts the speaker's name in
KNOWN_TOOLS: Final = frozenset(
    """
    kubernetes k8s docker render railway heroku vercel netlify cloudflare fly.io aws gcp azure
    digitalocean hetzner linode ovh scaleway vultr fargate ecs eks gke aks supabase firebase kafka
    rabbitmq nats elasticsearch opensearch
    clickhouse cassandra snowflake bigquery redshift airflow spark s3 ec2 lambda rds terraform
    ansible nginx linux grafana prometheus sentry datadog slack jira confluence notion github
    gitlab bitbucket stripe twilio auth0 okta graphql grpc celery sidekiq openai pytorch
    tensorflow node.js nodejs deno 阿里云 腾讯云 华为云 飞书 钉钉 企业微信 tidb etcd mqtt zeromq
    kinesis flink hadoop trino dbt looker tableau metabase argocd istio traefik haproxy figma
    obsidian ros gazebo matlab taro flutter swiftui airtable 1password bitwarden lastpass todoist
    evernote onenote excel 微信 支付宝 语雀 腾讯会议 禅道 tapd
    pulumi kong envoy linkerd spinnaker artifactory sonarqube snyk dependabot jaeger zipkin
    opentelemetry kibana logstash fluentd databricks airbyte fivetran dagster planetscale scylladb
    neo4j weaviate qdrant milvus pgvector fastly akamai launchdarkly podman kustomize openshift
    next.js nextjs nuxt clojure haskell zig gitea caddy zoom chrome firefox safari chromium brave
    vivaldi spotify tidal deezer netflix whatsapp telegram discord strava duolingo dropbox trello
    asana gmail anki canva lightroom photoshop icloud graphite unity godot
    """.split()  # noqa: SIM905
) | {"apple music", "youtube music", "google docs", "google drive", "google calendar"}
# Days and months: a time, never a name or a tool ("runs on Mondays").
CALENDAR_WORDS: Final = frozenset(
    """
    monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december
    """.split()  # noqa: SIM905
)


def calendar_word(name: str) -> bool:
    """Whether `name` opens with a day or a month ("Mondays", "March 3")."""
    first = name.split()[0].casefold() if name.split() else ""
    return first in CALENDAR_WORDS or first.removesuffix("s") in CALENDAR_WORDS


# Known tools that are places a service runs on (cloud and container platforms).
PLATFORMS: Final = frozenset(
    """
    kubernetes k8s docker render railway heroku vercel netlify cloudflare fly.io aws gcp azure
    digitalocean hetzner linode ovh scaleway vultr ec2 ecs eks gke aks fargate lambda 阿里云 腾讯云
    华为云
    """.split()  # noqa: SIM905
)
# Nouns that name what a team does, not a thing it runs: "our CI is CircleCI", "we switched CI
# from A to B", "on-call alerts go through PagerDuty" are the project's (SPEC §6.5).
FUNCTION_NOUNS: Final = frozenset(
    """
    ci cd ci/cd monitoring alerting alerts alert paging on-call oncall logging logs tracing metrics
    analytics dashboards dashboard bi wiki docs documentation chat messaging tracker ticketing
    tickets builds build deploys deployments hosting cloud infra infrastructure stack storage
    cdn dns email emails sms auth payments notes notifications incidents errors orchestration
    scheduling tracking search queue cache database db crm vcs registry telemetry observability
    uploads backups secrets assets attachments artifacts files data flags warehouse runbooks
    playbooks support reports crashes engine source review reviews payroll reminders
    texting recipes renders sequencing canning reporting ordering software
    experiments budgeting budget finances bookkeeping accounting invoicing invoices expenses
    passwords photos todos to-dos journaling provider code bugs issues tasks sprints 代码 代码仓库
    工单 全栈 技术栈 云 云服务 邮件服务 短信服务 收银 外卖 排班 文献管理 库存 成绩 排课
    构建 部署 监控 告警 报警 日志 调度 值班 文档 看板 报表 存储 托管 运维 发布 持续集成 支付
    邮件 短信 鉴权 认证 缓存 数据库 消息队列 需求管理 项目管理 沟通 实验管理 实验记录 设计稿 文件
    制品 镜像 备份 环境 测试环境 生产环境 预发环境 线上环境 会员 会员系统 排版 印刷 订舱 报关 房态
    考勤 工资 薪资 财务 案件管理 收费 物业费 维保 电梯维保 保洁
    trucking haulage shipping delivery deliveries logistics freight couriers labs printing catering
    cleaning maintenance servicing procurement purchasing marketing newsletters newsletter ads
    advertising rostering timesheets recruiting hiring bookings reservations appointments phones
    orders telephony inventory historian books quotes quoting estimates schedules rota rotas
    crewing donors donations grants records contacts
    物流 快递 运输 配送 温控 温度监控 保养 维修 家园沟通 进货 采购 点单 开单 结算 对账
    客服 出货 发货 营销 推广 招聘 培训 配件 供货 后期 剪辑 调色 拆单 下单 报价 出图 效果图 点单
    """.split()  # noqa: SIM905
)


# Kinds of business system said by their acronyms ("PMS is ezyVet", "Our ERP is NetSuite"): a
# function the team has a tool for. Not roles ("Our IGL is Mateo Vargas") nor the team's own
# services ("The API runs on Fly.io").
_SYSTEMS: Final = frozenset(
    """
    PMS EHR EMR ERP WMS TMS POS GIS HRIS HRMS LMS CMS ATS MES SCADA DMS PIM CDP ESP PBX IVR SIEM MDM
    CAD BIM PLM QMS EAM CMMS RIS PACS LIMS ELN
    """.split()  # noqa: SIM905
)


# Functions only when said alone: "数据" is the team's data, "订单数据" a thing named.
_BARE_FUNCTIONS_ZH: Final = frozenset({"数据", "资料", "代码库", "系统"})


def function_noun(phrase: str) -> bool:
    """True when `phrase` names a function ("CI", "on-call alerts", "构建"), not a thing."""
    text = phrase.strip()
    if re.search(r"[\u4e00-\u9fff]", text):
        if re.sub(r"^(?:我们的?|公司的?|所有的?)", "", text) in _BARE_FUNCTIONS_ZH:
            return True  # "数据都在PostgreSQL里"; but 订单数据 is a thing of its own
        # "库存管理" is the work of 库存 ("客服系统" stays a system of its own); "开单、库存、会员"
        # three of them.
        said = {text, re.sub(r"(?<=[\u4e00-\u9fff]{2})管理$", "", text)}
        said |= {p for p in re.split(r"[、，,和跟与及]", text) if p}
        return any(t.endswith(n) for n in FUNCTION_NOUNS if not n.isascii() for t in said)
    parts = re.split(r"\s*(?:,|\band\b|&)\s*", text, flags=re.IGNORECASE)
    if len(parts) > 1:  # "Receivals and member payments": a function among them
        return any(function_noun(p) for p in parts if p)
    words = re.sub(r"^(?:the|our|my)\s+", "", text, flags=re.IGNORECASE).split()
    if not words or len(words) > 3:
        return False
    # A system said by its acronym ("PMS is ezyVet"), or work of a kind ("Reference lab work
    # goes out to IDEXX").
    last = words[-1]
    # ("donor management", "inventory management": the managing of something)
    kind_of_work = len(words) > 1 and last.casefold() in ("work", "management")
    return last.casefold() in FUNCTION_NOUNS or last in _SYSTEMS or kind_of_work


# A liking, not a thing: "My favourite database is SQLite", "our go-to editor" (no service or
# function of the team's is named by it).
LIKED: Final = re.compile(r"(?:(?:my|our)\s+)?(?:favou?rite|preferred|go-to|dream)\b", re.I)
# Groups one is a member of: a team at work, and a club or society outside it ("Owen is a member
# of the Cardiff rowing club" is no employer).
TEAM_NOUNS: Final = (
    r"(?:team|squad|group|department|guild|division|crew|chapter|club|choir|orchestra|band"
    r"|league|society|association|committee|council|desk)"
)
# Chinese cities said where an employer could be ("我在杭州上班" works in a city, not for one):
# the municipalities, provincial capitals and the largest other cities, and Hong Kong, Macau
# and Taipei. General knowledge, not a list of any set's words.
ZH_CITIES: Final = frozenset(
    """
    北京 上海 天津 重庆 广州 深圳 杭州 南京 苏州 成都 武汉 西安 长沙 郑州 合肥 济南 青岛 大连 沈阳
    长春 哈尔滨 石家庄 太原 呼和浩特 南昌 福州 厦门 南宁 海口 三亚 昆明 贵阳 拉萨 兰州 西宁 银川
    乌鲁木齐 宁波 无锡 东莞 佛山 珠海 温州 常州 徐州 烟台 泉州 香港 澳门 台北
    """.split()  # noqa: SIM905
)
# The same as an alternation for patterns, longest first ("乌鲁木齐" before a shorter name).
ZH_CITY_PATTERN: Final = "|".join(sorted(ZH_CITIES, key=len, reverse=True))
# The speaker's family, as "my …" / "我…" names them (plain facts, employers, homes).
FAMILY_EN: Final = (
    r"(?:wife|husband|partner|son|daughter|mom|mother|dad|father|sister|brother|cousin|uncle"
    r"|aunt)"
)
FAMILY_ZH: Final = (
    r"(?:老婆|老公|太太|妻子|丈夫|爱人|女儿|儿子|孩子|爸爸|妈妈|父亲|母亲|父母|哥哥|姐姐|弟弟|妹妹"
    r"|女朋友|男朋友|对象|表哥|表姐|表弟|表妹|堂哥|堂姐|堂弟|堂妹)"
)
# Roles and lines of work, longest first: before a name ("美编小苏", "店长老周") and as one's
# own work ("我在燃动健身做运营", "我是青禾出版社文学编辑部的责编").
ZH_ROLES: Final = (
    "产品经理|实习律师|项目经理|合伙人|实习生|工程师|架构师|程序员|设计师"
    "|主任|主管|主编|产品|人事|会计|保安|保洁|出纳|前台|助理|医生|厨师"
    "|司机|客服|市场|店长|开发|律师|总监|护士|教练|测试|经理|编辑|美编"
    "|老师|行政|设计|财务|责编|运维|运营|采购|销售|顾问"
)


@dataclass(frozen=True, slots=True)
class Entity:
    name: str
    type: str  # person | project | organization | tool | place, or AMBIGUOUS


@dataclass(frozen=True, slots=True)
class Relation:
    subject: Entity
    relation: str
    object: Entity


def known_tool(name: str) -> str | None:
    """The canonical name of a known technology ("postgres" → "PostgreSQL"), or None."""
    hit = slot_of(name)
    if hit is not None:
        return hit[1]
    spelled = " ".join(name.split())
    if spelled.lower() in _ALIASES:
        return _ALIASES[spelled.lower()]
    return spelled if spelled.lower() in KNOWN_TOOLS else None


def han_tool(name: str) -> bool:
    """A short Han name said as what something uses ("客服系统用的是智齿", "改用鲨鱼记账"): a
    product, not a time, an amount, a version or a way of doing ("用了两天", "用老版本")."""
    return bool(_HAN_TOOL.fullmatch(name)) and not _HAN_NOT_TOOL.search(name)


_HAN_TOOL: Final = re.compile(r"[\u4e00-\u9fff]{2,5}")
_HAN_NOT_TOOL: Final = re.compile(
    r"的|^(?:了|过|着|这|那|哪|自己|一|两|几|多|很|太|心|力|完|好|上|下|不)"
    # An amount ("三个月", "十来天"), not a name with a numeral in it ("千年舟", "三维家").
    r"|^[一二两三四五六七八九十百千万]+(?:[个天年月周次号点块元倍台套来多半把些]|小时|分钟)+$"
    r"|(?:天|年|月|周|次|个|小时|分钟|版本|版|方案|办法|方法|方式|时间|功能|东西|工具|系统|平台|服务)$"
)


# One tool, one node: "K8s" is Kubernetes.
_ALIASES: Final = {"k8s": "Kubernetes", "kubernetes": "Kubernetes"}


def employer_of(relation: Relation) -> Relation:
    """ "Tom joined Globex": joining a named organisation, not a team, is an employer."""
    if relation.relation == "member_of" and not re.search(
        rf"(?i:{TEAM_NOUNS})$|(?:组|团队|部门|小组|中心|中台)$", relation.object.name
    ):
        return Relation(relation.subject, "works_at", relation.object)
    return relation
