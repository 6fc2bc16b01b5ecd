"""The tool registry is the REST contract, and both agent formats render it faithfully."""

from __future__ import annotations

import re

import pytest
from jsonschema import Draft202012Validator
from openai.types.chat import ChatCompletionToolParam
from pydantic import TypeAdapter

from memory.agent_tools import TOOLS, TOOLS_BY_NAME, openai_tools
from memory.agent_tools.mcp_stdio import mcp_tools
from stratagate_site.api import api

# The agent API contract (docs/API.md of the product): tool name → method and path.
CONTRACT = {
    "memory_ingest_turn": ("POST", "/ns/{ns}/turns"),
    "memory_context": ("GET", "/ns/{ns}/context"),
    "memory_search_events": ("POST", "/ns/{ns}/search/events"),
    "memory_search_graph": ("POST", "/ns/{ns}/search/graph"),
    "memory_search_raw": ("POST", "/ns/{ns}/search/raw"),
    "memory_expand_event": ("GET", "/ns/{ns}/events/{event_id}"),
    "memory_expand_graph_node": ("GET", "/ns/{ns}/graph/nodes/{node_id}"),
    "memory_get_blocks": ("GET", "/ns/{ns}/sessions/{session_id}/blocks"),
    "memory_expand_block": ("POST", "/ns/{ns}/blocks/{block_id}/expand"),
    "memory_assess": ("POST", "/ns/{ns}/assess"),
    "memory_record_use": ("POST", "/ns/{ns}/record-use"),
    "memory_status": ("GET", "/ns/{ns}/health"),
}
TOOL_PARAM = TypeAdapter(ChatCompletionToolParam)


def test_registry_holds_exactly_the_contract_tools_in_contract_order() -> None:
    assert [tool.name for tool in TOOLS] == list(CONTRACT)
    for tool in TOOLS:
        assert (tool.method, tool.path) == CONTRACT[tool.name]


def test_every_tool_is_an_operation_of_the_generated_openapi_schema() -> None:
    # Waits on the retrieval endpoints (search, assess, record-use) until they exist.
    paths = api.get_openapi_schema()["paths"]
    missing = []
    for tool in TOOLS:
        operation = paths.get("/api/v1" + tool.path, {}).get(tool.method.lower())
        if operation is None or operation.get("operationId") != tool.name:
            missing.append(tool.name)
    assert missing == []


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_tool_parameters_cover_exactly_the_operations_arguments(tool) -> None:
    properties = tool.parameters["properties"]
    assert set(properties) == set(tool.argument_names)
    assert len(tool.argument_names) == len(set(tool.argument_names))
    assert set(tool.required) <= set(properties)
    assert {"ns", "namespace"}.isdisjoint(properties), "the namespace is bound, never chosen"
    for name in tool.path_args:
        assert "{" + name + "}" in tool.path
    assert tool.body_args == () or tool.method == "POST"
    for name, prop in properties.items():
        assert "type" in prop, name
        assert prop.get("description") or prop.get("enum"), f"{tool.name}.{name} is undescribed"


def test_openai_tools_are_valid_function_definitions_matching_the_registry() -> None:
    definitions = openai_tools()
    assert len(definitions) == 12
    for definition, tool in zip(definitions, TOOLS, strict=True):
        TOOL_PARAM.validate_python(definition)
        assert definition["type"] == "function"
        function = definition["function"]
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", function["name"])
        assert function["name"] == tool.name
        assert function["description"] == tool.description and len(tool.description) > 40
        assert function["parameters"] == tool.parameters
        assert function["parameters"]["type"] == "object"
        Draft202012Validator.check_schema(function["parameters"])


def test_openai_tools_are_fresh_copies_a_caller_may_mutate() -> None:
    first = openai_tools()
    first[0]["function"]["parameters"]["properties"].clear()
    assert openai_tools()[0]["function"]["parameters"]["properties"]


def test_example_arguments_validate_against_the_tool_schemas() -> None:
    examples = {
        "memory_ingest_turn": {
            "receipt_id": "r1",
            "messages": [
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "content": "ran it",
                    "tool_calls": [{"name": "shell", "arguments": {"cmd": "ls"}, "result": "ok"}],
                },
            ],
        },
        "memory_search_events": {"query": "pnpm", "limit": 6, "temporal_intent": "latest"},
        "memory_expand_block": {"block_id": 3, "target": "L4"},
        "memory_assess": {
            "batch_id": "b1",
            "verdict": "sufficient",
            "evidence_refs": ["event:1", "block:2:L3"],
            "fit": "names the package manager",
            "next_strategy": "answer",
        },
        "memory_record_use": {"batch_id": "b1", "evidence_refs": []},
        "memory_status": {},
    }
    for name, arguments in examples.items():
        Draft202012Validator(TOOLS_BY_NAME[name].parameters).validate(arguments)
    with pytest.raises(Exception, match="namespace"):
        Draft202012Validator(TOOLS_BY_NAME["memory_status"].parameters).validate(
            {"namespace": "other"}
        )


def test_mcp_listing_matches_the_registry() -> None:
    listed = mcp_tools()
    assert [tool.name for tool in listed] == [tool.name for tool in TOOLS]
    for mcp_tool, tool in zip(listed, TOOLS, strict=True):
        assert mcp_tool.input_schema == tool.parameters
        assert mcp_tool.description == tool.description
        assert mcp_tool.annotations is not None
        assert mcp_tool.annotations.read_only_hint is tool.read_only
        assert mcp_tool.annotations.idempotent_hint is tool.idempotent
    writers = {tool.name for tool in listed if not tool.annotations.read_only_hint}
    assert writers == {
        "memory_ingest_turn",
        "memory_expand_block",
        "memory_assess",
        "memory_record_use",
    }
    assert [t.name for t in listed if not t.annotations.idempotent_hint] == ["memory_expand_block"]
