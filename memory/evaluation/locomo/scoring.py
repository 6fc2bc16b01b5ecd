"""Evidence recall, per question and aggregated (SPEC §16). Pure arithmetic over dia ids.

R@k counts the first k *utterances* a path surfaced (an event or graph hit contributes its
source utterances, each counting against k), so k is a fixed amount of source text whatever
the path. budget@N is the share of evidence utterances inside the context assembled within N
tokens. Evidence ids that name no utterance stay in the denominator: they can never be found.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


def recall_at(found: Sequence[str], evidence: Sequence[str], unfindable: int, k: int) -> float:
    wanted = set(evidence)
    total = len(wanted) + unfindable
    if total == 0:
        return 0.0
    return len(wanted & set(found[:k])) / total


def recall_within(found: Sequence[str], evidence: Sequence[str], unfindable: int) -> float:
    return recall_at(found, evidence, unfindable, len(found))


@dataclass
class Tally:
    """Means of named figures over questions, overall and per category."""

    sums: dict[str, dict[str, float]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, category: int, figures: dict[str, float]) -> None:
        for group in ("overall", str(category)):
            self.counts[group] = self.counts.get(group, 0) + 1
            bucket = self.sums.setdefault(group, {})
            for name, value in figures.items():
                bucket[name] = bucket.get(name, 0.0) + value

    def means(self, group: str) -> dict[str, float]:
        n = self.counts.get(group, 0)
        return {k: round(v / n, 4) for k, v in self.sums.get(group, {}).items()} if n else {}

    def merge(self, other: Tally) -> None:
        for group, n in other.counts.items():
            self.counts[group] = self.counts.get(group, 0) + n
            bucket = self.sums.setdefault(group, {})
            for name, value in other.sums[group].items():
                bucket[name] = bucket.get(name, 0.0) + value
