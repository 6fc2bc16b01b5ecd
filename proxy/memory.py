"""The proxy's calls into memory: synchronous (the ORM is), each run on a thread of the proxy's
pool by the async core (proxy.exchange). They call the same services as the API — token checks,
activated memory (`GET /ns/{ns}/context`'s service), turn ingest — so no memory rule is written
twice; what is proxy-specific (sessions, exchanges) lives in memory.services.proxy."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import DatabaseError

from memory.agent_tools.dispatcher import ToolDispatcher
from memory.engine.history_mode import HISTORY_LAYERED
from memory.engine.tokens import estimate_tokens
from memory.engine.tools_mode import TOOLS_MEMORY, proxy_receipt_id
from memory.models import Namespace, Session, TokenScope
from memory.selectors.proxy_history import history_blocks
from memory.selectors.settings import memory_settings_get
from memory.services.ingest import MessageIn
from memory.services.proxy.capture import Captured, CaptureIn, proxy_turn_capture
from memory.services.proxy.exchanges import (
    HistorySent,
    Injection,
    SentBlock,
    exchange_degraded,
    exchange_finish,
    exchange_rounds_record,
    injection_build,
    injection_record,
)
from memory.services.proxy.sessions import (
    ExchangeIn,
    Opened,
    TurnKey,
    exchange_find,
    exchange_open,
)
from memory.services.tokens import token_authenticate, token_namespace
from proxy.conversation import (
    Conversation,
    Reply,
    Request,
    ToolCall,
    chain,
    completed_turn,
    conversation_of,
    fold,
    message_digest,
)
from proxy.errors import ProxyError
from proxy.history import Layered, layered, request_tokens
from proxy.memory_tools import NOTE, CallRecord, Round
from proxy.protocols import Adapter, NotUnderstood
from proxy.splice import Body, NotAnObject, body_parse
from proxy.threads import parts

# When the database cannot be asked, a token that passed this recently still passes (fail open
# for known agents); a token never seen is refused with a 503 the SDKs retry.
ACCESS_GRACE_SECONDS = 300.0


@dataclass(frozen=True)
class Access:
    namespace: Namespace
    token_prefix: str


_granted: dict[tuple[str, str], tuple[Access, float]] = {}
_granted_lock = threading.Lock()


def access(token: str, namespace_name: str) -> Access:
    """The namespace this token may proxy for, decided as the API decides it: unknown token →
    401, a namespace it is not bound to (or none) → 404, a read-only token → 403."""
    digest = hashlib.sha256(token.encode()).hexdigest()
    key = (digest, namespace_name)
    try:
        found = token_authenticate(token)
        if found is None:
            raise ProxyError(401, "unauthorized", "the StrataGate token is unknown or revoked")
        namespace = token_namespace(found, namespace_name)
        if namespace is None:
            raise ProxyError(
                404, "namespace_not_found", f"namespace {namespace_name[:200]!r} not found"
            )
        if not found.allows(TokenScope.READ_WRITE):
            raise ProxyError(
                403,
                "insufficient_scope",
                f"this token's scope is {found.scope}; the proxy needs read-write",
            )
    except DatabaseError as exc:
        with _granted_lock:
            grant = _granted.get(key)
        if grant is not None and time.monotonic() - grant[1] < ACCESS_GRACE_SECONDS:
            return grant[0]
        raise ProxyError(
            503, "proxy_memory_unavailable", "StrataGate cannot check the token right now"
        ) from exc
    granted = Access(namespace=namespace, token_prefix=found.prefix)
    with _granted_lock:
        _granted[key] = (granted, time.monotonic())
    return granted


@dataclass(frozen=True)
class Understood:
    body: Body
    request: Request
    conversation: Conversation
    key: TurnKey
    native_tokens: int  # the estimate of the request as sent (proxy.history.request_tokens)


def understand(adapter: Adapter, raw: bytes) -> Understood | None:
    """The request read into the neutral form, or None when it is not a chat request the
    adapter can read (it is then forwarded untouched)."""
    try:
        body = body_parse(raw)
        request = adapter.read_request(body)
    except (NotAnObject, NotUnderstood):
        return None
    conversation = conversation_of(request)
    openers = tuple(
        message_digest(segment[0]) if segment[0].opens_turn else ""
        for segment in conversation.earlier
    )
    key = TurnKey(history=conversation.history, openers=openers, opener=conversation.opener_digest)
    return Understood(
        body=body,
        request=request,
        conversation=conversation,
        key=key,
        native_tokens=request_tokens(request),
    )


class Gate:
    """Decides, once, whether a slow preparation still injects (the thread got there first)
    or was given up by the request (its deadline passed first)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = "waiting"

    def _move(self, to: str) -> bool:
        with self._lock:
            if self._state != "waiting":
                return False
            self._state = to
            return True

    def claim(self) -> bool:
        return self._move("claimed")

    def abandon(self) -> bool:
        return self._move("abandoned")


