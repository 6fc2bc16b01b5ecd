"""Issue 29's fortieth round (2026-12-07): a fresh labelled set, dev9, written from scratch for
this stop by someone who had not seen the extractor (six conversations, English and Chinese,
idioms, contractions, facts after chit-chat, two facts in one message), scored 0.706 event
recall, 0.235 supersession recall and 0.286 edge recall before any change: far below the
tuning sets, near the blind set. The misses it showed, and the ones left from earlier probes:

- contractions after a name were never read ("Priya's responsible for the billing service",
  "Kim's leading the platform team"), nor perfect and progressive forms ("Luis has been
  maintaining the Android app", "Priya has owned the checkout flow for a year");
- a consumer app was no known tool ("I switched to Spotify": no edge; "I moved to Apple Music":
  a home), "I cancelled Spotify and use Apple Music now" was an event called off, "I switched my
  running app to Strava" made "running app" a project of the team's;
- where one works or lives, said in passing: "I do UX research at Canva", "I'm Ifeoma, a data
  engineer … at Tramline", "I've left Canva and started at Atlassian", "Theo and I rent a flat in
  Brunswick", "Theo and I … moved to Coburg";
- uses said through a function: "On-call's handled through Opsgenie", "I log every climbing
  session in Crimpd"; "Ji-woo picked up the ledger API" (an owner);
- Chinese: "前端是Next.js写的，直接部署在Vercel上" made a project "直接"; "我平时用筷子吃饭" a
  tool "筷子吃饭".

Two more fresh sets followed, dev10 and dev11 (their cases are marked below); the first scores
of all three are in docs/EVALUATION.md, "Twelfth round"."""

from __future__ import annotations

import pytest

from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges

SAM = "person:sam"  # the speaker of tests.engine.test_offline_round6._edges


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        (
            "Priya's responsible for the billing service.",
            ("person:priya", "owns", "project:billingservice"),
        ),
        ("Kim's leading the platform team.", ("person:kim", "leads", "organization:platformteam")),
        (
            "Luis's been running the payments team.",
            ("person:luis", "leads", "organization:paymentsteam"),
        ),
        (
            "Luis has been maintaining the Android app.",
            ("person:luis", "maintains", "project:android"),
        ),
        ("Luis is maintaining the Android app.", ("person:luis", "maintains", "project:android")),
        (
            "Luis has been leading the billing service since May.",
            ("person:luis", "leads", "project:billingservice"),
        ),
        (
            "Priya has owned the checkout flow for a year.",
            ("person:priya", "owns", "project:checkoutflow"),
        ),
        (
            "Ji-woo picked up the ledger API when Ravi moved over to the fraud team.",
            ("person:jiwoo", "owns", "project:ledgerapi"),
        ),
    ],
)
def test_who_owns_or_leads_said_with_a_contraction_or_a_perfect(
    content: str, edge: tuple[str, ...]
) -> None:
    assert edge in _edges(content)


@pytest.mark.parametrize(
    "content",
    ["Tom's running late.", "I picked up groceries.", "Priya's team owns billing."],
)
def test_a_possessive_or_an_errand_owns_nothing(content: str) -> None:
    assert not {e for e in _edges(content) if e[1] in ("owns", "leads", "maintains")}


@pytest.mark.parametrize(
    ("content", "tool"),
    [
        ("I switched to Spotify.", "tool:spotify"),
        ("I moved to Apple Music.", "tool:applemusic"),
        ("I cancelled Spotify and use Apple Music now.", "tool:applemusic"),
        ("I stopped using Spotify and switched to Apple Music.", "tool:applemusic"),
        ("I switched my running app to Strava.", "tool:strava"),
    ],
)
def test_a_consumer_app_switched_to_is_the_speakers_tool(content: str, tool: str) -> None:
    assert _edges(content) == {(SAM, "uses", tool)}


def test_a_subscription_cancelled_for_another_is_a_change() -> None:
    assert stored_events("I cancelled Spotify and use Apple Music now.") == [("change", "occurred")]
    assert stored_events("I cancelled my gym membership and got a Peloton.") == [
        ("change", "occurred")
    ]
    assert stored_events("We cancelled the offsite.") == [("cancellation", "cancelled")]


