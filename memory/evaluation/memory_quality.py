"""Memory quality measured end to end (issue 29): a labelled set of conversations driven through
the product (`memory_quality_run`), what was stored matched to the labels, figures by category.

Figures (a category's row counts what its statements said or stored):
- **event precision** — of the events (active or superseded) whose first source message is a
  labelled statement, the share that match an event the statement was labelled with, or the
  fact it repeats; an event is matched to one of its statement's labelled facts, a fitting type
  first, and each labelled fact of a statement takes one event;
- **event recall** — of the labelled facts, the share with a matched event of a fitting type;
- **duplicates** — of the labelled facts, the share with more than one matched event (a repeat
  stored again instead of as a mention);
- **supersession recall** — of the labelled supersessions, the share where every event of the
  old fact ended `superseded` by an event of the statement that ends it (any of its facts':
  "Tamsin's gone … Devin Marsh is running night grooming now" is two events, and which of them
  ends the old lead depends on nothing but their order);
- **edge precision / recall** — stored edges (any status: a historical edge was still stated)
  against the conversation's labelled edges. Names are compared after NFKC, lower-casing,
  collapsing spaces and dropping a leading article or possessive (the, a, an, our, my), a known
  tool by the product's canonical name ("GCP" is "Google Cloud"); a node's aliases count as
  its names; `runs_on` and `deployed_on` are one relation (both say where a
  service runs); a labelled relation "a|b" accepts either. An edge belongs to the category of
  its first source event's statement.
Informative, not goals: temporal status and occurrence-day accuracy of each found fact's first
event (the day in the session's time zone), repeats stored as a mention, and node recall.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, time
from typing import Any, Final

from memory.engine.offline_entities import known_tool
from memory.evaluation.memory_quality_run import Observed, StoredEvent, conversation_run
from memory.evaluation.memory_quality_set import CATEGORIES, Conversation, QualitySet, Statement

__all__ = ["GOALS", "QualityReport", "QualityTally", "conversation_score", "memory_quality_score"]

# (figure, comparison, target): the goals of issue 29.
GOALS: Final = (
    ("event_precision", ">=", 0.90),
    ("event_recall", ">=", 0.85),
    ("duplicates", "<=", 0.03),
    ("supersession_recall", ">=", 0.80),
    ("edge_precision", ">=", 0.85),
    ("edge_recall", ">=", 0.70),
)
_SAME_RELATION: Final = {"deployed_on": "runs_on"}
_ARTICLE: Final = re.compile(r"^(?:the|a|an|our|my)\s+")


def name_key(name: str) -> str:
    """A node name as compared: NFKC, lower-cased, spaces collapsed, a leading article or
    possessive dropped, and a known tool by the product's canonical name ("GCP" is "Google
    Cloud", "K8s" is "Kubernetes": `memory.engine.offline_entities.known_tool`), since both
    name the same thing."""
    text = " ".join(unicodedata.normalize("NFKC", name).lower().split()).strip(" .,;:!?'\"")
    text = _ARTICLE.sub("", text)
    known = known_tool(text)
    return known.casefold() if known is not None else text


def _relations(label: str) -> frozenset[str]:
    return frozenset(_SAME_RELATION.get(r, r) for r in label.split("|"))


@dataclass(slots=True)
class QualityTally:
    statements: int = 0
    events_stored: int = 0
    events_matched: int = 0
    facts: int = 0
    facts_found: int = 0
    facts_duplicated: int = 0
    supersessions: int = 0
    supersessions_done: int = 0
    edges_stored: int = 0
    edges_right: int = 0
    edges_expected: int = 0
    edges_found: int = 0
    status_labelled: int = 0
    status_right: int = 0
    day_labelled: int = 0
    day_right: int = 0
    repeats: int = 0
    repeats_mentioned: int = 0
    nodes_expected: int = 0
    nodes_found: int = 0

    def merge(self, other: QualityTally) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def figures(self) -> dict[str, float | None]:
        return {
            "event_precision": _ratio(self.events_matched, self.events_stored),
            "event_recall": _ratio(self.facts_found, self.facts),
            "duplicates": _ratio(self.facts_duplicated, self.facts),
            "supersession_recall": _ratio(self.supersessions_done, self.supersessions),
            "edge_precision": _ratio(self.edges_right, self.edges_stored),
            "edge_recall": _ratio(self.edges_found, self.edges_expected),
            "status_accuracy": _ratio(self.status_right, self.status_labelled),
            "day_accuracy": _ratio(self.day_right, self.day_labelled),
            "repeats_as_mention": _ratio(self.repeats_mentioned, self.repeats),
            "node_recall": _ratio(self.nodes_found, self.nodes_expected),
        }

    def as_dict(self) -> dict[str, Any]:
        counts = {name: getattr(self, name) for name in self.__slots__}
        figures = {k: (None if v is None else round(v, 4)) for k, v in self.figures().items()}
        return {**figures, "counts": counts}


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None  # nothing to measure: no figure, not a perfect one


@dataclass(slots=True)
class QualityReport:
    overall: QualityTally = field(default_factory=QualityTally)
    by_category: dict[str, QualityTally] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)

    def goals(self) -> list[tuple[str, str, float, float | None, bool]]:
        """(figure, comparison, target, value, met) for each goal."""
        figures = self.overall.figures()
        out = []
        for name, op, target in GOALS:
            value = figures[name]
            met = value is not None and (value >= target if op == ">=" else value <= target)
            out.append((name, op, target, value, met))
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.as_dict(),
            "by_category": {c: t.as_dict() for c, t in self.by_category.items()},
            "goals": [
                {"figure": n, "goal": f"{op} {t}", "value": v, "met": m}
                for n, op, t, v, m in self.goals()
            ],
            "misses": self.misses,
        }


def memory_quality_score(
    labelled: QualitySet, *, namespace_prefix: str = "quality-", keep: bool = False
) -> QualityReport:
    """Run every conversation through the product and score it."""
    report = QualityReport(by_category={c: QualityTally() for c in CATEGORIES})
    for conversation in labelled.conversations:
        observed = conversation_run(
            conversation, namespace_name=f"{namespace_prefix}{conversation.id}", keep=keep
        )
        conversation_score(conversation, observed, report)
    report.by_category = {c: t for c, t in report.by_category.items() if t.statements}
    for tally in report.by_category.values():
        report.overall.merge(tally)
    return report


def conversation_score(
    conversation: Conversation, observed: Observed, report: QualityReport
) -> None:
    """Match what was stored for one conversation to its labels; add to `report.by_category`."""
    statements = conversation.statements()
    tally = {c: report.by_category.setdefault(c, QualityTally()) for c in CATEGORIES}
    where = {s.index: s for s in statements}
    for s in statements:
        tally[s.category].statements += 1
    matched = _match_events(statements, observed.events, tally, report.misses, conversation.id)
    zone_of = {
        s.index: session.zone
        for session in conversation.sessions
        for turn in session.turns
        for s in turn
    }
    for s in statements:
        for expected in s.events:
            t = tally[s.category]
            events = matched.get(expected.key, [])
            t.facts += 1
            fitting = [e for e in events if e.event_type in expected.types]
            if fitting:
                t.facts_found += 1
                _temporal(t, expected, fitting[0], zone_of[s.index])
            else:
                got = ", ".join(e.event_type for e in events) or "nothing"
                report.misses.append(f"{conversation.id}: missed {expected.key} ({got}): {s.text}")
            if len(events) > 1:
                t.facts_duplicated += 1
                report.misses.append(f"{conversation.id}: {len(events)} events for {expected.key}")
        if s.repeats is not None:
            t = tally[s.category]
            t.repeats += 1
            t.repeats_mentioned += any(
                s.index in observed.mentioned.get(e.pk, ()) for e in matched.get(s.repeats, [])
            )
        for old_key in s.supersedes:
            t = tally[s.category]
            t.supersessions += 1
            new_ids = {e.pk for fact in s.events for e in matched.get(fact.key, [])}
            olds = matched.get(old_key, [])
            if olds and all(e.superseded_by in new_ids for e in olds):
                t.supersessions_done += 1
            else:
                report.misses.append(f"{conversation.id}: {old_key} not superseded by: {s.text}")
    _score_edges(conversation.id, statements, observed, tally, where, report.misses)


def _match_events(
    statements: list[Statement],
    events: list[StoredEvent],
    tally: dict[str, QualityTally],
    misses: list[str],
    conversation_id: str,
) -> dict[str, list[StoredEvent]]:
    """Each stored event to a fact key of its statement (a fitting type first), or to none."""
    where = {s.index: s for s in statements}
    taken: set[str] = set()
    matched: dict[str, list[StoredEvent]] = {}
    for event in events:
        if event.status not in ("active", "superseded") or event.origin is None:
            continue
        s = where[event.origin]
        tally[s.category].events_stored += 1
        free = [e for e in s.events if e.key not in taken]
        key = next((e.key for e in free if event.event_type in e.types), None)
        key = key or (free[0].key if free else None) or s.repeats
        if key is None:
            misses.append(f"{conversation_id}: unexpected {event.event_type} event from: {s.text}")
            continue
        taken.add(key)
        tally[s.category].events_matched += 1
        matched.setdefault(key, []).append(event)
    return matched


def _temporal(t: QualityTally, expected: Any, event: StoredEvent, zone: Any) -> None:
    if expected.status is not None:
        t.status_labelled += 1
        t.status_right += event.temporal_status == expected.status
    if expected.day is not None:
        t.day_labelled += 1
        if event.start is not None:
            first = datetime.combine(expected.day, time.min, tzinfo=zone)
            last = datetime.combine(expected.day, time.max, tzinfo=zone)
            t.day_right += event.start <= last and first <= (event.end or event.start)


def _score_edges(
    conversation_id: str,
    statements: list[Statement],
    observed: Observed,
    tally: dict[str, QualityTally],
    where: dict[int, Statement],
    misses: list[str],
) -> None:
    expected = {
        (name_key(a), _relations(r), name_key(b)): s for s in statements for a, r, b in s.edges
    }
    found: set[tuple[str, frozenset[str], str]] = set()
    for edge in observed.edges:
        if edge.origin is None:
            continue
        s = where[edge.origin]
        tally[s.category].edges_stored += 1
        froms, tos = _keys(edge.from_names), _keys(edge.to_names)
        relation = _SAME_RELATION.get(edge.relation, edge.relation)
        hits = [k for k in expected if k[0] in froms and k[2] in tos and relation in k[1]]
        if hits:
            tally[s.category].edges_right += 1
            found.update(hits)
        else:
            shown = f"{sorted(edge.from_names)[0]} {edge.relation} {sorted(edge.to_names)[0]}"
            misses.append(f"{conversation_id}: unexpected edge {shown} from: {s.text}")
    for key, s in expected.items():
        tally[s.category].edges_expected += 1
        if key in found:
            tally[s.category].edges_found += 1
        else:
            misses.append(f"{conversation_id}: missed edge {key[0]} {'|'.join(key[1])} {key[2]}")
    nodes = {(k, node_type) for names, node_type in observed.nodes for k in _keys(names)}
    for s in statements:
        for name, node_type in s.nodes:
            tally[s.category].nodes_expected += 1
            tally[s.category].nodes_found += (name_key(name), node_type) in nodes


def _keys(names: Iterable[str]) -> set[str]:
    return {name_key(n) for n in names}
