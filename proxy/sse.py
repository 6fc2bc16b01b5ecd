"""Server-sent events, cut out of an upstream byte stream one whole event at a time so each can
be relayed the moment it is complete (with its bytes exactly as they came) and read for capture.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# An event ends at a blank line; the stream may use LF, CRLF or CR line ends.
_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")
_LINE = re.compile(r"\r\n|\n|\r")


@dataclass(frozen=True)
class Event:
    raw: bytes  # the event's bytes, blank line included, as received
    name: str  # the `event:` field ("" when none)
    data: str  # the `data:` lines joined by "\n"


def parse_event(raw: bytes) -> Event:
    name = ""
    data: list[str] = []
    for line in _LINE.split(raw.decode("utf-8", errors="replace")):
        if not line or line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
    return Event(raw=raw, name=name, data="\n".join(data))


class EventSplitter:
    """Feed bytes as they arrive; get back every event they completed."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, chunk: bytes) -> Iterator[Event]:
        self._buffer += chunk
        start = 0
        while match := _EVENT_END.search(self._buffer, start):
            # A CR at the very end might be half of a CRLF pair: wait for the next byte.
            if match.group() == b"\r\r" and match.end() == len(self._buffer):
                break
            yield parse_event(self._buffer[start : match.end()])
            start = match.end()
        self._buffer = self._buffer[start:]

    def rest(self) -> bytes:
        """Bytes of an event the stream never finished."""
        return self._buffer
