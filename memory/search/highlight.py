"""Which words of a text a search matched, for showing hits with their matches marked.

A word is marked when the analyzer (`memory.search.text`, SPEC §8.1) turns it into a term the
query also has — so "switching" is marked for a query "switched" (same stem), `2023/5/8` for a
query `2023-05-08` (same date), and in Han/kana text the characters covered by a character
bigram the query also has (`数据库` inside `我们用数据库吧` for a query `数据库`). Nothing is
marked that the search itself would not match: a one-character Han query matches only
one-character Han runs, exactly as the index does.

Pure: no Django. Results are plain text segments; whoever renders them escapes the text.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

# The analyzer's own token pattern and folding, so highlighting can never drift from indexing.
from memory.search.text import _APOSTROPHES, _CJK_RUN, _TOKEN, analyze, query_terms

ELLIPSIS = "…"
MAX_WIDEN = 64  # a snippet's edge moves out to the end of a match at most this long
SCAN_CHARS = 20_000  # a snippet of a longer text looks only at this much of it
_WS = re.compile(r"\s+")


class Segment(NamedTuple):
    text: str
    matched: bool


@dataclass(frozen=True)
class _Folded:
    """`text` as the analyzer tokenises it, with a way back to the original offsets."""

    text: str  # NFKC, lower-case, apostrophes unified, Han/kana runs spaced out
    inserted: list[int]  # positions in `text` of the spaces put around Han/kana runs
    starts: list[int] | None  # per folded character, its original start (None: identity)
    ends: list[int] | None

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the folded span [start, end) (which holds no added space)."""
        first = start - bisect.bisect_left(self.inserted, start)
        last = end - 1 - bisect.bisect_left(self.inserted, end - 1)
        if self.starts is None or self.ends is None:
            return first, last + 1
        return self.starts[first], self.ends[last]


@lru_cache(maxsize=1)
def _marks() -> re.Pattern[str]:
    """Characters that can join the character before them under NFKC: combining marks (Mn, Mc,
    Me) and Hangul vowel/final jamo. Built once, on first need."""
    ranges: list[str] = []
    start = None
    # Past U+1F000 only the variation selectors supplement (U+E0100–E01EF) holds marks.
    for code in [*range(0x1F000), *range(0xE0100, 0xE01F1)]:
        joins = code <= 0xE01EF and (
            unicodedata.category(chr(code)) in ("Mn", "Mc", "Me")
            or 0x1160 <= code <= 0x11FF
            or 0xD7B0 <= code <= 0xD7FF
        )
        if joins and start is None:
            start = code
        elif not joins and start is not None:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(code - 1))}")
            start = None
    return re.compile(f"[{''.join(ranges)}]")


def _fold_chars(text: str) -> tuple[str, list[int] | None, list[int] | None]:
    """NFKC + lower-case + apostrophes, and a way back to the original offsets.

    Offsets stay the same when the text is already NFKC, or when NFKC keeps its length and no
    character can join the one before it (then no character expanded either: full-width
    punctuation, compatibility ideographs …) — and lower-casing keeps the length. Otherwise
    each base character with its marks is folded on its own and every folded character
    remembers where it came from."""
    normal = text if unicodedata.is_normalized("NFKC", text) else None
    if normal is None:
        folded = unicodedata.normalize("NFKC", text)
        if len(folded) == len(text) and not _marks().search(text):
            normal = folded
    if normal is not None:
        lowered = normal.lower()
        if len(lowered) == len(text):
            return lowered.translate(_APOSTROPHES), None, None
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    marks = _marks()
    i = 0
    while i < len(text):
        j = i + 1
        while j < len(text) and marks.match(text, j):
            j += 1
        piece = _fold_piece(text[i:j])
        out.append(piece)
        starts.extend([i] * len(piece))
        ends.extend([j] * len(piece))
        i = j
    return "".join(out), starts, ends


@lru_cache(maxsize=4096)
def _fold_piece(piece: str) -> str:
    return unicodedata.normalize("NFKC", piece).lower().translate(_APOSTROPHES)


def _fold(text: str) -> _Folded:
    chars, starts, ends = _fold_chars(text)
    pieces: list[str] = []
    inserted: list[int] = []
    at = 0  # position in chars
    length = 0  # length of what is in pieces
    for run in _CJK_RUN.finditer(chars):
        before = chars[at : run.start()]
        pieces.append(before)
        length += len(before)
        inserted.append(length)
        inserted.append(length + 1 + len(run.group()))
        pieces.append(f" {run.group()} ")
        length += len(run.group()) + 2
        at = run.end()
    pieces.append(chars[at:])
    return _Folded("".join(pieces), inserted, starts, ends)


def _matched_spans(text: str, terms: frozenset[str]) -> list[tuple[int, int]]:
    """Original [start, end) spans of the matched words and bigram characters, merged."""
    if not terms or not text:
        return []
    folded = _fold(text)
    pairs = _pairs(terms)
    spans: list[tuple[int, int]] = []
    token_terms: dict[str, list[str]] = {}
    for match in _TOKEN.finditer(folded.text):
        run = match.group("cjk")
        if run is not None:
            if len(run) == 1:
                if run in terms:
                    spans.append(folded.original(match.start(), match.end()))
                continue
            if pairs is not None:
                for pair in pairs.finditer(run):
                    start = match.start() + pair.start()
                    spans.append(folded.original(start, start + 2))
            continue
        token = match.group(0)
        found = token_terms.get(token)
        if found is None:
            found = token_terms[token] = analyze(token)
        if any(term in terms for term in found):
            spans.append(folded.original(match.start(), match.end()))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@lru_cache(maxsize=128)
