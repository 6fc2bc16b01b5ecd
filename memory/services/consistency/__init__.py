"""Consistency of a StrataGate database (issue 11): each invariant is checked by small functions
that return violations with ids; `--repair` fixes what can be fixed without losing or inventing
memory, each fix in its own transaction, and the checks run again afterwards.

Used by `manage.py check_consistency`; see docs/OPERATIONS.md for every code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from memory.models import Namespace
from memory.services.consistency import blocks, counters, jobs, provenance, receipts, search_index
from memory.services.consistency.base import KINDS, Repair, Violation

Check = Callable[[int | None], list[Violation]]
Fix = Callable[[list[Violation]], list[Repair]]

CHECKS: tuple[Check, ...] = (
    *provenance.CHECKS,
    *receipts.CHECKS,
    *blocks.CHECKS,
    *search_index.CHECKS,
    *jobs.CHECKS,
    *counters.CHECKS,
)
# Fixable codes and what fixes them; one call per fix with all of its violations. Jobs and
# counters first: they unblock writers, the index is the slowest to redo.
FIXES: tuple[tuple[Fix, frozenset[str]], ...] = (
    (jobs.jobs_release_expired, frozenset({"job_lease_expired"})),
    (counters.namespace_counters_recompute, frozenset({"namespace_turn_counter"})),
    (counters.session_counters_recompute, frozenset({"session_turn_counter"})),
    (blocks.block_anchors_clamp, frozenset({"block_anchor_out_of_range"})),
    (
        search_index.search_index_repair,
        frozenset({search_index.MISSING, search_index.STALE, search_index.ORPHAN}),
    ),
)


@dataclass(frozen=True)
class ConsistencyReport:
    namespace: Namespace | None  # None: the whole database
    found: list[Violation]  # what the first check found
    repairs: list[Repair]  # what repair did (empty without repair)
    remaining: list[Violation]  # what is still wrong at the end

    @property
    def clean(self) -> bool:
        return not self.remaining


def _key(violation: Violation) -> tuple[str, int, str]:
    return violation.code, violation.namespace_id, json.dumps(dict(violation.ids), sort_keys=True)


def consistency_check(*, namespace: Namespace | None = None) -> list[Violation]:
    """Every violation of the namespace (or of the whole database), by invariant.

    Checks compare rows read by different statements, so a write committing between them can
    look like a violation for a moment (a block sealed between reading blocks and turns). Every
    check that found something runs again, and only what both passes saw is reported: the
    database may be in use while it is checked.
    """
    scope = None if namespace is None else namespace.pk
    found: list[Violation] = []
    for check in CHECKS:
        first = check(scope)
        if first:
            again = {_key(v) for v in check(scope)}
            found += [v for v in first if _key(v) in again]
    return sorted(found, key=lambda v: KINDS.index(v.kind))


def consistency_repair(violations: list[Violation]) -> list[Repair]:
    """Fix the fixable violations; the rest are left for the report."""
    done: list[Repair] = []
    for fix, codes in FIXES:
        mine = [v for v in violations if v.fixable and v.code in codes]
        if mine:
            done += fix(mine)
    return done


def consistency_run(
    *, namespace: Namespace | None = None, repair: bool = False
) -> ConsistencyReport:
    found = consistency_check(namespace=namespace)
    if not repair or not any(v.fixable for v in found):
        return ConsistencyReport(namespace, found, [], found)
    repairs = consistency_repair(found)
    return ConsistencyReport(namespace, found, repairs, consistency_check(namespace=namespace))


def namespace_labels() -> dict[int, str]:
    """Namespace id → name, for reports (violations carry ids)."""
    return dict(Namespace.objects.values_list("pk", "name"))


__all__ = [
    "CHECKS",
    "ConsistencyReport",
    "Repair",
    "Violation",
    "consistency_check",
    "consistency_repair",
    "consistency_run",
    "namespace_labels",
]
