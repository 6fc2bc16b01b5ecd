"""Execute a model's tool call against StrataGate: arguments → one REST call → JSON for the model.

The dispatcher binds the namespace (and the current session) when it is created; a model never
names a namespace — `namespace` is not a tool parameter and unknown arguments are refused. It
never raises for a bad call: unknown tools, malformed or missing arguments and every API error
come back as the API's error envelope `{"error": {"code", "message", "details"}}`, which is what
the model should read.
"""

from __future__ import annotations

import json
import urllib.parse
import uuid
from collections.abc import Mapping
from typing import Any

from memory.agent_tools.registry import TOOLS_BY_NAME, ToolSpec
from memory.agent_tools.transports import (
    HttpTransport,
    InProcessTransport,
    ToolRequest,
    ToolResult,
    Transport,
    error_result,
)

IDENTIFIER_ARGS = frozenset({"event_id", "node_id", "block_id"})


def parse_arguments(arguments: Mapping[str, Any] | str | None) -> dict[str, Any] | ToolResult:
    """The arguments as a dict; a JSON string (as OpenAI sends them) is decoded first."""
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return error_result(
                400, "malformed_arguments", f"The tool arguments are not valid JSON: {exc.msg}."
            )
    if not isinstance(arguments, Mapping):
        return error_result(400, "malformed_arguments", "The tool arguments must be a JSON object.")
    return dict(arguments)


def _identifier(spec: ToolSpec, name: str, value: Any) -> str | ToolResult:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return str(value)
    if isinstance(value, str) and value.isdigit() and int(value) > 0:
        return str(int(value))
    return error_result(
        422,
        "invalid_argument",
        f"{name} must be a positive integer id.",
        {"tool": spec.name, "argument": name},
    )


def build_request(
    spec: ToolSpec,
    arguments: Mapping[str, Any],
    *,
    namespace: str,
    session_id: str | None = None,
    call_id: str | None = None,
) -> ToolRequest | ToolResult:
    """Map a tool's arguments onto its REST operation (path, query, body) for `namespace`.

    Optional arguments sent as null are treated as absent. Values are passed on as given: the
    API validates them, so both transports and the REST API reject the same inputs.
    """
    given = {name: value for name, value in arguments.items() if value is not None}
    unexpected = sorted(set(given) - set(spec.argument_names))
    if unexpected:
        return error_result(
            422,
            "unexpected_argument",
            f"{spec.name} does not take {', '.join(unexpected)}.",
            {"tool": spec.name, "unexpected": unexpected, "allowed": list(spec.argument_names)},
        )
    if spec.session_default and "session_id" not in given and session_id:
        given["session_id"] = session_id
    if spec.receipt_default and "receipt_id" not in given:
        given["receipt_id"] = call_id or f"auto-{uuid.uuid4().hex}"

    path = spec.path.replace("{ns}", urllib.parse.quote(namespace, safe=""))
    for name in spec.path_args:
        if name not in given:
            message = f"{spec.name} needs {name}."
            if name == "session_id":
                message += " No current session is set, so pass session_id."
            return error_result(
                422, "missing_argument", message, {"tool": spec.name, "argument": name}
            )
        value = given[name]
        if name in IDENTIFIER_ARGS:
            checked = _identifier(spec, name, value)
            if isinstance(checked, ToolResult):
                return checked
            segment = checked
        else:
            segment = urllib.parse.quote(str(value), safe="")
        path = path.replace("{" + name + "}", segment)

    query = {name: _query_value(given[name]) for name in spec.query_args if name in given}
    body = None
    if spec.method == "POST":
        body = {name: given[name] for name in spec.body_args if name in given}
    return ToolRequest(method=spec.method, path=path, query=query, body=body)


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class ToolDispatcher:
    """Runs memory tool calls for one namespace (and a current session) over a transport."""

    def __init__(
        self, transport: Transport, *, namespace: str, session_id: str | None = None
    ) -> None:
        self.transport = transport
        self.namespace = namespace
        self.session_id = session_id

    @classmethod
    def over_http(
        cls,
        base_url: str,
        token: str,
        *,
        namespace: str,
        session_id: str | None = None,
        timeout: float = 30.0,
    ) -> ToolDispatcher:
        """Talk to a running StrataGate (`base_url` like `http://127.0.0.1:8000`)."""
        return cls(
            HttpTransport(base_url, token, timeout=timeout),
            namespace=namespace,
            session_id=session_id,
        )

    @classmethod
    def in_process(
        cls, token: str, *, namespace: str, session_id: str | None = None
    ) -> ToolDispatcher:
        """Drive this process's Django app directly (Django must be set up)."""
        return cls(InProcessTransport(token), namespace=namespace, session_id=session_id)

    def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        call_id: str | None = None,
    ) -> ToolResult:
        """Execute one tool call; `call_id` (the model's tool-call id) seeds default receipt ids."""
        spec = TOOLS_BY_NAME.get(name)
        if spec is None:
            return error_result(
                404,
                "unknown_tool",
                f"There is no tool named {name[:100]!r}.",
                {"tools": sorted(TOOLS_BY_NAME)},
            )
        parsed = parse_arguments(arguments)
        if isinstance(parsed, ToolResult):
            return parsed
        request = build_request(
            spec, parsed, namespace=self.namespace, session_id=self.session_id, call_id=call_id
        )
        if isinstance(request, ToolResult):
            return request
        return self.transport.send(request)

    def dispatch(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        call_id: str | None = None,
    ) -> dict[str, Any]:
        """The JSON result of a tool call, or the error envelope — never an exception for a 4xx."""
        return self.call(name, arguments, call_id=call_id).body

    def dispatch_tool_call(self, tool_call: Any) -> dict[str, Any]:
        """Run an OpenAI tool call (the SDK's object or its dict form)."""
        call_id, name, arguments = _tool_call_parts(tool_call)
        return self.dispatch(name, arguments, call_id=call_id)

    def tool_message(self, tool_call: Any) -> dict[str, Any]:
        """Run an OpenAI tool call and return the `role: tool` message to append to the chat."""
        call_id, name, arguments = _tool_call_parts(tool_call)
        result = self.dispatch(name, arguments, call_id=call_id)
        return {
            "role": "tool",
            "tool_call_id": call_id,
            "content": json.dumps(result, ensure_ascii=False, default=str),
        }


def _tool_call_parts(tool_call: Any) -> tuple[str, str, Any]:
    if isinstance(tool_call, Mapping):
        function = tool_call.get("function") or {}
        return (
            str(tool_call.get("id") or ""),
            str(function.get("name", "")),
            function.get("arguments"),
        )
    function = tool_call.function
    return str(tool_call.id or ""), str(function.name), function.arguments
