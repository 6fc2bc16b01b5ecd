"""The search index holds what a reader is shown, redacted (SPEC §15.3): searching for part of
a secret finds nothing, so a search cannot confirm that a secret exists, while the ordinary
words around it still find their message, event or node. The rows keep the text as sent."""

from __future__ import annotations

import importlib
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection

from memory.engine.prompts.graph import GraphProposal
from memory.models import Event, Message
from memory.search import (
    analyze,
    reindex_namespace,
    search_events,
    search_messages,
    search_nodes,
)
from memory.services.graph import graph_apply
from tests.conftest import make_api

pytestmark = pytest.mark.django_db

PASSWORD = "Lm4Xz9Qw2Rt7Vb"
URL_PASSWORD = "Wq8Rt3Zm6Kp1"
TOKEN = "ghp_Vb4Nq8Rz2Lt6Wm1Xc9Kp3Hs7Jd5Fg0Ye2Ua"
SECRET_TEXT = (
    f"Deploy Orion to Frankfurt with password={PASSWORD}, the database at "
    f"postgres://atlas:{URL_PASSWORD}@db.example.com/app and the token {TOKEN}."
)
# Whole secrets, in other letter case, and a token's body without its prefix. (A query with
# the key or the user as well, `password=…`, finds what the word finds: see the guess test.)
FRAGMENTS = [
    PASSWORD,
    PASSWORD.lower(),
    URL_PASSWORD,
    TOKEN,
    TOKEN.removeprefix("ghp_"),
]
ORDINARY = ["Orion", "Frankfurt", "deploy", "atlas", "db.example.com"]


def _ids(hits: list[Any]) -> list[int]:
    return [h.object_id for h in hits]


def _secret_world(world: Any) -> Any:
    w = world()
    w.say(SECRET_TEXT, "Done, Orion is live in Frankfurt.")
    w.say("Lunch plans for Friday", "Pizza again.")
    return w


def test_a_secret_in_a_message_is_found_by_its_ordinary_words_and_never_by_itself(world):
    w = _secret_world(world)
    message = Message.objects.get(content=SECRET_TEXT)
    for fragment in FRAGMENTS:
        assert search_messages(w.pk, fragment) == [], fragment
    for word in ORDINARY:
        assert message.pk in _ids(search_messages(w.pk, word)), word
    # Storage keeps the source: the row holds every secret, byte for byte.
    message.refresh_from_db()
    assert message.content == SECRET_TEXT


def test_a_right_guess_and_a_wrong_guess_get_the_same_answer(world):
    """A query holding visible words and a guessed secret ranks on the visible words alone."""
    w = _secret_world(world)

    def answer(query: str) -> list[tuple[int, float]]:
        return [(h.object_id, h.score) for h in search_messages(w.pk, query)]

    for right, wrong in [
        (f"password={PASSWORD}", "password=Zz9Yy8Xx7Ww6"),
        (f"Orion atlas:{URL_PASSWORD}", "Orion atlas:Zz9Yy8Xx7Ww6"),
        (f"Frankfurt token {TOKEN}", "Frankfurt token ghp_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp"),
    ]:
        assert answer(right) == answer(wrong), right
        assert answer(right), right


def test_a_neighbour_does_not_carry_the_secret_into_its_own_document(world):
    """The assistant's reply is indexed with the user's message as its `before` text."""
    from memory.search.documents import MESSAGES
    from memory.search.index import message_documents

    _secret_world(world)
    reply = Message.objects.select_related("turn").get(content__startswith="Done, Orion")
    (document,) = message_documents([reply])
    fields = dict(zip((f.name for f in MESSAGES.fields), document.fields, strict=True))
    assert {"deploy", "orion", "frankfurt", "redact"} <= set(fields["before"])
    secret_terms = {t for fragment in FRAGMENTS for t in analyze(fragment)}
    assert not secret_terms & {t for terms in document.fields for t in terms}


