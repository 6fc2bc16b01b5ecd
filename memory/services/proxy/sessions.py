"""Which session a proxied request belongs to, and the exchange row that claims it.

A session is named by the agent (`X-StrataGate-Session`) or recognised by its history: the
request's earlier turns hash, link by link, to a chain of digests (`TurnKey.history`), and a
session whose stored conversation ends at one of those links is the one the agent is continuing
(the longest match wins: links in between are turns that were not captured, e.g. with capture
off). Requests of one turn (a tool loop, or a retry) share the history and the turn's user
message, so they find each other's exchange first. When several sessions hold the same history
(two conversations that opened alike), a session whose turn is under way for another request is
skipped, and of the rest the most recently active wins; without a match a new session begins.
docs/PROXY.md explains the rules and why the header is the sure way.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db import connection
from django.utils import timezone

from memory.models import (
    ExchangeState,
    Namespace,
    ProxyExchange,
    ProxySession,
    Session,
)
from memory.models.rows import (
    insert_rows,
    marks,
    read_by_id,
    read_models,
    read_rows,
    update_row,
)
from memory.services.db import write_transaction
from memory.services.ingest import namespace_lock

# A request with no earlier turns and the same user message as an exchange this recent is a
# retry of it (beyond that, two conversations that open alike are two conversations).
RETRY_WINDOW = timedelta(minutes=2)
# A turn under way (its tool loop not finished) keeps its session this long against requests of
# other conversations with the same history, and keeps finding its own session for this long.
TURN_WINDOW = timedelta(hours=24)
IN_FLIGHT = (ExchangeState.OPEN, ExchangeState.TOOL_STEP)


@dataclass(frozen=True)
class TurnKey:
    """A request's place in its conversation. `history[i]` is the digest of the conversation
    after its first i earlier turns (history[0] is the empty conversation); `openers[i]` names
    the user message opening the turn after history[i] ("" for a prelude); `opener` names the
    current turn's user message ("" when the request has none)."""

    history: tuple[str, ...]
    openers: tuple[str, ...]
    opener: str

    @property
    def earlier(self) -> str:
        return self.history[-1]

    def passes(self, earlier: str, opener: str) -> bool:
        """True when this request's history contains that turn (of another exchange)."""
        return any(
            digest == earlier and self.openers[i] == opener
            for i, digest in enumerate(self.history[:-1])
        )


@dataclass(frozen=True)
class ExchangeIn:
    """What the proxy knows when a request arrives."""

    namespace: Namespace
    protocol: str
    model: str
    stream: bool
    key: TurnKey
    named_session: str | None
    capture: bool


@dataclass(frozen=True)
class Opened:
    exchange: ProxyExchange
    session: Session | None
    # How the session was found: named | turn (an earlier request of this turn) | history |
    # new | none (capture off and nothing recognised).
    found_by: str
    # The memory an earlier request of the same turn injected, to inject again unchanged (the
    # prompt stays cacheable through a tool loop, and the turn is one activation).
    earlier: ProxyExchange | None


def new_session_id() -> str:
    return f"proxy-{timezone.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


# Every read and write of finding a request's session is plain SQL (memory.models.rows): it
# runs twice per proxied request, once beside the memory being built, and compiling the ORM's
# statements cost more than running them.
_EXCHANGES, _PROXY_SESSIONS = ProxyExchange._meta.db_table, ProxySession._meta.db_table


def _since(window: timedelta) -> object:
    """`now - window` as the database compares it with a DateTimeField."""
    return connection.ops.adapt_datetimefield_value(timezone.now() - window)


def with_sessions[R: (ProxyExchange, ProxySession)](rows: list[R]) -> list[R]:
    """The rows with their `session` read, in one statement."""
    sessions = read_by_id(Session, sorted({row.session_id for row in rows if row.session_id}))
    for row in rows:
        if row.session_id in sessions:
            row.session = sessions[row.session_id]
    return rows


def proxy_session_of(session_id: int) -> ProxySession | None:
    """The session's proxy record, if it has one."""
    found = read_models(ProxySession, "p", "WHERE p.session_id = %s", [session_id])
    return found[0] if found else None


def _same_turn(namespace: Namespace, key: TurnKey) -> ProxyExchange | None:
    """The latest exchange of this very turn: a tool loop's earlier step, or the request this
    one retries."""
    if not key.opener:
        return None
    now = timezone.now()
    rows = read_models(
        ProxyExchange,
        "x",
        "WHERE x.namespace_id = %s AND x.earlier_digest = %s AND x.opener_digest = %s "
        "AND x.session_id IS NOT NULL AND x.created_at >= %s ORDER BY x.id DESC LIMIT 1",
        [namespace.pk, key.earlier, key.opener, _since(TURN_WINDOW)],
    )
    if not rows:
        return None
    (found,) = with_sessions(rows)
    # With earlier turns the same history and message are the same conversation; without, only
    # a turn under way or a quick retry is (two conversations may open alike).
    if len(key.history) > 1 or found.state in IN_FLIGHT or found.created_at >= now - RETRY_WINDOW:
        return found
    return None


def _claimed(candidates: list[ProxySession], key: TurnKey) -> set[int]:
    """Sessions whose turn is under way for a request of another conversation."""
    ids = [c.session_id for c in candidates]
    rows = read_rows(
        f"SELECT session_id, earlier_digest, opener_digest FROM {_EXCHANGES} "
        f"WHERE session_id IN ({marks(ids)}) AND state IN ({marks(IN_FLIGHT)}) "
        "AND created_at >= %s",
        [*ids, *IN_FLIGHT, _since(TURN_WINDOW)],
    )
    return {
        session_id
        for session_id, earlier, opener in rows
        if (earlier, opener) != (key.earlier, key.opener) and not key.passes(earlier, opener)
    }


