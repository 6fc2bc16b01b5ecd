"""Prompt tokens through the model proxy with layered history vs native, on each LoCoMo
development conversation replayed as one long conversation, and what it costs in evidence.

    .venv/bin/python benchmarks/proxy_history.py [--path ../shared/data/locomo/locomo_dev.json]
        [--conversations conv-26,conv-30] [--questions N]

In-process: a fresh SQLite data dir with the offline processor (λ 0.30, block size 6), the
site's ASGI application served by uvicorn on a thread (as tests/proxy does), and the fake
upstream of tests/fakes/model_upstream.py answering each request with the conversation's next
utterance. Each conversation is one agent talking to the proxy with the `openai` SDK: every
LoCoMo session appended to the same message history (about 300 turns), the first utterance of
each pair the user's message (the session's date on its first turn), the second the answer the
upstream gives, which the agent sends back in its history. Injection is on (the activated
memory of the namespace, as in production) and the turn is captured; after each turn the job
queue is drained (a worker keeping up), so sealed blocks are processed before the next request.

Per request the upstream prompt's tokens are estimated (memory.engine.tokens) from what the
fake upstream received (layered) and from what the agent sent plus the injected memory (what
native would have sent). Goal: at the end of each conversation ≥ 75% fewer prompt tokens.

The price: each development question (categories 1–4 with evidence) is then asked as the next
turn of the same history, capture off, once layered and once native (`X-StrataGate-History`):
an evidence utterance counts as still in what the model is sent when its text (whitespace
collapsed) is in the upstream request verbatim — layered history and injected memory together.
Writes benchmarks/results/proxy_history.json.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from _common import ROOT, django_setup, machine, write_result

if TYPE_CHECKING:
    from memory.evaluation.locomo.dataset import Conversation
    from tests.proxy.server import ProxyServer

DEFAULT_PATH = ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
GOAL_SAVED = 0.75
BLOCK_LAMBDA = 0.3
BLOCK_TURNS = 6
_SPACE = re.compile(r"\s+")
BLOCK_LABEL = ("[StrataGate: ", "[block ")


def prompt_tokens(body: dict[str, Any]) -> int:
    """The estimate of a Chat Completions prompt: every message's text."""
    from memory.engine.tokens import estimate_tokens

    return sum(estimate_tokens(str(m.get("content") or "")) for m in body["messages"])


def prompt_parts(body: dict[str, Any]) -> dict[str, int]:
    """Where a layered prompt's tokens go: injected memory, block messages, native messages."""
    from memory.engine.tokens import estimate_tokens

    parts = {"injected": 0, "blocks": 0, "native": 0}
    for message in body["messages"]:
        text = str(message.get("content") or "")
        if message["role"] in ("system", "developer"):
            parts["injected"] += estimate_tokens(text)
        elif text.startswith(BLOCK_LABEL):
            parts["blocks"] += estimate_tokens(text)
        else:
            parts["native"] += estimate_tokens(text)
    return parts


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _turns(conversation: Conversation) -> list[tuple[str, str]]:
    """(user message, answer) pairs, every session appended; a lone last utterance is
    answered "ok"."""
    from memory.evaluation.locomo.dataset import paired_turns

    turns: list[tuple[str, str]] = []
    for session in conversation.sessions:
        for index, pair in enumerate(paired_turns(session)):
            user = f"{pair[0].speaker}: {pair[0].content}"
            if index == 0:
                user = f"[{session.started_at:%d %B %Y}] {user}"
            answer = f"{pair[1].speaker}: {pair[1].content}" if len(pair) > 1 else "ok"
            turns.append((user, answer))
    return turns


def replay(
    conversation: Conversation, server: ProxyServer, upstream: Any, questions: int
) -> dict[str, Any]:
    import openai

    from memory.services.jobs import jobs_drain
    from memory.services.tokens import token_create
    from tests.fakes.model_upstream import Answer

    namespace = f"history-{conversation.sample_id}"
    _, token = token_create(namespaces=[namespace], scope="read-write")
    headers = {"X-StrataGate-Session": "conversation"}
    client = openai.OpenAI(
        base_url=f"{server.url}/proxy/{namespace}/openai/v1",
        api_key=token,
        default_headers=headers,
        max_retries=0,
        timeout=120,
    )
    history: list[dict[str, str]] = []
    per_request: list[dict[str, int]] = []
    started = time.perf_counter()
    for user, answer in _turns(conversation):
        history.append({"role": "user", "content": user})
        upstream.script(Answer(answer))
        raw = client.chat.completions.with_raw_response.create(model="m", messages=history)
        reply = raw.parse().choices[0].message.content or ""
        sent = prompt_tokens(upstream.last.json)
        native = prompt_tokens({"messages": history}) + int(
            raw.headers.get("x-stratagate-injected-tokens", "0")
        )
        blocks = int(raw.headers.get("x-stratagate-history", "x; blocks=0").rsplit("=", 1)[1])
        per_request.append({"native": native, "layered": sent, "blocks": blocks})
        history.append({"role": "assistant", "content": reply})
        server.settle()
        jobs_drain()
    seconds = time.perf_counter() - started
    end_parts = prompt_parts(upstream.last.json)
    end = per_request[-1]
    saved = 1 - end["layered"] / max(1, end["native"])
    return {
        "turns": len(per_request),
        "end_native_tokens": end["native"],
        "end_layered_tokens": end["layered"],
        "end_blocks_replaced": end["blocks"],
        "end_layered_parts": end_parts,
        "saved": round(saved, 4),
        "goal_met": saved >= GOAL_SAVED,
        "replay_seconds": round(seconds, 1),
        "per_request": per_request,
        "evidence": evidence(conversation, server, client, history, upstream, questions),
    }


