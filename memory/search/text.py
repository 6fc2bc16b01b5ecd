"""The one text analyzer, used at index and at query time, so SQLite and PostgreSQL index and
look up exactly the same terms (SPEC §8.1).

A term is one of: an English word's Snowball stem (other Latin/other-script words as they are,
numbers as written), an ISO date (`2023-05-08`, `2023-05`), or a Han/kana character bigram
(a one-character run stays one character). Terms never contain whitespace, quotes or any ASCII
punctuation except the `-` inside dates, so the databases can split them on spaces alone.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

import snowballstemmer

MAX_TERM_CHARS = 64
MAX_QUERY_TERMS = 32

# Small on purpose: words so common they would match nearly everything. Question words are
# here too ("when did we…"); month names and "may" are not (they are dates).
_STOP_WORDS_TEXT = """
    a an and are as at be been but by can could did do does doing for from had has have having
    he her hers him his how i if in into is it its itself me my of on or our ours she so than
    that the their theirs them then there these they this those to too us was we were what when
    where which who whom why with would you your yours s t
"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())

_WS = re.compile(r"\s+")
# Han (unified, extension A, compatibility, supplementary planes) and Japanese kana.
_CJK_CLASS = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0002ebef\U00030000-\U0003134f"
)
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
_TOKEN = re.compile(
    r"(?P<iso>(?<![\w-])(?P<y>\d{4})[-/.](?P<m>\d{1,2})(?:[-/.](?P<d>\d{1,2}))?(?![\w-]))"
    r"|(?P<zh>(?P<zy>\d{4})\s*年\s*(?P<zm>\d{1,2})\s*月(?:\s*(?P<zd>\d{1,2})\s*[日号])?)"
    f"|(?P<cjk>[{_CJK_CLASS}]+)"
    r"|(?P<word>[^\W_]+(?:'[^\W_]+)*)"
)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_LATIN = re.compile(r"^[a-z\u00df-\u024f']+$")
MONTHS = (  # English month names, January first
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)

_local = threading.local()


def normalize(text: str) -> str:
    """NFKC, lower-case, whitespace collapsed and trimmed."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).lower()).strip()


def _stemmer() -> snowballstemmer.stemmer:
    # Snowball stemmer objects keep state between calls: one per thread.
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    return stemmer


@lru_cache(maxsize=65536)
def _word_term(word: str) -> str:
    """A word's term ('' when it is a stop word): English stem for Latin-script words."""
    if word in STOP_WORDS:
        return ""
    if _LATIN.match(word):
        word = _stemmer().stemWord(word)
    word = word.replace("'", "")
    if word in STOP_WORDS:
        return ""
    return word[:MAX_TERM_CHARS]


def _iso(year: str, month: str, day: str | None) -> str | None:
    m = int(month)
    if not 1 <= m <= 12:
        return None
    if day is None:
        return f"{year}-{m:02d}"
    d = int(day)
    if not 1 <= d <= 31:
        return None
    return f"{year}-{m:02d}-{d:02d}"


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


# The same texts are analyzed again and again: a context call analyzes its (long) query seven
# times and every candidate's names and titles, and indexing a message re-indexes its
# neighbours, whose documents hold its text too. `_analyze` is pure, so texts up to
# CACHED_TEXT_CHARS are remembered (at most CACHED_TEXTS of them: ≤ 16 M characters).
CACHED_TEXT_CHARS = 16_384
CACHED_TEXTS = 1024


def analyze(text: str) -> list[str]:
    """Terms of `text` in order, repeats kept (term frequency matters to ranking)."""
    if len(text) <= CACHED_TEXT_CHARS:
        return list(_analyze_cached(text))
    return _analyze(text)


@lru_cache(maxsize=CACHED_TEXTS)
def _analyze_cached(text: str) -> tuple[str, ...]:
    return tuple(_analyze(text))


def _analyze(text: str) -> list[str]:
    terms: list[str] = []
    # `[^\W_]` also matches CJK: spacing the runs out keeps "用postgres" two tokens.
    normal = _CJK_RUN.sub(r" \g<0> ", normalize(text).translate(_APOSTROPHES))
    for match in _TOKEN.finditer(normal):
        if match.group("iso") is not None:
            iso = _iso(match.group("y"), match.group("m"), match.group("d"))
            # Not a date after all ("2023-13-40"): keep its numbers.
            terms.extend([iso] if iso else re.findall(r"\d+", match.group("iso")))
        elif match.group("zh") is not None:
            iso = _iso(match.group("zy"), match.group("zm"), match.group("zd"))
            terms.extend([iso] if iso else re.findall(r"\d+", match.group("zh")))
        elif match.group("cjk") is not None:
            terms.extend(_bigrams(match.group("cjk")))
        else:
            term = _word_term(match.group("word"))
            if term:
                terms.append(term)
    return terms


def query_terms(text: str) -> list[str]:
    """Distinct terms of a query, in first-seen order, at most MAX_QUERY_TERMS."""
    return list(dict.fromkeys(analyze(text)))[:MAX_QUERY_TERMS]


def _day(value: date | datetime) -> date:
    if isinstance(value, datetime):
        return (value.astimezone(UTC) if value.tzinfo else value).date()
    return value


def month_term(month: int) -> str:
    return _word_term(MONTHS[month - 1])


def date_terms(start: date | datetime | None, end: date | datetime | None = None) -> list[str]:
    """Terms for a day or an interval: each year, month (`2023-05`, and its name) and day
    (`2023-05-08`) it covers, as far as that stays short (≤ 31 days, ≤ 36 months, ≤ 10 years)."""
    if start is None:
        if end is None:
            return []
        start = end
    first = _day(start)
    last = _day(end) if end is not None else first
    if last < first:
        first, last = last, first
    terms: list[str] = []
    if last.year - first.year < 10:
        terms.extend(str(y) for y in range(first.year, last.year + 1))
    months = (last.year - first.year) * 12 + last.month - first.month + 1
    if months <= 36:
        y, m = first.year, first.month
        for _ in range(months):
            terms.extend([f"{y}-{m:02d}", month_term(m)])
            y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    if (last - first).days <= 31:
        day = first
        while day <= last:
            terms.append(day.isoformat())
            day += timedelta(days=1)
    return list(dict.fromkeys(terms))