def test_a_company_that_makes_an_app_is_still_an_employer() -> None:
    assert _edges("I work at Spotify.") == {(SAM, "works_at", "organization:spotify")}
    assert _edges("I moved to Berlin.") == {(SAM, "lives_in", "place:berlin")}


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        (
            "Work's mostly to blame — I do UX research at Canva and we're halfway through a study.",
            (SAM, "works_at", "organization:canva"),
        ),
        (
            "Hi! I'm Ifeoma, a data engineer on the data platform team at Tramline.",
            (SAM, "works_at", "organization:tramline"),
        ),
        (
            "I've left Canva and started at Atlassian on Monday.",
            (SAM, "works_at", "organization:atlassian"),
        ),
        (
            "My partner Theo and I rent a flat in Brunswick — love the area.",
            (SAM, "lives_in", "place:brunswick"),
        ),
        (
            "Guess who's a homeowner! Theo and I took the plunge and moved to Coburg last weekend.",
            (SAM, "lives_in", "place:coburg"),
        ),
    ],
)
def test_where_one_works_or_lives_said_in_passing(content: str, edge: tuple[str, ...]) -> None:
    assert edge in _edges(content)


def test_a_hobby_somewhere_is_no_job() -> None:
    assert _edges("I do yoga at Equinox.") == set()


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        ("On-call's handled through Opsgenie.", ("project:project", "uses", "tool:opsgenie")),
        ("I log every climbing session in Crimpd.", (SAM, "uses", "tool:crimpd")),
    ],
)
def test_a_use_said_through_what_it_is_for(content: str, edge: tuple[str, ...]) -> None:
    assert edge in _edges(content)


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "前端是Next.js写的，直接部署在Vercel上。",
            {
                ("project:前端", "uses", "tool:next.js"),
                ("project:前端", "runs_on", "tool:vercel"),
            },
        ),
        (
            "后端是一个Django单体，跑在腾讯云的轻量服务器上。",
            {("project:后端", "uses", "tool:django"), ("project:后端", "runs_on", "tool:腾讯云")},
        ),
        ("我平时用筷子吃饭。", set()),
    ],
)
def test_a_chinese_clause_carries_the_service_it_is_about(
    content: str, edges: set[tuple[str, ...]]
) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        ("说起来我在Shopee做数据分析也快两年了。", (SAM, "works_at", "organization:shopee")),
        (
            "我表哥陈默在腾讯做游戏策划，天天加班到半夜。",
            ("person:陈默", "works_at", "organization:腾讯"),
        ),
        (
            "还有，我已经从Shopee跳槽到Grab了，上周一入职的。",
            (SAM, "works_at", "organization:grab"),
        ),
        ("我跟室友在大巴窑合租，走到地铁站五分钟。", (SAM, "lives_in", "place:大巴窑")),
        ("上个月搬家了，从大巴窑搬到了榜鹅，房子新很多。", (SAM, "lives_in", "place:榜鹅")),
        ("小王从北京搬到了上海。", ("person:小王", "lives_in", "place:上海")),
        (
            "我们唯一的设计师阿凯住在苏州，一直远程跟我们合作。",
            ("person:阿凯", "lives_in", "place:苏州"),
        ),
        ("每个月的开销我都记在Money Manager里，好几年了。", (SAM, "uses", "tool:moneymanager")),
        ("代码评审我还是习惯在GitLab上做。", (SAM, "uses", "tool:gitlab")),
        ("写SQL我更习惯用DBeaver。", (SAM, "uses", "tool:dbeaver")),
        ("存储是MySQL分库分表，缓存那层用的Redis。", ("project:project", "uses", "tool:redis")),
        (
            "后端是一个Django单体，跑在腾讯云的轻量服务器上。",
            ("project:后端", "uses", "tool:django"),
        ),
    ],
)
def test_chinese_jobs_homes_and_tools_said_in_passing(content: str, edge: tuple[str, ...]) -> None:
    assert edge in _edges(content)