@dataclass(frozen=True)
class Prepared:
    opened: Opened
    injection: Injection | None  # None when nothing is injected
    body: bytes  # what goes upstream
    history: Layered  # the blocks sent in place of earlier turns (none: native)
    tools: bool = False  # the memory tools were added: the proxy runs the evidence loop


def _native(understood: Understood, mode: str) -> Layered:
    return Layered(mode, (), (), understood.native_tokens, understood.native_tokens)


def history_layers(understood: Understood, session: Session | None, mode: str) -> Layered:
    """The request's earlier turns that go as their blocks (docs/PROXY.md, "Layered history"):
    none with `native`, in a new session, or when no earlier turn matches a stored one
    exactly."""
    conversation = understood.conversation
    if mode != HISTORY_LAYERED or session is None or not conversation.earlier:
        return _native(understood, mode)
    key = understood.key
    blocks = history_blocks(session, key.history, key.openers)
    return layered(understood.request, conversation, blocks)


def prepare(
    data: ExchangeIn,
    adapter: Adapter,
    understood: Understood,
    raw: bytes,
    *,
    inject: bool,
    history: str | None,
    tools: str | None,
    gate: Gate,
) -> Prepared:
    """Find the session and build the memory to inject for it, while the exchange that claims
    the session is recorded beside it; the earlier turns that go as their blocks; and, with
    the memory tools on, the tools and their note. `history` and `tools`: the request's
    headers, else the installation's settings. Past the gate (the request's deadline) the
    request goes as it came. The injection is recorded by `record` (the caller runs it beside
    the upstream call)."""
    if history is None or tools is None:
        saved = memory_settings_get()
        history = history or saved.proxy_history
        tools = tools or saved.proxy_tools
    query = understood.conversation.query
    injection: Injection | None = None
    if not inject or not query.strip():
        opened = exchange_open(data)
        layers = history_layers(understood, opened.session, history)
    else:
        found = exchange_find(data)
        # The claim, the history's blocks and the memory are read side by side: the session
        # found is the one the claim records (a new session has no stored turns to replace).
        opening = parts().submit(exchange_open, data)
        layering = parts().submit(history_layers, understood, found.session, history)
        try:
            injection = injection_build(data.namespace, found, query, pool=parts())
        except BaseException:
            opening.exception()  # the claim is recorded (or failed) either way
            layering.exception()
            raise
        opened = opening.result()
        layers = layering.result()
        if opened.session != found.session:  # another request claimed it meanwhile
            layers = history_layers(understood, opened.session, history)
        if not injection.text:
            injection = None
    if injection is None and not layers.spans and tools != TOOLS_MEMORY:
        gate.claim()
        return Prepared(opened=opened, injection=None, body=raw, history=layers)
    body = understood.body
    if layers.spans:
        body = body_parse(adapter.replace_history(body, layers.spans).encode())
    with_tools = adapter.add_tools(body) if tools == TOOLS_MEMORY else None
    if with_tools is not None:
        body = body_parse(with_tools.encode())
    # The memory message: the activated memory, and with the tools the note on using them.
    said = (injection.text if injection is not None else "") + (NOTE if with_tools else "")
    text = adapter.inject(body, said.strip()) if said else body.text
    if not gate.claim():
        exchange_degraded(opened.exchange.pk, "injection_timeout")
        native = _native(understood, layers.mode)
        return Prepared(opened=opened, injection=None, body=raw, history=native)
    return Prepared(
        opened=opened,
        injection=injection,
        body=text.encode(),
        history=layers,
        tools=with_tools is not None,
    )


