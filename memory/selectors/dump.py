"""The canonical dump of a namespace: every memory row, id-independent, in a stable order.

It is what "the namespace is exactly as before" means (SPEC §11.5: import + undo must leave an
equal dump) and what the lossless JSONL export writes (SPEC §11.7: restoring it into an empty
namespace must give an equal dump).

Rules:
- Every concrete field of every dumped model is included — timestamps too (the JSONL restore
  writes them back), so nothing is excluded except the auto ids, the namespace itself and the
  one other generated identifier: a retrieval batch's globally unique `public_id` (a restore
  keeps it when it is free in the database, else draws a new one). The JSONL file carries it.
- Auto ids are replaced by *keys* (field `_key`): a per-section prefix and the row's rank among
  that section's rows of the namespace in id order (`e1`, `e2`, …). Foreign keys, many-to-many
  sets, evidence refs (`event:12` → `event:e3`), `kind`/`object_id` pairs and id lists name
  those keys. A reference to a row that no longer exists becomes `null` (refs: `<kind>:?`).
- Operational and audit state that is not memory is not dumped: processing jobs, imports,
  model-call diagnostics and the model proxy's rows (exchanges, system prompts, counters).
  Search index rows are derived (rebuilt from the dumped rows).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, cast

from django.db import models

from memory.engine.redact import MARK, redact, redact_actor
from memory.models import (
    Activation,
    AdminAction,
    Assessment,
    BatchItem,
    Block,
    BlockView,
    Event,
    EventMention,
    EventRelation,
    GraphEdge,
    GraphFact,
    GraphNode,
    IngestReceipt,
    Message,
    Namespace,
    RetrievalBatch,
    Session,
    Turn,
    UsageItem,
    UsageReceipt,
)


@dataclass(frozen=True)
class Section:
    name: str
    model: type[models.Model]
    prefix: str
    scope: str  # the lookup from the model to its namespace


# Dependency order: a section only references sections before it (or itself).
SECTIONS: Final = (
    Section("sessions", Session, "s", "namespace"),
    Section("blocks", Block, "b", "namespace"),
    Section("block_views", BlockView, "v", "block__namespace"),
    Section("turns", Turn, "t", "namespace"),
    Section("messages", Message, "m", "namespace"),
    Section("ingest_receipts", IngestReceipt, "i", "namespace"),
    Section("events", Event, "e", "namespace"),
    Section("event_relations", EventRelation, "r", "namespace"),
    Section("event_mentions", EventMention, "em", "namespace"),
    Section("graph_nodes", GraphNode, "n", "namespace"),
    Section("graph_facts", GraphFact, "f", "namespace"),
    Section("graph_edges", GraphEdge, "g", "namespace"),
    Section("retrieval_batches", RetrievalBatch, "rb", "namespace"),
    Section("batch_items", BatchItem, "bi", "batch__namespace"),
    Section("assessments", Assessment, "a", "namespace"),
    Section("usage_receipts", UsageReceipt, "u", "namespace"),
    Section("usage_items", UsageItem, "ui", "receipt__namespace"),
    Section("activations", Activation, "ac", "namespace"),
    Section("admin_actions", AdminAction, "ad", "namespace"),
)
SECTION_OF_MODEL: Final = {s.model: s for s in SECTIONS}
# Evidence-ref kinds (SPEC §9.1) and the section their id points into.
REF_SECTIONS: Final = {
    "event": "events",
    "node": "graph_nodes",
    "fact": "graph_facts",
    "raw": "messages",
    "block": "blocks",
}
REF_FIELDS: Final = frozenset({"ref", "refs", "evidence_refs", "accepted_refs", "rejected_refs"})
ID_LIST_FIELDS: Final = {"reinforced_event_ids": "events"}
# Identifiers that a restore may have to regenerate: in the JSONL file, not in the comparison.
REGENERATED: Final = {"retrieval_batches": ("public_id",)}
TARGET_FIELDS: Final = frozenset({"target"})  # AdminAction.target is a ref ("event:12")
# The canonical key's field name; no model field starts with "_".
KEY: Final = "_key"
_REF: Final = re.compile(r"^(event|node|fact|raw|block):([^:]+)((?::L\d)?)$")

KeyMaps = dict[str, dict[Any, Any]]


def rows(section: Section, namespace: Namespace) -> models.QuerySet[Any]:
    return section.model._default_manager.filter(**{section.scope: namespace}).order_by("pk")


def concrete_fields(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    return [f for f in model._meta.concrete_fields if not f.primary_key and f.name != "namespace"]


def m2m_fields(model: type[models.Model]) -> list[models.ManyToManyField[Any, Any]]:
    return [f for f in model._meta.many_to_many if isinstance(f, models.ManyToManyField)]


def m2m_through(field: models.ManyToManyField[Any, Any]) -> type[models.Model]:
    return cast(type[models.Model], field.remote_field.through)


def map_ref(value: object, maps: KeyMaps, *, forward: bool = True) -> object:
    """`event:12` ↔ `event:e3` (also `block:7:L3`); anything else unchanged."""
    if not isinstance(value, str):
        return value
    match = _REF.match(value)
    if not match:
        return value
    kind, ident, level = match.groups()
    lookup = ident if not forward else int(ident) if ident.isdigit() else None
    mapped = maps[REF_SECTIONS[kind]].get(lookup)
    return f"{kind}:{mapped if mapped is not None else '?'}{level}"


def map_refs(value: object, maps: KeyMaps, *, forward: bool = True) -> object:
    """A ref, a list of refs, or a list of `{ref, …}` objects (rejected refs)."""
    if isinstance(value, list):
        return [map_refs(item, maps, forward=forward) for item in value]
    if isinstance(value, dict) and "ref" in value:
        return {**value, "ref": map_ref(value["ref"], maps, forward=forward)}
    return map_ref(value, maps, forward=forward)


def _plain(value: object) -> object:
    return value.isoformat() if isinstance(value, datetime) else value


def _object_section(row: models.Model) -> str | None:
    kind = getattr(row, "kind", None)
    return REF_SECTIONS.get(kind) if isinstance(kind, str) else None


def dump_row(
    section: Section, row: models.Model, maps: KeyMaps, m2m: dict[str, dict[int, list[Any]]]
) -> dict[str, Any]:
    """One row as `{_key, field: value, …}` with every id replaced by a key."""
    out: dict[str, Any] = {KEY: maps[section.name][row.pk]}
    for field in concrete_fields(section.model):
        value = getattr(row, field.attname)
        if field.is_relation:
            target = SECTION_OF_MODEL.get(field.related_model)  # type: ignore[arg-type]
            out[field.name] = maps[target.name].get(value) if target and value is not None else None
        elif field.name == "object_id" and _object_section(row):
            out[field.name] = maps[_object_section(row) or ""].get(value)
        elif field.name in REF_FIELDS or field.name in TARGET_FIELDS:
            out[field.name] = map_refs(value, maps)
        elif field.name in ID_LIST_FIELDS:
            out[field.name] = [maps[ID_LIST_FIELDS[field.name]].get(i) for i in value or []]
        else:
            out[field.name] = _plain(value)
    for name, related in m2m.items():
        out[name] = sorted(related.get(row.pk, []), key=_key_order)
    return out


def _key_order(key: Any) -> tuple[str, int]:
    text = str(key)
    digits = text.lstrip("abcdefghijklmnopqrstuvwxyz")
    return (text[: len(text) - len(digits)], int(digits) if digits.isdigit() else -1)


def key_maps(namespace: Namespace) -> KeyMaps:
    """pk → key for every section (keys are ranks, so they survive id remapping)."""
    maps: KeyMaps = {}
    for section in SECTIONS:
        ids = rows(section, namespace).values_list("pk", flat=True)
        maps[section.name] = {pk: f"{section.prefix}{rank}" for rank, pk in enumerate(ids, 1)}
    return maps


def _m2m_sets(
    section: Section, namespace: Namespace, maps: KeyMaps
) -> dict[str, dict[int, list[Any]]]:
    out: dict[str, dict[int, list[Any]]] = {}
    for field in m2m_fields(section.model):
        through = m2m_through(field)
        source = field.m2m_field_name()
        target = field.m2m_reverse_field_name()
        target_section = SECTION_OF_MODEL[field.related_model]
        pairs = through._default_manager.filter(
            **{f"{source}__{section.scope}": namespace}
        ).values_list(f"{source}_id", f"{target}_id")
        related: dict[int, list[Any]] = {}
        for owner, other in pairs:
            related.setdefault(owner, []).append(maps[target_section.name].get(other))
        out[field.name] = related
    return out


def namespace_header(namespace: Namespace) -> dict[str, Any]:
    return {
        "current_turn": namespace.current_turn,
        "last_activity_at": _plain(namespace.last_activity_at),
    }


def iter_dump(
    namespace: Namespace, maps: KeyMaps | None = None
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(section, record) pairs in dependency order, rows in id order."""
    maps = maps if maps is not None else key_maps(namespace)
    for section in SECTIONS:
        m2m = _m2m_sets(section, namespace, maps)
        known = maps[section.name]
        for row in rows(section, namespace).iterator(chunk_size=1000):
            if row.pk in known:  # rows written after the key maps were taken are left out
                yield section.name, dump_row(section, row, maps, m2m)


