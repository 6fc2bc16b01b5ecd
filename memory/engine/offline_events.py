"""Rule-based event extraction for the offline processor (SPEC §5, §12.1): no model, same output.

Each user or assistant message of the target block is cut into sentences; every sentence that
states a decision, change, cancellation, plan, preference, identity or safety fact, or a dated
first-person happening, becomes one event whose quote is the sentence verbatim and whose time is
resolved against *that message's* timestamp. Identical events within the block are merged.

Choices (SPEC silent):
- Questions and sentences where an assistant restates memory ("you said…") are not evidence.
- An assistant without a speaker name is the AI: its own "I like…" / "I am a…" is ignored, and
  it only states plans with an explicit future time. With a speaker name (imported human chats)
  both roles are people.
- Preferences, identity and safety facts have event type "other" (the eleven types describe
  happenings) and carry their nature in `criticality` and in a tag.
- Decisions and changes with no time wording are "occurred" (the decision is taken when said);
  with future wording they are "planned" and, like plans, never supersede anything.
- A plain relation statement without a cue word ("Priya owns the billing service", "账单服务
  依赖认证服务", see `memory.engine.offline_relations`) is an "ongoing" event of type "other".
- Chat is mostly not memory: resolutions and encouragement ("I'll do my best", "I won't give
  up", "I'll never forget") are plans only with a date, wishes and leave-taking never; a
  preference needs a real object (`memory.engine.offline_phrases`). Typed happenings without a
  date take their status from their tense; a recurrence ("every Tuesday") names no single day.
- A content that already starts with "<speaker>:" is classified and summarised without that
  label (the summary names the speaker once); the quote stays verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from memory.engine import offline_cues as cues
from memory.engine import talk_cues as talk
from memory.engine.changes import parse_change, stated_uses
from memory.engine.echoes import (
    ACK_OPEN,
    RESTATING,
    computed_answer,
    echo_words,
    echoes,
    numbers_in,
    restates_dated,
)
from memory.engine.event_types import NOT_CURRENT, SLOT_EVENT_TYPES
from memory.engine.hant import as_written, restored, simplified
from memory.engine.incidents import told_incident
from memory.engine.negation import third_person
from memory.engine.offline_phrases import preferences
from memory.engine.offline_relations import relations
from memory.engine.person_facts import person_relations
from memory.engine.plain_facts import states_plain_fact
from memory.engine.prompts.extraction import (
    MAX_EVENTS,
    MAX_TAGS,
    EventRelation,
    ExtractedEvent,
    ExtractionOut,
    clean_list,
)
from memory.engine.reschedule import moved_thing
from memory.engine.same_fact import completes, joins
from memory.engine.slot_supersession import TimelineEvent, detect_supersession
from memory.engine.slots import SlotChoice, project_name, slot_choices
from memory.engine.stated_results import states_result
from memory.engine.statements import facts_of, sentences, unquoted
from memory.engine.temporal import TemporalResolution, resolve_temporal, sentence_tense

__all__ = [
    "SourceMessage",
    "extract_events",
]

TITLE_MAX: Final = 80
_DONE_TYPES: Final = frozenset({"release", "task_completed"})


@dataclass(frozen=True, slots=True)
class SourceMessage:
    """One message of the target block as extraction sees it (L5, verbatim)."""

    id: int
    role: str
    content: str
    created_at: datetime
    speaker: str | None = None


@dataclass(frozen=True, slots=True)
class _Kind:
    event_type: str
    label: str  # decision, change, cancellation, plan, preference, identity, safety, typed, dated
    criticality: str = "routine"
    default_status: str = "unknown"


@dataclass
class _Draft:
    key: tuple[str, ...]
    event: dict[str, object]
    sources: list[int] = field(default_factory=list)
    quotes: list[str] = field(default_factory=list)
    participants: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    said: list[str] = field(default_factory=list)  # the sentences of its first message
    written: list[tuple[str, str]] = field(default_factory=list)  # as read, as written (`hant`)
    message_id: int | None = None


_HAN: Final = re.compile(r"[\u4e00-\u9fff]")
_SUBJECT: Final = re.compile(r"\b(?:I|I'm|my|My)\b|我(?!们)")  # 我们 is "we", not the speaker
# A subject other than the speaker right before a statement's cue, opening its clause: a name
# of one to three capitalised words, or a third-person pronoun.
_OTHER_SUBJECT: Final = re.compile(
    r"(?:^|[,;:—–]\s*)((?:[A-Z][\w'’-]*\s+){1,3}|(?:he|she|they|He|She|They)\s+)$"
)
_WORD: Final = re.compile(r"[a-z][a-z'+#.-]{3,}", re.IGNORECASE)


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().endswith(("?", "？"))


def _classify(
    sentence: str, *, person: bool, future: bool, dated: bool, past: bool, computed: bool = False
) -> _Kind | None:
    """The event kind a sentence states, by cue priority; None when it states none.

    Resolutions, encouragement and remembering ("I'll do my best", "I'll never forget") are
    plans only when they name a date; wishes and leave-taking never are. A preference needs a
    real object ("I love it" states none).
    """
    wish = bool(talk.WISH.search(sentence))
    vague = wish or (not dated and bool(cues.RESOLUTION.search(sentence)))
    if (
        not person
        and talk.RECOMMENDATION.search(sentence)
        and not talk.GENERIC_ADVICE.search(sentence)  # "扩容时…往往是瓶颈，建议…": for anyone
    ):
        # The assistant's own advice is new content for this user, not an echo of theirs.
        return _Kind("other", "recommendation")
    if computed:  # a figure the assistant worked out for the user ("That is 8 vCPUs in total")
        return _Kind("other", "computed")
    if not person and talk.GENERIC_ADVICE.search(sentence):
        # What holds for anyone ("Mobile shift swaps usually cut a lot of phone calls", "Many
        # elementary schools run a short welcome in late August"): nothing of the user's.
        return None
    if (
        cues.CANCELLATION.search(sentence)
        and not cues.CANCELLED_FOR.search(sentence)
        # The assistant's advice about what to do when something is called off cancels nothing.
        and (person or not talk.GENERIC_ADVICE.search(sentence))
    ):
        return _Kind("cancellation", "cancellation", default_status="cancelled")
    if person and not _is_question(sentence) and cues.INSTRUCTION.search(sentence):
        # How the assistant is to answer, for good: a preference to keep.
        return _Kind("other", "preference", "preference", "ongoing")
    if cues.DECISION.search(sentence):
        return _Kind("decision", "decision", default_status="occurred")
    if cues.MIGRATION.search(sentence):
        return _Kind("migration", "change", default_status="occurred")
    if (
        cues.CHANGE.search(sentence)
        or cues.CANCELLED_FOR.search(sentence)
        or (not future and parse_change(sentence) is not None)
        or moved_thing(sentence) is not None  # "Standup is now at 10"
        # "I'm in Manchester now", "Ravi works at Stripe now": a home or an employer said as now.
        or (
            person
            and bool(cues.NOW_SAID_LAST.search(sentence))
            and bool(person_relations(sentence, ""))
        )
    ):
        # Also the imperative and present forms: "Switch X from A to B", "X now runs on B"; a
        # dated future move ("I'm moving to Madrid in September") stays a plan.
        return _Kind("change", "change", default_status="occurred")
    if person and cues.SAFETY.search(sentence):
        return _Kind("other", "safety", "safety", "ongoing")
    if person and cues.IDENTITY.search(sentence):
        return _Kind("other", "identity", "identity", "ongoing")
    if person and cues.PREFERENCE.search(sentence) and preferences(sentence):
        return _Kind("other", "preference", "preference", "ongoing")
    # An explicit intention ("I plan to launch…") is a plan even when it names a release.
    if person and not past and not vague and cues.PLAN.search(sentence):
        return _planned(sentence)
    if person and not wish and cues.NEGATIVE_FACT.search(sentence):
        return _Kind("other", "negative", default_status="ongoing")
    # A plain statement of who owns or leads what, what runs on or depends on what, who
    # joined which team ("the billing service runs on Fly.io"): a fact with no cue word.
    if person and not wish and (relations(sentence) or person_relations(sentence, "")):
        # Where someone works or lives too ("I'm a backend dev at Zalando", "Home is Melbourne
        # these days": `memory.engine.person_facts`).
        return _Kind("other", "relation", default_status="ongoing")
    personal = bool(cues.FIRST_PERSON.search(sentence))
    if person and cues.EXAM_PASSED.search(sentence):
        return _Kind("task_completed", "typed", default_status="occurred")
    # "今天的会开得好累", "Long day today, I'm exhausted": how the day felt, not a happening to
    # keep (a completion or a release said with it still is one).
    feeling = bool(cues.FEELING.search(sentence))
    for event_type, cue in cues.TYPED:
        if feeling and event_type == "meeting":
            continue
        # Something that broke, told by the user, is theirs to remember whoever it happened to.
        told = told_incident(sentence) if event_type == "incident" and person else None
        if cue.search(sentence) and (personal or dated or told) and not wish:
            status = _tense_status(sentence)
            if told and status == "unknown":
                status = told
            return _Kind(event_type, "typed", default_status=status)
    if future and not vague and not feeling and (person or not talk.CONDITIONAL.search(sentence)):
        # Not the assistant's "if it only goes up on Monday, …": a case weighed, no plan.
        return _planned(sentence)
    if person and not wish and states_result(sentence):
        # Figures that came out: "18,400 tonnes received across both sites", 通过率83%.
        return _Kind("other", "result", default_status="occurred")
    if person and not dated and stated_uses(sentence):
        # A plain statement of what is used ("we deploy the billing service on Heroku"): what a
        # later change statement supersedes (`memory.engine.changes`).
        return _Kind("other", "usage", default_status="ongoing")
    if person and dated and personal and not feeling:
        return _Kind("other", "dated")
    if person and not wish and not feeling and states_plain_fact(sentence):
        # "The API rate limit is 100 requests per minute", "My manager is Theo", "我们组有八个人":
        # a declaration of something specific with no cue word (`memory.engine.plain_facts`).
        return _Kind("other", "fact", default_status="unknown" if dated else "ongoing")
    return None


_MEETING: Final = dict(cues.TYPED)["meeting"]
_BEFORE_MEETING: Final = re.compile(
    r"\b(?:before|by|ahead\s+of|for)\s+(?:[\w'’]+\s+){0,3}?(?:meeting|review|call)\b|(?:开会|会议)(?:前|之前)",
    re.IGNORECASE,
)


def _planned(sentence: str) -> _Kind:
    """A plan, or a meeting still to come ("tomorrow at 10 I'm meeting the Antech rep",
    明天上午十点要去…开会): planned either way. Work to finish before a meeting is a plan."""
    if _MEETING.search(sentence) and not _BEFORE_MEETING.search(sentence):
        return _Kind("meeting", "typed", default_status="planned")
    return _Kind("plan", "plan", default_status="planned")


def _tense_status(sentence: str) -> str:
    """What a happening's own tense says when no date does: "I finished the draft" occurred."""
    return {"past": "occurred", "future": "planned"}.get(sentence_tense(sentence) or "", "unknown")


