"""The registry rendered for each agent interface: OpenAI function calling and MCP tool listings."""

from __future__ import annotations

import copy
from typing import Any

from memory.agent_tools.registry import TOOLS, ToolSpec


def openai_tool(spec: ToolSpec) -> dict[str, Any]:
    """One tool as an OpenAI chat-completions function definition (`tools=[…]` item)."""
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": copy.deepcopy(spec.parameters),
        },
    }


def openai_tools() -> list[dict[str, Any]]:
    """Every memory tool in OpenAI function-calling format, ready for `tools=`."""
    return [openai_tool(spec) for spec in TOOLS]


def mcp_tool_fields(spec: ToolSpec) -> dict[str, Any]:
    """The fields of an MCP `Tool` (snake_case, as the `mcp` package's model takes them)."""
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": copy.deepcopy(spec.parameters),
        "read_only": spec.read_only,
        "idempotent": spec.idempotent,
    }
