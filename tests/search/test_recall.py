"""Message ranking for recall: neighbour context, the speaker correction and feedback."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory import search
from memory.models import Namespace
from memory.recall.messages import messages_rank
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.namespaces import namespace_get_or_create

pytestmark = pytest.mark.django_db
T0 = datetime(2023, 5, 8, 12, 0, tzinfo=UTC)


def _turns(namespace: Namespace, pairs: list[tuple[tuple[str, str], ...]]) -> None:
    for n, pair in enumerate(pairs, start=1):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="s1",
                receipt_id=f"r{n}",
                occurred_at=T0 + timedelta(minutes=n),
                messages=[
                    MessageIn(role=("user", "assistant")[i], name=who, content=text)
                    for i, (who, text) in enumerate(pair)
                ],
            ),
        )


def _contents(namespace: Namespace, query: str) -> list[str]:
    from memory.models import Message

    ranked = messages_rank(namespace.pk, query, limit=20)
    by_id = Message.objects.in_bulk([r.message_id for r in ranked])
    return [by_id[r.message_id].content for r in ranked]


def test_a_reply_ranks_by_the_question_it_answers_even_across_turns() -> None:
    namespace = namespace_get_or_create(name="ctx")
    _turns(
        namespace,
        [
            (("Ana", "Morning."), ("Ben", "How was the pasta place?")),
            (("Ana", "I loved it, the best carbonara."), ("Ben", "Great.")),
            (("Ana", "Noon."), ("Ben", "How did the kids like the dinosaur exhibit?")),
            (("Ana", "They loved it and want to go back!"), ("Ben", "Great.")),
        ],
    )
    found = _contents(namespace, "kids loved the dinosaur exhibit")
    # The reply is in the next turn: its document gained the question as "before" (and the
    # question's document was re-indexed with the reply as "after").
    assert found.index("They loved it and want to go back!") < found.index(
        "I loved it, the best carbonara."
    )
    # Neighbours only rank: a message needs a query word of its own to be a hit.
    assert search.search_messages(namespace.pk, "carbonara", limit=5)[0:1] and all(
        "carbonara" in c for c in _contents_of(namespace, "carbonara")
    )


def test_a_reply_ranks_by_what_its_speaker_said_two_messages_before() -> None:
    namespace = namespace_get_or_create(name="window")
    _turns(
        namespace,
        [
            (("Ana", "I loved the pasta place."), ("Ben", "Nice.")),
            (("Ana", "Anyway."), ("Ben", "Sure.")),
            (("Ana", "Yesterday I took the kids to the science museum."), ("Ben", "Best part?")),
            (("Ana", "They loved the dinosaur bones the most."), ("Ben", "Cool.")),
        ],
    )
    found = _contents(namespace, "What did Ana's kids love at the museum?")
    # The window reaches the speaker's own previous message, past the other side's question.
    assert found.index("They loved the dinosaur bones the most.") < found.index(
        "I loved the pasta place."
    )


def _contents_of(namespace: Namespace, query: str) -> list[str]:
    from memory.models import Message

    hits = search.search_messages(namespace.pk, query, limit=20)
    by_id = Message.objects.in_bulk([h.object_id for h in hits])
    return [by_id[h.object_id].content for h in hits]


def test_the_named_speaker_s_own_message_rises_above_messages_addressing_them() -> None:
    namespace = namespace_get_or_create(name="spk")
    _turns(
        namespace,
        [
            (("Ben", "Caroline, your research sounds intense, Caroline!"), ("Caroline", "Yes.")),
            (("Ana", "Weather is nice."), ("Ana", "Indeed.")),
            (("Caroline", "I spent the week on research into adoption agencies."), ("Ben", "Ok")),
        ],
    )
    found = _contents(namespace, "What did Caroline research?")
    assert found[0] == "I spent the week on research into adoption agencies."


def _greyhound_turns(namespace: Namespace) -> None:
    """Two messages about Pixel the greyhound, only the first holding "greyhound trophy"."""
    _turns(
        namespace,
        [
            (("Ana", "My greyhound Pixel won the lure coursing trophy."), ("Ben", "Wow.")),
            (("Ana", "Pixel and the coursing club travel to Porto next."), ("Ben", "Nice.")),
        ]
        + [((("Ana", f"Unrelated note number {n}.")), ("Ben", "Sure.")) for n in range(6)],
    )


def test_feedback_finds_a_message_sharing_no_query_word_with_the_top_hits() -> None:
    namespace = namespace_get_or_create(name="prf")
    _greyhound_turns(namespace)
    direct = search.search_messages(namespace.pk, "greyhound trophy", limit=20)
    found = _contents(namespace, "greyhound trophy")
    assert len(found) > len(direct)
    assert "Pixel and the coursing club travel to Porto next." in found


def test_activated_memory_ranks_its_passages_without_the_feedback_query(monkeypatch) -> None:
    """The passages of activated memory (before every proxied model call) skip the second,
    widened query: measured neutral on LoCoMo's development split, half the ranking's time at
    100k messages (memory.services.activation.PASSAGE_FEEDBACK)."""
    from memory.models import Message
    from memory.recall import messages as recall
    from memory.services.activation import activation_build

    namespace = namespace_get_or_create(name="prf-ctx")
    _greyhound_turns(namespace)
    with_feedback = recall.messages_rank_text(namespace.pk, "greyhound trophy", limit=20)
    without = recall.messages_rank_text(namespace.pk, "greyhound trophy", limit=20, feedback=False)
    porto = Message.objects.get(content__startswith="Pixel and the coursing").pk
    assert porto in [r.message_id for r in with_feedback]
    assert porto not in [r.message_id for r in without]
    assert [r.message_id for r in without] == [
        h.object_id for h in search.search_messages(namespace.pk, "greyhound trophy", limit=20)
    ]

    def widened(*args: object, **kwargs: object) -> None:
        raise AssertionError("activated memory ran the feedback query")

    monkeypatch.setattr(recall, "search_messages_widened", widened)
    built = activation_build(
        namespace=namespace, session=None, query="greyhound trophy", record=False
    )
    shown = [int(str(p["ref"]).split(":", 1)[1]) for p in built.passages]
    assert shown and porto not in shown


def test_no_match_means_no_results() -> None:
    namespace = namespace_get_or_create(name="none")
    _turns(namespace, [(("Ana", "Hello there."), ("Ben", "Hi."))])
    assert messages_rank(namespace.pk, "zebra quantum", limit=5) == []


def test_a_word_too_common_in_the_namespace_is_never_a_feedback_term(monkeypatch) -> None:
    from memory.recall import messages as recall

    namespace = namespace_get_or_create(name="df")
    _turns(
        namespace,
        [(("Ana", f"weather talk {n}"), ("Ben", "ok")) for n in range(4)]
        + [(("Ana", "the osprey nest and the weather"), ("Ben", "an osprey indeed"))],
    )
    monkeypatch.setattr(recall, "FEEDBACK_MAX_DF", 3)
    terms = recall._feedback_terms(
        namespace.pk, ["the osprey nest and the weather", "an osprey indeed"], {"bird"}
    )
    assert "osprey" in terms and "nest" in terms
    assert "weather" not in terms  # held by 5 messages, more than the cap


def test_within_one_ranking_a_terms_document_count_is_taken_once() -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memory.search.query import counts_shared

    namespace = namespace_get_or_create(name="counts")
    _turns(namespace, [(("Ana", "the heron on the pier"), ("Ben", "a grey heron"))])
    with CaptureQueriesContext(connection) as alone:
        search.search_messages(namespace.pk, "heron pier", limit=5)
    with counts_shared(), CaptureQueriesContext(connection) as twice:
        first = search.search_messages(namespace.pk, "heron pier", limit=5)
        second = search.search_messages(namespace.pk, "heron pier", limit=5)
    assert first == second
    # The second search reuses the counts: only its ranked query runs (plus any savepoint
    # statements PostgreSQL's planner setting wraps it in).
    assert len(twice) < 2 * len(alone)


def test_feedback_candidates_that_tie_are_taken_in_the_order_said(monkeypatch):
    """Among words held by as many top documents, the first said are looked up: the choice
    does not depend on Python's per-process string hashing (it did, through a set)."""
    from memory.recall import messages as recall

    words = [f"w{n:02d}x" for n in range(30)]  # each said once: 30 candidates that tie
    looked_up: list[list[str]] = []

    class Backend:
        def doc_counts(self, kind, namespace_id, terms, cap):
            looked_up.append(list(terms))
            return [1] * len(terms)

    monkeypatch.setattr(recall, "backend", Backend)
    texts = [" ".join(words[:15]), " ".join(words[15:])]
    recall._feedback_terms(1, texts, set())
    assert looked_up == [words[: recall.FEEDBACK_CANDIDATES]]


