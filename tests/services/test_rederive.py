"""Re-deriving a namespace's events with the current rules (issue 29, `services.rederive`):
what older rules left behind — two events for one fact, a change that superseded nothing, an
assistant echo stored as a fact — is put right, and the events that stay keep their ids."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from memory.errors import Conflict, Invalid
from memory.models import (
    Event,
    EventMention,
    EventRelation,
    EventStatus,
    Message,
    ModelCall,
    Namespace,
    RelationKind,
)
from memory.services.rederive import namespace_rederive
from tests.conftest import ApiClient, turn_body

pytestmark = pytest.mark.django_db
FLY = "We decided to deploy the billing service on Fly.io."


def _talk(owner: ApiClient, admin: ApiClient, drain: Callable[[], int], *said: tuple[str, str]):
    admin.put("/settings", {"block_turns": 1})
    for n, (session, user) in enumerate(said, start=1):
        assert owner.post("/ns/proj/turns", turn_body(n, session=session, user=user)).status_code
    drain()
    return Namespace.objects.get(name="proj")


def _rederive(namespace: Namespace, **options: bool):
    return namespace_rederive(namespace=namespace, actor="command:test", **options)


def _stored_twice(
    ns: Namespace, *, first_status: str = EventStatus.ACTIVE
) -> tuple[Event, EventMention, list[Message]]:
    """What the rules before one-event-per-fact stored for a fact said in two blocks: the
    second block's mention turned into a second, active event. Returns the first event, the
    (deleted) mention and the second block's source messages."""
    (first,) = Event.objects.filter(namespace=ns)
    mention = EventMention.objects.get(event=first)
    second_sources = list(mention.messages.all())
    first.source_messages.remove(*second_sources)
    mention.delete()
    Event.objects.filter(pk=first.pk).update(
        mention_count=1, last_mentioned_at=None, status=first_status
    )
    duplicate = Event.objects.get(pk=first.pk)
    duplicate.pk, duplicate.status = None, EventStatus.ACTIVE
    duplicate.source_block_id = mention.block_id
    duplicate.save()
    duplicate.source_messages.set(second_sources)
    first.refresh_from_db()
    return first, mention, second_sources


def test_two_events_an_older_rule_made_for_one_fact_end_as_one_event_with_both_mentions(
    owner: ApiClient, admin: ApiClient, drain: Callable[[], int]
) -> None:
    ns = _talk(owner, admin, drain, ("s1", FLY), ("s2", FLY))
    first, mention, second_sources = _stored_twice(ns)

    report = _rederive(ns)

    assert (report.kept, report.updated, report.created, report.removed) == (0, 1, 0, 1)
    (event,) = Event.objects.filter(namespace=ns)
    assert event.pk == first.pk
    assert event.mention_count == 2
    assert [m.block_id for m in event.mentions.all()] == [mention.block_id]
    assert {m.pk for m in second_sources} <= set(event.source_messages.values_list("pk", flat=True))


def test_a_forgotten_fact_an_older_rule_stored_twice_stays_forgotten(
    owner: ApiClient, admin: ApiClient, drain: Callable[[], int]
) -> None:
    ns = _talk(owner, admin, drain, ("s1", FLY), ("s2", FLY))
    first, _, _ = _stored_twice(ns, first_status=EventStatus.FORGOTTEN)

    report = _rederive(ns)

    (event,) = Event.objects.filter(namespace=ns)
    assert (event.pk, event.status, event.mention_count) == (first.pk, EventStatus.FORGOTTEN, 2)
    assert report.removed == 1


def test_a_change_an_older_rule_missed_supersedes_the_old_use_and_ids_stay(
    owner: ApiClient, admin: ApiClient, drain: Callable[[], int]
) -> None:
    ns = _talk(
        owner, admin, drain, ("s1", "Use npm for this project."), ("s1", "Let's switch to pnpm.")
    )
    npm, pnpm = Event.objects.filter(namespace=ns).order_by("pk")
    assert npm.status == EventStatus.SUPERSEDED
    EventRelation.objects.filter(kind=RelationKind.SUPERSEDES).delete()
    Event.objects.filter(pk=npm.pk).update(status=EventStatus.ACTIVE, superseded_by=None)

    report = _rederive(ns)

    assert (report.updated, report.created, report.removed) == (2, 0, 0)
    npm.refresh_from_db()
    assert (npm.status, npm.superseded_by_id) == (EventStatus.SUPERSEDED, pnpm.pk)
    assert EventRelation.objects.filter(
        from_event=pnpm, to_event=npm, kind=RelationKind.SUPERSEDES
    ).exists()
    assert (report.superseded_before, report.superseded_after) == (0, 1)