def _without_label(sentence: str, speaker: str | None) -> str:
    """The sentence without a leading "Speaker:" label that repeats the message's speaker."""
    if speaker and sentence[: len(speaker)].casefold() == speaker.casefold():
        rest = sentence[len(speaker) :]
        if rest[:1] in (":", "："):
            return rest[1:].strip() or sentence
    return sentence


# First-person wording rewritten in the third person for titles ("I prefer X" → "prefers X").
_THIRD_PERSON: Final = (
    (re.compile(r"^i\s+(?:really\s+|strongly\s+|much\s+|totally\s+)?", re.I), ""),
    (re.compile(r"^(?:i'm|i\s+am)\s+", re.I), "is "),
    (re.compile(r"^(?:i've|i\s+have)\s+", re.I), "has "),
    (re.compile(r"^i'd\s+(?=(?:much\s+)?rather\b)", re.I), "would "),
    (re.compile(r"^my\s+name\s+is\b", re.I), "is called"),
    (re.compile(r"^my\s+", re.I), "'s "),  # "my sister lives …" → "Maya's sister lives …"
    (re.compile(r"^我"), ""),
)
_VERBS_3RD: Final = {
    "prefer": "prefers", "like": "likes", "love": "loves", "enjoy": "enjoys", "hate": "hates",
    "dislike": "dislikes", "adore": "adores", "work": "works", "live": "lives", "don't": "doesn't",
    "do": "does", "have": "has", "can't": "can't",
}  # fmt: skip


