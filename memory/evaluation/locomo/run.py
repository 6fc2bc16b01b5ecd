"""The whole evaluation: ingest each conversation, score every path on every question, and
report as one JSON-ready dict (see docs/EVALUATION.md for the protocol and each figure)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings as django_settings

from memory.errors import Invalid
from memory.evaluation.locomo.answers import Answerer, Spend, question_judged, spend_report
from memory.evaluation.locomo.dataset import CATEGORIES, Conversation, load, paired_turns
from memory.evaluation.locomo.ingest import Ingested, conversation_ingest
from memory.evaluation.locomo.paths import PATHS, activated_items, context_messages
from memory.evaluation.locomo.scoring import Tally, recall_at, recall_within
from memory.selectors.settings import memory_settings_get
from memory.services.activation import TOKEN_BUDGET, validate_budget
from memory.services.llm_runtime import llm_client

RECOMMENDED = "recommended"
JUDGE_RUNS = 10  # the original protocol's
MAX_JUDGE_RUNS = 50


@dataclass(frozen=True)
class EvalOptions:
    ks: tuple[int, ...] = (1, 5, 10, 20)
    budgets: tuple[int, ...] = (900, 2000)
    namespace_prefix: str = "locomo-"
    details: bool = True
    answer: bool = True  # answer and judge when a model is configured
    judge_runs: int = JUDGE_RUNS
    answer_budget: int = TOKEN_BUDGET  # the context the answer is given, in tokens


@dataclass
class AnswerTally:
    """One conversation's (or the run's) answer figures and what they cost."""

    figures: Tally = field(default_factory=Tally)
    answering: Spend = field(default_factory=Spend)
    judging: Spend = field(default_factory=Spend)
    stopped: str = ""

    def merge(self, other: AnswerTally) -> None:
        self.figures.merge(other.figures)
        self.answering.merge(other.answering)
        self.judging.merge(other.judging)
        self.stopped = self.stopped or other.stopped


class Progress:
    """What the command shows while it runs; the default shows nothing."""

    def start(self, label: str, total: int) -> None: ...
    def step(self) -> None: ...
    def done(self) -> None: ...


def _question_figures(
    found: dict[str, list[str]], context: dict[int, list[str]], evidence: Sequence[str],
    unfindable: int, ks: Sequence[int],
) -> dict[str, dict[str, float]]:  # fmt: skip
    figures = {
        name: {f"R@{k}": recall_at(ids, evidence, unfindable, k) for k in ks}
        for name, ids in found.items()
    }
    for budget, ids in context.items():
        figures[RECOMMENDED][f"budget@{budget}"] = recall_within(ids, evidence, unfindable)
    return figures


def _ingest_summary(ingested: Ingested) -> dict[str, Any]:
    return {
        "namespace": ingested.namespace.name,
        "turns": ingested.turns_total,
        "turns_stored_now": ingested.turns_stored,
        "seconds": round(ingested.seconds, 2),
        "blocks_ready": ingested.blocks_ready,
        "blocks_failed": ingested.blocks_failed,
        "model_calls": ingested.model_calls,
        "model_tokens": ingested.model_tokens,
        "model_calls_per_turn": round(ingested.model_calls / max(1, ingested.turns_stored), 3),
    }


def _ingest(conversation: Conversation, options: EvalOptions, progress: Progress) -> Ingested:
    turns = sum(len(paired_turns(s)) for s in conversation.sessions)
    progress.start(f"{conversation.sample_id} ingest", turns)
    ingested = conversation_ingest(
        conversation, namespace_prefix=options.namespace_prefix, on_turn=progress.step
    )
    progress.done()
    return ingested


def conversation_evaluate(
    conversation: Conversation,
    ingested: Ingested,
    options: EvalOptions,
    progress: Progress,
    answerer: Answerer | None = None,
) -> dict[str, Any]:
    """Score one ingested conversation; with an `answerer`, also answer and judge (its spend
    for this conversation is reported apart, and it keeps a stop across conversations)."""
    namespace, dia = ingested.namespace, ingested.utterance_of
    questions = conversation.scored_questions()
    tallies = {name: Tally() for name in PATHS}
    activation = Tally()
    answers = AnswerTally() if answerer is not None else None
    if answerer is not None:
        answerer.answering, answerer.judging = Spend(), Spend()
    details: list[dict[str, Any]] = []
    progress.start(f"{conversation.sample_id} questions", len(questions))
    started = time.perf_counter()
    for q in questions:
        found = {
            name: [dia[m] for m in path(namespace, q.question) if m in dia]
            for name, path in PATHS.items()
        }
        context = {
            b: [dia[m] for m in context_messages(namespace, q.question, b) if m in dia]
            for b in options.budgets
        }
        figures = _question_figures(found, context, q.evidence, len(q.unfindable), options.ks)
        for name, values in figures.items():
            tallies[name].add(q.category, values)
        evidence = set(q.evidence)
        items = activated_items(namespace, q.question)
        figures_of_items: dict[str, float] = {"empty": float(not items)}
        for kind, sources in items:
            figures_of_items[kind] = figures_of_items.get(kind, 0.0) + 1
            if evidence & {dia[m] for m in sources if m in dia}:
                figures_of_items[f"{kind}_relevant"] = (
                    figures_of_items.get(f"{kind}_relevant", 0.0) + 1
                )
        activation.add(q.category, figures_of_items)
        judged = (
            question_judged(answerer, namespace, q.question, q.answer)
            if answerer is not None
            else None
        )
        if answers is not None and judged is not None:
            answers.figures.add(q.category, judged.figures)
        if options.details:
            row: dict[str, Any] = {
                "index": q.index,
                "category": q.category,
                "question": q.question,
                "evidence": list(q.evidence),
                "unfindable": list(q.unfindable),
                "top10": found[RECOMMENDED][:10],
                "R@10": figures[RECOMMENDED].get("R@10"),
            }
            if judged is not None:
                row |= {
                    "gold": q.answer,
                    "answer": judged.answer,
                    "judged_correct": f"{judged.correct_runs}/{judged.runs}",
                }
            details.append(row)
        progress.step()
    progress.done()
    seconds = time.perf_counter() - started
    if answers is not None and answerer is not None:
        answers.answering, answers.judging = answerer.answering, answerer.judging
        answers.stopped = answerer.stopped
    return {
        "sample_id": conversation.sample_id,
        "utterances": conversation.utterance_count,
        "questions": len(questions),
        "ingest": _ingest_summary(ingested),
        "query_seconds_per_question": round(seconds / max(1, len(questions)), 4),
        "tallies": tallies,
        "activation": activation,
        "answers": answers,
        "details": details,
    }


def _report(tallies: dict[str, Tally], activation: Tally) -> dict[str, Any]:
    groups = [str(c) for c in CATEGORIES]
    recommended = tallies[RECOMMENDED]
    return {
        "overall": recommended.means("overall"),
        "by_category": {g: recommended.means(g) for g in groups},
        "questions": recommended.counts.get("overall", 0),
        "paths": {
            name: {"overall": t.means("overall"), "by_category": {g: t.means(g) for g in groups}}
            for name, t in tallies.items()
        },
        "activated_memory": _activation_report(activation),
    }


def _activation_report(activation: Tally) -> dict[str, Any]:
    """Per kind of activated item: how many per question, and the share of them that share a
    source utterance with the question's evidence."""
    sums, n = activation.sums.get("overall", {}), activation.counts.get("overall", 0)
    report: dict[str, Any] = {
        "budget": TOKEN_BUDGET,
        "empty_share": round(sums.get("empty", 0.0) / n, 4) if n else 0.0,
    }
    for kind in ("events", "nodes", "passages"):
        items = sums.get(kind, 0.0)
        report[kind] = {
            "per_question": round(items / n, 3) if n else 0.0,
            "share_sharing_evidence": round(sums.get(f"{kind}_relevant", 0.0) / items, 4)
            if items
            else None,
        }
    return report


