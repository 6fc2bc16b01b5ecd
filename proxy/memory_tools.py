"""The evidence loop run by the proxy (docs/PROXY.md, "The evidence loop in the proxy"),
protocol-neutral: which tools the model gets, the note that tells it how to use them, which of
its calls are the proxy's to run, and what a round records. The adapters write the tools and the
rounds in their protocol; proxy.exchange runs the loop; proxy.memory runs the calls through the
agent API's own services (memory.agent_tools' dispatcher, in process). Plain Python, no Django.

A round is a memory round when the model calls only memory tools and nothing of its answer has
reached the agent yet: the proxy runs the calls, appends the calls and their results to the
request and asks again, at most MAX_ROUNDS times. Memory calls beside the agent's own tool
calls, after streamed text, or past the last round are dropped from the answer the agent gets.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cache
from typing import Any

from memory.agent_tools.formats import openai_tool
from memory.agent_tools.registry import PROXY_TOOLS
from memory.engine.tools_mode import TOOLS_MAX_ROUNDS, validate_tools_mode
from proxy.conversation import Reply, ToolCall
from proxy.errors import header_choice

TOOLS_HEADER = "x-stratagate-tools"
ROUNDS_HEADER = "x-stratagate-memory-rounds"  # on the answer: how many rounds ran
MAX_ROUNDS = TOOLS_MAX_ROUNDS
NAMES = frozenset(spec.name for spec in PROXY_TOOLS)
# A stored result keeps this much of its JSON (the model gets all of it).
STORED_RESULT_CHARS = 2000

NOTE = (
    "\n\n[StrataGate memory tools]\n"
    "You can look things up in long-term memory with the memory_* tools before you answer: "
    "search (memory_search_events, memory_search_graph, memory_search_raw), expand a result "
    "(memory_expand_event, memory_expand_graph_node, memory_expand_block, memory_get_blocks), "
    "then judge the batch with memory_assess and cite what your answer uses with "
    "memory_record_use. Call them before you write any of your answer; the user does not see "
    "them. Answer from memory only with a sufficient assessment."
)


def tools_header(value: str | None) -> str | None:
    """The per-request `X-StrataGate-Tools` (None when absent); a bad value is a 400."""
    return header_choice(TOOLS_HEADER, value, validate_tools_mode)


@cache
def openai_definitions() -> tuple[dict[str, Any], ...]:
    """The tools in Chat Completions form, built once (every proxied request with the memory
    tools on sends them; nothing changes them)."""
    return tuple(openai_tool(spec) for spec in PROXY_TOOLS)


@cache
def anthropic_definitions() -> tuple[dict[str, Any], ...]:
    """The tools in Messages form, built once."""
    return tuple(
        {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}
        for spec in PROXY_TOOLS
    )


def calls_of(reply: Reply) -> list[ToolCall]:
    return [call for message in reply.messages for call in message.tool_calls]


def is_memory_round(reply: Reply) -> bool:
    """The model asked for memory tools only (and for at least one)."""
    calls = calls_of(reply)
    return bool(calls) and all(call.name in NAMES for call in calls)


@dataclass(frozen=True)
class CallRecord:
    """One memory call the proxy ran, as the session page shows it."""

    id: str
    name: str
    arguments: Any
    status: int
    result: dict[str, Any]  # the JSON the model got

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def content(self) -> str:
        """The tool result as the model reads it."""
        return json.dumps(self.result, ensure_ascii=False, default=str)

    def stored(self) -> dict[str, Any]:
        text = self.content
        result: Any = self.result
        if len(text) > STORED_RESULT_CHARS:
            result = {"truncated": True, "json": text[:STORED_RESULT_CHARS]}
        return {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "status": self.status,
            "ok": self.ok,
            "result": result,
        }


@dataclass
class Round:
    """One memory round: the calls and what the upstream reported for it."""

    calls: list[CallRecord] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def stored(self) -> dict[str, Any]:
        out = asdict(self)
        out["calls"] = [call.stored() for call in self.calls]
        return out
