"""`manage.py mcp_server` as a real subprocess, driven by the `mcp` package's own stdio client.

The server gets its own data directory (migrated first) and no DATABASE_URL, so it runs on its
own SQLite file whatever database the rest of the suite uses; rows are checked in that file.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters

from memory.agent_tools import TOOLS
from memory.agent_tools.namespaces import project_namespace

ROOT = Path(__file__).resolve().parents[2]
MANAGE = str(ROOT / "manage.py")
TIMEOUT = 90


def server_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return {**env, "STRATAGATE_DATA_DIR": str(data_dir), **extra}


@pytest.fixture(scope="module")
def data_dir(migrated_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The module's own copy of the data directory migrated once per test process."""
    path = tmp_path_factory.mktemp("mcp-data") / "data"
    shutil.copytree(migrated_template / "data", path)
    yield path


def db_rows(data_dir: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(data_dir / "stratagate.sqlite3") as connection:
        return connection.execute(sql, params).fetchall()


def server(data_dir: Path, *args: str, cwd: Path = ROOT, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[MANAGE, "mcp_server", *args],
        # Only these are passed (plus PATH, HOME …): DATABASE_URL and LLM settings stay out.
        env={"STRATAGATE_DATA_DIR": str(data_dir), **env},
        cwd=cwd,
    )


def run(session: Any) -> Any:
    async def main() -> Any:
        with anyio.fail_after(TIMEOUT):
            return await session()

    return anyio.run(main)


def test_mcp_server_lists_the_tools_ingests_a_turn_and_reports_blocks_and_status(
    data_dir: Path,
) -> None:
    params = server(data_dir, "--namespace", "mcp-one", "--session", "s1")
    turn = {
        "receipt_id": "r1",
        "messages": [
            {"role": "user", "content": "Which database do we use?"},
            {"role": "assistant", "content": "PostgreSQL in production, SQLite locally."},
        ],
    }

    async def session() -> dict[str, Any]:
        async with Client(params) as client:
            listed = await client.list_tools()
            ingested = await client.call_tool("memory_ingest_turn", turn)
            replayed = await client.call_tool("memory_ingest_turn", turn)
            blocks = await client.call_tool("memory_get_blocks", {})
            status = await client.call_tool("memory_status", {})
            refused = await client.call_tool(
                "memory_ingest_turn", {"messages": [{"role": "user", "content": " "}]}
            )
            foreign = await client.call_tool("memory_status", {"namespace": "other"})
            with pytest.raises(MCPError, match="unknown tool"):
                await client.call_tool("memory_forget_everything", {})
            return {
                "tools": listed.tools,
                "ingested": ingested,
                "replayed": replayed,
                "blocks": blocks,
                "status": status,
                "refused": refused,
                "foreign": foreign,
            }

    got = run(session)
    assert [t.name for t in got["tools"]] == [t.name for t in TOOLS]
    by_name = {t.name: t for t in got["tools"]}
    assert by_name["memory_assess"].input_schema == next(
        t.parameters for t in TOOLS if t.name == "memory_assess"
    )
    ingested = got["ingested"]
    assert ingested.is_error is False
    assert ingested.structured_content["duplicate"] is False
    assert json.loads(ingested.content[0].text) == ingested.structured_content
    assert got["replayed"].structured_content["duplicate"] is True
    assert got["blocks"].structured_content["reason"] == "open_tail_pending"
    assert got["blocks"].structured_content["open_tail_turns"] == 1
    status = got["status"].structured_content
    assert status["namespace"] == "mcp-one"
    assert status["counts"]["turns"] == 1 and status["counts"]["messages"] == 2
    assert got["refused"].is_error is True
    assert got["refused"].structured_content["error"]["code"] == "empty_user_message"
    assert got["foreign"].is_error is True
    assert got["foreign"].structured_content["error"]["code"] == "unexpected_argument"

    turns = db_rows(
        data_dir,
        "SELECT s.external_id FROM memory_turn t JOIN memory_session s ON s.id = t.session_id"
        " JOIN memory_namespace n ON n.id = t.namespace_id WHERE n.name = ?",
        "mcp-one",
    )
    assert turns == [("s1",)]
    tokens = db_rows(
        data_dir,
        "SELECT t.label, t.scope, t.revoked_at FROM memory_agenttoken t"
        " JOIN memory_agenttoken_namespaces tn ON tn.agenttoken_id = t.id"
        " JOIN memory_namespace n ON n.id = tn.namespace_id WHERE n.name = ?",
        "mcp-one",
    )
    assert len(tokens) == 1
    label, scope, revoked_at = tokens[0]
    assert (label, scope) == ("mcp_server", "read-write")
    assert revoked_at is not None, "the server revokes its own token when it stops"


@pytest.mark.parametrize("mode", ["project", "session", "global"])
def test_mcp_server_derives_its_namespace_from_the_namespace_mode(
    data_dir: Path, tmp_path: Path, mode: str
) -> None:
    workdir = tmp_path / "Some Project"
    workdir.mkdir()
    args = ("--session", "chat-7") if mode == "session" else ()
    params = server(data_dir, *args, cwd=workdir, STRATAGATE_NAMESPACE_MODE=mode)

    async def session() -> dict[str, Any]:
        async with Client(params) as client:
            await client.call_tool(
                "memory_ingest_turn",
                {"receipt_id": f"mode-{mode}", "messages": [{"role": "user", "content": "hi"}]},
            )
            status = await client.call_tool("memory_status", {})
            return status.structured_content

    status = run(session)
    expected = {
        "project": project_namespace(workdir),
        "session": "chat-7",
        "global": "global",
    }[mode]
    assert status["namespace"] == expected
    assert status["counts"]["turns"] == 1
    sessions = db_rows(
        data_dir,
        "SELECT s.external_id FROM memory_session s JOIN memory_namespace n"
        " ON n.id = s.namespace_id WHERE n.name = ?",
        expected,
    )
    if mode == "session":
        assert sessions == [("chat-7",)]
    else:  # no --session: the server names one for its lifetime
        assert len(sessions) == 1 and sessions[0][0].startswith("mcp-")


def jsonrpc(message_id: int | None, method: str, params: dict[str, Any]) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if message_id is not None:
        message["id"] = message_id
    return json.dumps(message)


def test_mcp_server_writes_only_protocol_messages_to_stdout(data_dir: Path) -> None:
    requests = [
        jsonrpc(
            1,
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "0"},
            },
        ),
        jsonrpc(None, "notifications/initialized", {}),
        jsonrpc(2, "tools/list", {}),
        jsonrpc(3, "tools/call", {"name": "memory_status", "arguments": {}}),
    ]
    process = subprocess.Popen(
        [sys.executable, MANAGE, "mcp_server", "--namespace", "mcp-raw"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(data_dir),
        cwd=ROOT,
    )
    watchdog = threading.Timer(TIMEOUT, process.kill)
    watchdog.start()
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("\n".join(requests) + "\n")
        process.stdin.flush()
        lines = []
        while not any('"id":3' in line.replace(" ", "") for line in lines):
            line = process.stdout.readline()
            assert line, "the server closed stdout before answering"
            lines.append(line)
        process.stdin.close()  # the client hangs up: the server must exit cleanly
        assert process.stderr is not None
        rest, stderr = process.stdout.read(), process.stderr.read()
        process.wait(timeout=TIMEOUT)
    finally:
        watchdog.cancel()
    lines += rest.splitlines()
    assert process.returncode == 0, stderr
    messages = [json.loads(line) for line in lines if line.strip()]
    assert all(m.get("jsonrpc") == "2.0" for m in messages)
    answers = {m["id"]: m for m in messages if "id" in m}
    assert answers[1]["result"]["serverInfo"]["name"] == "stratagate"
    assert len(answers[2]["result"]["tools"]) == len(TOOLS)
    assert answers[3]["result"]["structuredContent"]["namespace"] == "mcp-raw"
    assert "tool memory_status -> 200" in stderr


def test_mcp_server_refuses_a_token_that_is_not_bound_to_its_namespace(data_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, MANAGE, "mcp_server", "--namespace", "mcp-bad", "--token", "sg_nope_x"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=server_env(data_dir),
        cwd=ROOT,
        timeout=TIMEOUT,
    )
    assert done.returncode != 0
    assert done.stdout == ""
    assert "cannot serve namespace 'mcp-bad'" in done.stderr
    assert db_rows(data_dir, "SELECT id FROM memory_namespace WHERE name = ?", "mcp-bad") == []