_FREQUENCY: Final = frozenset(
    ("never", "always", "usually", "often", "sometimes", "rarely", "still", "also", "mostly")
)
# Not a base verb after "I never …": a past form, a modal or a word that is no verb.
_NOT_BASE: Final = re.compile(
    r"\w+ed$|(?:went|took|got|made|had|did|was|were|came|saw|left|felt|kept|ate|drank|ran|wrote"
    r"|thought|bought|brought|knew|can|could|will|would|shall|should|must|might|may|been|being"
    r"|a|an|the|to|not)$"
)


def _shorten(text: str, limit: int = TITLE_MAX) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut and not _HAN.search(cut[-10:]):
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:，、") + "…"


def _clean(sentence: str) -> str:
    text = cues.FILLER_PREFIX.sub("", sentence.strip()).strip()
    text = text.rstrip(".!。！;；,， ") or sentence.strip()
    return text[:1].upper() + text[1:]


def _who(message: SourceMessage, sentence: str) -> str:
    if message.speaker:
        return message.speaker
    if _HAN.search(sentence):
        return "用户" if message.role == "user" else "助手"
    return "User" if message.role == "user" else "Assistant"


_THING_IS: Final = re.compile(r"(?!(?:i|it|this|that|he|she|they)\b)\w\S*(?:\s+\S+)?\s+is\s+", re.I)


