"""Turn counters match the turns (SPEC §1.4): a namespace's `current_turn` is its highest
(non-synthetic) turn number, and a session's `turn_count` its highest session turn, with no
gaps below it.

A counter behind its turns makes the next ingest collide with an existing turn number (the turn
is refused), so repair raises it. A counter ahead of its turns is lowered only when nothing
recorded a turn above the highest one (events' formed/adopted turns, batches, receipts,
activations, import source turns): weights count turns from those marks, and moving the
counter under them would make them younger than "now". Gaps in a session's numbering are
reported only: renumbering turns would move them out of their blocks' ranges.
"""

from __future__ import annotations

from django.db.models import Count, Max, OuterRef, Subquery

from memory.models import (
    Activation,
    Event,
    Namespace,
    RetrievalBatch,
    Session,
    Turn,
    UsageReceipt,
)
from memory.services.consistency.base import COUNTERS, Repair, Violation, scoped
from memory.services.db import write_transaction


def _highest_turn(namespace_id: int) -> int:
    top = Turn.objects.filter(namespace_id=namespace_id, synthetic=False).aggregate(
        top=Max("namespace_turn")
    )["top"]
    return int(top or 0)


def _highest_recorded(namespace_id: int) -> int:
    """The highest namespace turn any row besides the turns themselves recorded."""
    marks = [
        Event.objects.filter(namespace_id=namespace_id).aggregate(
            a=Max("formed_turn"), b=Max("last_adopted_turn")
        ),
        RetrievalBatch.objects.filter(namespace_id=namespace_id).aggregate(a=Max("namespace_turn")),
        UsageReceipt.objects.filter(namespace_id=namespace_id).aggregate(a=Max("namespace_turn")),
        Activation.objects.filter(namespace_id=namespace_id).aggregate(a=Max("namespace_turn")),
        Turn.objects.filter(namespace_id=namespace_id, synthetic=True).aggregate(
            a=Max("namespace_turn")
        ),
    ]
    return max((int(v) for row in marks for v in row.values() if v is not None), default=0)


def _namespace_fix(counter: int, highest: int, recorded: int) -> int | None:
    """The value repair may set, or None when lowering would go under a recorded turn."""
    if counter < highest:
        return highest
    return highest if recorded <= highest else None


def namespace_counter_mismatch(namespace_id: int | None) -> list[Violation]:
    top = (
        Turn.objects.filter(namespace_id=OuterRef("pk"), synthetic=False)
        .order_by("-namespace_turn")
        .values("namespace_turn")[:1]
    )
    rows = scoped(Namespace.objects.all(), namespace_id, "pk").annotate(top=Subquery(top))
    found: list[Violation] = []
    for pk, counter, top_turn in rows.values_list("pk", "current_turn", "top").order_by("pk"):
        highest = int(top_turn or 0)
        if counter == highest:
            continue
        recorded = _highest_recorded(pk)
        fix = _namespace_fix(counter, highest, recorded)
        why = "" if fix is not None else f"; turn {recorded} is recorded by its memory, so it stays"
        found.append(
            Violation(
                COUNTERS,
                "namespace_turn_counter",
                pk,
                {"namespace": pk},
                f"namespace {pk}'s current_turn is {counter} but its highest turn is {highest}"
                + why,
                fixable=fix is not None,
            )
        )
    return found


def session_counter_mismatch(namespace_id: int | None) -> list[Violation]:
    rows = scoped(Session.objects.all(), namespace_id).annotate(
        top=Max("turns__session_turn"), stored=Count("turns")
    )
    found: list[Violation] = []
    for pk, ns, counter, top, stored in rows.values_list(
        "pk", "namespace_id", "turn_count", "top", "stored"
    ).order_by("pk"):
        highest = int(top or 0)
        if counter != highest:
            found.append(
                Violation(
                    COUNTERS,
                    "session_turn_counter",
                    ns,
                    {"session": pk},
                    f"session {pk}'s turn_count is {counter} but its highest turn is {highest}",
                    fixable=True,
                )
            )
        if stored != highest:
            found.append(
                Violation(
                    COUNTERS,
                    "session_turn_gap",
                    ns,
                    {"session": pk},
                    f"session {pk} numbers its turns up to {highest} but holds {stored}",
                )
            )
    return found


CHECKS = (namespace_counter_mismatch, session_counter_mismatch)


def namespace_counters_recompute(violations: list[Violation]) -> list[Repair]:
    """Recompute under the namespace row lock, the lock ingest advances the counter under."""
    done: list[Repair] = []
    for namespace_id in sorted({v.namespace_id for v in violations}):
        with write_transaction():
            namespace = Namespace.objects.select_for_update().filter(pk=namespace_id).first()
            if namespace is None:
                continue
            highest = _highest_turn(namespace_id)
            fix = _namespace_fix(namespace.current_turn, highest, _highest_recorded(namespace_id))
            before = namespace.current_turn
            if fix is None or fix == before:
                continue
            namespace.current_turn = fix
            namespace.save(update_fields=["current_turn"])
        done.append(
            Repair(
                "namespace_turn_counter",
                namespace_id,
                f"namespace {namespace_id}: current_turn {before} → {fix}",
                {"namespace": namespace_id},
            )
        )
    return done


def session_counters_recompute(violations: list[Violation]) -> list[Repair]:
    done: list[Repair] = []
    for violation in violations:
        session_id = int(violation.ids["session"])  # type: ignore[arg-type]
        with write_transaction():
            # Ingest locks the namespace before it numbers a session's turn; so do we.
            Namespace.objects.select_for_update().filter(pk=violation.namespace_id).first()
            session = Session.objects.select_for_update().filter(pk=session_id).first()
            if session is None:
                continue
            highest = int(
                Turn.objects.filter(session_id=session_id).aggregate(top=Max("session_turn"))["top"]
                or 0
            )
            before = session.turn_count
            if before == highest:
                continue
            session.turn_count = highest
            session.save(update_fields=["turn_count"])
        done.append(
            Repair(
                "session_turn_counter",
                violation.namespace_id,
                f"session {session_id}: turn_count {before} → {highest}",
                {"session": session_id},
            )
        )
    return done