@pytest.mark.parametrize(
    "content", ["我在家做饭。", "我在公司上班三年了。", "我们老板是Tony。", "CI用的是Jenkins。"]
)
def test_chinese_no_employer_home_or_service_where_none_is_named(content: str) -> None:
    edges = _edges(content)
    assert not {e for e in edges if e[1] in ("works_at", "lives_in")}
    assert not {e for e in edges if e[0].startswith("project:") and e[0] != "project:project"}


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "Airflow schedules all of it, though we pay Astronomer to host it.",
            {("project:project", "uses", "tool:airflow")},
        ),
        ("It schedules all of it.", set()),
        (
            "Ji-woo picked up the ledger API when Ravi moved over to the fraud team.",
            {
                ("person:jiwoo", "owns", "project:ledgerapi"),
                ("person:ravi", "member_of", "organization:fraudteam"),
            },
        ),
        (
            "先交代下背景：我在得物的交易中台，组里主要负责订单链路。",
            {(SAM, "works_at", "organization:得物"), (SAM, "member_of", "organization:交易中台")},
        ),
        (
            "订单服务下游挂着库存服务和优惠券服务，随便哪个挂了，下单都会失败。",
            {
                ("project:订单服务", "depends_on", "project:库存服务"),
                ("project:订单服务", "depends_on", "project:优惠券服务"),
            },
        ),
        (
            "优惠券服务已经并进营销服务了，所以订单服务现在改成直接调营销服务。",
            {("project:订单服务", "depends_on", "project:营销服务")},
        ),
        ("小王调岗到运营了。", set()),
    ],
)
def test_a_tool_at_work_a_team_of_a_company_and_what_a_service_calls(
    content: str, edges: set[tuple[str, ...]]
) -> None:
    assert _edges(content) == edges


def test_two_facts_joined_by_when_are_two_events() -> None:
    assert stored_events(
        "Ji-woo picked up the ledger API when Ravi moved over to the fraud team."
    ) == [
        ("other", "ongoing"),
        ("change", "occurred"),
    ]
    assert len(stored_events("I was happy when Tom called me about the release.")) <= 1


def test_a_noun_said_like_a_move_is_no_change() -> None:
    assert (
        stored_events("Stacked PRs do make large changes much easier to review in small pieces.")
        == []
    )
    assert stored_events("We moved the billing service to Fly.io.") == [("change", "occurred")]


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "Hi! I'm Ifeoma, a data engineer on the data platform team at Tramline.",
            {
                (SAM, "works_at", "organization:tramline"),
                (SAM, "member_of", "organization:dataplatformteam"),
            },
        ),
        (
            "My sister Grace has started as a paediatric nurse at the Royal Children's Hospital.",
            {("person:grace", "works_at", "organization:royalchildren'shospital")},
        ),
        ("Tom started at Stripe last week.", {("person:tom", "works_at", "organization:stripe")}),
        (
            "Also, I'd much rather review stacked PRs in Graphite than click around the GitHub UI.",
            {(SAM, "prefers", "tool:graphite")},
        ),
        ("I'd rather stay in Lisbon than move.", set()),
    ],
)
def test_a_role_on_a_team_a_job_started_and_a_tool_rather_than_another(
    content: str, edges: set[tuple[str, ...]]
) -> None:
    assert _edges(content) == edges


