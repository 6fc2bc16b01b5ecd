"""The offline processor for L0–L2 (SPEC §12.1): useful views with no model configured.

Pure and deterministic: the same L4 text always gives the same `BlockViewsOut` (no clock, no
network, no hash-order dependence). It works on the block's readable L4 (`Label: text`
paragraphs) in English and Chinese:
- keywords: stop-word-filtered Latin words plus Han terms (short Han runs whole, longer runs as
  character bigrams), ranked by frequency with earlier first position breaking ties;
- title: the sentence that best covers the top keywords and says more than names (user
  sentences, and sentences that fit, preferred), without its bracketed aside or speaker, cleaned
  of leading filler and cut to 60 characters; else the keywords; else a fixed fallback;
- tags: the top keywords the title does not already say;
- summary: extractive — the best-scoring sentences in original order, each line with who said it
  (the speaker a transcript line names, else the role label);
- key points: sentences carrying decision, preference, plan/deadline or outcome cues.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from memory.engine.prompts.block_views import BlockViewsOut

FALLBACK_TITLE = "Conversation block"
EMPTY_SUMMARY = "No readable content in this block."
TITLE_MAX = 60
SUMMARY_MAX = 600
# The summary (L1) compresses: at most this share of the block's L4 text (but never less than
# SUMMARY_MIN characters), so a short block's summary is not as long as the block itself.
SUMMARY_SHARE = 0.2
SUMMARY_MIN = 200
TAGS_MAX = 5
KEY_POINTS_MAX = 8
KEY_POINT_MAX_CHARS = 300
TOP_KEYWORDS = 15  # keywords that count towards sentence scores
CUE_BONUS = 0.75  # per cue category, as a share of the top keyword's weight
USER_BONUS = 1.2  # user sentences state intent; prefer them for the title and summary


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOP_WORDS = _words(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can cannot could did do does doing down during each either
    else even ever every few for from further get gets getting got had has have having he her
    here hers herself him himself his how however if in into is it its itself just least less
    let like likes made make many may maybe me might mine more most much must my myself need
    needs no nor not now of off on once one only or other our ours ourselves out over own per
    please quite rather really same see seem seems shall she should so some something such sure
    than thank thanks that the their theirs them themselves then there these they thing things
    think this those though through thus to too under until up upon us use used using very via
    want was way we well were what when where whether which while who whom whose why will with
    within without would yes yet you your yours yourself yourselves ok okay hi hello hey yeah
    right also actually already still got going goes go know let lets sure fine great good new
    help able etc http https www com write writes read pick try look put take give find keep
    call tell ask show say says saying start today day back nice cool lot bit sounds hope
    since anyway anyways lately kinda sorta gonna wanna gotta wait stay started starting
    """
)
# Chat interjections and praise: frequent in talk, never what a block is about.
STOP_WORDS |= _words(
    """
    wow woah whoa oof yay yep yup nope hmm haha hahaha lol omg btw congrats congratulations
    awesome amazing wonderful fantastic incredible totally definitely glad hear stoked bye
    goodbye
    """
)
# Cue verbs mark key points; they say nothing about the topic, so they are never keywords.
CUE_WORDS = _words(
    """
    decide decided decision agree agreed settled switch switched prefer prefers preferred
    preference hate hates love
    always never plan plans planned planning done fixed shipped completed complete finished
    resolved deadline tomorrow next week friday monday tuesday wednesday thursday saturday sunday
    """
)
# Han function characters and words: split Han runs here, so terms rarely straddle two words.
HAN_STOP_CHARS = "的了是我你他她它们这那在和与也就都着吗呢吧啊把被给让很还么哦嗯呀嘛或"
HAN_STOP_WORDS = (
    "我们 你们 他们 她们 它们 咱们 自己 这个 那个 这些 那些 这样 那样 什么 怎么 怎样 为什么 "
    "可以 需要 应该 因为 所以 如果 但是 然后 已经 还是 或者 而且 并且 就是 不是 没有 一下 一些 "
    "一个 现在 今天 时候 问题 感觉 觉得 知道 谢谢 好的 可能 比较 非常 决定 改用 选用 采用 喜欢 "
    "偏好 讨厌 总是 永远 计划 打算 准备 下周 明天 完成 修复 解决 上线 搞定 帮我 请问 一起 "
    "明白 收到 感谢 辛苦 没错 同意 就这样 对的 是的"
)

