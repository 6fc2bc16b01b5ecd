"""Raw message search: indexed by ingest in the turn's own transaction (SPEC §8.1–8.2)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection, transaction

from memory.models import Message, Session
from memory.search import search_messages
from memory.search.documents import MESSAGES
from tests.search.conftest import index_ids

pytestmark = pytest.mark.django_db


def _contents(hits):
    return [Message.objects.get(pk=h.object_id).content for h in hits]


def test_a_search_right_after_ingest_in_the_same_transaction_sees_the_message(world):
    w = world()
    with transaction.atomic():
        stored = w.say("We deployed the billing service to Frankfurt")
        hits = search_messages(w.pk, "Frankfurt")
        assert [h.object_id for h in hits] == [stored[0].pk]
    assert index_ids(MESSAGES.table) == {m.pk for m in stored}


def test_a_rolled_back_ingest_leaves_no_message_and_no_index_row(world):
    w = world()
    with pytest.raises(RuntimeError), transaction.atomic():
        w.say("This turn will be rolled back: kangaroo")
        assert search_messages(w.pk, "kangaroo")
        raise RuntimeError("caller failed after ingest")
    assert Message.objects.count() == 0
    assert index_ids(MESSAGES.table) == set()
    assert search_messages(w.pk, "kangaroo") == []


def test_stemming_lets_deploying_find_deployed(world):
    w = world()
    w.say("We deployed the gateway yesterday")
    w.say("Unrelated chat about lunch")
    assert _contents(search_messages(w.pk, "deploying")) == ["We deployed the gateway yesterday"]


def test_full_width_letters_match_their_ascii_form_both_ways(world):
    w = world()
    w.say("ＰｏｓｔｇｒｅＳＱＬ is our database")
    w.say("SQLite stays the default")
    assert _contents(search_messages(w.pk, "postgresql")) == [
        "ＰｏｓｔｇｒｅＳＱＬ is our database"
    ]
    assert _contents(search_messages(w.pk, "ＳＱＬｉｔｅ")) == ["SQLite stays the default"]


def test_a_chinese_query_finds_chinese_content_and_not_unrelated_chinese(world):
    w = world()
    w.say("我们决定把数据库迁移到云上")
    w.say("今天中午吃面条")
    w.say("English only message about databases")
    assert _contents(search_messages(w.pk, "数据库迁移")) == ["我们决定把数据库迁移到云上"]
    assert search_messages(w.pk, "天气预报") == []


def test_mixed_chinese_and_english_query_matches_either_script(world):
    w = world()
    w.say("我们用Postgres存数据")
    w.say("Postgres tuning notes")
    found = _contents(search_messages(w.pk, "Postgres 数据"))
    assert found[0] == "我们用Postgres存数据"  # matches both terms
    assert set(found) == {"我们用Postgres存数据", "Postgres tuning notes"}


@pytest.mark.parametrize(
    "query",
    [
        '"',
        '""',
        "*",
        "NEAR(",
        "NEAR(a b",
        "-",
        "foo -bar",
        "col:",
        ":",
        "a:b",
        "(",
        ")",
        "^x",
        "AND",
        "OR NOT",
        "{title}: x",
        "'",
        "\\",
        "%",
        "x' OR '1'='1",
        "\x00null",
    ],
)
def test_query_syntax_characters_never_raise(world, query):
    w = world()
    w.say("near the col a b x bar foo and or not title null")
    hits = search_messages(w.pk, query)
    assert all(h.score > 0 for h in hits)


@pytest.mark.parametrize("query", ["", "   ", "the of a", "what is it", "?!.,;"])
def test_an_empty_or_stop_word_only_query_returns_nothing(world, query):
    w = world()
    w.say("the of a what is it")
    assert search_messages(w.pk, query) == []


def test_no_padding_when_nothing_matches(world):
    w = world()
    w.say("alpha beta gamma")
    assert search_messages(w.pk, "zebra") == []


def test_namespaces_are_isolated(world):
    mine, theirs = world("mine"), world("theirs")
    mine.say("shared word octopus in mine")
    theirs.say("shared word octopus in theirs")
    assert _contents(search_messages(mine.pk, "octopus")) == ["shared word octopus in mine"]
    assert _contents(search_messages(theirs.pk, "octopus")) == ["shared word octopus in theirs"]


def test_session_filter_keeps_one_session(world):
    w = world()
    w.say("pelican in session one", session="one")
    w.say("pelican in session two", session="two")
    two = Session.objects.get(external_id="two")
    assert _contents(search_messages(w.pk, "pelican", session_pk=two.pk)) == [
        "pelican in session two"
    ]
    assert len(search_messages(w.pk, "pelican")) == 2


def test_the_session_date_is_searchable(world):
    w = world()
    w.say("talk on the sixth", when=datetime(2023, 5, 6, 13, 56, tzinfo=UTC))
    w.say("talk in june", when=datetime(2023, 6, 2, 9, 0, tzinfo=UTC))
    may_sixth = {"talk on the sixth", "Noted."}
    assert set(_contents(search_messages(w.pk, "2023-05-06"))) == may_sixth
    found = _contents(search_messages(w.pk, "what happened in May 2023?"))
    assert len(found) == 4 and set(found[:2]) == may_sixth  # may + 2023 beat 2023 alone


def test_hits_are_ranked_from_one_with_descending_positive_scores_and_a_limit(world):
    w = world()
    for n in range(8):
        w.say("heron " * (n + 1) + f"filler {n}", assistant=f"ack {n}")
    w.say("unrelated")
    hits = search_messages(w.pk, "heron", limit=5)
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    scores = [h.score for h in hits]
    assert all(s > 0 for s in scores) and scores == sorted(scores, reverse=True)
    assert search_messages(w.pk, "heron", limit=0) == []


def test_deleting_a_message_row_drops_its_index_row(world):
    w = world()
    stored = w.say("ephemeral walrus")
    Message.objects.filter(pk=stored[0].pk).delete()
    assert stored[0].pk not in index_ids(MESSAGES.table)
    assert search_messages(w.pk, "walrus") == []


def test_common_terms_beyond_the_gate_budget_rank_but_do_not_widen_the_match(world, monkeypatch):
    from memory.search import query

    w = world()
    for n in range(6):
        w.say(f"common chatter {n}", assistant=f"ack {n}")
    plain = w.say("a rare platypus sighting")[0]
    both = w.say("a rare platypus sighting, common too")[0]
    everything = search_messages(w.pk, "platypus common")
    assert len(everything) == 8  # within budget: plain BM25 over every term
    monkeypatch.setattr(query, "GATE_BUDGET", 3)
    gated = search_messages(w.pk, "platypus common")
    assert [h.object_id for h in gated] == [both.pk, plain.pk]  # the common term still ranks
    monkeypatch.setattr(query, "GATE_BUDGET", 0)
    assert len(search_messages(w.pk, "platypus common")) == 2  # the rarest term always gates


def test_activated_memory_gates_its_searches_within_the_context_budget(world, monkeypatch):
    """Activated memory's message, event and node searches gate within CONTEXT_GATE_BUDGET
    rows, the API's searches within GATE_BUDGET: with the context budget at 3, a row holding
    only the common term is no passage, though a search finds it."""
    from memory.models import Namespace
    from memory.recall import nodes
    from memory.search import query
    from memory.services import activation

    w = world()
    for n in range(6):
        w.say(f"common chatter {n}", assistant=f"ack {n}")
    plain = w.say("a rare platypus sighting")[0]
    both = w.say("a rare platypus sighting, common too")[0]
    budgets: list[tuple[str, int]] = []
    real = query._plan

    def plan(kind, namespace_id, text, gate_budget=None):  # type: ignore[no-untyped-def]
        budgets.append((kind.name, gate_budget))
        return real(kind, namespace_id, text, gate_budget)

    monkeypatch.setattr(query, "_plan", plan)
    monkeypatch.setattr(query, "CONTEXT_GATE_BUDGET", 3)
    for module in (activation, nodes):
        monkeypatch.setattr(module, "CONTEXT_GATE_BUDGET", 3)
    namespace = Namespace.objects.get(pk=w.pk)
    built = activation.activation_build(
        namespace=namespace, session=None, query="platypus common", record=False
    )
    assert [c["ref"] for c in built.passages] == [f"raw:{both.pk}", f"raw:{plain.pk}"]
    assert {kind for kind, _ in budgets} == {"message", "event", "node"}
    assert {budget for _, budget in budgets} == {3}
    assert len(search_messages(w.pk, "platypus common")) == 8


def test_document_counts_stop_at_the_cap(world):
    from memory.search.backend import backend

    w = world()
    for n in range(5):
        w.say(f"heron {n}", assistant="ok")
    assert backend().doc_counts(MESSAGES, w.pk, ["heron", "ok", "absent"], 3) == [3, 3, 0]
    assert backend().doc_counts(MESSAGES, w.pk, ["heron"], 100) == [5]


def test_unindexed_messages_vanish_from_search_until_indexed_again(world):
    from memory.search import index_messages, unindex_messages

    w = world()
    stored = w.say("ibis on the roof", assistant="an ibis indeed")
    unindex_messages([m.pk for m in stored])
    assert search_messages(w.pk, "ibis") == []
    assert Message.objects.count() == 2  # only the index row went
    index_messages(Message.objects.filter(pk__in=[m.pk for m in stored]))  # turns not cached
    assert {h.object_id for h in search_messages(w.pk, "ibis")} == {m.pk for m in stored}


def test_a_terms_row_count_holds_only_messages_that_say_it_themselves(world):
    """The gate counts rows holding a term in a field that makes hits: a neighbour's word
    (stored as a ranking-only term) neither counts nor makes a hit."""
    from memory.search.backend import backend
    from memory.search.text import query_terms

    w = world()
    w.say("The osprey came back to the nest", "Lovely.")  # "osprey" is in Lovely.'s neighbours
    for n in range(3):
        w.say(f"osprey sighting {n}", "Noted.")
    terms = query_terms("osprey lovely nest absent")  # analyzed as the index is
    assert backend().doc_counts(MESSAGES, w.pk, terms, 10) == [4, 1, 1, 0]
    assert "Lovely." not in _contents(search_messages(w.pk, "osprey"))
    assert "Lovely." in _contents(search_messages(w.pk, "lovely osprey"))


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's GIN indexes")
def test_postgres_search_indexes_keep_a_small_pending_list():
    """Every search scans a GIN index's pending list: 256 kB, not the server's 4 MB."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reloptions FROM pg_class WHERE relname LIKE 'memory_search_%_document'"
        )
        options = dict(cursor.fetchall())
    assert set(options) == {f"memory_search_{k}_document" for k in ("message", "event", "node")}
    assert all(o == ["gin_pending_list_limit=256"] for o in options.values())


