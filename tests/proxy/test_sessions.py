"""Which session a proxied turn lands in: named by the header, or recognised by its history;
each turn stored exactly once however often it is sent."""

from __future__ import annotations

import threading
from collections import defaultdict

import pytest

from memory.models import Message, ProxyExchange, Session, Turn
from memory.services.proxy.sessions import ExchangeIn, TurnKey, exchange_open
from proxy.conversation import SEED
from tests.fakes.model_upstream import Answer, Call
from tests.proxy.conftest import namespace

pytestmark = pytest.mark.django_db(transaction=True)


def talk(client, history: list[dict], text: str, **kw) -> tuple[str, str]:
    """One turn of a conversation whose earlier messages are `history` (updated in place)."""
    history.append({"role": "user", "content": text})
    raw = client.chat.completions.with_raw_response.create(model="m", messages=history, **kw)
    answer = raw.parse().choices[0].message.content
    history.append({"role": "assistant", "content": answer})
    return answer, raw.headers.get("x-stratagate-session", "")


def session_texts(external_id: str) -> list[str]:
    return list(
        Message.objects.filter(session__external_id=external_id, role="user")
        .order_by("turn__session_turn")
        .values_list("content", flat=True)
    )


def test_the_session_header_wins(proxy, upstream):
    client = proxy.openai(default_headers={"X-StrataGate-Session": "agent-run-7"})
    history: list[dict] = []
    for text in ("one", "two"):
        _, session = talk(client, history, text)
        assert session == "agent-run-7"
    # Even a history StrataGate has never seen goes to the named session.
    talk(
        client,
        [{"role": "user", "content": "elsewhere"}, {"role": "assistant", "content": "ok"}],
        "three",
    )
    assert session_texts("agent-run-7") == ["one", "two", "three"]


def test_a_conversation_is_recognised_by_its_history(proxy, upstream):
    client = proxy.openai()
    first: list[dict] = []
    second: list[dict] = []
    sessions = {talk(client, first, f"first conversation, turn {n}")[1] for n in range(3)}
    other = {talk(client, second, f"second conversation, turn {n}")[1] for n in range(2)}
    assert len(sessions) == 1 and len(other) == 1 and sessions != other
    assert session_texts(sessions.pop()) == [f"first conversation, turn {n}" for n in range(3)]
    assert session_texts(other.pop()) == [f"second conversation, turn {n}" for n in range(2)]


def test_twenty_concurrent_conversations_on_one_token_keep_their_turns_apart(proxy, upstream):
    upstream.script(*[lambda seen: Answer(f"echo: {seen.json['messages'][-1]['content']}")] * 80)
    client = proxy.openai(max_retries=0)
    announced: dict[int, set[str]] = defaultdict(set)
    errors: list[BaseException] = []

    def converse(number: int) -> None:
        try:
            history: list[dict] = []
            for turn in range(4):
                _, session = talk(client, history, f"conversation {number} says thing {turn}")
                announced[number].add(session)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=converse, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert all(len(sessions) == 1 for sessions in announced.values())
    assert len({next(iter(s)) for s in announced.values()}) == 20
    wrong = 0
    for number, sessions in announced.items():
        texts = session_texts(next(iter(sessions)))
        wrong += sum(1 for t in texts if not t.startswith(f"conversation {number} says"))
        assert len(texts) == 4
    assert wrong == 0
    assert Turn.objects.count() == 80


def test_a_retry_and_a_resent_request_store_the_turn_once(proxy, upstream):
    upstream.script(Answer("first answer"), Answer("second answer"), Answer("third answer"))
    client = proxy.openai()
    request = [{"role": "user", "content": "what is our deploy target?"}]
    sessions = set()
    for _ in range(3):  # the same request three times: an SDK retry, a resend
        raw = client.chat.completions.with_raw_response.create(model="m", messages=request)
        sessions.add(raw.headers["x-stratagate-session"])
    proxy.settle()
    assert len(sessions) == 1
    assert Turn.objects.count() == 1
    assert list(Message.objects.filter(role="assistant").values_list("content", flat=True)) == [
        "first answer"
    ]
    states = list(ProxyExchange.objects.order_by("id").values_list("state", flat=True))
    assert states == ["captured", "duplicate", "duplicate"]


