"""With a model configured (the fake OpenAI-compatible server), the model decides each
candidate — restricted to its Top-K — and exact duplicates never reach it."""

from __future__ import annotations

import json
import re

import pytest

from memory.models import Event, ImportCandidate, ModelCall
from tests.fakes.openai_server import FakeReply
from tests.imports.conftest import candidate, run_import, v2

pytestmark = pytest.mark.django_db


@pytest.fixture
def seeded(owner, drain, one_turn_blocks, say) -> dict[str, Event]:
    """Existing memory made offline, before the model is switched on."""
    say("Use npm for the Atlas project.")
    say("I prefer coffee in the morning.")
    drain()
    return {
        "npm": Event.objects.get(summary__contains="npm"),
        "coffee": Event.objects.get(summary__contains="coffee"),
    }


@pytest.fixture
def model(settings, fake_openai):
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    settings.STRATAGATE_LLM_API_KEY = "sk-test"
    return fake_openai


def _shown_ids(request: dict) -> list[int]:
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    return [int(i) for i in re.findall(r'"id": (\d+)', user)]


def _answer(**decision) -> str:
    return json.dumps(decision)


def test_the_model_decides_with_targets_from_the_top_k(owner, drain, seeded, model):
    def supersede_first_shown(request: dict) -> str:
        return _answer(
            action="SUPERSEDE",
            target_event_ids=[_shown_ids(request)[0], 999999],
            confidence=0.93,
            reason="a newer package manager",
        )

    model.script([supersede_first_shown])
    text = v2(candidate("Atlas uses pnpm", "Let's switch to pnpm for the Atlas project."))
    preview = run_import(owner, drain, text)
    decision = preview["decisions"][0]
    assert decision["decided_by"] == "model"
    assert (decision["action"], decision["confidence"]) == ("supersede", 0.93)
    assert decision["target_event_ids"] == [seeded["npm"].pk]  # 999999 was not shown
    assert preview["status"] == "ready" and not decision["requires_confirmation"]
    assert model.calls == 1 and ModelCall.objects.filter(kind="import_decide", ok=True).count() == 1

    body = owner.post(f"/ns/proj/imports/{preview['import_id']}/commit", {}).json()
    seeded["npm"].refresh_from_db()
    assert seeded["npm"].superseded_by_id == body["created_event_ids"][0]


def test_a_targeted_action_without_an_allowed_target_is_downgraded_to_ignore(
    owner, drain, seeded, model
):
    model.script([_answer(action="merge", target_event_ids=[424242], confidence=0.99)])
    text = v2(candidate("Prefers tea", "I prefer tea in the morning."))
    decision = run_import(owner, drain, text)["decisions"][0]
    assert (decision["action"], decision["confidence"]) == ("ignore", 0.5)
    assert decision["requires_confirmation"]
    assert "without an allowed target" in decision["reason"]


def test_missing_confidence_is_half_and_needs_a_choice(owner, drain, seeded, model):
    model.script([lambda request: _answer(action="conflict", target_event_ids=_shown_ids(request))])
    preview = run_import(owner, drain, v2(candidate("Prefers tea", "I prefer tea in the morning.")))
    decision = preview["decisions"][0]
    assert (decision["action"], decision["confidence"]) == ("conflict", 0.5)
    assert preview["status"] == "awaiting_confirmation"


def test_a_merge_uses_the_merged_text(owner, drain, seeded, model):
    model.script(
        [
            lambda request: _answer(
                action="merge",
                target_event_ids=_shown_ids(request)[:1],
                confidence=0.9,
                reason="same habit, more detail",
                merged_title="Morning drinks",
                merged_summary="The user drinks coffee, and sometimes tea, in the morning.",
            )
        ]
    )
    preview = run_import(owner, drain, v2(candidate("Also tea", "I drink tea in the morning too.")))
    assert preview["decisions"][0]["merged"]["title"] == "Morning drinks"
    body = owner.post(f"/ns/proj/imports/{preview['import_id']}/commit", {}).json()
    merged = Event.objects.get(pk=body["created_event_ids"][0])
    assert merged.title == "Morning drinks" and "sometimes tea" in merged.summary
    seeded["coffee"].refresh_from_db()
    assert seeded["coffee"].status == "superseded"


def test_exact_duplicates_and_unmatched_candidates_need_no_model_call(owner, drain, seeded, model):
    npm = seeded["npm"]
    text = v2(
        candidate(npm.title, npm.summary),
        candidate("Zebra", "Quokka xylophone."),
    )
    decisions = run_import(owner, drain, text)["decisions"]
    assert [d["action"] for d in decisions] == ["ignore", "add"]
    assert [d["decided_by"] for d in decisions] == ["exact", "search"]
    assert model.calls == 0


def test_a_failing_model_falls_back_to_the_heuristic_on_the_last_attempt(
    owner, drain, seeded, model
):
    model.script([FakeReply(status=503)] * 3)
    preview = run_import(owner, drain, v2(candidate("Prefers tea", "I prefer tea in the morning.")))
    decision = preview["decisions"][0]
    assert decision["decided_by"] == "offline-fallback"
    assert decision["confidence"] <= 0.5 and decision["requires_confirmation"]
    assert preview["job"]["attempts"] == 3 and preview["job"]["status"] == "succeeded"
    assert ModelCall.objects.filter(kind="import_decide", ok=False).count() == 3
    assert ImportCandidate.objects.get().processed
