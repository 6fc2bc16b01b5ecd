"""`manage.py rederive_events` on the demo namespace aged by hand into what older extraction
rules left (a duplicate, assistant echoes): pins, forgets and receipts survive with their ids,
imported and agent-created events are untouched, the printed counts are the rows, a second run
and a dry run change nothing, and an error half-way leaves the namespace exactly as it was."""

from __future__ import annotations

import re
from dataclasses import dataclass
from io import StringIO
from typing import Any

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import Q

from memory.demo.script import FORGET_QUOTE
from memory.models import (
    AdminAction,
    Event,
    EventMention,
    EventOrigin,
    EventRelation,
    EventStatus,
    GraphEdge,
    GraphNode,
    Message,
    Namespace,
    UsageReceipt,
)
from memory.recall.events import EventSearch
from memory.search import index_events
from memory.services import rederive
from memory.services.adoption import UseRequest, usage_record
from memory.services.consistency import consistency_check
from memory.services.events import event_lifecycle
from memory.services.gate import AssessRequest, gate_assess
from memory.services.retrieval import events_search

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("rederive_events", *args, stdout=out)
    return out.getvalue()


def rows(*, without: tuple[type, ...] = ()) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every memory table, join tables included: the whole state compared."""
    state = {}
    for model in apps.get_app_config("memory").get_models(include_auto_created=True):
        if model not in without:
            values = model.objects.order_by("pk").values_list()
            state[model._meta.label] = [tuple(map(repr, v)) for v in values]
    return state


def event_rows(ids: set[int]) -> list[tuple[Any, ...]]:
    return [
        (*e, sorted(Event.objects.get(pk=e[0]).source_messages.values_list("pk", flat=True)))
        for e in Event.objects.filter(pk__in=ids).order_by("pk").values_list()
    ]


def _copy(event: Event, **fields: Any) -> Event:
    copy = Event.objects.get(pk=event.pk)
    copy.pk = None
    for name, value in fields.items():
        setattr(copy, name, value)
    copy.pinned = False
    copy.save()
    return copy


def _cite(namespace: Namespace, event: Event, receipt_id: str, query: str) -> None:
    """Search for `event` and record an answer that used it, as an agent does over the API."""
    found = events_search(namespace=namespace, params=EventSearch(query=query))
    refs = [ref for ref, hit in found.shown if hit.event.pk == event.pk]
    assert refs, query
    gate_assess(
        namespace=namespace,
        request=AssessRequest(
            verdict="sufficient",
            evidence_refs=refs,
            fit="the event answers it",
            missing="",
            next_strategy="answer",
            question=query,
            batch_id=found.batch.public_id,
        ),
    )
    usage_record(
        namespace=namespace,
        request=UseRequest(
            receipt_id=receipt_id, evidence_refs=refs, batch_id=found.batch.public_id
        ),
    )


@dataclass
class Aged:
    namespace: Namespace
    pinned: Event
    forgotten: Event
    cited: Event
    duplicate: Event
    stale: dict[str, Event]  # echoes the rules no longer produce: pinned, forgotten, cited, free
    untouched: set[int]  # imported and agent-created events


@pytest.fixture
def aged() -> Aged:
    call_command("load_demo", stdout=StringIO())
    ns = Namespace.objects.get(name="demo")
    derived = Event.objects.filter(namespace=ns, origin=EventOrigin.EXTRACTION)
    active = derived.filter(status=EventStatus.ACTIVE, pinned=False)
    pinned = active.exclude(summary__contains=FORGET_QUOTE).order_by("pk").first()
    forgotten = active.exclude(pk=pinned.pk).order_by("-pk").first()
    assert pinned is not None and forgotten is not None
    event_lifecycle(event=pinned, action="pin", actor="test")
    event_lifecycle(event=forgotten, action="forget", actor="test")
    cited = derived.get(summary__contains="pnpm", status=EventStatus.ACTIVE)
    _cite(ns, cited, "test-receipt-real", "pnpm")
    # An older rule's leftovers: the same fact twice, and assistant echoes kept as facts.
    duplicate = _copy(cited)
    duplicate.source_messages.set(cited.source_messages.all())
    echo_of = Message.objects.filter(turn__block=cited.source_block, role="assistant").first()
    stale = {}
    for name in ("pinned", "forgotten", "cited", "free"):
        stale[name] = _copy(
            cited,
            title=f"Assistant echo {name}",
            summary=f"Assistant: zebracorn {name} acknowledged the plan.",
            event_type="other",
        )
        stale[name].source_messages.set([echo_of])
    index_events([duplicate, *stale.values()])
    event_lifecycle(event=stale["pinned"], action="pin", actor="test")
    event_lifecycle(event=stale["forgotten"], action="forget", actor="test")
    _cite(ns, stale["cited"], "test-receipt-stale", "zebracorn cited")
    agent = _copy(cited, origin=EventOrigin.AGENT, title="Agent note", summary="Agent: noted.")
    agent.source_messages.set([echo_of])
    index_events([agent])
    untouched = set(
        Event.objects.filter(namespace=ns)
        .exclude(origin=EventOrigin.EXTRACTION)
        .values_list("pk", flat=True)
    )
    assert len(untouched) >= 2  # the demo's import and the agent's note
    return Aged(ns, pinned, forgotten, cited, duplicate, stale, untouched)


def counted(out: str, label: str) -> list[int]:
    line = next(line for line in out.splitlines() if line.strip().startswith(label))
    return [int(n) for n in re.findall(r"\d+", line)]


def test_pins_forgets_and_receipts_survive_with_their_ids(aged: Aged) -> None:
    ids_before = set(Event.objects.filter(namespace=aged.namespace).values_list("pk", flat=True))
    untouched = event_rows(aged.untouched)
    taken = set(  # what the demo's import superseded, and the links it made
        Event.objects.filter(superseded_by__in=aged.untouched).values_list(
            "pk", "status", "superseded_by"
        )
    )
    links = set(
        EventRelation.objects.filter(
            Q(from_event__in=aged.untouched) | Q(to_event__in=aged.untouched)
        ).values_list("pk", "from_event", "to_event", "kind")
    )
    assert taken and links
    receipts = {
        r.receipt_id: sorted(r.items.values_list("events", flat=True))
        for r in UsageReceipt.objects.filter(namespace=aged.namespace)
    }

    out = run("--namespace", "demo")

    ids_after = set(Event.objects.filter(namespace=aged.namespace).values_list("pk", flat=True))
    pinned, forgotten = (
        Event.objects.get(pk=aged.pinned.pk),
        Event.objects.get(pk=aged.forgotten.pk),
    )
    assert pinned.pinned and pinned.status == EventStatus.ACTIVE
    assert forgotten.status == EventStatus.FORGOTTEN  # re-derived, still forgotten
    assert Event.objects.get(pk=aged.cited.pk).status == EventStatus.ACTIVE
    assert aged.duplicate.pk not in ids_after  # one event for the fact: the cited one
    assert {r.receipt_id: sorted(r.items.values_list("events", flat=True)) for r in
            UsageReceipt.objects.filter(namespace=aged.namespace)} == receipts  # fmt: skip
    stale = {name: Event.objects.filter(pk=e.pk).first() for name, e in aged.stale.items()}
    assert stale["free"] is None
    assert stale["pinned"] is not None and stale["pinned"].pinned
    assert stale["forgotten"] is not None and stale["forgotten"].status == EventStatus.FORGOTTEN
    assert stale["cited"] is not None and stale["cited"].status == EventStatus.ACTIVE
    assert event_rows(aged.untouched) == untouched
    assert set(Event.objects.filter(pk__in=[t[0] for t in taken]).values_list(
        "pk", "status", "superseded_by")) == taken  # fmt: skip
    assert set(EventRelation.objects.filter(
        Q(from_event__in=aged.untouched) | Q(to_event__in=aged.untouched)
    ).values_list("pk", "from_event", "to_event", "kind")) == links  # fmt: skip

    kept, updated, created, removed = counted(out, "events")
    assert removed == len(ids_before - ids_after) == 2  # the duplicate and the free echo
    assert created == len(ids_after - ids_before)
    assert kept + updated + 3 + len(aged.untouched) + created == len(ids_after)
    assert counted(out, "kept as is") == [1, 1, 1]
    assert (
        counted(out, "mentions")[1] == EventMention.objects.filter(namespace=aged.namespace).count()
    )
    nodes, edges = counted(out, "graph")[:2], counted(out, "graph")[2:]
    assert nodes[1] == GraphNode.objects.filter(namespace=aged.namespace).count()
    assert edges[1] == GraphEdge.objects.filter(namespace=aged.namespace).count()
    # Events changed, so the graph was rebuilt; nothing else is out of place (the demo's receipt
    # citing graph nodes and facts by id: see the last test).
    assert "graph        rebuilt" in out
    assert {v.ids["ref"].split(":")[0] for v in consistency_check(namespace=aged.namespace)} <= {
        "node",
        "fact",
    }
    audit = AdminAction.objects.get(action="rederive_events")
    assert audit.target == "namespace:demo"
    assert (audit.details["removed"], audit.details["created"]) == (removed, created)


def test_a_second_run_changes_nothing(aged: Aged) -> None:
    run("--namespace", "demo")
    before = rows(without=(AdminAction,))

    out = run("--all")

    assert rows(without=(AdminAction,)) == before
    assert "demo: " in out and "already current; nothing changed" in out
    assert AdminAction.objects.filter(action="rederive_events").count() == 2


def test_a_dry_run_prints_the_changes_and_writes_nothing(aged: Aged) -> None:
    before = rows()

    out = run("--namespace", "demo", "--dry-run")

    assert rows() == before
    assert "dry run, nothing written" in out
    assert counted(out, "events")[3] == 2


def test_an_error_half_way_leaves_the_namespace_exactly_as_it_was(
    aged: Aged, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = rows()
    real = rederive.run.extraction_store
    calls = []

    def failing(**kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("disk full")
        return real(**kwargs)

    monkeypatch.setattr(rederive.run, "extraction_store", failing)
    with pytest.raises(RuntimeError, match="disk full"):
        run("--namespace", "demo")

    assert rows() == before


def test_the_command_needs_namespaces_that_exist(db: None) -> None:
    with pytest.raises(CommandError, match="--namespace NAME"):
        run()
    with pytest.raises(CommandError, match="'nowhere' does not exist"):
        run("--namespace", "nowhere")


def test_a_fact_an_older_rule_missed_is_created_and_the_graph_rebuilt(aged: Aged) -> None:
    missed = (
        Event.objects.filter(namespace=aged.namespace, origin=EventOrigin.EXTRACTION)
        .filter(status=EventStatus.ACTIVE, pinned=False, usage_items=None, nodes__isnull=False)
        .exclude(pk=aged.cited.pk)
        .distinct()
        .first()
    )
    assert missed is not None
    summary = missed.summary
    missed.delete()  # as if the rules of the time had not seen it (its graph items with it)

    out = run("--namespace", "demo", "--graph")

    (again,) = Event.objects.filter(namespace=aged.namespace, summary=summary)
    assert again.nodes.exists()  # projected
    assert counted(out, "events")[2] == 1
    assert "graph        rebuilt" in out
    nodes = counted(out, "graph")[1]
    assert nodes == GraphNode.objects.filter(namespace=aged.namespace).count()
    # The rebuild gives the nodes and facts it makes again their ids: the receipt citing graph
    # items by id still resolves.
    assert consistency_check(namespace=aged.namespace) == []


def test_a_refused_namespace_stops_no_other(aged: Aged, settings: Any) -> None:
    settings.STRATAGATE_LLM_BASE_URL = "http://127.0.0.1:9"  # configured, never called
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    err = StringIO()
    with pytest.raises(CommandError, match="not re-derived: demo"):
        call_command("rederive_events", "--all", "--dry-run", "--use-model", stderr=err)
    assert "dry_run_with_model" in err.getvalue()