@pytest.mark.parametrize("precount", [1, 2, 3, 4, 1000])
def test_a_long_query_ranks_on_its_rarest_terms_however_far_they_are_first_counted(
    world, monkeypatch, precount
):
    """Counting to PRECOUNT first picks the same terms, with the same counts, as counting each
    to the gate's budget, whether or not enough terms stay under it."""
    from memory.search import query
    from memory.search.backend import backend
    from memory.search.text import query_terms

    w = world()
    words = ["kestrel", "merlin", "hobby", "harrier", "buzzard", "eagle"]
    for n, word in enumerate(words):  # kestrel in 1 message … eagle in 6
        for k in range(n + 1):
            w.say(" ".join(words[n:]) if k == 0 else f"{word} {k}", "ok")
    monkeypatch.setattr(query, "RANKED_TERMS", 3)
    monkeypatch.setattr(query, "PRECOUNT", precount)
    terms = query_terms("eagle buzzard harrier hobby merlin kestrel")
    counted: query.Counted = {}
    assert query._rarest(MESSAGES, w.pk, terms, counted) == query_terms("hobby merlin kestrel")
    chosen = query_terms("hobby merlin kestrel")
    exact = backend().doc_counts(MESSAGES, w.pk, chosen, query.GATE_BUDGET + 1)
    assert query._counts(MESSAGES, w.pk, chosen, query.GATE_BUDGET + 1, counted) == exact


