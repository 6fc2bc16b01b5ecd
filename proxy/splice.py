"""Read a JSON request body together with where each part sits in the text, so the proxy can
insert its memory message and leave every other byte of the agent's request as it was sent:
the prefix stays byte-identical, fields the proxy does not know pass through unchanged, and a
request that gets nothing injected is forwarded as the very bytes that came in."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class NotAnObject(ValueError):
    """The body is not one JSON object (the caller forwards it untouched)."""


@dataclass(frozen=True)
class Part:
    """A decoded JSON value and its [start, end) in the text."""

    value: Any
    start: int
    end: int


@dataclass(frozen=True)
class Body:
    """A JSON object body: its text, its members (the last of a repeated key wins, as in
    json.loads) and the index of its opening brace."""

    text: str
    members: dict[str, Part]
    opening: int

    def get(self, key: str, default: Any = None) -> Any:
        part = self.members.get(key)
        return part.value if part is not None else default


def _skip(text: str, index: int) -> int:
    match = _WHITESPACE.match(text, index)
    return match.end() if match else index


def _expect(text: str, index: int, char: str) -> None:
    if index >= len(text) or text[index] != char:
        raise NotAnObject(f"expected {char!r} at {index}")


def body_parse(raw: bytes) -> Body:
    """The body as a JSON object with the position of each top-level member; NotAnObject when
    it is not one (not UTF-8, not JSON, another kind of value, trailing data)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotAnObject("the body is not UTF-8") from exc
    try:
        index = _skip(text, 0)
        _expect(text, index, "{")
        opening = index
        members: dict[str, Part] = {}
        index = _skip(text, index + 1)
        if index < len(text) and text[index] == "}":
            closing = index
        else:
            while True:
                _expect(text, index, '"')
                key, index = _DECODER.raw_decode(text, index)
                index = _skip(text, index)
                _expect(text, index, ":")
                start = _skip(text, index + 1)
                value, end = _DECODER.raw_decode(text, start)
                members[key] = Part(value, start, end)
                index = _skip(text, end)
                if index < len(text) and text[index] == ",":
                    index = _skip(text, index + 1)
                    continue
                _expect(text, index, "}")
                closing = index
                break
    except json.JSONDecodeError as exc:
        raise NotAnObject(str(exc)) from exc
    if _skip(text, closing + 1) != len(text):
        raise NotAnObject("data after the JSON object")
    return Body(text=text, members=members, opening=opening)


def array_items(text: str, part: Part) -> list[Part]:
    """The items of the array `part` with their positions (`part.value` must be a list)."""
    items: list[Part] = []
    index = _skip(text, part.start + 1)
    for value in part.value:
        _, end = _DECODER.raw_decode(text, index)
        items.append(Part(value, index, end))
        index = _skip(text, end)
        if text[index] == ",":
            index = _skip(text, index + 1)
    return items


def append_items(text: str, part: Part, additions: list[str]) -> str:
    """The array `part` with the encoded `additions` after its last item."""
    if not additions:
        return text
    closing = part.end - 1  # the array's "]"
    return insert(text, closing, ("," if part.value else "") + ",".join(additions))


def extend_list(body: Body, key: str, values: Sequence[Any]) -> str | None:
    """The body with `values` after the items of its list member `key` (the member added when
    absent or null); None when that member is not a list."""
    part = body.members.get(key)
    if part is None or part.value is None:
        return add_member(body, key, list(values))
    if not isinstance(part.value, list):
        return None
    return append_items(body.text, part, [encode(value) for value in values])


def add_member(body: Body, key: str, value: Any) -> str:
    """The body with one more member, first (every byte of the others kept)."""
    after = "," if body.members else ""
    return insert(body.text, body.opening + 1, f"{encode(key)}:{encode(value)}{after}")


def insert(text: str, at: int, addition: str) -> str:
    return text[:at] + addition + text[at:]


def encode(value: Any) -> str:
    """JSON for an inserted value: compact, non-ASCII kept as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