def test_an_assistant_echo_stored_as_a_fact_is_removed_unless_someone_holds_on_to_it(
    owner: ApiClient, admin: ApiClient, drain: Callable[[], int]
) -> None:
    ns = _talk(owner, admin, drain, ("s1", FLY))
    (fact,) = Event.objects.filter(namespace=ns)
    echo_message = Message.objects.get(role="assistant")
    echoes = []
    for title in ("echo kept pinned", "echo removed"):
        echo = Event.objects.get(pk=fact.pk)
        echo.pk, echo.title, echo.summary = None, title, f"Assistant said: {title}."
        echo.pinned = title.endswith("pinned")
        echo.save()
        echo.source_messages.set([echo_message])
        echoes.append(echo)

    report = _rederive(ns)

    assert (report.kept, report.removed, report.kept_pinned) == (1, 1, 1)
    assert set(Event.objects.filter(namespace=ns).values_list("pk", flat=True)) == {
        fact.pk,
        echoes[0].pk,
    }


@pytest.fixture
def model(settings, fake_openai):
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"

    def answer(request: dict) -> str:
        payload = json.loads(request["messages"][-1]["content"])
        first = payload["target_block_messages"][0]
        summary = "The team deploys the billing service on Fly.io."
        event = {
            "title": "Billing on Fly.io", "summary": summary, "event_type": "decision",
            "source_message_ids": [first["id"]], "quotes": [], "temporal_status": "occurred",
            "scope": "project", "criticality": "routine",
        }  # fmt: skip
        return json.dumps(
            {"title": "Billing", "tags": [], "summary": summary, "key_points": [summary],
             "should_extract": True, "events": [event]}
        )  # fmt: skip

    fake_openai.default = answer
    return fake_openai


def test_a_configured_model_is_called_again_only_when_asked(
    owner: ApiClient, admin: ApiClient, drain: Callable[[], int], model
) -> None:
    ns = _talk(owner, admin, drain, ("s1", FLY), ("s2", FLY))
    (event,) = Event.objects.filter(namespace=ns)  # the model's: one event, two mentions
    calls, rows = model.calls, ModelCall.objects.count()

    # The rules would replace the model's events: not without being told.
    with pytest.raises(Conflict, match="a model processed 2 block"):
        _rederive(ns)

    report = _rederive(ns, use_model=True)

    assert model.calls == calls + 2  # one call per block, each recorded as usual
    assert ModelCall.objects.count() == rows + 2
    assert (report.kept, report.created, report.removed) == (1, 0, 0)
    assert Event.objects.get(namespace=ns).pk == event.pk

    report = _rederive(ns, rules_over_model=True)  # the rules: no model call, no bill

    assert (model.calls, ModelCall.objects.count()) == (calls + 2, rows + 2)
    assert report.kept + report.updated + report.created == 1


def test_a_dry_run_does_not_call_the_model(
    owner: ApiClient, admin: ApiClient, drain: Callable[[], int], model
) -> None:
    ns = _talk(owner, admin, drain, ("s1", FLY))
    # Its calls would be paid for and then rolled back with their ModelCall rows: no record.
    with pytest.raises(Invalid, match="dry run"):
        _rederive(ns, use_model=True, dry_run=True)


def test_the_model_is_not_asked_for_when_none_is_configured(
    owner: ApiClient, admin: ApiClient, drain: Callable[[], int]
) -> None:
    ns = _talk(owner, admin, drain, ("s1", FLY))
    with pytest.raises(Invalid, match="no model"):
        _rederive(ns, use_model=True)