def validate_judge_runs(runs: object) -> int:
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_JUDGE_RUNS:
        raise Invalid(
            f"judge runs must be an integer from 1 to {MAX_JUDGE_RUNS}",
            code="locomo_invalid_judge_runs",
        )
    return runs


def _why_not_answered(options: EvalOptions) -> str:
    if not options.answer:
        return "answering turned off (--no-answer)"
    return "no model configured (STRATAGATE_LLM_BASE_URL and STRATAGATE_LLM_MODEL)"


def _answers_report(
    answers: AnswerTally, options: EvalOptions, not_answered: str
) -> dict[str, Any]:
    """Judge mean and majority-vote accuracy, overall and per category, and what answering and
    judging cost; or why there are no answers."""
    if not_answered:
        return {"enabled": False, "reason": not_answered}
    figures = answers.figures
    questions = figures.counts.get("overall", 0)
    report: dict[str, Any] = {
        "enabled": True,
        "model": django_settings.STRATAGATE_LLM_MODEL,
        "context_budget": options.answer_budget,
        "judge_runs": options.judge_runs,
        "questions": questions,
        "overall": figures.means("overall"),
        "by_category": {str(c): figures.means(str(c)) for c in CATEGORIES},
        **spend_report(answers.answering, answers.judging, questions),
    }
    if answers.stopped:
        report["stopped"] = answers.stopped
    return report