def _person_title(sentence: str, who: str) -> str:
    sentence = cues.FILLER_PREFIX.sub("", sentence)  # "As I said, …": not who says it
    found = cues.IDENTITY.search(sentence) or cues.PREFERENCE.search(sentence)
    found = found or cues.SAFETY.search(sentence)
    start = found.start() if found else 0
    thing = _THING_IS.fullmatch(sentence[:start])
    if thing and sentence[start:].lower().startswith("my "):
        # "Go is my favourite language" → "Go is Maya's favourite language".
        return _shorten(_clean(f"{thing.group()}{who}'s {sentence[start + 3 :]}"))
    subjects = list(_SUBJECT.finditer(sentence[:start]))
    if subjects:  # the last first-person subject before the cue starts the statement
        start = subjects[-1].start()
    elif found and (other := _OTHER_SUBJECT.search(sentence[:start])):
        # "Caroline lives in Boston", "She works at Acme": about someone else, said as such.
        return _shorten(_clean(sentence[other.start(1) :]))
    elif not _SUBJECT.search(sentence):
        # "Amara is the tech lead", "小张是移动端的负责人", "the design system lives in
        # Storybook": the speaker is not in it.
        return _shorten(_clean(sentence))
    rest = _clean(sentence[start:].strip())
    if _names(
        rest, who
    ):  # "My name is Maya and I prefer tea", said by Maya: no "Maya is called Maya"
        return _shorten(rest)
    for pattern, replacement in _THIRD_PERSON:
        if pattern.search(rest):
            rest = pattern.sub(replacement, rest, count=1)
            break
    head, _, tail = rest.partition(" ")
    if head.lower() in _FREQUENCY and tail:  # "never use Emacs" → "never uses Emacs"
        verb, _, after = tail.partition(" ")
        if after and verb.isalpha() and verb.islower() and not _NOT_BASE.match(verb):
            tail = f"{_VERBS_3RD.get(verb, third_person(verb))} {after}"
    rest = f"{_VERBS_3RD.get(head.lower(), head)} {tail}".strip() if tail else rest
    joiner = "" if _HAN.search(rest[:1]) or rest.startswith("'s ") else " "
    return _shorten(f"{who}{joiner}{rest}")


def _names(text: str, who: str) -> bool:
    """True when `text` says the name `who` (a whole word; anywhere in Chinese text)."""
    if not who:
        return False
    if _HAN.search(text):
        return who.casefold() in text.casefold()
    return re.search(rf"(?<![\w]){re.escape(who)}(?![\w])", text, re.IGNORECASE) is not None


def _title(kind: _Kind, sentence: str, who: str, choices: list[SlotChoice]) -> str:
    if kind.label in ("preference", "identity", "safety"):
        return _person_title(sentence, who)
    if kind.label == "decision" and choices:
        parts = [f"{c.value} as {c.slot.replace('_', ' ')}" for c in choices]
        return _shorten("Use " + " and ".join(parts))
    text = cues.LETS_PREFIX.sub("", _clean(sentence))
    return _shorten(text[:1].upper() + text[1:])


def _keywords(sentence: str) -> list[str]:
    words = [w.lower().strip(".'-") for w in _WORD.findall(sentence)]
    return [w for w in words if w not in cues.STOP_WORDS and len(w) >= 4][:5]


