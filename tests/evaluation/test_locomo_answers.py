"""The harness's model path end to end with the fake OpenAI-compatible server: answering from the
product's context, 10 judge runs per answer (mean and majority vote, overall and per category),
calls and tokens per kind, malformed replies counted as failures; and, with the model doing the
processing, model calls per ingested turn as the harness reports them."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from memory.evaluation.locomo.run import EvalOptions, locomo_evaluate
from memory.models import Activation, GraphFact, ModelCall, RetrievalBatch
from tests.evaluation.locomo_sample import SAMPLE, write_sample
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

pytestmark = pytest.mark.django_db

GREYHOUND = "What is the name of Ben's greyhound?"  # category 4
MARATHON = "When did Ben run the charity marathon?"  # category 2
CELLO = "Which instrument does Ana play, and where did she perform?"  # category 1
AQUARIUM = "Did the kids love the aquarium visit?"  # category 3
MALFORMED = "I think the answer is Pixel"  # no JSON at all


def label(verdict: str) -> str:
    return json.dumps({"reason": "compared with the gold answer", "label": verdict})


def block_memory(request: dict[str, Any]) -> str:
    """A processing reply: views, one event citing the block's first message, its graph."""
    first = json.loads(request["messages"][1]["content"])["target_block_messages"][0]
    return json.dumps(
        {
            "title": "Hiking",
            "tags": ["hiking"],
            "summary": first["content"],
            "key_points": [first["content"]],
            "should_extract": True,
            "events": [
                {"title": "Went hiking", "summary": first["content"],
                 "participants": [first["name"]], "source_message_ids": [first["id"]]}
            ],
            "graph": {
                "nodes": [{"name": first["name"], "type": "person", "events": [1]}],
                "facts": [{"node": first["name"], "key": "hobby", "value": "hiking",
                           "events": [1]}],
            },
        }
    )  # fmt: skip


class ScriptedModel:
    """Answers and judge verdicts scripted per question; any other call (processing) gets the
    server's schema stub. Replies for one question are consumed in order."""

    def __init__(self, answers: dict[str, list[str]], verdicts: dict[str, list[str]]) -> None:
        self.answers = {q: deque(r) for q, r in answers.items()}
        self.verdicts = {q: deque(r) for q, r in verdicts.items()}
        self.kinds: list[str] = []
        self.answer_prompts: dict[str, str] = {}

    def __call__(self, request: dict[str, Any]) -> str | FakeReply:
        kind = request["response_format"]["json_schema"]["name"]
        self.kinds.append(kind)
        user = request["messages"][1]["content"]
        usage = {"prompt_tokens": 100, "completion_tokens": 10}
        if kind == "AnswerOut":
            question = user.rsplit("Question: ", 1)[1].split("\n", 1)[0]
            self.answer_prompts[question] = user
            return FakeReply(content=self.answers[question].popleft(), usage=usage)
        if kind == "JudgeOut":
            question = json.loads(user)["question"]
            return FakeReply(content=self.verdicts[question].popleft(), usage=usage)
        return block_memory(request)


@pytest.fixture
def model(settings: Any, fake_openai: FakeOpenAIServer) -> FakeOpenAIServer:
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    return fake_openai


def test_answers_are_judged_ten_times_with_mean_and_majority(
    tmp_path: Path, model: FakeOpenAIServer
) -> None:
    scripted = ScriptedModel(
        answers={
            GREYHOUND: [json.dumps({"answer": "Pixel"})],
            MARATHON: [json.dumps({"answer": "On Sunday 28 May 2023"})],
            CELLO: [json.dumps({"answer": "The cello, on a stage"})],
            # Malformed twice (the answer and the client's one repair): a failure, not a crash.
            AQUARIUM: [MALFORMED, MALFORMED],
        },
        verdicts={
            GREYHOUND: [label("CORRECT")] * 10,
            MARATHON: [label("CORRECT")] * 5 + [label("WRONG")] * 5,  # a tie is no majority
            # Six CORRECT, three WRONG, and one run malformed twice: counted as not CORRECT.
            CELLO: [label("CORRECT")] * 6 + [label("WRONG")] * 3 + [MALFORMED, "{}"],
        },
    )
    model.default = scripted

    report = locomo_evaluate(write_sample(tmp_path), options=EvalOptions(ks=(1, 10)))

    answers = report["answers"]
    assert (answers["enabled"], answers["judge_runs"], answers["questions"]) == (True, 10, 4)
    assert (answers["model"], answers["context_budget"]) == ("fake-model", 900)
    assert answers["by_category"]["4"] == {"judge_mean": 1.0, "majority": 1.0}
    assert answers["by_category"]["2"] == {"judge_mean": 0.5, "majority": 0.0}
    assert answers["by_category"]["1"] == {"judge_mean": 0.6, "majority": 1.0}
    assert answers["by_category"]["3"] == {"judge_mean": 0.0, "majority": 0.0}
    assert answers["overall"] == {"judge_mean": round((1 + 0.5 + 0.6 + 0) / 4, 4), "majority": 0.5}

    # The sample's sessions are shorter than a block: no processing call, only these.
    assert scripted.kinds.count("AnswerOut") == 4 + 1  # one repair
    assert scripted.kinds.count("JudgeOut") == 30 + 1  # the failed answer is judged by nobody
    assert model.calls == len(scripted.kinds) == 36
    assert answers["answering"] == {
        "calls": 4, "attempts": 5, "prompt_tokens": 500, "completion_tokens": 50,
        "tokens": 550, "failures": 1, "tokens_per_question": 137.5,
    }  # fmt: skip
    assert answers["judging"] == {
        "calls": 30, "attempts": 31, "prompt_tokens": 3100, "completion_tokens": 310,
        "tokens": 3410, "failures": 1, "tokens_per_question": 852.5,
    }  # fmt: skip
    # The answer was asked from the product's context, which holds the evidence.
    assert "Pixel" in scripted.answer_prompts[GREYHOUND]
    assert "[Activated long-term memory]" in scripted.answer_prompts[GREYHOUND]
    details = {d["question"]: d for d in report["conversations"]["conv-t1"]["details"]}
    assert details[GREYHOUND]["answer"] == "Pixel"
    assert details[GREYHOUND]["judged_correct"] == "10/10"
    assert details[AQUARIUM]["answer"] is None
    assert report["conversations"]["conv-t1"]["answers"]["overall"] == answers["overall"]
    # Scoring still writes nothing, model diagnostics included.
    assert ModelCall.objects.count() == 0
    assert RetrievalBatch.objects.count() == 0
    assert Activation.objects.count() == 0


