"""Event lifecycle statuses and what they mean for retrieval, weights and the graph (SPEC §5.4).

One place for the status groups that retrieval, reinforcement, the timeline, activation, imports
and graph state all rely on; `memory.models.EventStatus` takes its values from here.
"""

from __future__ import annotations

from typing import Final

ACTIVE: Final = "active"
SUPERSEDED: Final = "superseded"
FORGOTTEN: Final = "forgotten"
ARCHIVED: Final = "archived"
EVENT_STATUSES: Final = (ACTIVE, SUPERSEDED, FORGOTTEN, ARCHIVED)
# Searchable, reinforceable, shown in the timeline by default, and live for imports.
VISIBLE_STATUSES: Final = (ACTIVE, SUPERSEDED)
# Hidden from retrieval, weight 0 (beats pinning); restore brings them back.
HIDDEN_STATUSES: Final = (FORGOTTEN, ARCHIVED)
