"""Evidence recall on LoCoMo conversations through the normal pipeline (SPEC §16); with a model
configured, also answers and LLM-as-judge accuracy.

manage.py locomo_eval ../shared/data/locomo/locomo_dev.json --conversations conv-26,conv-30
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.errors import Invalid
from memory.evaluation.locomo.run import JUDGE_RUNS, EvalOptions, Progress, locomo_evaluate
from memory.services.activation import TOKEN_BUDGET


def _ints(text: str, what: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError as exc:
        raise CommandError(f"--{what} takes comma-separated integers, got {text!r}") from exc
    if not values or any(v <= 0 for v in values):
        raise CommandError(f"--{what} takes positive integers, got {text!r}")
    return values


class Bar(Progress):
    """A one-line progress bar on stderr (only when it is a terminal, else one line per stage)."""

    def __init__(self, stream: Any) -> None:
        self.stream, self.tty = stream, stream.isatty()
        self.label, self.total, self.n, self.started = "", 0, 0, 0.0

    def start(self, label: str, total: int) -> None:
        self.label, self.total, self.n, self.started = label, total, 0, time.perf_counter()
        self._draw()

    def step(self) -> None:
        self.n += 1
        if self.tty and (self.n == self.total or self.n % 5 == 0):
            self._draw()

    def done(self) -> None:
        elapsed = time.perf_counter() - self.started
        end = "\n" if self.tty else ""
        self.stream.write(f"\r{self.label}: {self.n}/{self.total} in {elapsed:.1f} s{end}")
        if not self.tty:
            self.stream.write("\n")
        self.stream.flush()

    def _draw(self) -> None:
        if not self.tty:
            return
        width = 30
        filled = width * self.n // max(1, self.total)
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(f"\r{self.label}: [{bar}] {self.n}/{self.total}")
        self.stream.flush()


class Command(BaseCommand):
    help = "Ingest LoCoMo conversations and report evidence recall of the product's retrieval."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="a LoCoMo JSON file")
        parser.add_argument("--conversations", default="", help="sample ids, comma-separated")
        parser.add_argument("--k", default="1,5,10,20", help="R@k cut-offs")
        parser.add_argument("--budget", default="900,2000", help="context budgets in tokens")
        parser.add_argument("--namespace-prefix", default="locomo-")
        parser.add_argument("--json-out", type=Path, help="default benchmarks/results/locomo.json")
        parser.add_argument("--no-details", action="store_true", help="leave per-question rows out")
        parser.add_argument(
            "--no-answer", action="store_true", help="skip answering and judging with the model"
        )
        parser.add_argument(
            "--judge-runs", type=int, default=JUDGE_RUNS, help="judge calls per answer (default 10)"
        )
        parser.add_argument(
            "--answer-budget",
            type=int,
            default=TOKEN_BUDGET,
            help="tokens of context the answer is given (default: the product's default)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        eval_options = EvalOptions(
            ks=_ints(options["k"], "k"),
            budgets=_ints(options["budget"], "budget"),
            namespace_prefix=options["namespace_prefix"],
            details=not options["no_details"],
            answer=not options["no_answer"],
            judge_runs=options["judge_runs"],
            answer_budget=options["answer_budget"],
        )
        names = [n.strip() for n in options["conversations"].split(",") if n.strip()]
        try:
            report = locomo_evaluate(
                options["path"], conversations=names, options=eval_options, progress=Bar(sys.stderr)
            )
        except Invalid as exc:
            raise CommandError(f"{exc.code}: {exc}") from exc
        out = options["json_out"] or Path(settings.BASE_DIR) / "benchmarks/results/locomo.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        self.stdout.write(_summary(report))
        self.stdout.write(f"wrote {out}")


def _summary(report: dict[str, Any]) -> str:
    ks = report["protocol"]["k"]
    budgets = report["protocol"]["budgets"]
    columns = [*(f"R@{k}" for k in ks), *(f"budget@{b}" for b in budgets)]
    lines = [f"{report['questions']} questions; recommended path:"]
    lines.append("  " + "group".ljust(14) + "".join(c.rjust(12) for c in columns))
    rows = [("overall", report["overall"])] + [
        (f"{g} {name}", report["by_category"][g])
        for g, name in report["protocol"]["categories"].items()
    ]
    for label, figures in rows:
        cells = "".join((f"{figures[c]:.3f}" if c in figures else "-").rjust(12) for c in columns)
        lines.append("  " + label.ljust(14) + cells)
    lines.append("paths (overall R@10): " + ", ".join(
        f"{name} {p['overall'].get('R@10', 0):.3f}" for name, p in report["paths"].items()
    ))  # fmt: skip
    act = report["activated_memory"]
    parts = [
        f"{kind} {act[kind]['per_question']}/question, "
        + (
            f"{act[kind]['share_sharing_evidence']:.1%} share a source with the evidence"
            if act[kind]["share_sharing_evidence"] is not None
            else "none"
        )
        for kind in ("events", "nodes", "passages")
    ]
    lines.append("activated memory: " + "; ".join(parts))
    ingest = report["ingest"]
    lines.append(
        f"ingest: {ingest['turns']} turns in {ingest['seconds']} s, "
        f"{ingest['model_calls']} model calls, {ingest['model_tokens']} tokens"
    )
    lines.extend(_answers_summary(report["answers"], report["protocol"]["categories"]))
    return "\n".join(lines)


def _answers_summary(answers: dict[str, Any], categories: dict[str, str]) -> list[str]:
    if not answers["enabled"]:
        return [f"answers: none ({answers['reason']})"]
    lines = [
        f"answers by {answers['model']} from {answers['context_budget']}-token contexts, "
        f"{answers['judge_runs']} judge runs each; {answers['questions']} questions:"
    ]
    lines.append("  " + "group".ljust(14) + "majority".rjust(12) + "judge mean".rjust(12))
    rows = [("overall", answers["overall"])] + [
        (f"{g} {name}", answers["by_category"][g]) for g, name in categories.items()
    ]
    for label, figures in rows:
        cells = "".join(
            (f"{figures[c]:.3f}" if c in figures else "-").rjust(12)
            for c in ("majority", "judge_mean")
        )
        lines.append("  " + label.ljust(14) + cells)
    for kind in ("answering", "judging"):
        spent = answers[kind]
        lines.append(
            f"{kind}: {spent['calls']} calls ({spent['failures']} failed), {spent['tokens']} tokens"
        )
    if answers.get("stopped"):
        lines.append(f"answering stopped: {answers['stopped']}")
    return lines