# L4 role labels (SPEC §3) and tool summary lines; other "Word:" openings are message text.
_LABEL_RE = re.compile(r"^(?P<label>User|Assistant|Tool(?: calls?| results?)?|System):[ \t]*")
# A sentence's lead says who or what, not what it is about: a bracketed aside at its start (a
# placeholder such as "[image]", a date stamp, an attachment's caption) and, at a message's
# start, a speaker's name and a colon (a transcript line, "Gina: …"). Neither gives keywords or
# a title; the aside stays in the sentence's text, the speaker becomes who said it.
_ASIDE_RE = re.compile(r"\[[^\[\]\n]{1,200}\][ \t]*")
_SPEAKER_RE = re.compile(
    r"(?P<name>[A-Z][A-Za-z'’.-]{1,30}(?: [A-Z][A-Za-z'’.-]{1,30})?):[ \t]+(?=\S)"
)
_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_SENTENCE_END_RE = re.compile(r"(?<=[。！？；])|(?<=[.!?;])(?=\s)")
_BULLET_RE = re.compile(r"^(?:[-*•]\s+|\d{1,3}[.)]\s+)")
_LATIN_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:['’][A-Za-z]+)?(?:[._-][A-Za-z0-9]+)*(?:\+\+|#)?")
_NAME_RE = re.compile(r"[A-Z0-9._+#]")
_HAN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_HAN_SPLIT_RE = re.compile(
    "|".join(sorted((re.escape(w) for w in HAN_STOP_WORDS.split()), key=len, reverse=True))
    + f"|[{re.escape(HAN_STOP_CHARS)}]"
)
_LEADING_FILLER_RE = re.compile(
    r"^(?:(?:ok(?:ay)?|so|hi|hello|hey|well|um+|uh+|alright|yeah|yes|sure|thanks|thank you|"
    r"please|好的|好|嗯+|那么|那|所以|请问|请)(?![A-Za-z])[\s,，.。!！:：;；—–-]*)+",
    re.IGNORECASE,
)

CUES: dict[str, re.Pattern[str]] = {
    "decision": re.compile(
        r"\blet['’]?s (?:use|go|do|switch|try|keep|stick|adopt|move|pick|make)\b"
        r"|\bswitch(?:ed|ing)? to\b|\bwe['’]ll go with\b|\bwe will go with\b|\bgo(?:ing)? with\b"
        r"|\bdecid(?:e|ed|ing)\b"
        r"|\bdecision\b|\bsettled on\b|\bagreed\b|\bwe['’]ll use\b|\bwe will use\b"
        r"|决定|改用|选用|采用|就用|确定用",
        re.IGNORECASE,
    ),
    "preference": re.compile(
        r"\bi(?: really)? (?:prefer|like|love|hate|dislike|want)\b|\bi['’]d (?:prefer|rather)\b"
        r"|\bi don['’]t (?:like|want)\b|\balways\b|\bnever\b|\bpreference\b"
        r"|喜欢|偏好|讨厌|不喜欢|总是|永远不|习惯",
        re.IGNORECASE,
    ),
    "plan": re.compile(
        r"\bwill\b|\bplan(?:s|ned|ning)?\b|\bnext (?:week|month|sprint|time)\b|\btomorrow\b"
        r"|\bby (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|eod|the end)\b"
        r"|\bdeadline\b|\bto-?do\b|计划|打算|准备|下周|明天|截止",
        re.IGNORECASE,
    ),
    "outcome": re.compile(
        r"\bdone\b|\bfixed\b|\bshipped\b|\bcompleted?\b|\bresolved\b|\bmerged\b|\bdeployed\b"
        r"|\bworks now\b|\bfinished\b|完成|修复|解决了|上线|搞定",
        re.IGNORECASE,
    ),
}


@dataclass(frozen=True, slots=True)
class _Sentence:
    index: int  # position in the block
    paragraph: int
    label: str  # "User", "Assistant", … or "" when the paragraph had no label
    who: str  # the speaker the message names (_SPEAKER_RE), else its label
    text: str  # without the speaker's name
    lead: int  # length of the text's bracketed aside (_ASIDE_RE), 0 when it has none
    terms: tuple[str, ...]  # keyword terms in order of appearance, with repeats
    names: tuple[str, ...]  # terms written like names (SQLite, Postgres mid-sentence, gpt-4)
    fragments: tuple[str, ...]  # Han bigrams cut from a longer run (may straddle two words)
    cues: tuple[str, ...]  # cue categories found, in CUES order


def offline_block_views(l4_text: str) -> BlockViewsOut:
    """Build L0–L2 for a block from its L4 text, deterministically and without a model."""
    sentences = _sentences(l4_text)
    weights = _keyword_weights(sentences)
    # The people talking are who, not what: their names are no keywords ("Thanks, Gina!").
    for sentence in sentences:
        if sentence.who != sentence.label:
            for word in sentence.who.lower().split():
                weights.pop(word, None)
    ranked = sorted(weights, key=lambda t: (-weights[t][0], weights[t][1]))
    top = {term: weights[term][0] for term in ranked[:TOP_KEYWORDS]}
    scores = [_sentence_score(s, top) for s in sentences]
    key_points = _key_points(sentences, scores)
    title = _title(sentences, scores, ranked)
    said = set(_terms(title)[0])  # the tags add to the title; they do not repeat it
    return BlockViewsOut(
        title=title,
        tags=[term.lower() for term in ranked[:TAGS_MAX] if term not in said],
        summary=_summary(sentences, scores, summary_budget(len(l4_text))),
        key_points=key_points,
        should_extract=bool(key_points),
    )


# -- segmentation ---------------------------------------------------------------------------


def _sentences(l4_text: str) -> list[_Sentence]:
    out: list[_Sentence] = []
    paragraphs = re.split(r"\n[ \t]*\n", l4_text.replace("\r\n", "\n").strip())
    label = who = ""
    for p_index, paragraph in enumerate(paragraphs):
        match = _LABEL_RE.match(paragraph)
        if match:  # an unlabelled paragraph continues the previous message
            label = who = match.group("label")
        body = _FENCE_RE.sub("\n", paragraph[match.end() :] if match else paragraph)
        opening = bool(match)  # the start of a message: where a speaker may be named
        for line in body.split("\n"):
            line = _BULLET_RE.sub("", line.strip())
            for piece in _SENTENCE_END_RE.split(line):
                text = piece.strip()
                if not text:
                    continue
                aside = _ASIDE_RE.match(text)
                lead = aside.end() if aside else 0
                named = _SPEAKER_RE.match(text, lead) if opening else None
                if named:
                    who, text = named.group("name"), text[:lead] + text[named.end() :]
                opening = False
                cues = tuple(name for name, pattern in CUES.items() if pattern.search(text))
                terms, names, fragments = _terms(text[lead:])
                out.append(
                    _Sentence(
                        len(out), p_index, label, who, text, lead, terms, names, fragments, cues
                    )
                )
    return out


def _terms(text: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Keyword terms of one sentence (lower-cased Latin words, Han terms) in text order, the
    ones written like a name or identifier, and the Han bigrams cut from longer runs."""
    found: list[tuple[int, str]] = []
    names: list[str] = []
    fragments: list[str] = []
    for match in _LATIN_RE.finditer(text):
        word = match.group()
        lowered = word.lower()
        if "'" in word or "’" in word or lowered in STOP_WORDS or lowered in CUE_WORDS:
            continue
        if len(word) < 3 and not (word.isupper() and len(word) == 2) and not word.endswith("#"):
            continue
        found.append((match.start(), lowered))
        if _NAME_RE.search(word[1:]) or (word[0].isupper() and match.start() > 0):
            names.append(lowered)
    for match in _HAN_RE.finditer(text):
        run, base = match.group(), match.start()
        cuts = [(m.start(), m.end()) for m in _HAN_SPLIT_RE.finditer(run)]
        bounds = zip(
            [0] + [end for _, end in cuts], [start for start, _ in cuts] + [len(run)], strict=True
        )
        for start, end in bounds:
            segment = run[start:end]
            if len(segment) < 2:
                continue
            if len(segment) <= 4:  # short runs between function words are usually one word
                found.append((base + start, segment))
            else:
                bigrams = [segment[i : i + 2] for i in range(len(segment) - 1)]
                found.extend((base + start + i, gram) for i, gram in enumerate(bigrams))
                fragments.extend(bigrams)
    found.sort(key=lambda item: item[0])
    return tuple(term for _, term in found), tuple(names), tuple(fragments)


# -- keywords and scores --------------------------------------------------------------------


def _keyword_weights(sentences: list[_Sentence]) -> dict[str, tuple[float, int]]:
    """term -> (weight, first position).

    Weight is the frequency, +0.5 for terms ever written like a name, -0.25 for Han bigrams that
    only ever appeared cut from a longer run (they may straddle a word boundary).
    """
    counts: dict[str, int] = {}
    first: dict[str, int] = {}
    names: set[str] = set()
    fragments: set[str] = set()
    whole: set[str] = set()
    position = 0
    for sentence in sentences:
        names.update(sentence.names)
        fragments.update(sentence.fragments)
        for term in sentence.terms:
            counts[term] = counts.get(term, 0) + 1
            first.setdefault(term, position)
            position += 1
        whole.update(t for t in sentence.terms if t not in sentence.fragments)

    def weight(term: str, count: int) -> float:
        bonus = 0.5 if term in names else 0.0
        penalty = 0.25 if term in fragments and term not in whole else 0.0
        return count + bonus - penalty

    return {term: (weight(term, count), first[term]) for term, count in counts.items()}


def _sentence_score(sentence: _Sentence, top: dict[str, float]) -> float:
    if not sentence.terms:
        return 0.0
    # Each mentioned top keyword adds its weight minus 0.5, so repeated terms dominate and a
    # sentence full of one-off words (or Han bigrams) does not win by sheer length.
    distinct = dict.fromkeys(t for t in sentence.terms if t in top)
    base = sum(top[t] - 0.5 for t in distinct) / math.sqrt(max(1.0, len(sentence.text) / 80))
    best = max(top.values(), default=1.0)
    score = base + CUE_BONUS * best * len(sentence.cues)
    return score * (USER_BONUS if sentence.label == "User" else 1.0)


# -- the views ------------------------------------------------------------------------------


def _title(sentences: list[_Sentence], scores: list[float], ranked: list[str]) -> str:
    """The best-scoring sentence that mentions a leading keyword, else the keywords themselves."""
    leaders = set(ranked[:5])
    best: tuple[float, int] | None = None
    choice = ""
    for sentence in sentences:
        # A sentence of names alone ("Wow, Jon!") says to whom, not about what.
        if not leaders.intersection(sentence.terms) or set(sentence.terms) <= set(sentence.names):
            continue
        # A sentence that fits reads better than one cut short: longer ones weigh less.
        score = scores[sentence.index] / max(1.0, len(sentence.text) / TITLE_MAX)
        key = (score, -sentence.index)
        if best is None or key > best:
            best, choice = key, sentence.text[sentence.lead :]
    title = _clean_title(choice)
    if not title and ranked:
        words = [t.capitalize() if t.isascii() else t for t in ranked[:3]]
        title = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return _cut(title, TITLE_MAX) or FALLBACK_TITLE


def _clean_title(text: str) -> str:
    text = _LEADING_FILLER_RE.sub("", text).strip()
    text = re.sub(r"[\s.。!！,，;；:：]+$", "", text)
    return text[:1].upper() + text[1:]


def summary_budget(l4_chars: int) -> int:
    """The summary's length limit in characters for a block whose L4 text is this long."""
    return min(SUMMARY_MAX, max(SUMMARY_MIN, round(SUMMARY_SHARE * l4_chars)))


def _summary(sentences: list[_Sentence], scores: list[float], budget: int) -> str:
    if not sentences:
        return EMPTY_SUMMARY
    order = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    if scores[order[0]] <= 0:  # nothing topical: lead summary
        order = list(range(len(sentences)))
    chosen: list[int] = []
    for i in order:
        if scores[i] <= 0 and chosen and scores[order[0]] > 0:
            break
        candidate = sorted([*chosen, i])
        if len(_render(sentences, candidate)) <= budget:
            chosen = candidate
    if not chosen:  # the single best sentence is longer than the budget on its own
        first = sentences[order[0]]
        prefix = f"{first.who}: " if first.who else ""
        return prefix + _cut(first.text, budget - len(prefix))
    return _render(sentences, chosen)


def _render(sentences: list[_Sentence], indexes: list[int]) -> str:
    """One line per paragraph run: `Label: s1 s2`; sentences keep their original order."""
    lines: list[str] = []
    last_paragraph = -1
    for i in indexes:
        sentence = sentences[i]
        if sentence.paragraph == last_paragraph:
            joiner = "" if lines[-1].endswith(("。", "！", "？", "；")) else " "
            lines[-1] += joiner + sentence.text
        else:
            prefix = f"{sentence.who}: " if sentence.who else ""
            lines.append(prefix + sentence.text)
        last_paragraph = sentence.paragraph
    return "\n".join(lines)


def _key_points(sentences: list[_Sentence], scores: list[float]) -> list[str]:
    candidates: list[int] = []
    seen: set[str] = set()
    for sentence in sentences:
        # A cue alone ("Done!") is not a fact: require at least one topical term.
        if not sentence.cues or not sentence.terms or sentence.text.casefold() in seen:
            continue
        seen.add(sentence.text.casefold())
        candidates.append(sentence.index)
    if len(candidates) > KEY_POINTS_MAX:
        by_weight = sorted(candidates, key=lambda i: (-len(sentences[i].cues), -scores[i], i))
        candidates = sorted(by_weight[:KEY_POINTS_MAX])
    points = []
    for i in candidates:
        sentence = sentences[i]
        prefix = f"{sentence.who}: " if sentence.who else ""
        points.append(prefix + _cut(sentence.text, KEY_POINT_MAX_CHARS - len(prefix)))
    return points


def _cut(text: str, limit: int) -> str:
    """Cut to `limit` characters, at a word boundary when there is one, marking the cut with …."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space >= limit // 2:
        head = head[:space]
    return head.rstrip(" ,，;；:：") + "…"
