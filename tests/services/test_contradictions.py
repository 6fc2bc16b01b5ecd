"""Contradictions that are not clearly a change (issue 29): both events stay active, linked
`conflicts_with` both ways, and the evidence gate sees the link. Through the API, offline rules."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.engine.event_identity import FactText, contradicts
from memory.engine.negation import affirmed
from memory.models import Event, EventRelation, EventStatus, GraphEdge, RelationKind
from tests.conftest import BASE_TIME, ApiClient, turn_body
from tests.services.statements import (
    BLOCK_TURNS,
    SMALL_TALK,
    event_quoting,
    statement_session,
)

pytestmark = pytest.mark.django_db


def _conflicting(a: Event, b: Event) -> bool:
    kind = RelationKind.CONFLICTS_WITH
    return (
        EventRelation.objects.filter(from_event=a, to_event=b, kind=kind).exists()
        and EventRelation.objects.filter(from_event=b, to_event=a, kind=kind).exists()
    )


def _said_in_two_sessions(
    owner: ApiClient, drain, first: str, second: str, *, days_apart: int
) -> tuple[Event, Event]:
    """`first` in one session, `second` in a later one; their events."""
    statement_session(owner, drain, "s1", first, start=1, day=0)
    statement_session(owner, drain, "s2", second, start=1 + BLOCK_TURNS, day=days_apart)
    return event_quoting(first), event_quoting(second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I like working late on Fridays.", "I don't like working late on Fridays."),
        ("I don't like working late on Fridays.", "I like working late on Fridays."),
        ("我喜欢喝咖啡。", "我不喜欢喝咖啡。"),
        # A liking then a dislike of the same thing, in other words.
        ("I like dark mode.", "I dislike dark mode."),
        ("I love Vim.", "I can't stand Vim."),
    ],
)
def test_a_denial_conflicts_with_the_statement_it_denies(
    owner: ApiClient, drain, first: str, second: str
) -> None:
    old, new = _said_in_two_sessions(owner, drain, first, second, days_apart=3)
    assert old.pk != new.pk
    assert (old.status, new.status) == (EventStatus.ACTIVE, EventStatus.ACTIVE)
    assert _conflicting(old, new)
    shown = owner.get(f"/ns/proj/events/{old.pk}").json()
    assert shown["relations"]["conflicts_with"] == [new.pk]


def test_a_stated_change_supersedes_and_does_not_conflict(owner: ApiClient, drain) -> None:
    statement_session(owner, drain, "s1", "We use Redis for caching.", start=1, day=0)
    statement_session(owner, drain, "s2", "We no longer use Redis.", start=1 + BLOCK_TURNS, day=3)

    old, new = event_quoting("We use Redis"), event_quoting("no longer")
    assert old.status == EventStatus.SUPERSEDED
    assert not EventRelation.objects.filter(kind=RelationKind.CONFLICTS_WITH).exists()
    assert new.status == EventStatus.ACTIVE


@pytest.mark.parametrize(
    ("first", "second", "relation", "old_value", "new_value"),
    [
        ("The billing service runs on Heroku.", "The billing service runs on Render.",
         "runs_on", "Heroku", "Render"),
        ("Maya lives in Berlin.", "Maya lives in Munich.", "lives_in", "Berlin", "Munich"),
    ],
)  # fmt: skip
def test_a_second_value_said_plainly_conflicts_and_the_graph_moves_on(
    owner: ApiClient, drain, first: str, second: str, relation: str, old_value: str,
    new_value: str,
) -> None:  # fmt: skip
    old, new = _said_in_two_sessions(owner, drain, first, second, days_apart=5)
    assert (old.status, new.status) == (EventStatus.ACTIVE, EventStatus.ACTIVE)
    assert _conflicting(old, new)
    edges = {
        (e.to_node.name, e.status)
        for e in GraphEdge.objects.filter(relation=relation).select_related("to_node")
    }
    assert edges == {(old_value, "superseded"), (new_value, "active")}


def test_a_change_of_platform_supersedes_without_conflict(owner: ApiClient, drain) -> None:
    statement_session(owner, drain, "s1", "The billing service runs on Heroku.", start=1, day=0)
    statement_session(
        owner,
        drain,
        "s2",
        "Switch the billing service from Heroku to Render.",
        start=1 + BLOCK_TURNS,
        day=5,
    )

    assert event_quoting("on Heroku").status == EventStatus.SUPERSEDED
    assert not EventRelation.objects.filter(kind=RelationKind.CONFLICTS_WITH).exists()


def test_unrelated_and_additive_statements_do_not_conflict(owner: ApiClient, drain) -> None:
    statement_session(owner, drain, "s1", "The billing service runs on Heroku.", start=1, day=0)
    statement_session(
        owner, drain, "s2", "The search service runs on Render.", start=1 + BLOCK_TURNS, day=1
    )
    statement_session(
        owner,
        drain,
        "s3",
        "I don't like working late on Mondays.",
        start=1 + 2 * BLOCK_TURNS,
        day=2,
    )
    statement_session(
        owner, drain, "s4", "I like working late on Fridays.", start=1 + 3 * BLOCK_TURNS, day=3
    )

    assert not EventRelation.objects.filter(kind=RelationKind.CONFLICTS_WITH).exists()
    assert not Event.objects.exclude(status=EventStatus.ACTIVE).exists()


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        ("We use Kafka for the event bus", "We don't use Kafka for the event bus", True),
        ("We can deploy on Fridays", "We can't deploy on Fridays", True),
        ("我们用Kafka做事件总线", "我们不用Kafka做事件总线", True),
        # Not only the negation differs: no contradiction.
        ("We use Kafka for the event bus", "We don't use RabbitMQ for the event bus", False),
        ("We don't use Kafka for billing", "We use Kafka for the event bus", False),
        # Same polarity: a restatement, not a contradiction.
        ("We use Kafka for the event bus", "We use Kafka for the event bus", False),
        # A liking and a dislike of the same thing; not of two things.
        ("I like dark mode", "I dislike dark mode", True),
        ("I love Vim", "I can't stand Vim", True),
        ("我喜欢喝咖啡", "我不喜欢喝咖啡", True),
        ("I like dark mode", "I dislike light mode", False),
    ],
)
def test_contradicts(new: str, old: str, expected: bool) -> None:
    assert contradicts(FactText("other", new), FactText("other", old)) is expected
    assert contradicts(FactText("other", old), FactText("other", new)) is expected


@pytest.mark.parametrize(
    ("text", "affirmative"),
    [
        ("We don't use Kafka", "We use Kafka"),
        ("It isn't deployed on Fly.io", "It is deployed on Fly.io"),
        ("We can't ship today", "We can ship today"),
        ("We no longer use Redis", "We use Redis"),
        ("我们不再用Redis", "我们用Redis"),
        ("他没有车", "他有车"),
    ],
)
def test_affirmed(text: str, affirmative: str) -> None:
    assert affirmed(text) == affirmative


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I live in Lisbon.", "I moved to Porto in August."),
        ("The billing service runs on Heroku.", "The billing service moved to Render."),
    ],
)
def test_a_new_value_said_as_a_change_supersedes_the_old_one(
    owner: ApiClient, drain, first: str, second: str
) -> None:
    old, new = _said_in_two_sessions(owner, drain, first, second, days_apart=30)
    assert (old.status, old.superseded_by_id) == (EventStatus.SUPERSEDED, new.pk)
    assert not EventRelation.objects.filter(kind=RelationKind.CONFLICTS_WITH).exists()


def test_a_dated_move_said_after_the_old_place_leaves_the_new_place_current(
    owner: ApiClient, drain
) -> None:
    """Said the same day, the move's occurrence (May) is earlier than the mention of the old
    place (June): the graph follows the events, not occurrence order alone."""
    said = [("I live in Berlin.", "Noted."), ("I moved to Lisbon in May.", "Noted."),
            *[SMALL_TALK] * (BLOCK_TURNS - 2)]  # fmt: skip
    for i, (user, assistant) in enumerate(said):
        body = turn_body(
            1 + i, session="s1", user=user, assistant=assistant,
            when=BASE_TIME + timedelta(minutes=i),
        )  # fmt: skip
        assert owner.post("/ns/proj/turns", body).status_code == 201
    drain()

    old, new = event_quoting("Berlin"), event_quoting("Lisbon")
    assert (old.status, old.superseded_by_id) == (EventStatus.SUPERSEDED, new.pk)
    edges = {
        (e.to_node.name, e.status, e.valid_to is None)
        for e in GraphEdge.objects.filter(relation="lives_in").select_related("to_node")
    }
    assert edges == {("Lisbon", "active", True), ("Berlin", "superseded", False)}
    nodes = owner.get("/ns/proj/graph").json()["nodes"]
    lived = {
        (e["to_name"], e["state"]) for n in nodes for e in n["edges"] if e["relation"] == "lives_in"
    }
    assert lived == {("Lisbon", "current"), ("Berlin", "historical")}


@pytest.mark.parametrize(
    ("first", "second", "relation"),
    [
        ("Priya leads the mobile team.", "Priya no longer leads the mobile team.", "leads"),
        ("Tom works at Globex.", "Tom doesn't work at Globex anymore.", "works_at"),
        ("Sara is on the design team.", "Sara isn't on the design team anymore.", "member_of"),
        ("We use AWS.", "We're not on AWS anymore.", "uses"),
    ],
)
def test_a_relation_said_to_hold_no_more_supersedes_it_and_its_edge_turns_historical(
    owner: ApiClient, drain, first: str, second: str, relation: str
) -> None:
    old, new = _said_in_two_sessions(owner, drain, first, second, days_apart=3)
    assert (old.status, old.superseded_by_id) == (EventStatus.SUPERSEDED, new.pk)
    assert not EventRelation.objects.filter(kind=RelationKind.CONFLICTS_WITH).exists()
    nodes = owner.get("/ns/proj/graph").json()["nodes"]
    states = [e["state"] for n in nodes for e in n["edges"] if e["relation"] == relation]
    assert states == ["historical"]  # the stop itself adds no edge


@pytest.mark.parametrize(
    ("first", "second", "relation", "current"),
    [
        (
            "Lucas is on the mobile team.",
            "Lucas switched to the web team.",
            "member_of",
            "web team",
        ),
        ("I live in Leeds.", "We relocated to Manchester.", "lives_in", "Manchester"),
        ("Raj owns the data pipeline.", "Raj handed the data pipeline to Mei.", "owns", "Mei"),
        ("The API is written in Python.", "We rewrote the API in Go.", "uses", "Go"),
        # A denial put right names the new value (engine.plain_clauses.corrected).
        (
            "I work at Stripe.",
            "I don't work at Stripe anymore, I'm at Shopify now.",
            "works_at",
            "Shopify",
        ),
        (
            "Tom is on the payments team.",
            "Tom isn't on the payments team anymore, he's on identity.",
            "member_of",
            "identity team",
        ),
        # Round 14: a function's tool whatever the verb, back to a tool, "since", passives.
        (
            "We use Travis for CI.",
            "We've moved CI over to GitHub Actions.",
            "uses",
            "GitHub Actions",
        ),
        ("I use VS Code.", "I've gone back to Vim.", "uses", "Vim"),
        ("I live in Madrid.", "I'm now living in Valencia.", "lives_in", "Valencia"),
        ("We host on DigitalOcean.", "Everything is on Hetzner since March.", "uses", "Hetzner"),
        (
            "Marta is on the billing team.",
            "Marta now works on the growth team.",
            "member_of",
            "growth team",
        ),
        ("We use Trello for tasks.", "Trello got replaced by Linear.", "uses", "Linear"),
        ("We store files in Dropbox.", "Files are in Google Drive now.", "uses", "Google Drive"),
        ("小王负责支付服务。", "支付服务交给小李了。", "owns", "小李"),
        ("我们用MySQL。", "数据库已经换成PostgreSQL了。", "uses", "PostgreSQL"),
        # Round 31: a hand-over ends a lead, a person's own switch, a relative by name.
        (
            "Priya is the tech lead for the search service.",
            "Priya handed the search service over to Tom.",
            "owns",
            "Tom",
        ),
        (
            "I use Notion for my recipes.",
            "I moved my recipes from Notion to Obsidian.",
            "uses",
            "Obsidian",
        ),
        (
            "I work as a nurse at St Mary's Hospital.",
            "I left St Mary's; I'm at the Royal Free now.",
            "works_at",
            "Royal Free",
        ),
        ("我姐姐陈静住在杭州。", "陈静搬到上海了。", "lives_in", "上海"),
        # Round 32: "we've moved", a hand-over after letting go, a job said as now.
        ("I live in Porto.", "We've moved to Lisbon.", "lives_in", "Lisbon"),
        ("支付服务是李雷在维护。", "李雷不维护支付服务了，交给了韩梅梅。", "owns", "韩梅梅"),
        ("我在腾讯做产品经理。", "我现在在字节跳动做产品。", "works_at", "字节跳动"),
    ],
)
def test_a_change_in_everyday_words_supersedes_and_the_graph_moves_on(
    owner: ApiClient, drain, first: str, second: str, relation: str, current: str
) -> None:
    old, new = _said_in_two_sessions(owner, drain, first, second, days_apart=3)
    assert (old.status, old.superseded_by_id) == (EventStatus.SUPERSEDED, new.pk)
    assert current in _current_ends(owner, relation)


def _current_ends(owner: ApiClient, relation: str) -> set[str]:
    """The names at either end of the graph's current edges of `relation`."""
    nodes = owner.get("/ns/proj/graph").json()["nodes"]
    return {
        name
        for n in nodes
        for e in n["edges"]
        if e["relation"] == relation and e["state"] == "current"
        for name in (e["from_name"], e["to_name"])
    }


