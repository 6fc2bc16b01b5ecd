"""What a stated preference is about: real noun phrases are accepted, fragments rejected."""

from __future__ import annotations

import pytest

from memory.engine.offline_phrases import noun_phrase, preferences, topic_of


@pytest.mark.parametrize(
    ("text", "topic", "value"),
    [
        ("I love live music.", "live music", "loves live music"),
        ("I love creating art!", "creating art", "loves creating art"),
        ("I love being a mom.", "being a mom", "loves being a mom"),
        ("I love to paint landscapes.", "paint landscapes", "loves to paint landscapes"),
        ("I prefer tabs over spaces.", "tabs", "prefers tabs over spaces"),
        ("I prefer Postgres over MySQL.", "database", "prefers PostgreSQL"),
        (
            "I love camping trips with my fam, 'cause nature brings such peace.",
            "camping trips",
            "loves camping trips with my fam",
        ),
        ("I love all the yellow leaves, it looks so cozy.", "yellow leaves",
         "loves all the yellow leaves"),
        ("I absolutely hate crowded beaches.", "crowded beaches", "dislikes crowded beaches"),
        ("I can't stand cilantro.", "cilantro", "dislikes cilantro"),
        ("I love the smell of rain.", "smell of rain", "loves the smell of rain"),
        ("I like being around friends.", "being around friends", "likes being around friends"),
        ("I never eat meat.", "eat meat", "never eat meat"),
        ("I'm a big fan of Japanese jazz from the seventies.", "japanese jazz",
         "likes Japanese jazz from the seventies"),
        ("My favourite band is Radiohead.", "band", "favourite: Radiohead"),
        ("Painting landscapes is my favorite!", "painting landscapes",
         "favourite: Painting landscapes"),
        ("我不喜欢吃香菜。", "香菜", "不喜欢吃香菜"),
        ("我特别喜欢听周杰伦的歌。", "听周杰伦的歌", "喜欢听周杰伦的歌"),
        ("周末我一般都去爬山。", "爬山", "通常都去爬山"),
        ("我最喜欢的菜是麻婆豆腐。", "菜", "最喜欢的菜：麻婆豆腐"),
    ],
)  # fmt: skip
def test_accepted_objects(text: str, topic: str, value: str) -> None:
    assert [(p.topic, p.value) for p in preferences(text)] == [(topic, value)]


@pytest.mark.parametrize(
    "text",
    [
        "I love it!",  # a pronoun
        "Yeah, I love to.",  # a bare function word (the old `preference:to`)
        "I love how you use it to tell your stories.",  # a clause (the old `preference:how…`)
        "I love that you chose pottery for your art.",  # a clause about the listener
        "I love how it's both a creative outlet and a form of therapy.",
        "I really like that idea.",  # points at something said, names nothing
        "I love all of them.",
        "I love you guys so much!",
        "I love your dress.",  # a compliment to the listener
        "I like the way you think.",
        "Being my own boss and doing something I love is awesome.",  # "love is awesome"
        "I enjoy it when it rains.",
        "I always thought that was a great idea.",  # a thought, not a habit
        "I like him.",
        "我喜欢这个。",
        "我喜欢你。",
        "太棒了，我也很喜欢。",
    ],
)
def test_rejected_objects(text: str) -> None:
    assert preferences(text) == []


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("hiking in the Dolomites", "hiking in the Dolomites"),
        ("the new office, it's bright", "the new office"),
        ("it", None),
        ("to", None),
        ("to paint", "to paint"),
        ("that you chose", None),
        ("how you use it", None),
        ("is awesome", None),
        ("your painting", None),
        ("", None),
    ],
)
def test_noun_phrase(phrase: str, expected: str | None) -> None:
    assert noun_phrase(phrase) == expected


def test_topics_drop_determiners_modifiers_and_keep_four_words() -> None:
    assert topic_of("all the yellow leaves") == "yellow leaves"
    assert topic_of("hiking in the Dolomites") == "hiking"
    assert topic_of("a really long list of very many words") == "really long list"


def test_one_statement_repeated_gives_one_preference() -> None:
    assert len(preferences("I love live music. I love live music!")) == 1
