"""One event per fact (issue 29), through the API with the offline processor: a project
conversation repeated in four sessions, the assistant acknowledging each statement, gives one
active event per fact with four mentions — not 32 events from 24 turns. A mention is not use:
weights, adoptions and the first mention time stay as they were."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.engine.weights import current_weight
from memory.models import Event, EventMention, EventStatus, JobKind, Namespace, ProcessingJob
from memory.services.consistency import consistency_check
from tests.conftest import BASE_TIME, ApiClient, turn_body

pytestmark = pytest.mark.django_db

# Six turns: a block (block_turns = 6). Four facts the offline rules take, two small-talk turns.
CONVERSATION = [
    ("We decided to deploy the billing service on Fly.io.",
     "Noted: you decided to deploy the billing service on Fly.io."),
    ("I prefer dark mode in every editor.", "Got it, you prefer dark mode in every editor."),
    ("How is the weather today?", "I cannot see the weather from here."),
    ("We decided to use PostgreSQL for the orders database.",
     "Noted: PostgreSQL for the orders database."),
    ("我们决定用pnpm管理前端的依赖。", "好的，记下了：前端依赖用pnpm管理。"),
    ("Thanks for the help!", "You're welcome."),
]  # fmt: skip
SESSIONS = 4


def _replay(owner: ApiClient, drain) -> None:
    n = 0
    for s in range(SESSIONS):
        day = BASE_TIME + timedelta(days=7 * s)
        for i, (user, assistant) in enumerate(CONVERSATION):
            n += 1
            body = turn_body(
                n,
                session=f"s{s + 1}",
                user=user,
                assistant=assistant,
                when=day + timedelta(minutes=i),
            )
            assert owner.post("/ns/proj/turns", body).status_code == 201
        drain()


def test_a_conversation_repeated_in_four_sessions_is_one_event_per_fact(
    owner: ApiClient, drain
) -> None:
    _replay(owner, drain)

    active = list(Event.objects.filter(status=EventStatus.ACTIVE).order_by("pk"))
    assert len(active) == 4, [e.title for e in active]  # was 16 (4 facts × 4 sessions) and more
    for event in active:
        assert event.mention_count == SESSIONS
        mentions = list(event.mentions.order_by("mentioned_at"))
        assert len(mentions) == SESSIONS - 1
        # Mention times: the first stays `mentioned_at`, the later ones one week apart each.
        assert event.mentioned_at < mentions[0].mentioned_at
        assert event.last_mentioned_at == mentions[-1].mentioned_at
        assert [m.mentioned_at - event.mentioned_at for m in mentions] == [
            timedelta(days=7 * s) for s in range(1, SESSIONS)
        ]
        # Sources: the user's message of each session, each inside its mention's block.
        sessions = set(event.source_messages.values_list("session__external_id", flat=True))
        assert sessions == {f"s{s + 1}" for s in range(SESSIONS)}
        assert set(event.source_messages.values_list("role", flat=True)) == {"user"}
        for mention in mentions:
            assert {m.turn.block_id for m in mention.messages.all()} == {mention.block_id}
        # A mention is not use (SPEC §7): n and the adoption turn stay the first mention's.
        assert (event.adoptions, event.last_adopted_turn) == (1, event.formed_turn)
    # Only the new events were projected into the graph; mentions queue no projection.
    projected = {
        i for job in ProcessingJob.objects.filter(kind=JobKind.GRAPH_PROJECT)
        for i in job.payload["event_ids"]
    }  # fmt: skip
    assert projected == {e.pk for e in active}
    assert consistency_check(namespace=Namespace.objects.get(name="proj")) == []


def test_the_api_shows_the_mentions_of_an_event(owner: ApiClient, drain) -> None:
    _replay(owner, drain)
    event = Event.objects.filter(status=EventStatus.ACTIVE).order_by("pk").first()
    assert event is not None

    body = owner.get(f"/ns/proj/events/{event.pk}").json()

    assert body["event"]["mention_count"] == SESSIONS
    assert body["event"]["temporal"]["last_mentioned_at"] is not None
    mentions = body["mentions"]
    assert [m["session_id"] for m in mentions] == ["s1", "s2", "s3", "s4"]
    assert mentions[0]["block_id"] == event.source_block_id
    assert all(len(m["source_message_ids"]) == 1 for m in mentions)
    assert {i for m in mentions for i in m["source_message_ids"]} == set(
        body["event"]["source_message_ids"]
    )
    timeline = owner.get("/ns/proj/events").json()["events"]
    assert {e["mention_count"] for e in timeline} == {SESSIONS}


def test_a_mention_does_not_reinforce_the_weight(owner: ApiClient, drain) -> None:
    """SPEC §7: weights are reinforced only by recorded use. The weight of a fact said four
    times is the weight of a fact said once, at the same turn."""
    n = 0
    for i, (user, assistant) in enumerate(CONVERSATION):
        n += 1
        owner.post(
            "/ns/proj/turns",
            turn_body(n, user=user, assistant=assistant, when=BASE_TIME + timedelta(minutes=i)),
        )
    drain()
    before = {e.pk: (e.adoptions, e.last_adopted_turn, e.mentioned_at) for e in Event.objects.all()}
    namespace = Namespace.objects.get(name="proj")
    turn_before = namespace.current_turn
    weights_once = {e.pk: current_weight(e, turn_before + 18) for e in Event.objects.all()}

    for s in range(1, SESSIONS):
        for i, (user, assistant) in enumerate(CONVERSATION):
            n += 1
            owner.post(
                "/ns/proj/turns",
                turn_body(
                    n,
                    session=f"s{s + 1}",
                    user=user,
                    assistant=assistant,
                    when=BASE_TIME + timedelta(days=s, minutes=i),
                ),
            )
        drain()

    namespace.refresh_from_db()
    assert namespace.current_turn == turn_before + 18
    events = list(Event.objects.all())
    assert {e.pk for e in events} == set(before)  # no new event
    assert EventMention.objects.count() == 3 * len(before)
    for event in events:
        assert (event.adoptions, event.last_adopted_turn, event.mentioned_at) == before[event.pk]
        assert current_weight(event, namespace.current_turn) == weights_once[event.pk]
