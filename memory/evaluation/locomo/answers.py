"""Answering and LLM-as-judge (SPEC §16), as the original LoCoMo/Mem0 protocol: the configured
model answers each question from the context the product assembles for it, then judges that
answer against the gold answer `judge_runs` times. A question scores the mean of its runs
(CORRECT = 1) and, by majority vote, 1 when more than half of the runs say CORRECT (a tie is
not a majority).

A reply that fails validation (after the client's one repair) or a failed request is a failure,
counted where it happened: a failed answer is judged by nobody and scores 0; a failed judge run
counts as not CORRECT. A permanent transport error (bad key, unknown model) stops the answering
for the rest of the run instead of repeating it for every question.

The calls go straight to the client: no ModelCall row is written, so scoring still leaves the
namespace as ingestion left it, and the harness counts their calls and tokens itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memory.engine.prompts.answer_judge import (
    ANSWER_SYSTEM_PROMPT,
    JUDGE_SYSTEM_PROMPT,
    AnswerOut,
    JudgeOut,
    build_answer_prompt,
    build_judge_prompt,
)
from memory.llm.client import LLMClient, LLMUsage
from memory.llm.errors import LLMError, LLMTransportError
from memory.models import Namespace
from memory.services.activation import activation_build


@dataclass
class Spend:
    """Model use of one kind of call: structured calls, HTTP attempts (repairs included),
    tokens, and the calls that failed."""

    calls: int = 0
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: int = 0

    def add(self, usage: LLMUsage | None, *, ok: bool) -> None:
        self.calls += 1
        self.attempts += usage.attempts if usage is not None else 1
        self.prompt_tokens += (usage.prompt_tokens or 0) if usage is not None else 0
        self.completion_tokens += (usage.completion_tokens or 0) if usage is not None else 0
        self.failures += 0 if ok else 1

    def merge(self, other: Spend) -> None:
        self.calls += other.calls
        self.attempts += other.attempts
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.failures += other.failures

    def as_dict(self) -> dict[str, int]:
        return {
            "calls": self.calls,
            "attempts": self.attempts,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens": self.prompt_tokens + self.completion_tokens,
            "failures": self.failures,
        }


@dataclass
class Answerer:
    """The model, how many judge runs, the context budget, and what was spent so far."""

    client: LLMClient
    judge_runs: int
    budget: int
    answering: Spend = field(default_factory=Spend)
    judging: Spend = field(default_factory=Spend)
    stopped: str = ""  # why answering stopped for the rest of the run, if it did

    def _ask[T: JudgeOut | AnswerOut](
        self, spend: Spend, kind: str, system: str, user: str, output: type[T]
    ) -> T | None:
        try:
            result = self.client.complete_structured(
                kind=kind, system=system, user=user, output_model=output
            )
        except LLMError as exc:
            spend.add(getattr(exc, "usage", None), ok=False)
            if isinstance(exc, LLMTransportError) and exc.permanent:
                self.stopped = f"{exc.code}: {exc.message}"[:300]
            return None
        spend.add(result.usage, ok=True)
        return result.value

    def answer(self, namespace: Namespace, question: str) -> str | None:
        """The model's answer from the context built for `question` (None if it failed)."""
        context = activation_build(
            namespace=namespace, session=None, query=question, budget=self.budget, record=False
        )
        out = self._ask(
            self.answering,
            "locomo_answer",
            ANSWER_SYSTEM_PROMPT,
            build_answer_prompt(question, context.text),
            AnswerOut,
        )
        return out.answer if out is not None else None

    def judge(self, question: str, gold: str, answer: str) -> int:
        """How many of the judge runs label `answer` CORRECT against `gold`."""
        correct = 0
        for _ in range(self.judge_runs):
            if self.stopped:
                break
            out = self._ask(
                self.judging,
                "locomo_judge",
                JUDGE_SYSTEM_PROMPT,
                build_judge_prompt(question, gold, answer),
                JudgeOut,
            )
            correct += 1 if out is not None and out.correct else 0
        return correct


@dataclass(frozen=True)
class Judged:
    answer: str | None  # None: the answering call failed
    correct_runs: int
    runs: int

    @property
    def figures(self) -> dict[str, float]:
        return {
            "judge_mean": self.correct_runs / self.runs,
            "majority": float(2 * self.correct_runs > self.runs),
        }


def question_judged(
    answerer: Answerer, namespace: Namespace, question: str, gold: str
) -> Judged | None:
    """Answer and judge one question; None once answering has stopped (not scored)."""
    if answerer.stopped:
        return None
    answer = answerer.answer(namespace, question)
    if answerer.stopped:
        return None
    correct = answerer.judge(question, gold, answer) if answer is not None else 0
    if answerer.stopped:
        return None
    return Judged(answer=answer, correct_runs=correct, runs=answerer.judge_runs)


def spend_report(answering: Spend, judging: Spend, questions: int) -> dict[str, Any]:
    per = max(1, questions)
    return {
        "answering": {
            **answering.as_dict(),
            "tokens_per_question": round(
                (answering.prompt_tokens + answering.completion_tokens) / per, 1
            ),
        },
        "judging": {
            **judging.as_dict(),
            "tokens_per_question": round(
                (judging.prompt_tokens + judging.completion_tokens) / per, 1
            ),
        },
    }