def _scope(kind: _Kind, sentence: str, message: SourceMessage, choices: list[SlotChoice]) -> str:
    if kind.label in ("preference", "identity", "safety"):
        return "user"
    if choices or project_name(sentence) or cues.PROJECT_WORDS.search(sentence):
        return "project"
    return "project" if message.role == "assistant" and not message.speaker else "user"


def _event_fields(
    message: SourceMessage, sentence: str, *, computed: bool = False
) -> tuple[tuple[str, ...], dict[str, object], list[str]] | None:
    """(merge key, event fields, tags) for one sentence, or None when it states no event."""
    person = message.role == "user" or bool(message.speaker)
    probe = resolve_temporal(sentence, mentioned_at=message.created_at, default_status="unknown")
    # Vague future wording alone ("soon", "eventually") plans nothing: a plan without a plan
    # cue needs a date.
    # A habit's next time is no plan either: "I do yoga every Wednesday evening", 我每周三上瑜伽课.
    future = (
        probe.status == "planned"
        and probe.happened_start is not None
        and not cues.RECURRING.search(sentence)
    )
    dated = probe.happened_start is not None
    past = dated and probe.status == "occurred"
    kind = _classify(
        sentence, person=person, future=future, dated=dated, past=past, computed=computed
    )
    if kind is None:
        return None
    when: TemporalResolution = resolve_temporal(
        sentence, mentioned_at=message.created_at, default_status=kind.default_status
    )
    if kind.event_type in _DONE_TYPES and when.status == "planned":
        # A release or completion still to come is a plan: "Ship the release notes by
        # Thursday", "周五之前要把对账报表做完" (SPEC §5.2: never evidence that it is done).
        kind = _Kind("plan", "plan", default_status="planned")
    recurring = kind.label != "cancellation" and bool(cues.RECURRING.search(sentence))
    if when.happened_start is not None and recurring:  # "every Tuesday" is a habit, not one day
        status = kind.default_status if kind.default_status != "unknown" else "ongoing"
        when = TemporalResolution(when.original_text, None, None, "unknown", "unknown", status)
    choices = slot_choices(sentence) if kind.event_type in SLOT_EVENT_TYPES else []
    who = _who(message, sentence)
    title = _title(kind, sentence, who, choices)
    project = project_name(sentence)
    tags = [kind.event_type] if kind.event_type != "other" else []
    if kind.label in ("preference", "identity", "safety"):
        tags.append(kind.label)
    for choice in choices:
        tags += [choice.slot, choice.value.lower()]
    if project:
        tags.append(f"project:{project}")
    tags += _keywords(sentence)
    if choices and when.status not in NOT_CURRENT:
        key: tuple[str, ...] = ("slot", *sorted(f"{c.slot}={c.value}" for c in choices))
    else:
        key = (kind.event_type, re.sub(r"\W+", " ", title.casefold()).strip())
    fields: dict[str, object] = {
        "title": title,
        "summary": f"{message.speaker}: {sentence}" if message.speaker else sentence,
        "event_type": kind.event_type,
        "scope": _scope(kind, sentence, message, choices),
        "criticality": kind.criticality,
        "original_text": when.original_text,
        "happened_start": when.happened_start,
        "happened_end": when.happened_end,
        "precision": when.precision,
        "basis": when.basis,
        "temporal_status": when.status,
    }
    return key, fields, tags


def _read_facts(message: SourceMessage) -> Iterator[tuple[str, str, list[tuple[str, str]]]]:
    """(what is read, the words quoted, [(sentence as read, as written)]) for each statement of
    a message (`statements.facts_of`, one per fact for a person's words); Traditional Chinese is
    read in Simplified form (`memory.engine.hant`) and quoted as written."""
    per_fact = message.role == "user" or bool(message.speaker)
    for sentence in sentences(message.content):
        read = simplified(sentence)
        written = [(read, sentence)] if read != sentence else []
        for said_so, quote in facts_of([read], per_fact=per_fact):
            yield said_so, restored(quote, written), written


def _same_fact_of_message(
    drafts: dict[tuple[str, ...], _Draft],
    message: SourceMessage,
    fields: dict[str, object],
    sentence: str,
) -> _Draft | None:
    """The event of the same message a sentence belongs to (`engine.same_fact.joins`)."""
    for draft in drafts.values():
        if draft.message_id == message.id and joins(
            draft.said,
            str(draft.event["event_type"]),
            sentence,
            str(fields["event_type"]),
            role=message.role,
            speaker=message.speaker,
        ):
            return draft
    return None