def locomo_evaluate(
    path: Path,
    *,
    conversations: Sequence[str] = (),
    options: EvalOptions | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    options = options or EvalOptions()
    for budget in (*options.budgets, options.answer_budget):
        validate_budget(budget)
    validate_judge_runs(options.judge_runs)
    progress = progress or Progress()
    chosen = load(path, conversations)
    client = llm_client() if options.answer else None
    answerer = (
        Answerer(client=client, judge_runs=options.judge_runs, budget=options.answer_budget)
        if client is not None
        else None
    )
    # Every conversation is stored before any is scored: SQLite's FTS5 computes BM25's document
    # count and mean length over the whole table, so scoring between ingests would rank each
    # conversation against a different index (0.748 against 0.756 overall R@10).
    ingested = [_ingest(c, options, progress) for c in chosen]
    per_conversation = [
        conversation_evaluate(c, i, options, progress, answerer)
        for c, i in zip(chosen, ingested, strict=True)
    ]
    tallies = {name: Tally() for name in PATHS}
    activation = Tally()
    answers = AnswerTally()
    for result in per_conversation:
        for name, tally in result["tallies"].items():
            tallies[name].merge(tally)
        activation.merge(result["activation"])
        if result["answers"] is not None:
            answers.merge(result["answers"])
    not_answered = "" if answerer is not None else _why_not_answered(options)
    ingest = [r["ingest"] for r in per_conversation]
    settings = memory_settings_get()
    report = _report(tallies, activation)
    return {
        "protocol": {
            "dataset": Path(path).name,
            "conversations": [c.sample_id for c in chosen],
            "k": list(options.ks),
            "budgets": list(options.budgets),
            "categories": {str(c): name for c, name in CATEGORIES.items()},
            "block_turns": settings.block_turns,
            "block_lambda": settings.block_lambda,
            "recommended_path": RECOMMENDED,
        },
        **report,
        "answers": _answers_report(answers, options, not_answered),
        "ingest": {
            "turns": sum(i["turns"] for i in ingest),
            "seconds": round(sum(i["seconds"] for i in ingest), 2),
            "model_calls": sum(i["model_calls"] for i in ingest),
            "model_tokens": sum(i["model_tokens"] for i in ingest),
        },
        "conversations": {
            r["sample_id"]: {
                "utterances": r["utterances"],
                "ingest": r["ingest"],
                "query_seconds_per_question": r["query_seconds_per_question"],
                **_report(r["tallies"], r["activation"]),
                "answers": _answers_report(r["answers"] or AnswerTally(), options, not_answered),
                **({"details": r["details"]} if options.details else {}),
            }
            for r in per_conversation
        },
    }
