"""Layered-history tokens at the end of each LoCoMo development conversation vs its transcript.

    .venv/bin/python benchmarks/history_tokens.py [--path ../shared/data/locomo/locomo_dev.json]
                                                  [--conversations conv-26,conv-30]

In a fresh SQLite data dir with the offline processor, each conversation is ingested as one
agent session (its LoCoMo sessions one after another, turns paired and dated as `locomo_eval`
does: first utterance the user message, second the assistant's, each carrying its speaker's
name), every job is drained, and then the session's layered history is built as `GET
/ns/{ns}/context` builds it for the agent's next call (`memory.selectors.blocks.layered_history`,
the `history.tokens` of the response). Its token estimate (`memory.engine.tokens`) is compared
with the estimate of the full transcript, every message rendered as L5 renders it (goal ≤ 1/8).
One session rather than the harness's session per LoCoMo session: the layered history is per
session, so split into sessions the agent's history would hold only the last one. Writes
benchmarks/results/history_tokens.json.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from _common import ROOT, django_setup, machine, write_result

if TYPE_CHECKING:
    from memory.evaluation.locomo.dataset import Conversation

# --- this benchmark ---

DEFAULT_PATH = ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
GOAL_RATIO = 1 / 8
SESSION = "conversation"


# Issue 29's goals for the views that compress: L1 and L0 as a share of L5 (median per block).
SHARE_GOALS = {"L1": 0.30, "L0": 0.12}


def view_shares(session: Any) -> dict[str, Any]:
    """Each level's tokens as a share of the block's L5, the median over the session's ready
    blocks (the Memory UI's level tabs show the same figure per block)."""
    from statistics import median

    from memory.models import BlockStatus, BlockView

    per_block: dict[int, dict[int, int]] = {}
    for block_id, level, tokens in BlockView.objects.filter(
        block__session=session, block__status=BlockStatus.READY
    ).values_list("block_id", "level", "tokens"):
        per_block.setdefault(block_id, {})[level] = tokens
    medians = {
        f"L{level}": round(
            median(v[level] / max(1, v[5]) for v in per_block.values() if level in v and 5 in v),
            3,
        )
        for level in range(5)
        if any(level in v for v in per_block.values())
    }
    return {
        "blocks": len(per_block),
        "median_share_of_l5": medians,
        "goals": SHARE_GOALS,
        "goals_met": {k: medians.get(k, 1.0) <= goal for k, goal in SHARE_GOALS.items()},
    }


def conversation_history(conversation: Conversation) -> dict[str, Any]:
    """Ingest the conversation as one session, drain the jobs, and compare the layered history's
    tokens with the transcript's. Django must be set up."""
    from memory.engine.layering import render_l5
    from memory.engine.tokens import estimate_tokens
    from memory.evaluation.locomo.ingest import conversation_turns
    from memory.models import Message, Session
    from memory.selectors.blocks import layered_history
    from memory.selectors.messages import view_messages
    from memory.selectors.settings import memory_settings_get
    from memory.services.ingest import turn_ingest
    from memory.services.jobs import jobs_drain
    from memory.services.namespaces import namespace_get_or_create

    namespace = namespace_get_or_create(name=f"history-{conversation.sample_id}")
    started = time.perf_counter()
    turns = 0
    for turn in conversation_turns(conversation, one_session=SESSION):
        turn_ingest(namespace=namespace, turn=turn)
        turns += 1
    jobs_drain()
    seconds = time.perf_counter() - started

    session = Session.objects.get(namespace=namespace, external_id=SESSION)
    history = layered_history(session=session)
    messages = list(Message.objects.filter(session=session).order_by("turn__session_turn", "pk"))
    transcript_tokens = estimate_tokens(render_l5(view_messages(messages)))
    levels = Counter(f"L{b.level}" for b in history.blocks)
    level_tokens: Counter[str] = Counter()
    for block in history.blocks:
        level_tokens[f"L{block.level}"] += block.tokens
    pending_tokens = sum(b.tokens for b in history.pending)
    settings = memory_settings_get()
    ratio = history.tokens / max(1, transcript_tokens)
    shares = view_shares(session)
    return {
        "sessions": len(conversation.sessions),
        "utterances": conversation.utterance_count,
        "turns": turns,
        "block_turns": settings.block_turns,
        "block_lambda": settings.block_lambda,
        "blocks_ready": len(history.blocks),
        "blocks_pending": len(history.pending),
        "blocks_by_level": dict(sorted(levels.items())),
        "open_tail_turns": history.open_tail_turns,
        # Where the history's tokens go: ready blocks per displayed level, pending, open tail.
        "tokens_by_part": {
            **dict(sorted(level_tokens.items())),
            "pending": pending_tokens,
            "open_tail": history.tokens - sum(level_tokens.values()) - pending_tokens,
        },
        "history_tokens": history.tokens,
        "transcript_tokens": transcript_tokens,
        "ratio": round(ratio, 4),
        "goal_met": ratio <= GOAL_RATIO,
        "ingest_seconds": round(seconds, 2),
        "view_shares": shares,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH, help="a LoCoMo JSON file")
    parser.add_argument("--conversations", default="", help="sample ids, comma-separated")
    args = parser.parse_args()
    if not args.path.exists():
        print(f"no LoCoMo file at {args.path}", file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory(prefix="stratagate-bench-") as tmp:
        django_setup(Path(tmp))
        from django.db import connections

        from memory.evaluation.locomo.dataset import load

        names = [n.strip() for n in args.conversations.split(",") if n.strip()]
        per_conversation: dict[str, dict[str, Any]] = {}
        for conversation in load(args.path, names):
            row = conversation_history(conversation)
            per_conversation[conversation.sample_id] = row
            print(
                f"{conversation.sample_id}: {row['turns']} turns → {row['blocks_ready']} ready "
                f"blocks {row['blocks_by_level']} + {row['open_tail_turns']} open-tail turns "
                f"(tokens {row['tokens_by_part']}); "
                f"history {row['history_tokens']:,} tokens vs transcript "
                f"{row['transcript_tokens']:,} = {row['ratio']:.3f} "
                f"(goal ≤ {GOAL_RATIO:.3f}: {'met' if row['goal_met'] else 'MISSED'})"
            )
            shares = row["view_shares"]
            print(
                f"  views, median share of L5 over {shares['blocks']} blocks: "
                + ", ".join(f"{k} {v:.2f}" for k, v in sorted(shares["median_share_of_l5"].items()))
                + f" (goals L1 ≤ 0.30, L0 ≤ 0.12: {shares['goals_met']})"
            )
        connections.close_all()

    history = sum(r["history_tokens"] for r in per_conversation.values())
    transcript = sum(r["transcript_tokens"] for r in per_conversation.values())
    result: dict[str, Any] = {
        "benchmark": "history_tokens",
        "dataset": args.path.name,
        "database": "sqlite (WAL), in-process",
        "processor": "offline",
        "goal_ratio": GOAL_RATIO,
        "conversations": per_conversation,
        "history_tokens": history,
        "transcript_tokens": transcript,
        "ratio": round(history / max(1, transcript), 4),
        "max_ratio": max((r["ratio"] for r in per_conversation.values()), default=0.0),
        "goal_met": all(r["goal_met"] for r in per_conversation.values()),
        "machine": machine(),
    }
    print(
        f"all: history {history:,} vs transcript {transcript:,} tokens = {result['ratio']:.3f}; "
        f"worst conversation {result['max_ratio']:.3f}"
    )
    write_result("history_tokens", result)
    return 0 if per_conversation else 1


if __name__ == "__main__":
    raise SystemExit(main())