def to_record(prepared: Prepared) -> bool:
    """Whether the exchange has something to record beside the agent's messages: injected
    memory, or blocks sent in place of earlier turns."""
    return prepared.injection is not None or bool(prepared.history.blocks)


def history_sent(layers: Layered) -> HistorySent | None:
    """What `ProxyExchange` keeps of a layered history: each block sent with the tokens of its
    message as sent (one text per block, in the blocks' order), and the request's figures.
    None when no block was sent."""
    if not layers.blocks:
        return None
    texts = [text for span in layers.spans for text in span.texts]
    blocks = [
        SentBlock(
            block_id=block.block_id,
            level=block.level,
            first_turn=block.first_turn,
            last_turn=block.last_turn,
            tokens=estimate_tokens(text),
        )
        for block, text in zip(layers.blocks, texts, strict=True)
    ]
    return HistorySent(blocks, layers.sent_tokens, layers.native_tokens)


def record(data: ExchangeIn, prepared: Prepared) -> None:
    """Record what was injected and the blocks sent in place of earlier turns, in one write
    (memory.services.proxy.exchanges.injection_record)."""
    if to_record(prepared):
        injection_record(
            data.namespace,
            prepared.opened.session,
            prepared.opened.exchange.pk,
            prepared.injection,
            history_sent(prepared.history),
        )


def run_memory_calls(
    token: str,
    namespace: str,
    session_id: str | None,
    key: TurnKey,
    round_number: int,
    calls: Sequence[ToolCall],
) -> list[CallRecord]:
    """Run a memory round's calls, in order, through the agent API in process (memory.
    agent_tools' dispatcher: the same validation, scopes, services and error envelopes as any
    agent's calls, with the request's own token). A receipt's id is derived from the turn."""
    dispatcher = ToolDispatcher.in_process(token, namespace=namespace, session_id=session_id)
    records = []
    for index, call in enumerate(calls):
        seed = proxy_receipt_id(key.opener, key.earlier, round_number, index)
        done = dispatcher.call(call.name, call.arguments, call_id=seed)
        records.append(CallRecord(call.id, call.name, call.arguments, done.status, done.body))
    return records


def rounds_record(exchange_id: int, rounds: Sequence[Round]) -> None:
    """Keep the memory rounds on the exchange (the session page shows them with the turn)."""
    exchange_rounds_record(exchange_id, [r.stored() for r in rounds])


def capture(held: CaptureIn) -> Captured:
    """Store the completed turn (memory.services.proxy.capture)."""
    return proxy_turn_capture(held)


def capture_in(
    data: ExchangeIn,
    exchange_id: int | None,
    understood: Understood,
    reply: Reply,
    occurred_at: datetime,
    upstream_status: int,
) -> CaptureIn:
    turn = completed_turn(understood.conversation, reply)
    return CaptureIn(
        exchange=data,
        exchange_id=exchange_id,
        messages=[
            MessageIn(role=m.role, content=m.content, name=m.name, tool_calls=list(m.tool_calls))
            for m in fold(turn)
        ],
        digest_after=chain(understood.key.earlier, turn),
        system=understood.conversation.system,
        occurred_at=occurred_at,
        upstream_status=upstream_status,
        model=reply.model or understood.request.model,
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
    )


def finish(
    exchange_id: int,
    state: str,
    *,
    upstream_status: int | None = None,
    reply: Reply | None = None,
) -> None:
    exchange_finish(
        exchange_id,
        state,
        upstream_status=upstream_status,
        model=reply.model if reply else "",
        prompt_tokens=reply.prompt_tokens if reply else None,
        completion_tokens=reply.completion_tokens if reply else None,
    )