def test_a_plain_negation_ends_nothing(owner: ApiClient, drain) -> None:
    statement_session(owner, drain, "s1", "Tom works at Globex.", start=1, day=0)
    statement_session(
        owner, drain, "s2", "Tom doesn't work at Initech.", start=1 + BLOCK_TURNS, day=3
    )

    assert event_quoting("Tom works at Globex").status == EventStatus.ACTIVE


def test_a_change_does_not_end_what_else_the_old_event_states(owner: ApiClient, drain) -> None:
    first = "I live in Lisbon and I work at Globex."
    statement_session(owner, drain, "s1", first, start=1, day=0)
    statement_session(owner, drain, "s2", "I moved to Porto.", start=1 + BLOCK_TURNS, day=30)

    old, new = event_quoting(first), event_quoting("moved to Porto")
    assert old.status == EventStatus.ACTIVE  # it still says where she works
    assert _conflicting(old, new)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The launch is planned for May 3.", "The launch has been pushed to May 17."),
        ("Our standup is at 9:30.", "Standup moved to 10 starting next week."),
        ("周会在周一上午。", "周会改到周三下午了。"),
        ("我们用MySQL。", "我们已经迁到PostgreSQL了。"),
        ("数据组由吴刚负责。", "数据组现在归王芳管。"),
        ("My manager is Laura.", "Laura left, my new manager is Pedro."),
        ("Hana is our designer.", "Hana left; Omar is our designer now."),
        ("我的主管是李明。", "李明走了，现在我的主管是张华。"),
        ("We deploy every Tuesday.", "From now on we deploy on Thursdays."),
        ("我们每周二发版。", "以后改成每周四发版了。"),
        # Round 34: a standing time said as a fact, a slip, a take-over, a job left.
        ("Standup is at 9:30 every day.", "Standup is now at 10."),
        ("The launch is planned for May 20.", "The launch slipped to June 3."),
        ("站会九点半开始。", "站会改到十点了。"),
        ("我每周三晚上上瑜伽课。", "瑜伽课改到周四了。"),
        ("Ben leads the mobile team.", "Ana took over the mobile team from Ben."),
        ("I work at Spotify.", "I quit Spotify, I'm freelancing now."),
        ("我在京东工作。", "我辞职了，现在在家带娃。"),
        # Round 36: leaving a team.
        ("Yuki is on the search team.", "Yuki left the search team."),
        ("张伟在数据组。", "张伟离开了数据组。"),
        # Round 38: stepping down from a lead.
        ("Maria runs the design team.", "Maria stepped down as design lead; Kai leads design now."),
        ("李娜在支付组。", "李娜现在不在支付组了，去了风控组。"),
        # Round 39: a time or a home said as now, said last; a use denied, then a switch.
        ("Standup is at 9:30.", "Standup is at 10 now."),
        ("Retro is on Fridays.", "Retro is on Thursdays now."),
        ("I live in Leeds.", "I'm in Manchester now."),
        ("I use Chrome.", "I'm not using Chrome anymore; I switched to Firefox."),
        ("Lisa leads the growth team.", "Lisa isn't leading growth anymore; Omar does."),
        ("We use Flutter for the mobile app.", "We switched from Flutter to React Native."),
        # Round 40 (dev9, dev10): a take-over ends a lead, a version ends another, a cutover,
        # a shop, a job and a home said from where.
        (
            "Desmond runs the service desk.",
            "Desmond retired, and Lucia's taken over the service desk.",
        ),
        ("Frostbound is built on Unity 2022 LTS.", "We upgraded Frostbound to Unity 6 last week."),
        (
            "Our interface engine is Rhapsody.",
            "We cut every interface over from Rhapsody to Mirth Connect.",
        ),
        ("家里买菜我基本都在RedMart上下单。", "买菜我不再用RedMart了，改用FairPrice的app。"),
        ("说起来我在Shopee做数据分析也快两年了。", "我已经从Shopee跳槽到Grab了。"),
        ("我跟室友在大巴窑合租。", "上个月搬家了，从大巴窑搬到了榜鹅。"),
        # dev11: spaces between Han and Latin words, a cutover, a stop said after a lead-in.
        ("文档站是托管在 Netlify 上的。", "文档站已经从 Netlify 搬到 Cloudflare Pages 了。"),
        ("Inventory, we track in Manhattan WMS.", "We cut over from Manhattan to Blue Yonder."),
        (
            "Feature flags, we run through LaunchDarkly.",
            "Quick update on flags: we ditched LaunchDarkly.",
        ),
        ("广告投放这块归阿峰管。", "广告投放已经从阿峰手里交接给小杨了。"),
        ("I live in Ithaca.", "Boxes everywhere, but we live in Rochester now."),
    ],
)
def test_a_move_to_another_time_or_tool_or_lead_supersedes(
    owner: ApiClient, drain, first: str, second: str
) -> None:
    old, new = _said_in_two_sessions(owner, drain, first, second, days_apart=3)
    assert (old.status, old.superseded_by_id) == (EventStatus.SUPERSEDED, new.pk)
    assert new.status == EventStatus.ACTIVE


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # No time of its own: a booking is not the launch's date.
        ("The launch party is booked at the Hilton.", "The launch has been pushed to May 17."),
        # Another meeting.
        ("Sprint planning is scheduled for Monday at 10.", "The sprint review moved to Friday."),
        # Another habit.
        ("We run retros every Tuesday.", "From now on we deploy on Thursdays."),
    ],
)
def test_a_move_to_another_time_leaves_other_plans(
    owner: ApiClient, drain, first: str, second: str
) -> None:
    old, _ = _said_in_two_sessions(owner, drain, first, second, days_apart=3)
    assert old.status == EventStatus.ACTIVE


def test_two_values_of_one_slot_said_together_are_both_current(owner: ApiClient, drain) -> None:
    said = "Our mobile apps are written in Kotlin and Swift."
    statement_session(owner, drain, "s1", said, start=1, day=0)
    assert {"Kotlin", "Swift"} <= _current_ends(owner, "uses")
    rewrite = "We rewrote the mobile apps in Rust."
    statement_session(owner, drain, "s2", rewrite, start=1 + BLOCK_TURNS, day=3)
    now = _current_ends(owner, "uses")
    assert "Rust" in now and not {"Kotlin", "Swift"} & now