def test_judge_runs_can_be_capped_and_a_permanent_error_stops_answering(
    tmp_path: Path, model: FakeOpenAIServer
) -> None:
    model.default = lambda request: (
        json.dumps({"answer": "Pixel"})
        if request["response_format"]["json_schema"]["name"] == "AnswerOut"
        else label("CORRECT")
    )
    report = locomo_evaluate(write_sample(tmp_path), options=EvalOptions(judge_runs=3))
    assert model.calls == 4 * (1 + 3)
    assert report["answers"]["overall"] == {"judge_mean": 1.0, "majority": 1.0}

    # A rejected key: the first call fails for good, nothing more is asked.
    model.default = 401
    before = model.calls
    report = locomo_evaluate(write_sample(tmp_path), options=EvalOptions(judge_runs=3))
    assert model.calls - before == 1
    assert report["answers"]["questions"] == 0
    assert report["answers"]["stopped"].startswith("llm_http_401")
    assert report["answers"]["answering"]["failures"] == 1


def test_without_a_model_or_with_no_answer_nothing_is_asked(
    tmp_path: Path, settings: Any, fake_openai: FakeOpenAIServer, capsys: Any
) -> None:
    out = tmp_path / "result.json"
    call_command("locomo_eval", str(write_sample(tmp_path)), "--json-out", str(out))
    answers = json.loads(out.read_text())["answers"]
    assert answers == {
        "enabled": False,
        "reason": "no model configured (STRATAGATE_LLM_BASE_URL and STRATAGATE_LLM_MODEL)",
    }
    assert "answers: none (no model configured" in capsys.readouterr().out

    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    call_command("locomo_eval", str(write_sample(tmp_path)), "--no-answer", "--json-out", str(out))
    assert json.loads(out.read_text())["answers"]["reason"] == "answering turned off (--no-answer)"
    assert fake_openai.calls == 0
    with pytest.raises(CommandError, match="locomo_invalid_judge_runs"):
        call_command("locomo_eval", str(write_sample(tmp_path)), "--judge-runs", "0")
    with pytest.raises(CommandError, match="invalid_budget"):
        call_command("locomo_eval", str(write_sample(tmp_path)), "--answer-budget", "10")


def test_command_prints_the_answer_table(tmp_path: Path, model: FakeOpenAIServer, capsys) -> None:
    model.default = lambda request: (
        json.dumps({"answer": "Pixel"})
        if request["response_format"]["json_schema"]["name"] == "AnswerOut"
        else label("WRONG")
    )
    out = tmp_path / "result.json"
    call_command(
        "locomo_eval", str(write_sample(tmp_path)), "--judge-runs", "2", "--answer-budget",
        "2000", "--json-out", str(out),
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert "answers by fake-model from 2000-token contexts, 2 judge runs each; 4 questions:" in (
        printed
    )
    assert "answering: 4 calls (0 failed)" in printed
    assert "judging: 8 calls (0 failed)" in printed
    assert json.loads(out.read_text())["answers"]["overall"]["majority"] == 0.0


def long_conversation() -> dict[str, Any]:
    """Four sessions of 24 utterances: 12 turns each, 48 turns, 8 blocks of 6."""
    conversation: dict[str, Any] = {"speaker_a": "Ana", "speaker_b": "Ben"}
    for s in range(1, 5):
        conversation[f"session_{s}_date_time"] = f"10:00 am on {s} June, 2023"
        conversation[f"session_{s}"] = [
            {"speaker": ("Ana", "Ben")[i % 2], "dia_id": f"D{s}:{i + 1}",
             "text": f"Session {s} line {i + 1}: I went hiking near lake number {s * 100 + i}."}
            for i in range(24)
        ]  # fmt: skip
    return {**SAMPLE, "sample_id": "conv-long", "conversation": conversation, "qa": []}


def test_model_calls_per_ingested_turn_are_reported_as_spent(
    tmp_path: Path, model: FakeOpenAIServer
) -> None:
    model.default = block_memory
    report = locomo_evaluate(
        write_sample(tmp_path, [long_conversation()]), options=EvalOptions(answer=False)
    )

    ingest = report["conversations"]["conv-long"]["ingest"]
    assert (ingest["turns"], ingest["blocks_ready"], ingest["blocks_failed"]) == (48, 8, 0)
    # One call per block returns views, events and the graph draft: 8 for 48 turns.
    assert model.calls == ingest["model_calls"] == ModelCall.objects.count() == 8
    assert ingest["model_calls_per_turn"] == round(8 / 48, 3) <= 0.25
    assert ingest["model_tokens"] > 0
    assert report["ingest"]["model_calls"] == 8
    assert GraphFact.objects.filter(key="hobby", value="hiking").count() == 1  # the drafts
