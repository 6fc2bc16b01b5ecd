"""The protocol-neutral core of one proxied request: memory in, the model's answer out, the turn
stored. Protocol details come from the adapter (proxy.protocols); memory work runs on the
proxy's threads (proxy.memory), never on the event loop.

The order of things, and what each failure does (docs/PROXY.md, "Failures"):

1. Read the request into the neutral form. Unreadable → forwarded untouched, `degraded`.
2. Prepare, within the injection deadline: find the session, record the exchange, build the
   activated memory and splice it in. Past the deadline or on a database error → forwarded
   without injection (fail open), `degraded; reason=…`, counted.
3. Forward. Connection refused → 502, timeout → 504, in the protocol's error shape; an error
   answer is relayed verbatim (status, body, `Retry-After`).
4. Relay. A stream goes on event by event as it arrives; the terminal event (`[DONE]`,
   `message_stop`) waits until the turn is stored, so a client that saw it can read the turn.
   A stream that ends early becomes an error event and stores nothing. A capture that fails is
   kept in the spool for a retry; the answer is never broken by it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
from django.db import DatabaseError
from django.utils import timezone

from memory.models import ExchangeState
from memory.services.proxy.sessions import ExchangeIn
from proxy import config, memory, spool, stats
from proxy.conversation import Reply
from proxy.errors import ProxyError
from proxy.history import HISTORY_HEADER, TOKENS_HEADER
from proxy.http import Send, encode_headers, in_background, respond, respond_error
from proxy.memory_tools import (
    MAX_ROUNDS,
    NAMES,
    ROUNDS_HEADER,
    Round,
    calls_of,
    is_memory_round,
)
from proxy.protocols import Adapter
from proxy.protocols.base import StreamFilter, json_object
from proxy.splice import body_parse, encode
from proxy.sse import Event, EventSplitter, parse_event
from proxy.stats import STATS
from proxy.threads import run_sync
from proxy.upstream import answer_headers, open_stream

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Options:
    """The per-request headers (docs/PROXY.md, "Headers")."""

    memory: bool = True
    inject: bool = True
    capture: bool = True
    session: str | None = None
    history: str | None = None  # layered | native; None: the installation's setting
    tools: str | None = None  # memory | off; None: the installation's setting


@dataclass(frozen=True)
class Call:
    """A request that passed access: where it goes and what it carries."""

    adapter: Adapter
    access: memory.Access
    options: Options
    token: str = field(repr=False)  # the StrataGate token (the memory tools' calls carry it)
    method: str
    url: str
    headers: list[tuple[str, str]]  # for the upstream, credentials settled
    body: bytes

    @property
    def namespace_id(self) -> int:
        return int(self.access.namespace.pk)


def _header_value(status: str, reason: str) -> str:
    return f"{status}; reason={reason}" if reason else status


async def relay(call: Call, send: Send, ours: list[tuple[str, str]]) -> None:
    """Forward untouched and relay the answer as it comes (memory off, or not a chat path)."""
    try:
        response = await open_stream(call.method, call.url, call.headers, call.body)
    except ProxyError as error:
        STATS.add(call.namespace_id, stats.upstream_error(error.status))
        await respond_error(send, call.adapter, error, ours)
        return
    if response.status_code >= 400:
        STATS.add(call.namespace_id, stats.upstream_error(response.status_code))
    streaming = response.headers.get("content-type", "").startswith("text/event-stream")
    try:
        headers = [*answer_headers(response), *ours]
        await send(
            {
                "type": "http.response.start",
                "status": response.status_code,
                "headers": encode_headers(headers),
            }
        )
        try:
            async for chunk in response.aiter_bytes():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except httpx2.HTTPError as exc:
            if streaming:
                STATS.add(call.namespace_id, stats.STREAM_CUT)
                body = call.adapter.stream_error("proxy_upstream_stream_cut", _cut_message(exc))
                await send({"type": "http.response.body", "body": body, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    finally:
        await response.aclose()


def _cut_message(exc: BaseException | None) -> str:
    why = f" ({type(exc).__name__})" if exc is not None else ""
    return f"the upstream model's stream ended before the answer was complete{why}"


class ChatExchange:
    """One proxied chat request with memory (steps 1–4 of the module's docstring)."""

    def __init__(self, call: Call, understood: memory.Understood) -> None:
        self.call = call
        self.adapter = call.adapter
        self.understood = understood
        self.data = ExchangeIn(
            namespace=call.access.namespace,
            protocol=call.adapter.name,
            model=understood.request.model,
            stream=understood.request.stream,
            key=understood.key,
            named_session=call.options.session,
            capture=call.options.capture,
        )
        self.gate = memory.Gate()
        self.preparing: asyncio.Future[memory.Prepared] | None = None
        self.prepared: memory.Prepared | None = None
        self.reason = ""
        self.recording: asyncio.Future[None] | None = None
        self.started_at = timezone.now()
        self.rounds: list[Round] = []  # the memory rounds run so far

    # --- memory in ---------------------------------------------------------------------------
    def _degrade(self, reason: str) -> None:
        self.reason = reason
        STATS.add(self.call.namespace_id, stats.degraded(reason))

    async def prepare(self) -> None:
        self.preparing = asyncio.ensure_future(
            run_sync(
                memory.prepare,
                self.data,
                self.adapter,
                self.understood,
                self.call.body,
                inject=self.call.options.inject,
                history=self.call.options.history,
                tools=self.call.options.tools,
                gate=self.gate,
            )
        )
        # Read a late failure, so an abandoned preparation never logs "never retrieved".
        self.preparing.add_done_callback(lambda f: f.cancelled() or f.exception())
        try:
            self.prepared = await asyncio.wait_for(
                asyncio.shield(self.preparing), config.inject_deadline()
            )
        except TimeoutError:
            if self.gate.abandon():
                self._degrade("injection_timeout")
                return
            await self._wait_prepared()  # the thread got there first: it is recording now
        except DatabaseError:
            log.warning("proxy: memory unavailable; forwarding without it", exc_info=True)
            self._degrade("database_error")
        except Exception:
            log.exception("proxy: building the memory failed; forwarding without it")
            self._degrade("memory_error")

    async def _wait_prepared(self) -> None:
        assert self.preparing is not None
        try:
            self.prepared = await self.preparing
        except DatabaseError:
            self._degrade("database_error")
        except Exception:
            log.exception("proxy: building the memory failed; forwarding without it")
            self._degrade("memory_error")

    async def exchange_id(self) -> int | None:
        """The exchange row, once preparation got that far (it may still be running after its
        deadline; capture needs the database anyway) and its injection is recorded."""
        if self.prepared is None and self.preparing is not None:
            try:
                self.prepared = await self.preparing
            except Exception:
                return None
        if self.recording is not None:
            try:
                await self.recording
            except Exception:
                log.warning("proxy: could not record the injected memory", exc_info=True)
            self.recording = None
        return int(self.prepared.opened.exchange.pk) if self.prepared else None

    def our_headers(self) -> list[tuple[str, str]]:
        session = self.call.options.session
        tokens = 0
        if self.prepared is not None:
            if self.prepared.opened.session is not None:
                session = self.prepared.opened.session.external_id
            if self.prepared.injection is not None:
                tokens = self.prepared.injection.tokens
        native = self.understood.native_tokens
        layers = self.prepared.history if self.prepared is not None else None
        sent = layers.sent_tokens if layers is not None else native
        headers = [
            (
                "x-stratagate-memory",
                _header_value("degraded" if self.reason else "ok", self.reason),
            ),
            ("x-stratagate-injected-tokens", str(tokens)),
            (TOKENS_HEADER, f"{sent}/{native}"),
        ]
        if layers is not None:
            headers.append((HISTORY_HEADER, layers.header))
        if self.prepared is not None and self.prepared.tools:
            headers.append((ROUNDS_HEADER, str(len(self.rounds))))
        if session:
            headers.append(("x-stratagate-session", session))
        return headers

    # --- the turn out ------------------------------------------------------------------------
    def _finish_later(self, state: str, status: int | None, reply: Reply | None = None) -> None:
        async def finish() -> None:
            exchange_id = await self.exchange_id()
            if exchange_id is None:
                return
            try:
                await run_sync(
                    memory.finish, exchange_id, state, upstream_status=status, reply=reply
                )
            except Exception:
                log.warning("proxy: could not record how exchange %s ended", exchange_id)

        in_background(finish())

    async def capture(self, reply: Reply, status: int) -> None:
        """Store the completed turn now (before the answer's last byte). Never raises: a
        failure keeps the turn in the spool for a retry. Whatever the answer, the injection is
        recorded before its last byte: the tool loop's next request, sent as soon as the agent
        has it, must find this request's memory to reuse."""
        namespace_id = self.call.namespace_id
        exchange_id = await self.exchange_id()
        if not reply.final:
            STATS.add(namespace_id, stats.TOOL_STEPS)
            self._finish_later(ExchangeState.TOOL_STEP, status, reply)
            return
        if not self.call.options.capture or not self.understood.conversation.current:
            self._finish_later(ExchangeState.NOT_CAPTURED, status, reply)
            return
        held = memory.capture_in(
            self.data, exchange_id, self.understood, reply, self.started_at, status
        )
        try:
            captured = await run_sync(memory.capture, held)
        except Exception as exc:
            try:
                await run_sync(spool.spool_put, held, repr(exc))
            except Exception:
                log.exception("proxy: a turn could not be stored nor spooled: it is lost")
                STATS.add(namespace_id, stats.CAPTURE_LOST)
            if exchange_id is not None:
                self._finish_later(ExchangeState.CAPTURE_FAILED, status, reply)
            return
        STATS.add(namespace_id, stats.DUPLICATES if captured.duplicate else stats.CAPTURED)

    # --- the whole request -------------------------------------------------------------------
    async def run(self, send: Send) -> None:
        # The client going away (cancelled) or a failure ends the exchange without a turn,
        # unless its turn was already stored (a finished exchange stays as it is).
        try:
            await self._run(send)
        except asyncio.CancelledError:
            STATS.add(self.call.namespace_id, stats.CLIENT_GONE)
            self._finish_later(ExchangeState.INCOMPLETE, None)
            raise
        except Exception:
            self._finish_later(ExchangeState.INCOMPLETE, None)
            raise

    async def _run(self, send: Send) -> None:
        namespace_id = self.call.namespace_id
        await self.prepare()
        body = self.call.body
        if self.prepared is not None:
            body = self.prepared.body
            layers = self.prepared.history
            STATS.add(namespace_id, stats.HISTORY_NATIVE_TOKENS, layers.native_tokens)
            STATS.add(namespace_id, stats.HISTORY_SENT_TOKENS, layers.sent_tokens)
            if layers.blocks:
                STATS.add(namespace_id, stats.HISTORY_LAYERED)
            if self.prepared.injection is not None:
                STATS.add(namespace_id, stats.INJECTED)
                STATS.add(namespace_id, stats.INJECTED_TOKENS, self.prepared.injection.tokens)
            if memory.to_record(self.prepared):
                # Recorded beside the upstream call (the injection and the blocks sent);
                # capture waits for it.
                self.recording = asyncio.ensure_future(
                    run_sync(memory.record, self.data, self.prepared)
                )
        tools = self.prepared is not None and self.prepared.tools
        for number in range(MAX_ROUNDS + 1):
            ours = self.our_headers()
            try:
                response = await open_stream(
                    self.call.method, self.call.url, self.call.headers, body
                )
            except ProxyError as error:
                STATS.add(namespace_id, stats.upstream_error(error.status))
                self._finish_later(ExchangeState.UPSTREAM_ERROR, error.status)
                await respond_error(send, self.adapter, error, ours)
                return
            try:
                status = response.status_code
                streaming = response.headers.get("content-type", "").startswith("text/event-stream")
                if status >= 300:
                    STATS.add(namespace_id, stats.upstream_error(status))
                    self._finish_later(ExchangeState.UPSTREAM_ERROR, status)
                    await self._relay_whole(response, send, ours)
                    return
                if not tools:
                    if streaming:
                        await self._relay_stream(response, send, ours)
                    else:
                        await self._relay_answer(response, send, ours, await response.aread())
                    return
                last = number == MAX_ROUNDS
                if streaming:
                    asked = await self._stream_round(response, send, ours, last=last)
                else:
                    asked = await self._answer_round(response, send, ours, last=last)
                if asked is None:  # the final answer went to the agent
                    return
            finally:
                await response.aclose()
            body = await self._memory_round(number, body, *asked)

    # --- the evidence loop (proxy.memory_tools) -----------------------------------------------
    async def _answer_round(
        self, response: httpx2.Response, send: Send, ours: list[tuple[str, str]], *, last: bool
    ) -> tuple[dict[str, Any], Reply] | None:
        """A non-streamed round: the answer and its memory calls when it is a memory round,
        else None once the answer (without memory calls) went to the agent."""
        raw = await response.aread()
        reply = self.adapter.read_reply(raw)
        if reply is not None and not last and is_memory_round(reply):
            return json_object(raw), reply
        if reply is not None and any(call.name in NAMES for call in calls_of(reply)):
            STATS.add(self.call.namespace_id, stats.MEMORY_CALLS_DROPPED)
            raw = encode(self.adapter.without_calls(json_object(raw), NAMES)).encode()
        await self._keep_rounds()
        await self._relay_answer(response, send, ours, raw)
        return None

    async def _stream_round(
        self, response: httpx2.Response, send: Send, ours: list[tuple[str, str]], *, last: bool
    ) -> tuple[dict[str, Any], Reply] | None:
        """A streamed round: held until its first text or call. A memory call first: read to
        its end, and a memory round when every call is one. Anything else streams on to the
        agent as it arrives, without memory calls."""
        events = _events(response)
        reader = self.adapter.stream_reader()
        rewrite = self.adapter.stream_filter(NAMES)
        held: list[Event] = []
        failure: httpx2.HTTPError | None = None
        try:
            decided = ""
            async for event in events:
                held.append(event)
                reader.feed(event)
                decided = rewrite.classify(event)
                if decided:
                    break
            if decided == "memory" and not last:
                async for event in events:
                    held.append(event)
                    reader.feed(event)
                reply = reader.reply()
                errored = any(reader.is_error(event) for event in held)
                if reply is not None and not errored and is_memory_round(reply):
                    return reader.answer(), reply
        except httpx2.HTTPError as exc:
            failure = exc
        await self._keep_rounds()
        await self._relay_stream(
            response, send, ours, held=held, events=events, rewrite=rewrite, failure=failure
        )
        return None

    async def _memory_round(
        self, number: int, body: bytes, answer: dict[str, Any], reply: Reply
    ) -> bytes:
        """Run the round's memory calls and append them and their results to the request."""
        session = self.prepared.opened.session if self.prepared is not None else None
        records = await run_sync(
            memory.run_memory_calls,
            self.call.token,
            self.call.access.namespace.name,
            session.external_id if session is not None else None,
            self.understood.key,
            number,
            calls_of(reply),
        )
        self.rounds.append(Round(records, reply.prompt_tokens, reply.completion_tokens))
        STATS.add(self.call.namespace_id, stats.MEMORY_ROUNDS)
        return self.adapter.continue_body(body_parse(body), answer, records).encode()

    async def _keep_rounds(self) -> None:
        """The memory rounds recorded on the exchange before the final answer's last byte (the
        session page shows them with the turn)."""
        if not self.rounds:
            return
        exchange_id = await self.exchange_id()
        if exchange_id is not None:
            try:
                await run_sync(memory.rounds_record, exchange_id, self.rounds)
            except Exception:
                log.warning("proxy: could not record the memory rounds of %s", exchange_id)

    async def _relay_whole(
        self, response: httpx2.Response, send: Send, ours: list[tuple[str, str]]
    ) -> bytes:
        raw = await response.aread()
        await self.exchange_id()  # the injection recorded before the answer ends (`capture`)
        await respond(send, response.status_code, [*answer_headers(response), *ours], raw)
        return raw

    async def _relay_answer(
        self, response: httpx2.Response, send: Send, ours: list[tuple[str, str]], raw: bytes
    ) -> None:
        reply = self.adapter.read_reply(raw)
        if reply is None:
            await self.exchange_id()
            self._finish_later(ExchangeState.NOT_CAPTURED, response.status_code)
        else:
            await self.capture(reply, response.status_code)
        await respond(send, response.status_code, [*answer_headers(response), *ours], raw)

    async def _relay_stream(
        self,
        response: httpx2.Response,
        send: Send,
        ours: list[tuple[str, str]],
        *,
        held: Sequence[Event] = (),
        events: AsyncIterator[Event] | None = None,
        rewrite: StreamFilter | None = None,
        failure: BaseException | None = None,
    ) -> None:
        """Relay a stream event by event: `held`, the events already read (the evidence loop's
        first events), then the rest; each through `rewrite` when given (the agent's answer
        without memory calls, which is also what is captured). `failure`: the stream broke
        while the events were held."""
        headers = [
            *answer_headers(response),
            *ours,
            ("x-accel-buffering", "no"),
        ]
        await send(
            {
                "type": "http.response.start",
                "status": response.status_code,
                "headers": encode_headers(headers),
            }
        )
        reader = self.adapter.stream_reader()
        terminal_seen = errored = False

        async def relay(event: Event) -> None:
            nonlocal terminal_seen, errored
            if rewrite is not None:
                raw = rewrite.rewrite(event)
                if raw is None:
                    return
                if raw is not event.raw:
                    event = parse_event(raw)
            if reader.is_terminal(event) and not terminal_seen:
                terminal_seen = True
                reply = reader.reply()
                if reply is not None and not errored:
                    await self.capture(reply, response.status_code)
            else:
                reader.feed(event)
                errored = errored or reader.is_error(event)
            await send({"type": "http.response.body", "body": event.raw, "more_body": True})

        for event in held:
            await relay(event)
        if failure is None:
            try:
                async for event in events if events is not None else _events(response):
                    await relay(event)
            except httpx2.HTTPError as exc:
                failure = exc
        reply = reader.reply()
        if not terminal_seen:
            await self.exchange_id()
            if errored:
                STATS.add(self.call.namespace_id, stats.upstream_error(response.status_code))
                self._finish_later(ExchangeState.UPSTREAM_ERROR, response.status_code)
            elif failure is None and reply is not None:
                await self.capture(reply, response.status_code)  # an upstream without a terminal
            else:
                STATS.add(self.call.namespace_id, stats.STREAM_CUT)
                self._finish_later(ExchangeState.INCOMPLETE, response.status_code)
                body = self.adapter.stream_error("proxy_upstream_stream_cut", _cut_message(failure))
                await send({"type": "http.response.body", "body": body, "more_body": True})
        await send({"type": "http.response.body", "body": b""})


async def _events(response: httpx2.Response) -> AsyncIterator[Event]:
    """The upstream's stream, one whole event at a time."""
    splitter = EventSplitter()
    async for chunk in response.aiter_bytes():
        for event in splitter.feed(chunk):
            yield event