def _event_from(namespace: Namespace, content: str, title: str, summary: str) -> int:
    """An event whose one source is the message saying `content` (as extraction stores it)."""
    from django.db import transaction

    from memory.engine.prompts.extraction import ExtractedEvent
    from memory.models import Message
    from memory.services.events import EventContext, event_create

    source = Message.objects.get(namespace=namespace, content=content)
    block = source.turn.block
    assert block is not None
    messages = {m.pk: m for m in Message.objects.filter(turn__block=block)}
    with transaction.atomic():
        event = event_create(
            extracted=ExtractedEvent(title=title, summary=summary, source_message_ids=[source.pk]),
            context=EventContext(block=block, formed_turn=6, messages=messages),
        )
    return event.pk


POTTERY = "Guess what, I signed up for a pottery class on Saturdays."


def test_an_event_s_source_joins_the_ranking_below_the_five_best_matches() -> None:
    """The message behind an event the query matches is found though it shares no word with
    the query; the five best message matches keep their places; scores never rise."""
    from memory.models import Message

    namespace = namespace_get_or_create(name="evsrc")
    _turns(
        namespace,
        [
            (("Ana", POTTERY), ("Ben", "Fun!")),
            (("Ana", "The weather turned cold."), ("Ben", "Bring a coat.")),
        ]
        + [(("Ana", f"My hobby list, part {n}."), ("Ben", "Noted.")) for n in range(6)],
    )
    before = _contents(namespace, "hobby")
    assert POTTERY not in before and len(before) == 6
    event_id = _event_from(namespace, POTTERY, "Ana took up a new hobby", "Pottery on Saturdays")

    ranked = messages_rank(namespace.pk, "hobby", limit=20)
    found = _contents(namespace, "hobby")
    assert POTTERY in found
    assert found[:5] == before[:5]
    scores = [r.score for r in ranked]
    assert scores == sorted(scores, reverse=True)
    # The caller's own event hits (activation has them) give the same ranking.
    assert messages_rank(namespace.pk, "hobby", limit=20, event_ids=[event_id]) == ranked
    assert POTTERY not in _contents_of_ids(
        messages_rank(namespace.pk, "hobby", limit=20, event_ids=[])
    )
    # Within another session, the event's source (in "s1") stays out.
    turn_ingest(
        namespace=namespace,
        turn=TurnIn(
            session_id="s2",
            receipt_id="other",
            messages=[MessageIn(role="user", content="A hobby of mine is chess.")],
        ),
    )
    other = Message.objects.get(namespace=namespace, content="A hobby of mine is chess.")
    within = messages_rank(namespace.pk, "hobby", limit=20, session_pk=other.session_id)
    assert [r.message_id for r in within] == [other.pk]


def _contents_of_ids(ranked: list) -> list[str]:
    from memory.models import Message

    by_id = Message.objects.in_bulk([r.message_id for r in ranked])
    return [by_id[r.message_id].content for r in ranked]
