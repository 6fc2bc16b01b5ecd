"""Agent interfaces besides REST: one tool registry for MCP and OpenAI function calling.

`openai_tools()` gives the tool definitions, `ToolDispatcher` executes a tool call against
StrataGate (over HTTP or in-process). Importing this package needs neither Django nor `mcp`;
the MCP server lives in `memory.agent_tools.mcp_stdio`.
"""

from __future__ import annotations

from memory.agent_tools.dispatcher import ToolDispatcher, build_request
from memory.agent_tools.formats import openai_tools
from memory.agent_tools.namespaces import derive_namespace
from memory.agent_tools.registry import TOOLS, TOOLS_BY_NAME, ToolSpec
from memory.agent_tools.transports import (
    HttpTransport,
    InProcessTransport,
    ToolRequest,
    ToolResult,
)

__all__ = [
    "TOOLS",
    "TOOLS_BY_NAME",
    "HttpTransport",
    "InProcessTransport",
    "ToolDispatcher",
    "ToolRequest",
    "ToolResult",
    "ToolSpec",
    "build_request",
    "derive_namespace",
    "openai_tools",
]
