"""REST side of the search benchmark: `manage.py serve --workers 0` against the database this
process uses (its environment is passed on), and the four agent calls over one keep-alive
connection, as an agent's HTTP client would hold it."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MANAGE = [sys.executable, str(ROOT / "manage.py")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_serve(
    data_dir: Path,
    args: Sequence[str] = ("--workers", "0"),
    env: Mapping[str, str] | None = None,
) -> tuple[subprocess.Popen[bytes], int]:
    """`manage.py serve ARGS` on a free loopback port, with `env` (default: this process's
    environment); returns once the API answers."""
    port = free_port()
    with (data_dir / "serve.log").open("wb") as log:  # serve keeps its own copy of the fd
        server = subprocess.Popen(
            [*MANAGE, "serve", "--host", "127.0.0.1", "--port", str(port), *args],
            cwd=ROOT,
            env=dict(os.environ if env is None else env),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"serve exited early with code {server.returncode}")
        try:
            url = f"http://127.0.0.1:{port}/api/openapi.json"
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return server, port
        except OSError:
            pass
        time.sleep(0.2)
    stop_serve(server)
    raise SystemExit("serve did not answer within 60 s")


def stop_serve(server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def http_ops(
    port: int, token: str, namespace: str, caller: str, errors: list[str]
) -> dict[str, Callable[[str], int]]:
    """search_events, search_raw, search_graph and context (for session `caller`); each
    returns its number of results and appends any non-200 answer to `errors`."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    base = f"/api/v1/ns/{namespace}"

    def call(method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        conn.request(method, base + path, json.dumps(body) if body else None, headers)
        response = conn.getresponse()
        payload = response.read()
        if response.status != 200:
            errors.append(f"{method} {path}: HTTP {response.status} {payload[:200]!r}")
            return {}
        return dict(json.loads(payload))

    def post(tool: str) -> Callable[[str], int]:
        return lambda q: len(call("POST", f"/search/{tool}", {"query": q}).get("results", []))

    def context(q: str) -> int:
        params = urllib.parse.urlencode({"session_id": caller, "query": q})
        activated = call("GET", f"/context?{params}").get("activated", {})
        return len(activated.get("events", [])) + len(activated.get("nodes", []))

    return {
        "search_events": post("events"),
        "search_raw": post("raw"),
        "search_graph": post("graph"),
        "context": context,
    }
