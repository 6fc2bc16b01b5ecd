"""The verbs of Chinese relation statements, one pattern per way of saying a relation, tried in
order over each clause (`memory.engine.offline_relations_zh`, which reads the subjects and
objects the patterns' groups hold). Split from it when it passed 600 lines."""

from __future__ import annotations

from typing import Final

from memory.engine.offline_entities import ZH_CITY_PATTERN

ZH_RELATIONS: Final = (
    # (pattern over one clause with groups a and b, relation, which group is the subject,
    #  subject kind, object kind)
    # "规则平台是孙悦在负责", "特征库归郭涛", "特征库现在交给马丽", "老周管日志系统那块".
    # "支付服务是李娜负责的", "数据组是吴刚带的": whose a thing is, said as a cleft.
    (r"^(?P<b>.+?)是(?P<a>.+?)在?维护(?:的)?$", "maintains", "owner", "project"),
    # "广州安装队现在是他徒弟潘宇在带", "夜班组一直是黄丽在带".
    (r"^(?P<b>[^是]{1,10}?(?:组|团队|部门|小组|队|班|车间))(?:一直|现在|目前|都|主要)?是(?P<a>.+?)"
     r"在?(?:带|领导|带领)(?:的)?$", "leads", "owner", "team"),
    # "教练组王磊带": the team first, then who leads it.
    (r"^(?P<b>[^是]{1,10}?(?:组|团队|部门|小组|队|车间))(?:现在|目前|一直|主要)?"
     r"(?P<a>[\u4e00-\u9fff]{2,3})在?带(?:着)?$", "leads", "owner", "team"),
    # "封面都是美编小苏在弄": 弄, 做, 搞 and 盯 said of someone's part of the work too.
    (r"^(?P<b>.+?)是(?P<a>.+?)在?(?:负责|管理?|跟进?|弄|做|搞|盯)(?:的)?$", "owns", "owner",
     "project"),
    # "高新店的店长是老周", "数据组的组长是吴刚": who heads a place or a team, by role ("支付服务的
    # 负责人是李娜" says who owns it, read elsewhere).
    (r"^(?P<b>[^的]{2,12}?)的(?:店长|主管|经理|组长|主任|老板|总监)(?:现在|目前)?是(?P<a>.+?)$",
     "leads", "owner", "project"),
    # "中班年级组长是陈思远": the head of a group, 组 and 长 run together; "南坪店店长是黄晓东".
    (r"^(?P<b>[^的是]{1,10}?组)长(?:现在|目前)?(?:是|换成了?|改成了?)(?P<a>.+?)了?$", "leads",
     "owner", "team"),
    (r"^(?P<b>[^的是]{1,10}?[店部园校厂馆])(?:店长|主管|经理|主任|老板|总监|园长|校长|厂长|馆长)"
     r"(?:现在|目前)?是(?P<a>.+?)$", "leads", "owner", "project"),
    # "实验室的机械臂一直是赵凯师兄在维护".
    (r"^(?P<b>.+?)(?:一直|现在|目前)?是(?P<a>.+?)在?维护(?:的)?$", "maintains", "owner", "project"),
    # "赵凯师兄毕业去大疆了": where someone went on leaving school or a job.
    (r"^(?P<a>.+?)(?:毕业|辞职|离职)(?:以?后|了)?(?:就)?去了?(?P<b>[^了，]{2,8}?)(?:工作|上班)?了?$",
     "works_at", "person", "organization"),
    # "行政会交给新来的郑惠文": the modal 会 is no part of what is handed over.
    # "夜班组现在交给何秀梅带": a team handed to whoever leads it now.
    (r"^(?P<b>.+?)(?:会|要|将)?(?:归|交给了?|转给了?|移交给了?|交接给了?)(?P<a>.+?)(?:来)?"
     r"(?:负责|管理?|维护|带)?(?:了)?$", "owns", "owner", "project"),
    # "王强现在带前端组": who leads a team.
    (r"^(?P<a>.+?)(?:带领|领导|带|管理?)着?(?P<b>[^带管]{1,10}?(?:组|团队|部门|小组))$", "leads",
     "person", "team"),
    (r"^(?P<a>.+?)管(?!理|道|控|用)(?P<b>.+)$", "owns", "owner", "project"),
    # "我在风控组": membership of a team (a company is `works_at`, "在X工作"); not the 在 of
    # 现在 or 正在.
    # "我在得物的交易中台": the team, at a company said before it (`person_facts`).
    (r"^(?P<a>.+?)(?<![现正实存所自])在(?:[^在的]{2,10}的)?(?P<b>[^在的]+?(?:组|团队|部门|小组|中台))"
     r"(?:工作|上班)?$", "member_of", "person", "team"),
    (r"^(?P<a>.+?)是(?P<b>[^是]+?(?:组|团队|部门|小组))的(?:人|成员)?$", "member_of", "person",
     "team"),
    # "数据组由吴刚带领", "数据组是吴刚带的": who leads a team.
    (r"^(?P<b>[^由]{1,10}?(?:组|团队|部门|小组))由(?P<a>.+?)(?:来)?(?:领导|带领|主导|牵头|带|负责|管理?)$",
     "leads", "owner", "team"),
    (r"^(?P<b>.+?)由(?P<a>.+?)(?:来)?(?:负责|管理|接手|接管)(?:了)?$", "owns", "owner", "project"),
    (r"^(?P<b>.+?)由(?P<a>.+?)(?:来)?维护$", "maintains", "owner", "project"),
    (r"^(?P<b>.+?)由(?P<a>.+?)(?:来)?(?:领导|带领|主导|牵头|带)$", "leads", "owner", "project"),
    (r"^(?P<a>.+?)是(?P<b>.+?)的(?:负责人|owner|Owner)$", "owns", "owner", "project"),
    # "数据组的负责人是何伟": the same, said the other way round.
    (r"^(?P<b>[^是]+?)的(?:技术负责人|组长|主管|带头人|lead|Lead)是(?P<a>.+)$", "leads", "owner",
     "project"),
    (r"^(?P<b>[^是]+?)的(?:负责人|owner|Owner)是(?P<a>.+)$", "owns", "owner", "project"),
    # "嘉兴仓负责人是蒋涛": whoever is in charge of a place or a unit leads it.
    (r"^(?P<b>[^的是]{1,10}?[仓店部组队班园校厂馆室科])负责人(?:现在|目前)?是(?P<a>.+)$", "leads",
     "owner", "project"),
    # "陈静是移动端的技术负责人": a tech lead (a plain 负责人 owns, above).
    (r"^(?P<a>.+?)是(?P<b>.+?)的(?:技术)?(?:组长|lead|Lead|主管|带头人|负责人)$", "leads", "owner",
     "project"),
    (r"^(?P<a>.+?)是(?P<b>.+?)的维护者$", "maintains", "owner", "project"),
    (r"^(?P<a>.+?)(?:负责|管理|接手了?|接管了?)(?P<b>.+)$", "owns", "owner", "project"),
    (r"^(?P<a>.+?)维护(?P<b>.+)$", "maintains", "owner", "project"),
    (r"^(?P<a>.+?)(?:领导|带领|主导)(?P<b>.+)$", "leads", "owner", "project"),
    (r"^(?P<a>.+?)(?:主要|现在|目前|一直)?带(?P<b>[^带]{1,8}?(?:组|团队|部门|小组|队|班))$",
     "leads", "owner", "team"),
    (r"^(?P<a>.+?)(?:部署在|部署到|托管在)(?P<b>.+)$", "deployed_on", "project", "tool"),
    (r"^(?P<a>.+?)(?:跑在|运行在|挂在)(?P<b>.+)$", "runs_on", "project", "tool"),
    # "订单服务要调库存服务的接口": calling another service's interface.
    (r"^(?P<a>.+?)(?:要|会|需要|得)?调(?:用)?(?P<b>[^调]+?)的(?:接口|API|api)$", "depends_on",
     "project", "project_or_tool"),
    (r"^(?P<a>.+?)(?:依赖(?:于)?|调用)(?P<b>.+)$", "depends_on", "project", "project_or_tool"),
    # "订单服务下游挂着库存服务和优惠券服务", "订单服务现在改成直接调营销服务".
    (r"^(?P<a>.+?)下游(?:挂着|是|有|接着|连着)(?P<b>.+)$", "depends_on", "project",
     "project_or_tool"),
    (r"^(?P<a>.+?)(?:改成|改为)?(?:直接)?调(?P<b>[^调]{2,12}?(?:服务|系统))$", "depends_on",
     "project", "project"),
    # "我们的后端是用Go写的": what it is written in.
    (r"^(?P<a>.+?)是?用(?P<b>[^用]+?)(?:写|开发|搭|做|实现)(?:的)?$", "uses", "uses", "tool"),
    # "后端是一个Django单体": a service that is a known technology uses it.
    (r"^(?P<a>.+?)(?<!的)是(?:一个|一套)?(?P<b>[A-Za-z][A-Za-z0-9.+#-]*)"
     r"(?:单体|项目|应用|服务|工程)?$", "uses", "project", "known_tool"),
    (r"^(?P<a>.+?)是(?P<b>[A-Za-z][^是]*?)(?:写|开发|搭|做|实现)的$", "uses", "uses", "tool"),
    # "我现在改用Strava记录跑步了": a person's own tool after a switch (a service's switch is
    # read by `memory.engine.changes`).
    (r"^(?P<a>.+?)(?:改用|换用|转用|改为使用|换成)了?(?P<b>.+)$", "uses", "person", "tool"),
    (r"^(?P<a>.+?)(?:使用|采用|用|靠)(?P<b>.+)$", "uses", "uses", "tool"),
    # "开销我都记在Money Manager里", "代码评审我习惯在GitLab上做": where a task is done.
    (r"^(?P<a>.+?)(?:记|存|放|写)在(?P<b>[A-Za-z][^在]*?)(?:里|上)?$", "uses", "uses", "tool"),
    (r"^(?P<a>.+?)在(?P<b>[A-Za-z][^在]*?)上(?:做|搞|写|弄|跑|下单|买|订)$", "uses", "uses",
     "tool"),
    (r"^(?P<a>.+?)加入(?:了)?(?P<b>.+)$", "member_of", "person", "team"),
    # "小付上周从运维组调到客服平台组了": the team moved to.
    # "黄丽调到康复部去了".
    (r"^(?P<a>.+?)(?:从[^从]+?)?(?:调到|调去|转到|转去|回到|去了)(?:了)?(?P<b>[^到去]+?(?:组|团队|部门|小组|部|科|队))"
     r"(?:去)?(?:了)?$", "member_of", "person", "team"),
    (r"^(?P<a>.+?)是(?P<b>.+?)的成员$", "member_of", "person", "team"),
    (r"^(?P<a>.+?)在(?P<b>.+?)(?:工作|上班)$", "works_at", "person", "organization"),
    # "刘洋跳槽到了腾讯", "小周上个月入职字节跳动".
    (r"^(?P<a>.+?)(?:从[^从]{1,12}?)?(?:跳槽到|跳槽去|入职|加盟)了?(?P<b>[^了]+?)了?$", "works_at",
     "person", "organization"),
    # "我老婆在协和医院当医生": a role held somewhere.
    (r"^(?P<a>.+?)在(?P<b>[^在]{2,12}?)(?:当|做|担任)[\u4e00-\u9fff]{1,6}(?<!工作)(?<!上班)$",
     "works_at", "person", "organization"),
    (r"^(?P<a>.+?)住在(?P<b>.+)$", "lives_in", "person", "place"),
    # "我人在杭州": where someone is, a city only ("我在开会" is no place).
    (rf"^(?P<a>.+?)人?(?:现在|目前)?在(?P<b>{ZH_CITY_PATTERN})$", "lives_in", "person", "place"),
    # "我跟室友在大巴窑合租": a home rented or bought somewhere.
    (r"^(?P<a>.+?)(?:(?:跟|和)[^在]{1,6})?在(?P<b>[^在]{2,6}?)(?:合租|租房|租了?房子?|买了?房子?)$",
     "lives_in", "person", "place"),
    # "小林搬去了上海" (after "小林不在北京了"): a move of someone named is a new home.
    (r"^(?P<a>.+?)(?:已经)?(?:从[^从]{1,8}?)?搬(?:到|去)了?(?P<b>[^了已快都有]{2,6}?)(?:(?:已经|快|都|有).*)?(?:了)?$",
     "lives_in", "person", "place"),
    # "我在浙大读博": a school studied at is an organisation; "我在多伦多读研": a city lived in.
    (r"^(?P<a>.+?)在(?P<b>[^在]{1,10}?(?:大学|大|学院|学校|中学|小学|高中|研究所|研究院))"
     r"(?:读研|读博|读书|念书|上学|上大学|读本科|读大学|工作|任教|教书)(?:了)?$",
     "works_at", "person", "organization"),
    # "我在多伦多读研": where someone studies or lives is where they live.
    (r"^(?P<a>.+?)在(?P<b>[^在]{2,6}?)(?:读研|读博|读书|念书|上学|上大学|留学|生活|定居)(?:了)?$",
     "lives_in", "person", "place"),
    # "我最喜欢的编辑器是VS Code", "比起Jira我更喜欢Linear".
    (r"^(?P<a>.+?)最喜欢的[\u4e00-\u9fff]{1,6}是(?P<b>.+)$", "prefers", "person", "tool"),
    (r"^(?P<a>.+?)(?:更|比较|最|特别|非常|很|挺|超|一直|还是)*(?:喜欢用|习惯用|偏好|偏爱|喜欢)(?P<b>.+)$",
     "prefers", "person", "tool"),
)  # fmt: skip