def _terms(query: str) -> frozenset[str]:
    return frozenset(query_terms(query))


@lru_cache(maxsize=128)
def _pairs(terms: frozenset[str]) -> re.Pattern[str] | None:
    """Finds, overlapping, every Han/kana bigram of a run that is one of `terms`."""
    bigrams = sorted(t for t in terms if len(t) == 2 and _CJK_RUN.fullmatch(t))
    if not bigrams:
        return None
    return re.compile(f"(?=(?:{'|'.join(re.escape(b) for b in bigrams)}))")


def _segments(text: str, spans: list[tuple[int, int]]) -> list[Segment]:
    out: list[Segment] = []
    at = 0
    for start, end in spans:
        if start > at:
            out.append(Segment(text[at:start], False))
        out.append(Segment(text[start:end], True))
        at = end
    if at < len(text):
        out.append(Segment(text[at:], False))
    return out


def highlight(text: str, query: str) -> list[Segment]:
    """`text` cut into segments, `matched` where the words match the query's terms. Joining
    the segments' text gives `text` back unchanged."""
    return _segments(text, _matched_spans(text, _terms(query)))


def has_match(text: str, query: str) -> bool:
    return bool(_matched_spans(text, _terms(query)))


def _window(spans: list[tuple[int, int]], length: int, width: int) -> tuple[int, int]:
    """The `width`-character window holding the most whole matches (the earliest on a tie),
    with some context before its first match."""
    best_count, best_i, best_j = 0, 0, 0
    j = 0
    for i, (start, _) in enumerate(spans):
        j = max(j, i)
        while j + 1 < len(spans) and spans[j + 1][1] - start <= width:
            j += 1
        # A single match longer than the window counts once.
        count = 1 if spans[j][1] - start > width else j - i + 1
        if count > best_count:
            best_count, best_i, best_j = count, i, j
    first = spans[best_i][0]
    covered_end = max(spans[best_j][1], first + 1)
    slack = max(0, width - (covered_end - first))
    start = max(0, first - min(slack // 2, width // 4))
    start = min(start, max(0, length - width))
    return start, min(length, start + width)


def _to_word_edges(text: str, start: int, end: int, slack: int) -> tuple[int, int]:
    """Move the cut points out of the middle of a word (by at most `slack` characters)."""
    if start > 0 and not text[start - 1].isspace():
        space = text.rfind(" ", max(0, start - slack), start)
        if space != -1:
            start = space + 1
    if end < len(text) and not text[end].isspace():
        space = text.find(" ", end, min(len(text), end + slack))
        if space != -1:
            end = space
    return start, end


def _region(text: str, terms: frozenset[str]) -> tuple[int, int]:
    """SCAN_CHARS of a very long text around the first place a query term seems to occur.
    A cheap, approximate look (stems are mostly prefixes of their words; dates written another
    way are missed); matching inside the region is exact again."""
    lowered = unicodedata.normalize("NFKC", text).lower()
    found = [i for term in terms if (i := lowered.find(term)) >= 0]
    at = round(min(found) * len(text) / len(lowered)) if found else 0
    start = max(0, min(at - SCAN_CHARS // 4, len(text) - SCAN_CHARS))
    return start, start + SCAN_CHARS


def snippet(text: str, query: str, width: int = 240) -> list[Segment]:
    """At most about `width` characters of `text` around its densest matches, whitespace
    collapsed, with "…" where text was left out; the start of the text when nothing matches.
    Texts over SCAN_CHARS are only looked at around their first likely match (bounded cost)."""
    terms = _terms(query)
    offset, limit = (0, len(text)) if len(text) <= SCAN_CHARS else _region(text, terms)
    part = text[offset:limit]
    spans = _matched_spans(part, terms)
    if len(part) <= width:
        start, end = 0, len(part)
    elif spans:
        start, end = _window(spans, len(part), width)
        start, end = _to_word_edges(part, start, end, slack=20)
        # Do not cut a word in two: widen to whole matches at the edges (a long run of
        # matching Han text may still be cut, or the snippet would have no bound).
        for s, e in spans:
            if s < start < e and e - s <= MAX_WIDEN:
                start = s
            if s < end < e and e - s <= MAX_WIDEN:
                end = e
    else:
        start, end = _to_word_edges(part, 0, width, slack=20)
    inside = [
        (max(s, start) - start, min(e, end) - start) for s, e in spans if s < end and e > start
    ]
    segments = [
        Segment(_WS.sub(" ", seg.text), seg.matched) for seg in _segments(part[start:end], inside)
    ]
    if segments and not segments[0].matched:
        segments[0] = Segment(segments[0].text.lstrip(), False)
    if segments and not segments[-1].matched:
        segments[-1] = Segment(segments[-1].text.rstrip(), False)
    if offset + start > 0:
        segments.insert(0, Segment(ELLIPSIS, False))
    if offset + end < len(text):
        segments.append(Segment(ELLIPSIS, False))
    return [seg for seg in segments if seg.text]


def query_words(query: str) -> dict[str, str]:
    """Each term of the query → the query's own words that gave it (for "matched: switched"
    rather than the stem "switch")."""
    folded = _fold(query)
    words: dict[str, str] = {}
    for match in _TOKEN.finditer(folded.text):
        start, end = folded.original(match.start(), match.end())
        original = query[start:end]
        run = match.group("cjk")
        if run is not None and len(run) > 1:
            for k in range(len(run) - 1):
                s, e = folded.original(match.start() + k, match.start() + k + 2)
                words.setdefault(run[k : k + 2], query[s:e])
            continue
        for term in analyze(match.group(0)):
            words.setdefault(term, original)
    return words
