"""Highlighting marks exactly what the analyzer matches (SPEC §8.1): stems, case, dates, Han
character bigrams; it never changes the text and never turns it into markup."""

from __future__ import annotations

import pytest

from memory.search.highlight import ELLIPSIS, Segment, highlight, query_words, snippet


def marked(segments: list[Segment]) -> list[str]:
    return [s.text for s in segments if s.matched]


@pytest.mark.parametrize(
    ("text", "query", "expected"),
    [
        # English words match by their Snowball stem, whatever the case.
        ("We are switching to Postgres now", "switched postgres", ["switching", "Postgres"]),
        ("Switched the package manager", "switch", ["Switched"]),
        ("THE Switch", "the switch", ["Switch"]),  # stop words never match
        ("Databases and a database", "database", ["Databases", "database"]),
        ("npm, pnpm and npmjs", "npm", ["npm"]),  # whole words, not substrings
        ("Don’t stop", "dont", ["Don’t"]),  # typographic apostrophes fold like the analyzer's
        # Full-width letters and composed/decomposed accents fold with NFKC.
        ("ＡＢＣ Café and cafe\u0301 ok", "abc café", ["ＡＢＣ", "Café", "cafe\u0301"]),
        # Han text: the characters covered by the query's bigrams.
        ("我们用数据库吧", "数据库", ["数据库"]),
        ("数据和据库", "数据库", ["数据", "据库"]),
        ("好，我们开始", "好", ["好"]),  # a one-character run is its own term
        ("数据库", "库", []),  # … but a single character inside a longer run is not
        ("用Postgres吧", "postgres", ["Postgres"]),  # mixed scripts split like the analyzer
        ("决定用 PostgreSQL 存储数据", "PostgreSQL 存储", ["PostgreSQL", "存储"]),
        # Dates are normalised: 2023/5/8, 2023-05-08 and 2023年5月8日 are one term.
        ("Released 2023/5/8 and 2023年5月8日发布", "2023-05-08", ["2023/5/8", "2023年5月8日"]),
        ("于2023/5/8发布", "2023-05-08", ["2023/5/8"]),
        ("on 2023.05.08", "2023年5月8日", ["2023.05.08"]),
        ("2023-13-40 is not a date", "2023-05-08", []),
        # Markup is plain text: only the word is marked, the brackets stay outside.
        ('<script>alert("xss")</script>', "script", ["script", "script"]),
        ("<img src=x onerror=alert(1)>", "onerror", ["onerror"]),
        ("", "anything", []),
        ("nothing matches here", "", []),
        ("nothing matches here", "the of and", []),
    ],
)
def test_highlight_marks_what_the_analyzer_matches(text, query, expected):
    segments = highlight(text, query)

    assert marked(segments) == expected
    assert "".join(s.text for s in segments) == text  # the text comes back unchanged


def test_segments_alternate_between_plain_and_marked_text():
    assert highlight("a <b>Postgres</b> db", "postgres") == [
        Segment("a <b>", False),
        Segment("Postgres", True),
        Segment("</b> db", False),
    ]


def test_adjacent_bigram_matches_merge_into_one_mark():
    assert highlight("用数据库吧", "数据库") == [
        Segment("用", False),
        Segment("数据库", True),
        Segment("吧", False),
    ]


FILLER = " ".join(["filler"] * 200)


@pytest.mark.parametrize(
    ("text", "query", "width", "starts_cut", "ends_cut", "expected"),
    [
        ("short postgres text", "postgres", 240, False, False, ["postgres"]),
        (f"{FILLER} we switched to postgres here {FILLER}", "postgres switch", 80, True, True,
         ["switched", "postgres"]),
        (f"postgres first {FILLER}", "postgres", 80, False, True, ["postgres"]),
        (f"{FILLER} postgres last", "postgres", 80, True, False, ["postgres"]),
        (f"{FILLER} {FILLER}", "absent", 80, False, True, []),
        ("的" * 200 + "我们用数据库吧" + "的" * 200, "数据库", 40, True, True, ["数据库"]),
        ("数据" * 200 + "我们用数据库吧", "数据库", 40, False, True, None),  # one long match
    ],
)  # fmt: skip
def test_snippet_shows_the_window_around_the_matches(
    text, query, width, starts_cut, ends_cut, expected
):
    segments = snippet(text, query, width)

    shown = "".join(s.text for s in segments)
    assert (segments[0].text == ELLIPSIS) is starts_cut
    assert (segments[-1].text == ELLIPSIS) is ends_cut
    assert len(shown) <= width + 2 * len(ELLIPSIS) + 40  # may stretch to a word edge
    if expected is not None:
        assert marked(segments) == expected


def test_snippet_picks_the_window_with_the_most_matches():
    text = f"postgres once {FILLER} postgres and postgres and postgres together {FILLER}"

    segments = snippet(text, "postgres", 80)

    assert marked(segments) == ["postgres"] * 3
    assert "together" in "".join(s.text for s in segments)


def test_snippet_collapses_whitespace_and_never_cuts_a_match():
    text = "line one\n\n   postgres    here\n" + "x" * 300

    segments = snippet(text, "postgres", 30)

    assert "\n" not in "".join(s.text for s in segments)
    assert "postgres" in marked(segments)


def test_query_words_name_the_words_behind_each_term():
    assert query_words("Switched 数据库 2023/5/8 the") == {
        "switch": "Switched",
        "数据": "数据",
        "据库": "据库",
        "2023-05-08": "2023/5/8",
    }


def test_a_very_long_text_is_looked_at_around_its_first_match():
    text = "filler words here. " * 5000 + "we switched to postgres" + " tail" * 100

    segments = snippet(text, "postgres switched", 80)

    assert marked(segments) == ["switched", "postgres"]
    assert segments[0].text == ELLIPSIS and segments[-1].text == ELLIPSIS
