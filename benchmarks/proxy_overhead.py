"""What the model proxy adds to a model call: latency with memory off and with injection, and how
late a streamed answer's first chunk reaches the client, against an instantly answering local
fake upstream, side by side with calling that upstream directly.

    .venv/bin/python benchmarks/proxy_overhead.py [--messages 100000] [--requests 300] [--seed 7]
        [--serve='--workers 0']

Set-up: a fresh SQLite data dir holding the 100k-message benchmark corpus (benchmarks/_corpus.py,
indexed), `manage.py serve` in its default set-up (one web process, one worker: captured turns
are sealed and processed while the benchmark runs), and a fake OpenAI-compatible upstream
(uvicorn, its own process) that answers at once. One keep-alive client sends, in turn:

- direct:   the request straight to the upstream;
- off:      the same through the proxy with `X-StrataGate-Memory: off` (forwarded untouched);
- memory:   a turn of an ongoing conversation through the proxy (no session header: sessions
            are recognised by their history; 8 turns per conversation), with injection of
            activated memory from the corpus, and capture of the turn before the answer ends;
- first chunk: streamed answers, direct and through the proxy with memory: the upstream stamps
            each chunk with the time it sent it (CLOCK_MONOTONIC, shared by the processes), the
            client subtracts it from the time the chunk arrived.

Goals (issue 25): added latency p95 ≤ 5 ms with memory off, ≤ 30 ms with injection; first chunk
≤ 10 ms after it leaves the upstream. Prints a table, writes benchmarks/results/proxy_overhead.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, django_setup, fixed_work_ms, machine, percentile, steadiness, write_result

NAMESPACE = "bench"
WARMUP = 20
TURNS_PER_CONVERSATION = 8
GOALS_MS = {"off": 5.0, "memory": 30.0, "first_chunk": 10.0}


# --- the fake upstream (run as its own process: --upstream PORT) -----------------------------


async def upstream_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    request = json.loads(body or b"{}")
    if not request.get("stream"):
        answer = {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 0,
            "model": request.get("model", "bench"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "Noted, thanks."},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
        }
        data = json.dumps(answer).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(data)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": data})
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/event-stream")],
        }
    )
    for delta, finish in (
        ({"role": "assistant", "content": ""}, None),
        ({"content": "Noted."}, None),
        ({}, "stop"),
    ):
        chunk = {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "bench",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            "sent_at": time.monotonic(),
        }
        await send(
            {
                "type": "http.response.body",
                "body": f"data: {json.dumps(chunk)}\n\n".encode(),
                "more_body": True,
            }
        )
    await send({"type": "http.response.body", "body": b"data: [DONE]\n\n"})


def serve_upstream(port: int) -> None:
    import uvicorn

    uvicorn.run(
        upstream_app,
        host="127.0.0.1",
        port=port,
        http="httptools",
        log_level="warning",
        access_log=False,
        lifespan="off",
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


# --- measuring ----------------------------------------------------------------------------------


def summary(ms: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(percentile(ms, 50), 2),
        "p95_ms": round(percentile(ms, 95), 2),
        "p99_ms": round(percentile(ms, 99), 2),
        "mean_ms": round(sum(ms) / max(1, len(ms)), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--serve",
        default="",
        help="arguments for manage.py serve, e.g. --serve='--workers 0' (default: its defaults)",
    )
    parser.add_argument("--upstream", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.upstream:
        serve_upstream(args.upstream)
        return 0
    data_dir = Path(tempfile.mkdtemp(prefix="stratagate-proxy-bench-"))
    upstream_port = free_port()
    upstream = subprocess.Popen(
        [sys.executable, __file__, "--upstream", str(upstream_port)], cwd=ROOT / "benchmarks"
    )
    server = None
    try:
        wait_for_port(upstream_port)
        upstream_url = f"http://127.0.0.1:{upstream_port}/v1"
        extra = {
            "STRATAGATE_PROXY_OPENAI_URL": upstream_url,
            "STRATAGATE_PROXY_OPENAI_KEY": "sk-bench",
        }
        django_setup(data_dir, extra)
        import _corpus
        import _serve
        from django.db import connections

        from memory import search
        from memory.services.tokens import token_create

        started = time.perf_counter()
        built = _corpus.build(
            NAMESPACE,
            messages=args.messages,
            events=args.messages // 5,
            nodes=args.messages * 3 // 100,
            seed=args.seed,
        )
        search.reindex_namespace(built["namespace"].pk)
        print(
            f"corpus of {args.messages} messages in {time.perf_counter() - started:.0f} s",
            file=sys.stderr,
        )
        queries = [
            q
            for _, q in _corpus.queries(random.Random(args.seed + 1), built, args.requests + WARMUP)
        ]
        _, token = token_create(namespaces=[NAMESPACE], scope="read-write", label="bench")
        connections.close_all()
        env = {**os.environ, **extra}
        server, port = _serve.start_serve(data_dir, args=tuple(args.serve.split()), env=env)
        result = measure(f"http://127.0.0.1:{port}", upstream_url, token, queries)
    finally:
        if server is not None:
            import _serve

            _serve.stop_serve(server)
        upstream.terminate()
        upstream.wait(10)
        shutil.rmtree(data_dir, ignore_errors=True)
    result.update(corpus_messages=args.messages, requests=args.requests, machine=machine())
    print_table(result)
    write_result("proxy_overhead", result)
    return 0


def measure(server: str, upstream_url: str, token: str, queries: list[str]) -> dict[str, Any]:
    import httpx2

    proxy_url = f"{server}/proxy/{NAMESPACE}/openai/v1"
    auth = {"authorization": f"Bearer {token}"}
    times: dict[str, list[float]] = {
        "direct": [],
        "off": [],
        "memory": [],
        "direct_stream": [],
        "first_chunk": [],
    }
    injected: list[int] = []
    chunks: list[float] = []  # the machine's speed along the run (_common.steadiness)
    memory_states: dict[str, int] = {}
    conversation: list[dict[str, str]] = []

    def one(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[float, Any]:
        started = time.perf_counter()
        response = client.post(url, json=body, headers=headers)
        response.read()
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code != 200:
            raise SystemExit(f"{url}: HTTP {response.status_code} {response.text[:300]}")
        return elapsed, response

    def first_chunk(url: str, body: dict[str, Any], headers: dict[str, str]) -> float:
        gap = None
        with client.stream("POST", url, json={**body, "stream": True}, headers=headers) as response:
            for line in response.iter_lines():
                if line.startswith("data: {") and gap is None:
                    gap = (time.monotonic() - json.loads(line[6:])["sent_at"]) * 1000
        assert gap is not None
        return gap

    with httpx2.Client(timeout=30) as client:
        for n, query in enumerate(queries):
            warm = n < WARMUP
            fixed = {"model": "bench", "messages": [{"role": "user", "content": query}]}
            if len(conversation) >= 2 * TURNS_PER_CONVERSATION:
                conversation = []
            conversation.append({"role": "user", "content": query})
            turn = {"model": "bench", "messages": list(conversation)}
            # Rotate the order so no path always follows another.
            order = ["direct", "off", "memory"][n % 3 :] + ["direct", "off", "memory"][: n % 3]
            for path in order:
                if path == "direct":
                    ms, _ = one(
                        f"{upstream_url}/chat/completions",
                        fixed,
                        {"authorization": "Bearer sk-bench"},
                    )
                elif path == "off":
                    ms, _ = one(
                        f"{proxy_url}/chat/completions",
                        fixed,
                        {**auth, "x-stratagate-memory": "off"},
                    )
                else:
                    ms, response = one(f"{proxy_url}/chat/completions", turn, auth)
                    conversation.append(
                        {
                            "role": "assistant",
                            "content": response.json()["choices"][0]["message"]["content"],
                        }
                    )
                    if not warm:
                        injected.append(
                            int(response.headers.get("x-stratagate-injected-tokens", 0))
                        )
                        state = response.headers.get("x-stratagate-memory", "?")
                        memory_states[state] = memory_states.get(state, 0) + 1
                if not warm:
                    times[path].append(ms)
            stream_turn = {"model": "bench", "messages": [{"role": "user", "content": query}]}
            direct_gap = first_chunk(
                f"{upstream_url}/chat/completions",
                stream_turn,
                {"authorization": "Bearer sk-bench"},
            )
            proxied_gap = first_chunk(f"{proxy_url}/chat/completions", stream_turn, auth)
            if not warm:
                times["direct_stream"].append(direct_gap)
                times["first_chunk"].append(proxied_gap)
                chunks.append(fixed_work_ms())
    result: dict[str, Any] = {name: summary(ms) for name, ms in times.items()}
    for path in ("off", "memory"):
        paired = [a - b for a, b in zip(times[path], times["direct"], strict=True)]
        result[f"added_{path}"] = {
            **summary(paired),
            "p95_minus_direct_p95_ms": round(
                result[path]["p95_ms"] - result["direct"]["p95_ms"], 2
            ),
        }
    result["injection"] = {
        "requests_with_memory": sum(1 for t in injected if t),
        "mean_tokens": round(sum(injected) / max(1, len(injected)), 1),
        "memory_header": memory_states,
    }
    result["cpu_steadiness"] = steadiness(chunks)
    result["goals_ms"] = GOALS_MS
    result["met"] = {
        "off": result["added_off"]["p95_ms"] <= GOALS_MS["off"],
        "memory": result["added_memory"]["p95_ms"] <= GOALS_MS["memory"],
        "first_chunk": result["first_chunk"]["p95_ms"] <= GOALS_MS["first_chunk"],
    }
    return result


def print_table(result: dict[str, Any]) -> None:
    print(
        f"\nproxy overhead, {result['corpus_messages']} messages, "
        f"{result['requests']} requests per path (ms)"
    )
    print(f"{'':28} {'p50':>8} {'p95':>8} {'p99':>8} {'mean':>8}")
    rows = [
        ("direct to the upstream", "direct"),
        ("proxy, memory off", "off"),
        ("proxy, memory (inject+capture)", "memory"),
        ("added: memory off", "added_off"),
        ("added: memory", "added_memory"),
        ("first chunk, direct", "direct_stream"),
        ("first chunk, through proxy", "first_chunk"),
    ]
    for label, key in rows:
        s = result[key]
        print(
            f"{label:28} {s['p50_ms']:8.2f} {s['p95_ms']:8.2f} "
            f"{s['p99_ms']:8.2f} {s['mean_ms']:8.2f}"
        )
    print(f"injection: {result['injection']}")
    cpu = result["cpu_steadiness"]
    print(
        f"machine: a fixed CPU chunk took {cpu['chunk_p50_ms']} ms p50, {cpu['chunk_p95_ms']} ms "
        f"p95 (×{cpu['p95_over_p50']}) along the run; {cpu['slow_share']:.0%} of samples ran "
        "over 1.25 × the median"
    )
    print(f"goals met: {result['met']}")


if __name__ == "__main__":
    raise SystemExit(main())
