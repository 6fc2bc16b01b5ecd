"""A follow-up message search that adds terms to an earlier one (recall's feedback query) scores
only the earlier hits and the rows holding an added term, and returns exactly what the plain
search returns."""

from __future__ import annotations

import random

import pytest

from memory.models import Session
from memory.search import query
from memory.search.backend import backend
from memory.search.query import (
    search_messages,
    search_messages_ranking,
    search_messages_widened,
)

pytestmark = pytest.mark.django_db

# Skewed word frequencies, so gates hold one or a few terms and pools fill up.
WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
]
WEIGHTS = [1 / (n + 1) for n in range(len(WORDS))]


@pytest.fixture
def corpus(world):
    """300 messages of 3–12 words over two sessions (neighbours' words are ranking-only)."""
    w = world()
    rng = random.Random(5)

    def text() -> str:
        return " ".join(rng.choices(WORDS, WEIGHTS, k=rng.randint(3, 12)))

    for n in range(150):
        w.say(text(), text(), session=("s1", "s2")[n % 2])
    return w


@pytest.fixture
def spy(monkeypatch):
    """The `within` each backend search of the test was given."""
    seen: list[object] = []
    module = backend()
    real = module.search

    def search(*args, **kwargs):
        seen.append(kwargs.get("within"))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "search", search)
    return seen


def _queries(seed: int, count: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        first = rng.sample(WORDS, rng.randint(1, 4))
        added = rng.sample([w for w in WORDS[8:] if w not in first], rng.randint(1, 3))
        pairs.append((" ".join(first), " ".join([*first, *added])))
    return pairs


@pytest.mark.parametrize("budget", [5000, 120])
def test_the_widened_search_returns_the_plain_search_hits_and_scores(
    corpus, spy, monkeypatch, budget
):
    monkeypatch.setattr(query, "GATE_BUDGET", budget)
    s1 = Session.objects.get(namespace=corpus.namespace, external_id="s1").pk
    restricted = 0
    for first_query, second_query in _queries(budget, 40):
        for limit, session_pk in ((5, None), (20, None), (8, s1)):
            first = search_messages_ranking(
                corpus.pk, first_query, limit=limit, session_pk=session_pk
            )
            spy.clear()
            widened = search_messages_widened(first, second_query)
            plain = search_messages(corpus.pk, second_query, limit=limit, session_pk=session_pk)
            assert widened == plain, (first_query, second_query, limit, session_pk)
            restricted += spy[0] is not None
    # Both paths ran: most follow-ups were restricted, and the budget of 120 rows made some
    # added terms push an earlier gate term out (those were plain searches).
    assert restricted > 40
    if budget == 120:
        assert restricted < 120


def test_a_follow_up_that_moves_the_gate_is_a_plain_search(corpus, spy, monkeypatch):
    monkeypatch.setattr(query, "GATE_BUDGET", 60)
    india, kilo = backend().doc_counts(query.MESSAGES, corpus.pk, ["india", "kilo"], 61)
    assert india < kilo <= 60 < india + kilo  # "india" gates the follow-up alone
    first = search_messages_ranking(corpus.pk, "kilo", limit=10)
    assert first.gate == ("kilo",)
    spy.clear()
    widened = search_messages_widened(first, "kilo india")
    assert spy == [None]
    assert widened == search_messages(corpus.pk, "kilo india", limit=10)


def test_the_same_terms_again_reuse_the_hits_without_a_search(corpus, spy):
    first = search_messages_ranking(corpus.pk, "kilo lima", limit=10)
    spy.clear()
    assert search_messages_widened(first, "lima, kilo!") == first.hits
    assert spy == []


def test_a_first_search_without_terms_widens_to_the_plain_search(corpus):
    first = search_messages_ranking(corpus.pk, "the and of", limit=10)
    assert first.hits == [] and first.terms == ()
    assert search_messages_widened(first, "the zulu") == search_messages(
        corpus.pk, "zulu", limit=10
    )
    assert search_messages_widened(first, "and of") == []
