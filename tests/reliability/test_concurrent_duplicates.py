"""Several agent processes post the same receipts at the same time to two web processes: every
receipt is stored exactly once, every other answer is the stored turn as a duplicate, and no
request fails (issue 11, item 1).

The agents are separate processes (`tests/reliability/post_client.py`, plain HTTP) that start
together and post receipts 1…N in the same order, so their requests for one receipt collide.
Two web processes share the listening socket as under `manage.py serve --web 2`, so two
writers really do race on the database (SQLite or PostgreSQL).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter, defaultdict
from typing import Any

import pytest

from memory.models import IngestReceipt, Message, Namespace, Session, Turn
from memory.services.tokens import token_create
from tests.reliability.post_client import receipt_id
from tests.reliability.procs import ROOT, Processes, listening_socket
from tests.reliability.world import assert_consistent, assert_turns_whole

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("subprocess-serve"),
]

NAMESPACE = "dup"


def concurrent_duplicates_scenario(
    processes: Processes, *, agents: int, receipts: int, web: int = 2
) -> dict[str, Any]:
    namespace = Namespace.objects.get_or_create(name=NAMESPACE)[0]
    _, token = token_create(namespaces=[NAMESPACE], scope="read-write")
    listener = listening_socket()
    try:
        processes.webs_ready(listener, count=web)
        port = str(listener.getsockname()[1])
        start_at = time.time() + 1.0  # every agent is up by then and they begin together
        clients = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.reliability.post_client",
                    port,
                    token,
                    NAMESPACE,
                    "1",
                    str(receipts),
                    str(start_at),
                ],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(agents)
        ]
        outputs = [client.communicate(timeout=600) for client in clients]
        seconds = time.time() - start_at
    finally:
        listener.close()
    for client, (_, stderr) in zip(clients, outputs, strict=True):
        assert client.returncode == 0, stderr

    answers = [json.loads(line) for out, _ in outputs for line in out.splitlines()]
    assert len(answers) == agents * receipts
    errors = [a for a in answers if a.get("status") not in (200, 201)]
    assert errors == [], errors[:5]
    by_receipt: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for answer in answers:
        by_receipt[answer["receipt"]].append(answer)
    for receipt, got in by_receipt.items():
        statuses = Counter((a["status"], a["duplicate"]) for a in got)
        assert statuses == {(201, False): 1, (200, True): agents - 1}, (receipt, statuses)
        assert len({a["turn_id"] for a in got}) == 1, (receipt, got)

    stored = dict(
        IngestReceipt.objects.filter(namespace=namespace).values_list("receipt_id", "turn_id")
    )
    assert sorted(stored) == sorted(receipt_id(n) for n in range(1, receipts + 1))
    assert {r: got[0]["turn_id"] for r, got in by_receipt.items()} == stored
    assert Turn.objects.filter(namespace=namespace).count() == receipts
    assert Message.objects.filter(namespace=namespace).count() == 2 * receipts
    assert_turns_whole(namespace, dict.fromkeys(stored, 2))
    assert Session.objects.filter(namespace=namespace).count() == min(2, receipts)
    assert_consistent(namespace)
    return {
        "agents": agents,
        "web_processes": web,
        "receipts": receipts,
        "requests": len(answers),
        "errors": len(errors),
        "turns_stored": receipts,
        "seconds": round(seconds, 1),
        "requests_per_second": round(len(answers) / seconds, 1),
    }


def test_agents_posting_the_same_receipts_store_each_turn_once(processes):
    figures = concurrent_duplicates_scenario(processes, agents=4, receipts=75)
    assert (figures["requests"], figures["errors"]) == (300, 0)