def test_a_resent_later_turn_is_stored_once_too(proxy, upstream):
    client = proxy.openai()
    history: list[dict] = []
    talk(client, history, "hello")
    talk(client, history, "tell me more")
    resend = history[:-1]  # the second request again, answered anew
    client.chat.completions.create(model="m", messages=resend)
    proxy.settle()
    assert Turn.objects.count() == 2


def test_turns_sent_with_capture_off_leave_a_gap_and_the_session_goes_on(proxy, upstream):
    client = proxy.openai()
    quiet = proxy.openai(default_headers={"X-StrataGate-Capture": "off"})
    history: list[dict] = []
    _, first = talk(client, history, "turn one")
    talk(quiet, history, "turn two, not stored")
    _, third = talk(client, history, "turn three")
    assert first == third
    assert session_texts(first) == ["turn one", "turn three"]


def test_an_abandoned_tool_loop_does_not_split_the_session(proxy, upstream):
    upstream.script(Answer("", tool_calls=[Call("c1", "slow_build", {})]), Answer("ok, stopped."))
    client = proxy.openai()
    history: list[dict] = [{"role": "user", "content": "build it"}]
    first = client.chat.completions.with_raw_response.create(model="m", messages=history)
    history.append(first.parse().choices[0].message.model_dump(exclude_none=True))
    history.append({"role": "tool", "tool_call_id": "c1", "content": "interrupted by user"})
    _, session = talk(client, history, "never mind, stop")
    assert session == first.headers["x-stratagate-session"]
    assert session_texts(session) == ["never mind, stop"]


def test_an_edited_history_begins_a_new_session(proxy, upstream):
    client = proxy.openai()
    history: list[dict] = []
    _, first = talk(client, history, "alpha")
    talk(client, history, "beta")
    edited = [{"role": "user", "content": "alpha (edited)"}, {"role": "assistant", "content": "ok"}]
    _, other = talk(client, edited, "gamma")
    assert other != first
    assert session_texts(other) == ["gamma"]


def key(*history: str, opener: str) -> TurnKey:
    return TurnKey(history=(SEED, *history), openers=tuple("o" for _ in history), opener=opener)


def test_two_requests_with_the_same_history_never_claim_one_session(transactional_db):
    from memory.services.namespaces import namespace_get_or_create

    ns = namespace_get_or_create(name="proj")

    def open_(k: TurnKey):
        return exchange_open(
            ExchangeIn(
                namespace=ns,
                protocol="openai",
                model="m",
                stream=False,
                key=k,
                named_session=None,
                capture=True,
            )
        )

    # Two sessions that both stored the same first turn (their conversations opened alike).
    a = open_(key(opener="o"))
    b = open_(key(opener="o2"))
    from memory.models import ProxySession

    ProxySession.objects.update(digest="d1")
    ProxyExchange.objects.update(state="captured")
    x = open_(key("d1", opener="x"))
    y = open_(key("d1", opener="y"))
    assert {x.session.pk, y.session.pk} == {a.session.pk, b.session.pk}
    assert x.found_by == y.found_by == "history"
    # A third request with that history finds both taken by turns under way: a new session.
    z = open_(key("d1", opener="z"))
    assert z.found_by == "new" and z.session.pk not in {a.session.pk, b.session.pk}
    # The next step of x's turn (same history and message) finds x's session again.
    again = open_(key("d1", opener="x"))
    assert (again.found_by, again.session.pk) == ("turn", x.session.pk)


def test_sessions_made_through_the_api_can_be_named_by_the_proxy(proxy, upstream, owner_client):
    owner_client.post(
        "/ns/proj/turns",
        {
            "session_id": "shared",
            "receipt_id": "r1",
            "messages": [{"role": "user", "content": "from the API"}],
        },
    )
    client = proxy.openai(default_headers={"X-StrataGate-Session": "shared"})
    talk(client, [], "from the proxy")
    assert session_texts("shared") == ["from the API", "from the proxy"]
    assert Session.objects.filter(external_id="shared").count() == 1
    assert namespace().sessions.count() == 1


@pytest.fixture
def owner_client(proxy):
    from django.test import Client

    from tests.conftest import ApiClient

    return ApiClient(token=proxy.token, client=Client())