def evidence(
    conversation: Conversation,
    server: ProxyServer,
    client: Any,
    history: list[dict[str, str]],
    upstream: Any,
    n: int,
) -> dict[str, Any]:
    """The share of the development questions' evidence utterances still in the request."""
    texts = {u.dia_id: _normal(u.content) for s in conversation.sessions for u in s.utterances}
    asked = conversation.scored_questions()[: n or None]
    found = {"layered": 0, "native": 0}
    total = 0
    for question in asked:
        wanted = [texts[e] for e in question.evidence if texts.get(e)]
        total += len(wanted)
        for mode in found:
            client.chat.completions.create(
                model="m",
                messages=[*history, {"role": "user", "content": question.question}],
                extra_headers={"X-StrataGate-History": mode, "X-StrataGate-Capture": "off"},
            )
            body = upstream.last.json
            sent = _normal(" ".join(str(m.get("content") or "") for m in body["messages"]))
            found[mode] += sum(1 for text in wanted if text in sent)
        server.settle()
    return {
        "questions": len(asked),
        "evidence_utterances": total,
        "layered_in_request": found["layered"],
        "native_in_request": found["native"],
        "layered_share": round(found["layered"] / max(1, total), 4),
        "native_share": round(found["native"] / max(1, total), 4),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH, help="a LoCoMo JSON file")
    parser.add_argument("--conversations", default="", help="sample ids, comma-separated")
    parser.add_argument("--questions", type=int, default=0, help="questions per conversation")
    args = parser.parse_args()
    if not args.path.exists():
        print(f"no LoCoMo file at {args.path}", file=sys.stderr)
        return 1
    sys.path.insert(0, str(ROOT))
    from tests.fakes.model_upstream import FakeUpstream

    with tempfile.TemporaryDirectory(prefix="stratagate-bench-") as tmp, FakeUpstream() as fake:
        django_setup(
            Path(tmp),
            {
                "STRATAGATE_PROXY_OPENAI_URL": f"{fake.url}/v1",
                "STRATAGATE_PROXY_OPENAI_KEY": "sk-bench",
                "STRATAGATE_PROXY_INJECT_DEADLINE_MS": "30000",
            },
        )
        from django.db import connections

        from memory.evaluation.locomo.dataset import load
        from memory.services.settings import memory_settings_update

        memory_settings_update(block_lambda=BLOCK_LAMBDA, block_turns=BLOCK_TURNS)
        from tests.proxy.server import ProxyServer

        server = ProxyServer().start()
        names = [n.strip() for n in args.conversations.split(",") if n.strip()]
        rows: dict[str, dict[str, Any]] = {}
        try:
            for conversation in load(args.path, names):
                row = replay(conversation, server, fake, args.questions)
                rows[conversation.sample_id] = row
                ev = row["evidence"]
                print(
                    f"{conversation.sample_id}: {row['turns']} turns; last request "
                    f"{row['end_layered_tokens']:,} tokens layered vs {row['end_native_tokens']:,} "
                    f"native = {row['saved']:.1%} fewer (goal ≥ {GOAL_SAVED:.0%}: "
                    f"{'met' if row['goal_met'] else 'MISSED'}); evidence in the request "
                    f"{ev['layered_share']:.1%} layered vs {ev['native_share']:.1%} native "
                    f"({ev['evidence_utterances']} utterances, {ev['questions']} questions); "
                    f"last layered request by part {row['end_layered_parts']}"
                )
        finally:
            server.stop()
            connections.close_all()

    result: dict[str, Any] = {
        "benchmark": "proxy_history",
        "dataset": args.path.name,
        "database": "sqlite (WAL), in-process",
        "processor": "offline",
        "block_lambda": BLOCK_LAMBDA,
        "block_turns": BLOCK_TURNS,
        "goal_saved": GOAL_SAVED,
        "conversations": rows,
        "min_saved": min((r["saved"] for r in rows.values()), default=0.0),
        "goal_met": bool(rows) and all(r["goal_met"] for r in rows.values()),
        "machine": machine(),
    }
    write_result("proxy_history", result)
    return 0 if rows else 1


if __name__ == "__main__":
    raise SystemExit(main())