def extract_events(
    messages: Sequence[SourceMessage], *, timeline: Sequence[TimelineEvent] = ()
) -> ExtractionOut:
    """Offline extraction for one target block; deterministic for the same messages.

    Only user and assistant messages are read, a turn as a whole: an assistant sentence that
    restates what the user said in that turn (`echoes`) adds nothing. Each event cites the
    message(s) it came from and quotes the sentence verbatim. When `timeline` (existing events
    shown to extraction) is given, slot supersessions against it are proposed as `supersedes`
    relations.
    """
    drafts: dict[tuple[str, ...], _Draft] = {}
    said: set[str] = set()  # the words the user stated in the turn under way
    asked, user_numbers = False, set[str]()  # whether the user asked, and the figures said
    answered = False
    # The user's dated events of the turn: (start, end) with their words.
    dated_said: list[tuple[tuple[object, ...], set[str]]] = []
    for message in messages:
        if message.role not in ("user", "assistant"):
            continue
        if message.role == "user":
            if answered:  # a user message after an answer opens the next turn
                said, answered, dated_said = set(), False, []
                asked, user_numbers = False, set()
            # What the user stated (a question is not restated by its answer).
            for sentence in sentences(message.content):
                if not _is_question(sentence):
                    said |= echo_words(simplified(sentence))
                asked = asked or _is_question(sentence)
            user_numbers |= numbers_in(message.content)
        else:
            answered = True
        for said_so, quote, written in _read_facts(message):
            sentence = unquoted(said_so)
            if _is_question(sentence) or talk.RECALL.search(sentence):
                continue
            computed = acknowledged = False
            if message.role == "assistant" and not message.speaker:
                computed = computed_answer(sentence, asked, user_numbers)
                acknowledged = not computed and bool(
                    ACK_OPEN.match(sentence) or RESTATING.match(sentence)
                )
                acknowledged = acknowledged and not talk.RECOMMENDATION.search(sentence)
            if (
                message.role == "assistant"
                and not computed
                and not talk.RECOMMENDATION.search(sentence)  # advice on the user's own topic
                and echoes(sentence, said)
            ):
                continue
            # Classified and summarised without a repeated speaker label; quoted verbatim.
            found = _event_fields(
                message, _without_label(sentence, message.speaker), computed=computed
            )
            if found is None:
                continue
            key, fields, tags = found
            as_written(fields, tags, written)
            draft = drafts.get(key)
            if draft is None and acknowledged:
                continue  # an acknowledgement may confirm an event of the turn, never add one
            when = (fields["happened_start"], fields["happened_end"])
            if message.role == "user":
                dated_said.append((when, echo_words(sentence)))
            elif (
                not (draft or computed or message.speaker)
                and not talk.RECOMMENDATION.search(sentence)  # advice for that day is news
                and restates_dated(when, sentence, dated_said)
            ):
                continue
            if draft is None:
                draft = _same_fact_of_message(drafts, message, fields, sentence)
            if draft is None:
                if len(drafts) == MAX_EVENTS:
                    continue
                draft = drafts[key] = _Draft(
                    key, fields, said=[sentence], written=written, message_id=message.id
                )
            elif draft.message_id == message.id and sentence not in draft.said:
                draft.said.append(sentence)
                if len(draft.said) == 2 and completes(draft.said[0], sentence):
                    # "we've stopped using Xero. Invoicing moved over to QuickBooks": one change,
                    # read from both sentences (what ended and what replaced it).
                    both = _event_fields(message, " ".join(draft.said))
                    if both is not None:
                        as_written(both[1], [], written + draft.written)
                        draft.event.update(both[1])
            if message.id not in draft.sources:
                draft.sources.append(message.id)
            draft.quotes.append(quote)
            draft.participants.append(message.speaker or message.role)
            draft.tags += tags
    events: list[ExtractedEvent] = []
    for draft in drafts.values():
        event = ExtractedEvent.model_validate(
            {
                **draft.event,
                "source_message_ids": draft.sources,
                "quotes": draft.quotes,
                "participants": draft.participants,
                "tags": clean_list(draft.tags, MAX_TAGS, 80),
            }
        )
        superseded = detect_supersession(event, list(timeline)) if timeline else []
        if superseded:
            relations = [EventRelation(kind="supersedes", target_event_id=i) for i in superseded]
            event = event.model_copy(update={"relations": relations})
        events.append(event)
    return ExtractionOut(should_extract=bool(events), events=events)