def test_a_long_query_ranks_on_words_memory_holds_not_on_words_nothing_holds(world, monkeypatch):
    """Words no row holds do not take the rarest slots of a long query: the question's own
    words are still ranked on, and still find their message."""
    from memory.search import query
    from memory.search.text import query_terms

    w = world()
    w.say("the osprey nest is on the water tower", "ok")
    w.say("osprey chicks hatched", "ok")
    monkeypatch.setattr(query, "RANKED_TERMS", 3)
    asked = "qwzx vrbl plokt osprey tower"
    assert query._rarest(MESSAGES, w.pk, query_terms(asked), {}) == query_terms("osprey tower")
    assert "the osprey nest is on the water tower" in _contents(search_messages(w.pk, asked))
    assert search_messages(w.pk, "qwzx vrbl plokt zzyq") == []


def test_a_large_namespaces_message_total_is_counted_once_a_minute(world, monkeypatch):
    """term_weights counts the namespace's messages; a large total is reused for a minute (the
    count is the one part of a context call that grows with the namespace), a small one is
    counted each time."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memory.search import query
    from memory.search.documents import MESSAGES

    w = world()
    w.say("the osprey nest is on the water tower", "ok")
    monkeypatch.setattr(query, "_TOTALS", {})
    counting = f"FROM {MESSAGES.base_table} WHERE namespace_id"

    def counts() -> int:
        with CaptureQueriesContext(connection) as seen:
            query.term_weights(w.pk, "osprey tower")
        return sum(counting in q["sql"] for q in seen.captured_queries)

    assert (counts(), counts()) == (1, 1)  # two messages: below TOTAL_REUSED_FROM
    monkeypatch.setattr(query, "TOTAL_REUSED_FROM", 2)
    assert (counts(), counts()) == (1, 0)
    clock = query.time.monotonic() + query.TOTAL_REUSED_SECONDS + 1
    monkeypatch.setattr(query.time, "monotonic", lambda: clock)
    assert counts() == 1


def test_a_large_namespaces_term_counts_are_reused_like_its_total(world, monkeypatch):
    """In a namespace whose total is reused, a term's count is too, for as long: a second
    context call with the same words counts no row, a new word is counted, and after a minute
    everything is counted again. A small namespace counts every time."""
    from memory.search import query

    w = world()
    w.say("the osprey nest is on the water tower", "ok")
    monkeypatch.setattr(query, "_TOTALS", {})
    monkeypatch.setattr(query, "_REMEMBERED", {})
    backend = query.backend()
    asked: list[list[str]] = []
    real = backend.doc_counts

    def doc_counts(kind, namespace_id, terms, cap):  # type: ignore[no-untyped-def]
        asked.append(list(terms))
        return real(kind, namespace_id, terms, cap)

    monkeypatch.setattr(backend, "doc_counts", doc_counts)

    def counted(text: str) -> list[list[str]]:
        asked.clear()
        weights = query.term_weights(w.pk, text)
        assert weights["osprey"] > 0 and weights["tower"] > 0
        return list(asked)

    tower = [["osprey", "tower"]]
    assert (counted("osprey tower"), counted("osprey tower")) == (tower, tower)  # small
    monkeypatch.setattr(query, "TOTAL_REUSED_FROM", 2)
    assert counted("osprey tower") == tower  # the total is taken after the counts
    assert counted("osprey tower") == tower  # now remembered
    assert counted("osprey tower") == []
    assert counted("osprey tower nest") == [["nest"]]
    assert query._REMEMBERED[("message", w.pk, "nest")][:2] == (1, query.GATE_BUDGET + 1)
    clock = query.time.monotonic() + query.TOTAL_REUSED_SECONDS + 1
    monkeypatch.setattr(query.time, "monotonic", lambda: clock)
    assert counted("osprey tower") == tower