# dev10, a second fresh set written during the round (first score 0.983 / 0.726 / 0.041 / 0.389 /
# 0.833 / 0.377, against 0.983 / 0.726 / 0.041 / 0.389 / 0.826 / 0.358 for the code before the
# round: the dev9 rules carried over little), and what its misses showed.
@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "Some context: I work in IT at Mercy Ridge Hospital.",
            {(SAM, "works_at", "organization:mercyridgehospital")},
        ),
        ("I work in a team at Google.", {(SAM, "works_at", "organization:google")}),
        (
            "Oh, and for C# stuff I much prefer Rider over Visual Studio, so shortcuts for Rider.",
            {(SAM, "prefers", "tool:rider")},
        ),
        (
            "Work-wise, I sketch pretty much everything in Procreate on my iPad.",
            {(SAM, "uses", "tool:procreate")},
        ),
        (
            "Invoicing I do in InvoiceXpress, mostly because my accountant insisted.",
            {(SAM, "uses", "tool:invoicexpress")},
        ),
        (
            "Big weekend: we finally cut every interface over from Rhapsody to Mirth Connect.",
            {("project:project", "uses", "tool:mirthconnect")},
        ),
        ("实验室的机械臂一直是赵凯师兄在维护。", {("person:赵凯", "maintains", "project:机械臂")}),
        ("赵凯师兄毕业去大疆了。", {("person:赵凯", "works_at", "organization:大疆")}),
        ("小李毕业去北京了。", {("person:小李", "lives_in", "place:北京")}),
        (
            "陈伟也跳槽了，现在在华侨银行做风控。",
            {("person:陈伟", "works_at", "organization:华侨银行")},
        ),
        ("家里买菜我基本都在RedMart上下单，周末一次性买齐。", {(SAM, "uses", "tool:redmart")}),
    ],
)
def test_dev10_jobs_tools_and_keepers(content: str, edges: set[tuple[str, ...]]) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "We run Epic as the EHR, and our interface engine is Rhapsody.",
            {
                ("project:project", "uses", "tool:epic"),
                ("project:project", "uses", "tool:rhapsody"),
            },
        ),
        (
            "Builds run on TeamCity, and all the source lives in Perforce, art included.",
            {
                ("project:project", "uses", "tool:teamcity"),
                ("project:project", "uses", "tool:perforce"),
            },
        ),
        (
            "我们收银用的是Square，外卖基本都走DoorDash。",
            {
                ("project:project", "uses", "tool:square"),
                ("project:project", "uses", "tool:doordash"),
            },
        ),
        (
            "Desmond runs the service desk.",
            {("person:desmond", "leads", "organization:servicedesk")},
        ),
        (
            "We upgraded Frostbound to Unity 6 last week.",
            {("project:frostbound", "uses", "tool:unity")},
        ),
        ("I sat at my desk all day.", set()),
    ],
)
def test_dev10_team_tools_a_desk_and_a_version(content: str, edges: set[tuple[str, ...]]) -> None:
    assert _edges(content) == edges


def test_two_uses_joined_by_and_are_two_events() -> None:
    assert len(stored_events("We run Epic as the EHR, and our interface engine is Rhapsody.")) == 2


# dev11, a third fresh set (first score 0.984 / 0.819 / 0 / 0.222 / 0.706 / 0.261; the code
# before the round: 0.688 / 0.239 on edges), and what its misses showed.
@pytest.mark.parametrize(
    ("content", "edges"),
    [
        ("文档站是托管在 Netlify 上的。", {("project:文档站", "runs_on", "tool:netlify")}),
        ("我在 Shopee 工作。", {(SAM, "works_at", "organization:shopee")}),
        (
            "我人在杭州，白天在蚂蚁上班。",
            {(SAM, "lives_in", "place:杭州"), (SAM, "works_at", "organization:蚂蚁")},
        ),
        ("另外我换工作了，上周起在网易上班。", {(SAM, "works_at", "organization:网易")}),
        ("广告投放已经从阿峰手里交接给小杨了。", {("person:小杨", "owns", "project:广告投放")}),
        (
            "Feature flags, we run through LaunchDarkly.",
            {("project:project", "uses", "tool:launchdarkly")},
        ),
        (
            "Inventory, we track in Manhattan WMS.",
            {("project:project", "uses", "tool:manhattanwms")},
        ),
        (
            "Well, it happened: we cut over from Manhattan to Blue Yonder over the weekend.",
            {("project:project", "uses", "tool:blueyonder")},
        ),
        ("我在开会。", set()),
        ("白天很忙。", set()),
    ],
)
def test_dev11_spaced_chinese_times_of_day_and_functions_said_first(
    content: str, edges: set[tuple[str, ...]]
) -> None:
    assert _edges(content) == edges


def test_a_home_said_as_now_after_a_but_that_contrasts_no_place_is_a_change() -> None:
    assert stored_events("We did it! Boxes everywhere, but we live in Rochester now.")[-1] == (
        "change",
        "occurred",
    )
    assert stored_events("I grew up in Madrid but live in Barcelona now.") == [("other", "ongoing")]