def _by_history(namespace: Namespace, key: TurnKey) -> ProxySession | None:
    """The session whose conversation the request's history continues, furthest along first:
    a session whose stored conversation ends at one of the history's links, or one that
    handled a turn the history contains (a turn that was not stored: a tool loop left
    unfinished, an upstream error, capture off)."""
    reach: dict[int, int] = {}  # session id → how many of the request's turns it accounts for
    links = {digest: i for i, digest in enumerate(key.history) if i > 0}
    if links:
        for session_id, digest in read_rows(
            f"SELECT session_id, digest FROM {_PROXY_SESSIONS} WHERE namespace_id = %s "
            f"AND digest IN ({marks(list(links))})",
            [namespace.pk, *links],
        ):
            reach[session_id] = links[digest]
    turns = {(digest, key.openers[i]): i + 1 for i, digest in enumerate(key.history[:-1])}
    openers = list({o for _, o in turns if o})
    if turns and openers:
        earlier = list({d for d, _ in turns})
        for session_id, digest, opener in read_rows(
            f"SELECT session_id, earlier_digest, opener_digest FROM {_EXCHANGES} "
            f"WHERE namespace_id = %s AND earlier_digest IN ({marks(earlier)}) "
            f"AND opener_digest IN ({marks(openers)}) AND session_id IS NOT NULL "
            "AND created_at >= %s",
            [namespace.pk, *earlier, *openers, _since(TURN_WINDOW)],
        ):
            at = turns.get((digest, opener))
            if at is not None and at > reach.get(session_id, 0):
                reach[session_id] = at
    if not reach:
        return None
    ids = list(reach)
    candidates = with_sessions(
        read_models(ProxySession, "p", f"WHERE p.session_id IN ({marks(ids)})", ids)
    )
    claimed = _claimed(candidates, key)
    free = [c for c in candidates if c.session_id not in claimed]
    if not free:
        return None
    return max(free, key=lambda c: (reach[c.session_id], c.last_request_at, c.pk))


def _named(namespace: Namespace, external_id: str, data: ExchangeIn) -> Session:
    session, _ = Session.objects.get_or_create(namespace=namespace, external_id=external_id)
    proxy_session_touch(session, data, named=True)
    return session


def proxy_session_touch(session: Session, data: ExchangeIn, *, named: bool) -> ProxySession:
    """The session's proxy record, made on its first proxied request (its conversation so far
    is the request's history), else marked as used now."""
    now = timezone.now()
    proxy = proxy_session_of(session.pk)
    if proxy is None:
        (made,) = insert_rows(
            [
                ProxySession(
                    session=session,
                    namespace=data.namespace,
                    protocol=data.protocol,
                    named=named,
                    base_digest=data.key.earlier,
                    digest=data.key.earlier,
                    last_request_at=now,
                )
            ]
        )
        return made
    update_row(ProxySession, proxy.pk, last_request_at=now, protocol=data.protocol)
    proxy.last_request_at, proxy.protocol = now, data.protocol
    return proxy


@dataclass(frozen=True)
class Found:
    """Where a request belongs, read without writing (`exchange_find`)."""

    session: Session | None  # None: a new session begins (or none, with capture off)
    found_by: str
    earlier: ProxyExchange | None


def _find(namespace: Namespace, data: ExchangeIn) -> Found:
    earlier = _same_turn(namespace, data.key)
    if data.named_session is not None:
        named = Session.objects.filter(namespace=namespace, external_id=data.named_session)
        return Found(named.first(), "named", earlier)
    if earlier is not None and earlier.session is not None:
        return Found(earlier.session, "turn", earlier)
    if (match := _by_history(namespace, data.key)) is not None:
        return Found(match.session, "history", earlier)
    return Found(None, "new" if data.capture else "none", earlier)


def exchange_find(data: ExchangeIn) -> Found:
    """The request's session as `exchange_open` would find it now, without claiming it: the
    proxy builds the memory to inject for it while `exchange_open` records the claim."""
    return _find(data.namespace, data)


def exchange_open(data: ExchangeIn) -> Opened:
    """Find (or begin) the request's session and record the exchange that claims it, in one
    transaction under the namespace lock, so two requests never claim one session."""
    namespace = data.namespace
    with write_transaction():
        namespace_lock(namespace.pk)
        found = _find(namespace, data)
        session = found.session
        if found.found_by == "named":
            session = _named(namespace, str(data.named_session), data)
        elif session is not None:
            proxy_session_touch(session, data, named=False)
        elif found.found_by == "new":
            (session,) = insert_rows([Session(namespace=namespace, external_id=new_session_id())])
            proxy_session_touch(session, data, named=False)
        (exchange,) = insert_rows(
            [
                ProxyExchange(
                    namespace=namespace,
                    session=session,
                    protocol=data.protocol,
                    model=data.model[:200],
                    stream=data.stream,
                    earlier_digest=data.key.earlier,
                    opener_digest=data.key.opener,
                    capture=data.capture,
                )
            ]
        )
    return Opened(
        exchange=exchange, session=session, found_by=found.found_by, earlier=found.earlier
    )
