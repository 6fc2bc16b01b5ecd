"""Offline rule-based extraction and slot supersession (SPEC §5, §6.5 example, §12.1)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory.engine.offline_events import SourceMessage, extract_events
from memory.engine.prompts.extraction import ExtractedEvent, ExtractionOut, ground_events
from memory.engine.slot_supersession import (
    TimelineEvent,
    detect_batch_supersession,
    detect_supersession,
)

SAT_6_MAY_2023 = datetime(2023, 5, 6, 13, 56, tzinfo=UTC)


def msg(
    id: int, content: str, role: str = "user", speaker: str | None = None, minutes: int = 0
) -> SourceMessage:
    return SourceMessage(
        id=id,
        role=role,
        content=content,
        created_at=SAT_6_MAY_2023 + timedelta(minutes=minutes),
        speaker=speaker,
    )


def one(messages: list[SourceMessage]) -> ExtractedEvent:
    out = extract_events(messages)
    assert out.should_extract
    assert len(out.events) == 1, [e.title for e in out.events]
    return out.events[0]


def timeline_of(event: ExtractedEvent, id: int) -> TimelineEvent:
    return TimelineEvent(id, event.title, event.summary, event.event_type, tuple(event.tags))


# SPEC §6.5: the trio.
TRIO = [
    msg(1, "Use npm for this project."),
    msg(2, "Let's switch to pnpm.", minutes=1),
    msg(3, "Finish the prototype next week", minutes=2),
]


def test_use_npm_is_a_project_decision_quoting_its_sentence() -> None:
    event = one([TRIO[0]])
    assert event.event_type == "decision"
    assert event.scope == "project"
    assert event.source_message_ids == [1]
    assert event.quotes == ["Use npm for this project."]
    assert "package_manager" in event.tags and "npm" in event.tags
    assert event.temporal_status == "occurred"


def test_switch_to_pnpm_is_a_decision_that_supersedes_npm() -> None:
    npm = one([TRIO[0]])
    pnpm = one([TRIO[1]])
    assert pnpm.event_type == "decision"
    assert detect_supersession(pnpm, [timeline_of(npm, 41)]) == [41]


def test_finish_the_prototype_next_week_is_a_plan_and_supersedes_nothing() -> None:
    npm = one([TRIO[0]])
    plan = one([TRIO[2]])
    assert plan.event_type == "plan"
    assert plan.temporal_status == "planned"
    assert plan.original_text == "next week"
    assert plan.happened_start == datetime(2023, 5, 8, tzinfo=UTC)
    assert plan.happened_end == datetime(2023, 5, 14, 23, 59, 59, 999999, tzinfo=UTC)
    assert (plan.precision, plan.basis) == ("range", "relative")
    assert detect_supersession(plan, [timeline_of(npm, 41)]) == []


def test_trio_in_one_block_gives_three_events_in_order() -> None:
    out = extract_events(TRIO)
    assert [e.event_type for e in out.events] == ["decision", "decision", "plan"]
    assert [e.source_message_ids for e in out.events] == [[1], [2], [3]]
    assert detect_batch_supersession(out.events) == [(1, 0)]


def test_timeline_supersession_is_proposed_as_a_relation() -> None:
    npm = one([TRIO[0]])
    out = extract_events([TRIO[1]], timeline=[timeline_of(npm, 7)])
    assert [(r.kind, r.target_event_id) for r in out.events[0].relations] == [("supersedes", 7)]


def test_nothing_durable_means_should_extract_false() -> None:
    out = extract_events([msg(1, "ok thanks"), msg(2, "Sure, happy to help!", role="assistant")])
    assert out == ExtractionOut(should_extract=False, events=[])


def test_quotes_are_verbatim_substrings_of_their_messages() -> None:
    messages = [
        msg(1, "Hi!\n\nI prefer tabs over spaces. Also, we decided to use PostgreSQL."),
        msg(2, "- Let's go with React.\n```\nuse npm\n```", role="assistant", minutes=1),
    ]
    out = extract_events(messages)
    contents = {m.id: m.content for m in messages}
    assert out.events
    for event in out.events:
        for quote in event.quotes:
            assert any(quote in contents[i] for i in event.source_message_ids)
    titles = [e.title for e in out.events]
    assert not any("npm" in t for t in titles), "fenced code is not prose"


@pytest.mark.parametrize(
    ("content", "event_type", "criticality"),
    [
        ("Let's use Redis for caching.", "decision", "routine"),
        ("We'll go with Svelte.", "decision", "routine"),
        ("We decided to drop the beta.", "decision", "routine"),
        ("Going forward we're going with MySQL.", "decision", "routine"),
        ("我们决定改用PostgreSQL。", "decision", "routine"),
        ("就用yarn吧。", "decision", "routine"),
        ("I prefer dark mode.", "other", "preference"),
        ("I love hiking in the Alps.", "other", "preference"),
        ("I hate meetings before 10am.", "other", "preference"),
        ("I always write tests first.", "other", "preference"),
        ("I never eat meat.", "other", "preference"),
        ("我喜欢喝茶。", "other", "preference"),
        ("我讨厌加班。", "other", "preference"),
        ("我更喜欢Vim。", "other", "preference"),
        ("I'm a data scientist.", "other", "identity"),
        ("I work at Acme Corp.", "other", "identity"),
        ("My name is Alice.", "other", "identity"),
        ("I live in Berlin.", "other", "identity"),
        ("我是一名程序员。", "other", "identity"),
        ("我在腾讯工作。", "other", "identity"),
        ("I'm allergic to peanuts.", "other", "safety"),
        ("I will write the migration guide.", "plan", "routine"),
        ("I'm going to visit Paris.", "plan", "routine"),
        ("I plan to learn Rust.", "plan", "routine"),
        ("我打算学日语。", "plan", "routine"),
        ("我们计划下个月上线。", "plan", "routine"),
        ("We switched from Jenkins to GitHub Actions.", "change", "routine"),
        ("I moved to Lisbon.", "change", "routine"),
        ("We no longer use Slack.", "change", "routine"),
        ("The offsite was cancelled.", "cancellation", "routine"),
        ("We called off the launch.", "cancellation", "routine"),
        ("I won't attend the party.", "cancellation", "routine"),
        ("会议取消了。", "cancellation", "routine"),
        ("We migrated the data to S3.", "migration", "routine"),
    ],
)
def test_cue_table(content: str, event_type: str, criticality: str) -> None:
    event = one([msg(1, content)])
    assert (event.event_type, event.criticality) == (event_type, criticality)


def test_cancellation_keeps_its_time_and_status() -> None:
    event = one([msg(1, "The launch meeting next Tuesday was called off.")])
    assert event.event_type == "cancellation"
    assert event.temporal_status == "cancelled"
    assert event.original_text == "next Tuesday"


def test_preferences_and_identity_are_user_scoped_and_titled_in_third_person() -> None:
    event = one([msg(1, "I prefer tabs over spaces.", speaker="Caroline")])
    assert event.scope == "user"
    assert event.title == "Caroline prefers tabs over spaces"
    assert event.summary == "Caroline: I prefer tabs over spaces."
    assert event.participants == ["Caroline"]


def test_assistant_decisions_count_but_its_own_likes_do_not() -> None:
    out = extract_events(
        [
            msg(1, "I like to help. We'll go with pnpm then.", role="assistant"),
            msg(2, "I'll check the logs.", role="assistant"),
        ]
    )
    assert [e.event_type for e in out.events] == ["decision"]


def test_named_speakers_in_the_assistant_role_are_people() -> None:
    event = one([msg(1, "I love painting sunsets.", role="assistant", speaker="Melanie")])
    assert event.criticality == "preference"
    assert event.participants == ["Melanie"]


def test_questions_and_recalled_memory_are_not_events() -> None:
    out = extract_events(
        [
            msg(1, "Should we switch to yarn?"),
            msg(2, "You said you prefer vim, so I set it up.", role="assistant"),
        ]
    )
    assert out.events == []


def test_time_is_resolved_against_each_message() -> None:
    out = extract_events(
        [
            msg(1, "Yesterday I went to a support group.", speaker="Caroline"),
            SourceMessage(
                2, "user", "I'll visit my parents tomorrow.", SAT_6_MAY_2023 + timedelta(days=30)
            ),
        ]
    )
    first, second = out.events
    assert first.happened_start == datetime(2023, 5, 5, tzinfo=UTC)
    assert first.temporal_status == "occurred"
    assert second.happened_start == datetime(2023, 6, 6, tzinfo=UTC)
    assert second.temporal_status == "planned"


def test_duplicates_within_a_block_merge_into_one_event() -> None:
    out = extract_events(
        [
            msg(1, "Let's switch to pnpm."),
            msg(2, "OK, we'll go with pnpm.", role="assistant", minutes=1),
        ]
    )
    assert len(out.events) == 1
    event = out.events[0]
    assert event.source_message_ids == [1, 2]
    assert len(event.quotes) == 2
    assert event.participants == ["user", "assistant"]


def test_titles_are_short() -> None:
    long = "We decided to " + "really " * 40 + "use the new billing flow."
    assert len(one([msg(1, long)]).title) <= 80


def test_system_and_tool_messages_are_ignored() -> None:
    out = extract_events([msg(1, "Use npm.", role="system"), msg(2, "Use npm.", role="tool")])
    assert out.events == []


# --- supersession rules ---------------------------------------------------------------------


def existing(
    id: int, title: str, summary: str, event_type: str = "decision", status: str = "active"
) -> TimelineEvent:
    return TimelineEvent(id, title, summary, event_type, (), status)


def decision(text: str) -> ExtractedEvent:
    return one([msg(1, text)])


def test_same_value_does_not_supersede() -> None:
    assert (
        detect_supersession(decision("Let's use pnpm."), [existing(1, "Use pnpm", "Use pnpm.")])
        == []
    )


def test_other_slots_are_untouched() -> None:
    old = [existing(1, "Use PostgreSQL", "We decided to use PostgreSQL.")]
    assert detect_supersession(decision("Let's switch to pnpm."), old) == []


def test_only_active_decisions_are_superseded() -> None:
    old = [
        existing(1, "Use npm", "Use npm.", status="superseded"),
        existing(2, "Use npm", "Use npm.", status="forgotten"),
        existing(3, "Plan: try npm", "Try npm next week.", event_type="plan"),
        existing(4, "Use yarn", "Use yarn.", event_type="change"),
    ]
    assert detect_supersession(decision("Let's switch to pnpm."), old) == [4]


def test_a_future_decision_supersedes_nothing_yet() -> None:
    future = decision("We'll switch to pnpm next month.")
    assert future.temporal_status == "planned"
    assert detect_supersession(future, [existing(1, "Use npm", "Use npm.")]) == []


def test_partial_overlap_does_not_supersede_a_multi_slot_decision() -> None:
    old = [existing(1, "Use React and TypeScript", "Let's go with React and TypeScript.")]
    assert detect_supersession(decision("Let's switch to Vue."), old) == []
    assert detect_supersession(decision("Let's use Vue with TypeScript."), old) == [1]


def test_different_named_projects_do_not_supersede_each_other() -> None:
    old = [existing(1, "Use npm", "Use npm for the Atlas project.")]
    assert detect_supersession(decision("Use pnpm for the Borealis project."), old) == []
    assert detect_supersession(decision("Use pnpm for the Atlas project."), old) == [1]


def test_switched_from_old_to_new_chooses_the_new_value() -> None:
    change = decision("We switched from npm to pnpm.")
    assert change.event_type == "change"
    assert detect_supersession(change, [existing(1, "Use npm", "Use npm.")]) == [1]


def test_chinese_switch_supersedes() -> None:
    new = decision("我们改用pnpm。")
    assert detect_supersession(new, [existing(1, "Use npm", "用npm。")]) == [1]


# --- the boundary model -----------------------------------------------------------------------


def test_extraction_out_normalises_and_drops_bad_events() -> None:
    out = ExtractionOut.model_validate(
        {
            "should_extract": True,
            "events": [
                {
                    "title": "  Ship   v2 ",
                    "summary": "We shipped v2.",
                    "event_type": "发布",
                    "scope": "galaxy",
                    "criticality": "IDENTITY",
                    "tags": [f"t{i}" for i in range(20)] + ["t1"],
                    "quotes": ["We shipped v2.", "We shipped v2."],
                    "source_message_ids": ["3", 3, "x"],
                    "status": "occurred",
                    "precision": "weekly",
                    "happened_start": "2023-05-01T00:00:00+02:00",
                    "relations": [
                        {"kind": "supersedes", "target_event_id": 9},
                        {"kind": "replaces", "target_event_id": 9},
                    ],
                },
                {"title": "No sources", "summary": "x", "source_message_ids": []},
                {"summary": "no title", "source_message_ids": [1]},
            ],
        }
    )
    assert len(out.events) == 1
    event = out.events[0]
    assert event.title == "Ship v2"
    assert event.event_type == "release"
    assert event.scope == "user"
    assert event.criticality == "identity"
    assert len(event.tags) == 12
    assert event.quotes == ["We shipped v2."]
    assert event.source_message_ids == [3]
    assert event.temporal_status == "occurred"
    assert event.precision == "unknown"
    assert event.happened_start is None  # an unknown precision establishes no date
    assert [(r.kind, r.target_event_id) for r in event.relations] == [("supersedes", 9)]


def test_should_extract_false_discards_events() -> None:
    out = ExtractionOut.model_validate(
        {
            "should_extract": False,
            "events": [{"title": "a", "summary": "b", "source_message_ids": [1]}],
        }
    )
    assert out.events == []


def test_ground_events_keeps_only_block_sources_quotes_and_shown_relations() -> None:
    event = ExtractedEvent.model_validate(
        {
            "title": "Use pnpm",
            "summary": "Switch to pnpm.",
            "quotes": ["switch to pnpm", "invented quote"],
            "source_message_ids": [99],
            "relations": [
                {"kind": "supersedes", "target_event_id": 5},
                {"kind": "related", "target_event_id": 6},
            ],
        }
    )
    [grounded] = ground_events(
        [event], block_messages={1: "Let's switch to pnpm.", 2: "ok"}, timeline_ids={5}
    )
    assert grounded.source_message_ids == [1, 2]  # fallback: the whole block
    assert grounded.quotes == ["switch to pnpm"]
    assert [r.target_event_id for r in grounded.relations] == [5]


# --- precision: what is not an event, and the right type when it is -------------------------


@pytest.mark.parametrize(
    "content",
    [
        "That's a memory I'll never forget.",
        "I'll never forget how kind everyone was.",
        "I'll do my best!",
        "I won't give up!",
        "I won't quit - your words motivate me to keep going!",
        "I'm gonna make it happen!",
        "We'll get through this together.",
        "I'll keep you posted.",
        "Talk to you soon!",
        "See you tomorrow.",
        "Have a great weekend!",
        "Hard work pays off eventually.",
        "Rome wasn't built in a day, so keep pushing!",
        "I'm going to keep using my voice to make a change.",
        "We'll see how it goes.",
        "I love it!",
        "Yeah, I love to.",
        "I love how you use it to tell your stories.",
        "I always thought that was a great idea.",
        "I'm a mix of excited and scared.",
        "Thanks, Mel!",
        "哈哈好的",
        "我会尽力的。",
        "加油，你一定可以的！",
        "我永远不会忘记那一天。",
        "太棒了，我也很喜欢。",
    ],
)
def test_chit_chat_and_resolutions_are_not_events(content: str) -> None:
    assert extract_events([msg(1, content, speaker="Melanie")]).events == []


@pytest.mark.parametrize(
    ("content", "event_type", "criticality"),
    [
        ("Maria moved to the data team.", "change", "routine"),
        ("Sam got promoted to senior engineer.", "change", "routine"),
        ("Jake joined the support team last month.", "change", "routine"),
        ("小李调到数据组了。", "change", "routine"),
        ("Tom is our new tech lead.", "other", "identity"),
        ("My sister works as a pharmacist in Leeds.", "other", "identity"),
        ("王经理是我们新的项目负责人。", "other", "identity"),
        ("我在上海住了五年了。", "other", "identity"),
        ("The team agreed to drop support for Internet Explorer.", "decision", "routine"),
        ("最后定下来了，婚礼在杭州办。", "decision", "routine"),
        ("I went to an LGBTQ support group yesterday.", "meeting", "routine"),
        ("I had lunch with my old manager on Monday.", "meeting", "routine"),
        ("下周一上午十点开项目会。", "meeting", "routine"),
        ("Last month I got hurt and had to take a break from pottery.", "incident", "routine"),
        ("我上周骑车摔伤了膝盖。", "incident", "routine"),
        ("I made this bowl in my class.", "task_completed", "routine"),
        ("我终于把毕业论文写完了。", "task_completed", "routine"),
        ("I won't be able to make it to the party on Saturday.", "cancellation", "routine"),
        ("We're not going to the wedding after all.", "cancellation", "routine"),
    ],
)
def test_more_event_types(content: str, event_type: str, criticality: str) -> None:
    event = one([msg(1, content)])
    assert (event.event_type, event.criticality) == (event_type, criticality)


def test_a_content_that_repeats_the_speaker_label_is_not_prefixed_twice() -> None:
    content = "Melanie: Yeah, I made it in pottery class yesterday."
    event = one([msg(1, content, speaker="Melanie")])
    assert event.summary == "Melanie: Yeah, I made it in pottery class yesterday."
    assert event.quotes == [content]  # the quote stays verbatim
    assert event.happened_start == datetime(2023, 5, 5, tzinfo=UTC)


def test_remembering_a_past_happening_is_that_happening_not_a_plan() -> None:
    event = one([msg(1, "I'll always remember our camping trip last year.", speaker="Melanie")])
    assert (event.event_type, event.temporal_status) == ("other", "occurred")
    assert event.happened_start == datetime(2022, 1, 1, tzinfo=UTC)


def test_planned_for_a_date_is_a_plan_in_the_coming_year() -> None:
    event = one([msg(1, "Our wedding is planned for October 12.")])
    assert (event.event_type, event.temporal_status) == ("plan", "planned")
    assert event.happened_start == datetime(2023, 10, 12, tzinfo=UTC)


def test_an_undated_happening_takes_its_status_from_its_tense() -> None:
    event = one([msg(1, "I finally finished painting the nursery.")])
    assert (event.event_type, event.temporal_status) == ("task_completed", "occurred")


def test_a_habit_is_ongoing_and_names_no_single_day() -> None:
    for content in ("I enjoy baking sourdough on Sunday mornings.", "周末我一般都去爬山。"):
        event = one([msg(1, content)])
        assert (event.criticality, event.temporal_status) == ("preference", "ongoing")
        assert event.happened_start is None


def test_an_abbreviation_does_not_end_the_sentence() -> None:
    event = one([msg(1, "I'm a nurse at St. Mary's hospital.", speaker="Gina")])
    assert event.quotes == ["I'm a nurse at St. Mary's hospital."]


@pytest.mark.parametrize(
    ("content", "title"),
    [
        ("Caroline lives in Boston with her dog.", "Caroline lives in Boston with her dog"),
        ("She works at Acme Corp.", "She works at Acme Corp"),
        ("I live in Porto.", "Maya lives in Porto"),
        # The speaker's own name is not said twice ("Maya is called Maya and …").
        ("My name is Maya and I prefer tea.", "My name is Maya and I prefer tea"),
        ("我是Maya，我喜欢喝茶。", "我是Maya，我喜欢喝茶"),
        # A role, a home or a team said of someone (or something) else: never "Maya …".
        (
            "Amara is the tech lead for the checkout flow.",
            "Amara is the tech lead for the checkout flow",
        ),
        ("The design system lives in Storybook.", "The design system lives in Storybook"),
        ("小张是移动端的负责人。", "小张是移动端的负责人"),
    ],
)
def test_a_statement_about_someone_else_is_titled_with_its_own_subject(
    content: str, title: str
) -> None:
    assert one([msg(1, content, speaker="Maya")]).title == title


@pytest.mark.parametrize(
    ("user", "assistant"),
    [
        (
            "We decided to deploy the billing service on Fly.io.",
            "Noted: you decided to deploy the billing service on Fly.io.",
        ),
        (
            "We will migrate the database to PostgreSQL next week.",
            "Understood — the database migration to PostgreSQL is planned for next week.",
        ),
        ("I prefer dark mode in every editor.", "Got it, you prefer dark mode in every editor."),
        (
            "我们决定用PostgreSQL做账单服务的数据库。",
            "好的，记下了：账单服务的数据库用PostgreSQL。",
        ),
    ],
)
def test_an_assistant_echo_of_the_user_adds_no_event(user: str, assistant: str) -> None:
    event = one([msg(1, user), msg(2, assistant, role="assistant", minutes=1)])
    assert event.source_message_ids == [1]


def test_an_assistant_message_with_new_content_still_adds_its_event() -> None:
    out = extract_events(
        [
            msg(1, "What should we use for the job queue?"),
            msg(2, "We decided last week to use RabbitMQ for the job queue.", role="assistant"),
        ]
    )
    assert [e.source_message_ids for e in out.events] == [[2]]


def test_an_echo_is_judged_against_its_own_turn_only() -> None:
    # The second answer repeats the first turn's user words, not its own turn's: it stays.
    out = extract_events(
        [
            msg(1, "We decided to use Redis for caching."),
            msg(2, "Good choice.", role="assistant"),
            msg(3, "Anything else to note?", minutes=1),
            msg(4, "We decided to use Redis for caching, so keep its memory bounded.", "assistant"),
        ]
    )
    assert sorted(m for e in out.events for m in e.source_message_ids) == [1, 4]


@pytest.mark.parametrize(
    ("content", "role", "event_type", "status"),
    [
        # A release or completion still to come is a plan, not evidence that it is done.
        ("Ship the mobile release notes by Friday.", "user", "plan", "planned"),
        ("下周三之前要把测试报告写完。", "user", "plan", "planned"),
        # Work handed in or finished, in Chinese.
        ("接口文档我们已经整理完了。", "user", "task_completed", "occurred"),
        ("月度报告昨天交了。", "user", "task_completed", "occurred"),
        # A standing negative fact is worth keeping.
        ("We don't use Kubernetes in this project.", "user", "other", "ongoing"),
        ("我们不用MongoDB。", "user", "other", "ongoing"),
        ("我不喝咖啡。", "user", "other", "ongoing"),
        # The assistant's own recommendation is new content.
        ("I'd suggest adding an index on the orders table.", "assistant", "other", "unknown"),
        ("建议把日志保留时间改成30天。", "assistant", "other", "unknown"),
        # Leaving a team is a change, as "left the team" is.
        ("老周离开了运维组。", "user", "change", "occurred"),
    ],
)
def test_plans_completions_negative_facts_and_recommendations(
    content: str, role: str, event_type: str, status: str
) -> None:
    event = one([msg(1, content, role=role)])
    assert (event.event_type, event.temporal_status) == (event_type, status)


@pytest.mark.parametrize(
    ("content", "role"),
    [
        ("I don't use it much.", "user"),  # no named object
        ("I won't give up!", "user"),
        ("What would you recommend?", "user"),
        ("我们不用担心这个。", "user"),
    ],
)
def test_vague_negations_and_questions_stay_nothing(content: str, role: str) -> None:
    assert extract_events([msg(1, content, role=role)]).events == []