def test_a_secret_in_an_event_or_a_node_is_not_searchable(world):
    w = world()
    event = w.event(
        "Orion deploy credentials",
        f"Orion deploys with password={PASSWORD} from Frankfurt.",
        tags=["deploy"],
        quotes=[f"the token is {TOKEN}"],
    )
    proposal = GraphProposal(
        nodes=[
            {"key": "orion", "name": "Orion", "type": "project", "source_event_ids": [event.pk]}
        ],
        facts=[
            {
                "node_key": "orion",
                "key": "database_url",
                "value": f"postgres://atlas:{URL_PASSWORD}@db.example.com/app",
                "source_event_ids": [event.pk],
            }
        ],
        edges=[],
    )
    graph_apply(namespace_id=w.pk, events=[event], proposal=proposal)
    for fragment in FRAGMENTS:
        assert search_events(w.pk, fragment) == [], fragment
        assert search_nodes(w.pk, fragment) == [], fragment
    assert _ids(search_events(w.pk, "Frankfurt")) == [event.pk]
    assert len(search_nodes(w.pk, "atlas")) == 1
    event.refresh_from_db()
    assert PASSWORD in event.summary and TOKEN in event.quotes[0]


def test_the_search_api_finds_nothing_for_a_secret_and_the_message_for_its_words(world):
    w = _secret_world(world)
    w.event("Orion deploy credentials", f"Orion deploys with password={PASSWORD}.")
    api = make_api("read", namespaces=(w.namespace.name,))
    for fragment in FRAGMENTS:
        for kind in ("raw", "events"):
            response = api.post(f"/ns/{w.namespace.name}/search/{kind}", {"query": fragment})
            assert response.status_code == 200, response.content
            assert response.json()["results"] == [], (kind, fragment)
    response = api.post(f"/ns/{w.namespace.name}/search/raw", {"query": "Orion Frankfurt"})
    assert response.status_code == 200
    shown = [r["message"]["content"] for r in response.json()["results"]]
    assert any("[REDACTED]" in text and "Frankfurt" in text for text in shown), shown
    assert PASSWORD not in response.content.decode()
    response = api.post(f"/ns/{w.namespace.name}/search/events", {"query": "Orion"})
    assert len(response.json()["results"]) == 1


def test_the_consistency_check_agrees_with_the_redacted_index(world):
    w = _secret_world(world)
    w.event("Orion deploy credentials", f"Orion deploys with password={PASSWORD}.")
    out = StringIO()
    call_command("check_consistency", "--namespace", w.namespace.name, stdout=out)
    assert out.getvalue() == f'namespace "{w.namespace.name}": consistent, no violations.\n'


class _Editor:
    """The schema editor's part the migration uses. VACUUM cannot run inside the test's
    transaction, so it is only recorded; SQLite's 'optimize' runs."""

    connection = connection

    def __init__(self) -> None:
        self.statements: list[str] = []

    def execute(self, sql: str) -> None:
        self.statements.append(sql)
        if not sql.startswith("VACUUM"):
            with connection.cursor() as cursor:
                cursor.execute(sql)


def test_the_migration_reindexes_an_index_built_before_redaction(world, monkeypatch):
    """0012 rebuilds every namespace's rows: an index built from raw text (as before it) no
    longer answers a secret, and answers ordinary words as before."""
    import memory.search.documents as documents

    one, two = _secret_world(world), world("two")
    two.say(f"Second namespace, same password={PASSWORD}")
    two.event("Orion deploy credentials", f"Orion deploys with password={PASSWORD}.")
    monkeypatch.setattr(documents, "_redacted", lambda text: text)
    for w in (one, two):
        reindex_namespace(w.pk)
        assert search_messages(w.pk, PASSWORD), "the raw index answered the secret"
    assert search_events(two.pk, PASSWORD)
    monkeypatch.undo()
    before = {w.pk: _ids(search_messages(w.pk, "Orion")) for w in (one, two)}

    migration = importlib.import_module("memory.migrations.0012_search_redacted_text")
    editor = _Editor()
    migration.rebuild(None, editor)
    expected = "INSERT INTO {0}({0}) VALUES('optimize')"
    if connection.vendor == "postgresql":
        expected = "VACUUM ANALYZE {0}"
    assert editor.statements == [expected.format(t) for t in migration.TABLES]

    for w in (one, two):
        for fragment in FRAGMENTS:
            assert search_messages(w.pk, fragment) == [], (w.namespace.name, fragment)
            assert search_events(w.pk, fragment) == [], (w.namespace.name, fragment)
        assert _ids(search_messages(w.pk, "Orion")) == before[w.pk]
    assert Event.objects.filter(summary__contains=PASSWORD).count() == 1