ADMIN_SECTION = "admin_actions"


_SECRET_KEY: Final = re.compile(r"password|passwd|secret|token|api[_-]?key", re.IGNORECASE)
# Hashes and keys are not prose: never redacted (a hex digest could look like a token).
_VERBATIM: Final = frozenset({KEY, "content_hash", "answer_hash", "public_id"})
# Client-chosen identifiers, unique per namespace: one that carries a secret is replaced by a
# digest of itself, so the file still restores (no two receipts collapse into one "[REDACTED]")
# and the secret stays out.
_IDENTIFIERS: Final = frozenset({"receipt_id"})
_ACTORS: Final = frozenset({"actor", "created_by", "updated_by"})


def _identifier(value: Any) -> Any:
    if not isinstance(value, str) or redact(value) == value:
        return value
    return "redacted-" + hashlib.sha256(value.encode()).hexdigest()[:32]


def redact_value(value: Any, key: str = "") -> Any:
    """Redact every string leaf; values under secret-looking keys are masked whole."""
    if key in _VERBATIM:
        return value
    if key in _IDENTIFIERS:
        return _identifier(value)
    if key in _ACTORS and isinstance(value, str):
        return redact_actor(value)
    if isinstance(value, str):
        return MARK if key and _SECRET_KEY.search(key) and value else redact(value)
    if isinstance(value, list):
        return [redact_value(item) for item in value]
    if isinstance(value, dict):
        return {k: redact_value(v, str(k)) for k, v in value.items()}
    return value
