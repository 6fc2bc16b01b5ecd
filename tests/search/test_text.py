"""The analyzer (SPEC §8.1): NFKC + lower-case, English stems, Han bigrams, stop words, dates."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memory.search import analyze
from memory.search.text import MAX_QUERY_TERMS, date_terms, normalize, query_terms


def test_normalize_applies_nfkc_lower_case_and_collapses_whitespace():
    assert normalize("  ＰｏｓｔｇｒｅＳＱＬ\u3000 uses\n\tＧＩＮ ") == "postgresql uses gin"


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("Deploying", ["deploy"]),
        ("deployed", ["deploy"]),
        ("The deployments", ["deploy"]),
        ("ＤＥＰＬＯＹＥＤ", ["deploy"]),  # full-width letters
        ("Caroline’s", ["carolin"]),  # curly apostrophe, possessive
        ("gpt4 v2", ["gpt4", "v2"]),
        ("a the of and what when", []),  # stop words only
        ("会", ["会"]),  # a one-character Han run stays one character
        ("会议", ["会议"]),
        ("数据库迁移", ["数据", "据库", "库迁", "迁移"]),
        ("用Postgres存数据", ["用", "postgr", "存数", "数据"]),
        ("東京タワー", ["東京", "京タ", "タワ", "ワー"]),
        ("on 2023-05-08.", ["2023-05-08"]),
        ("2023/5/8 and 2023-05", ["2023-05-08", "2023-05"]),
        ("2023年5月8日开会", ["2023-05-08", "开会"]),
        ("2023-13-40", ["2023", "13", "40"]),  # not a date
        ('"NEAR(a b) * -x : y', ["near", "b", "x", "y"]),
        ("", []),
    ],
)
def test_analyze_produces_these_terms(text, terms):
    assert analyze(text) == terms


def test_terms_never_carry_characters_the_databases_would_split_on():
    text = 'a "quoted" (paren) col:on {brace} it\'s 50% off — 1.5x'
    for term in analyze(text):
        assert not any(c.isspace() or c in "\"'(){}:%*^" for c in term), term


def test_query_terms_are_distinct_and_bounded():
    assert query_terms("deploy deployed deploying") == ["deploy"]
    many = " ".join(f"word{n}" for n in range(100))
    assert len(query_terms(many)) == MAX_QUERY_TERMS


def test_date_terms_cover_day_month_name_and_year():
    assert date_terms(datetime(2023, 5, 8, 10, tzinfo=UTC)) == [
        "2023",
        "2023-05",
        "may",
        "2023-05-08",
    ]


def test_date_terms_of_a_week_name_every_day_and_january_is_stemmed_like_the_query():
    terms = date_terms(date(2023, 12, 30), date(2024, 1, 2))
    assert terms[:2] == ["2023", "2024"]
    assert "2024-01-01" in terms and "2023-12-31" in terms
    assert analyze("January")[0] in terms


def test_long_intervals_keep_only_coarse_terms():
    terms = date_terms(date(2020, 1, 1), date(2023, 12, 31))
    assert terms == ["2020", "2021", "2022", "2023"]
    assert date_terms(None, None) == []


def test_remembered_analyses_are_fresh_lists_and_long_texts_analyze_the_same() -> None:
    from memory.search.text import CACHED_TEXT_CHARS

    first = analyze("Postgres migrations ran on 2024-05-08")
    first.append("tampered")
    assert analyze("Postgres migrations ran on 2024-05-08") == [
        "postgr",
        "migrat",
        "ran",
        "2024-05-08",
    ]
    sentence = "Caroline researched adoption agencies 在上海. "
    long_text = sentence * (CACHED_TEXT_CHARS // len(sentence) + 1)
    assert len(long_text) > CACHED_TEXT_CHARS
    assert analyze(long_text) == analyze(sentence) * (CACHED_TEXT_CHARS // len(sentence) + 1)
