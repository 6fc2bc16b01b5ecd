"""Whether a memory matches a question for more than the people it names (SPEC §8.7's
relevance gate, measured in docs/EVALUATION.md).

In a conversation between a few people nearly every memory names one of them, so a question
such as "What did Caroline research?" matches every memory about Caroline through her name
alone. Such a memory says nothing about the question: when the question asks about something
besides the people, an activated item must match at least one of those other terms. A question
that is only a name ("Caroline?") keeps name matches.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable


def asks_beyond(query_terms: Iterable[str], names: Collection[str]) -> set[str]:
    """The query's terms that are not a person's name."""
    return {t for t in query_terms if t not in names}


def matches_beyond_names(
    query_terms: Collection[str], names: Collection[str], item_terms: Collection[str]
) -> bool:
    """True when the item shares a non-name term with the query, or the query has none."""
    return fields_match_beyond_names(query_terms, names, [item_terms])


def fields_match_beyond_names(
    query_terms: Collection[str], names: Collection[str], fields: Iterable[Collection[str]]
) -> bool:
    """`matches_beyond_names` over an item's fields, read one by one and no further than the
    first that shares a non-name term (`fields` may be a generator that analyzes lazily)."""
    content = asks_beyond(query_terms, names)
    return not content or any(not content.isdisjoint(terms) for terms in fields)
