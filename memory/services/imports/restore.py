"""Restore a JSONL namespace dump into an EMPTY namespace (SPEC §11.7), and take it back out.

Rows are created section by section in the dump's order, keys mapped to new ids; timestamps
(including auto_now_add ones) are written back as dumped, so the restored namespace's canonical
dump equals the exported one — except the admin log: a dump is a file anyone can write, so its
rows never speak for the people they name. Each comes back as a `restored:<action>` entry of
the person (or token) restoring it, with what it claimed in `details.restored`; "empty" and
"changed since" ignore the admin log (it is not memory). Must run inside the caller's
transaction.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils.dateparse import parse_datetime

from memory.errors import Conflict, Invalid
from memory.models import AdminAction, Event, Message, Namespace, RetrievalBatch
from memory.search import index_events, index_messages, index_nodes
from memory.selectors.dump import (
    ID_LIST_FIELDS,
    KEY,
    REF_FIELDS,
    REF_SECTIONS,
    SECTION_OF_MODEL,
    SECTIONS,
    TARGET_FIELDS,
    KeyMaps,
    Section,
    concrete_fields,
    m2m_fields,
    m2m_through,
    map_refs,
    rows,
)
from memory.services.batches import new_batch_id
from memory.services.imports.dumpfile import DumpDocument

BATCH = 500


MEMORY_SECTIONS = [s for s in SECTIONS if s.model is not AdminAction]
ACTION_CHARS = AdminAction._meta.get_field("action").max_length or 32


def namespace_is_empty(namespace: Namespace) -> bool:
    namespace.refresh_from_db()
    if namespace.current_turn:
        return False
    return not any(rows(section, namespace).exists() for section in MEMORY_SECTIONS)


def _as_restored(records: list[dict[str, Any]], actor: str) -> list[dict[str, Any]]:
    """The dump's admin log as the restoring actor's `restored:` entries (see the module)."""
    return [
        {
            **record,
            "actor": actor[:200],
            "action": f"restored:{record.get('action', '')}"[:ACTION_CHARS],
            "details": {
                "restored": {
                    "action": record.get("action"),
                    "actor": record.get("actor"),
                    "at": record.get("created_at"),
                    "details": record.get("details"),
                }
            },
            "created_at": None,  # now: the entry is written now
        }
        for record in records
    ]


def require_empty(namespace: Namespace) -> None:
    if not namespace_is_empty(namespace):
        raise Conflict(
            f"a dump can only be restored into an empty namespace; {namespace.name!r} has memory",
            code="namespace_not_empty",
        )


def _rank(key: str) -> int:
    digits = key.lstrip("abcdefghijklmnopqrstuvwxyz")
    return int(digits) if digits.isdigit() else 0


def _value(field: models.Field[Any, Any], value: Any) -> Any:
    if isinstance(field, models.DateTimeField) and isinstance(value, str):
        parsed = parse_datetime(value)
        if parsed is None:
            raise Invalid(f"{field.name} {value!r} is not a date-time", code="invalid_dump")
        return parsed
    return value


def _resolve(maps: KeyMaps, section: str, key: Any, *, what: str) -> int | None:
    if key is None:
        return None
    found = maps[section].get(key)
    if found is None:
        raise Invalid(
            f"{what} refers to {key!r}, which the dump does not contain", code="invalid_dump"
        )
    return int(found)


def _build(
    section: Section, record: dict[str, Any], maps: KeyMaps, namespace: Namespace
) -> tuple[models.Model, dict[str, Any]]:
    """An unsaved row and its deferred self-references."""
    kwargs: dict[str, Any] = {}
    deferred: dict[str, Any] = {}
    if any(f.name == "namespace" for f in section.model._meta.concrete_fields):
        kwargs["namespace"] = namespace
    kind = record.get("kind")
    for field in concrete_fields(section.model):
        if field.name not in record:
            continue  # an older dump: the field's default applies
        value = record[field.name]
        if field.is_relation:
            target = SECTION_OF_MODEL.get(field.related_model)  # type: ignore[arg-type]
            if target is None:
                kwargs[field.attname] = None
            elif target is section:
                deferred[field.attname] = value
            else:
                what = f"{section.name} {record[KEY]}.{field.name}"
                kwargs[field.attname] = _resolve(maps, target.name, value, what=what)
        elif field.name == "object_id" and isinstance(kind, str) and kind in REF_SECTIONS:
            kwargs[field.attname] = maps[REF_SECTIONS[kind]].get(value, 0) if value else 0
        elif field.name in REF_FIELDS or field.name in TARGET_FIELDS:
            kwargs[field.attname] = map_refs(value, maps, forward=False)
        elif field.name in ID_LIST_FIELDS:
            mapped = [maps[ID_LIST_FIELDS[field.name]].get(k) for k in value or []]
            kwargs[field.attname] = [i for i in mapped if i is not None]
        else:
            kwargs[field.attname] = _value(field, value)
    return section.model(**kwargs), deferred


def _free_public_ids(records: list[dict[str, Any]]) -> None:
    """Batch ids are unique across the installation: keep each one unless it is taken."""
    wanted = [r.get("public_id") for r in records if r.get("public_id")]
    taken = set(
        RetrievalBatch.objects.filter(public_id__in=wanted).values_list("public_id", flat=True)
    )
    for record in records:
        if not record.get("public_id") or record["public_id"] in taken:
            record["public_id"] = new_batch_id()


def _restore_section(
    section: Section, records: list[dict[str, Any]], maps: KeyMaps, namespace: Namespace
) -> list[models.Model]:
    model = section.model
    if model is RetrievalBatch:
        _free_public_ids(records)
    built = [_build(section, r, maps, namespace) for r in records]
    objs = model._default_manager.bulk_create([obj for obj, _ in built], batch_size=BATCH)
    maps[section.name] = {r[KEY]: obj.pk for r, obj in zip(records, objs, strict=True)}
    # Reverse lookups for refs and object ids are keyed the other way round (key → pk).
    stamped = [
        f
        for f in concrete_fields(model)
        if getattr(f, "auto_now_add", False) or getattr(f, "auto_now", False)
    ]
    for obj, record in zip(objs, records, strict=True):
        for f in stamped:
            if record.get(f.name) is not None:
                setattr(obj, f.attname, _value(f, record[f.name]))
    selfrefs = sorted({name for _, deferred in built for name in deferred})
    for obj, (_, deferred) in zip(objs, built, strict=True):
        for attname, key in deferred.items():
            setattr(obj, attname, _resolve(maps, section.name, key, what=section.name))
    update = [f.attname for f in stamped] + selfrefs
    if update and objs:
        model._default_manager.bulk_update(objs, update, batch_size=BATCH)
    for field in m2m_fields(model):
        through = m2m_through(field)
        source, target = field.m2m_field_name(), field.m2m_reverse_field_name()
        target_section = SECTION_OF_MODEL[field.related_model]
        links = [
            through(
                **{
                    f"{source}_id": obj.pk,
                    f"{target}_id": _resolve(
                        maps, target_section.name, key, what=f"{section.name}.{field.name}"
                    ),
                }
            )
            for obj, record in zip(objs, records, strict=True)
            for key in record.get(field.name) or []
            if key is not None
        ]
        through._default_manager.bulk_create(links, batch_size=BATCH)
    return list(objs)


def dump_restore(
    *, namespace: Namespace, document: DumpDocument, actor: str
) -> dict[str, list[int]]:
    """Create every dumped row in `namespace` (which must be empty); the new ids per section.
    `actor` restores it: the dump's admin log becomes their `restored:` entries."""
    require_empty(namespace)
    maps: KeyMaps = {}
    created: dict[str, list[int]] = {}
    for section in SECTIONS:
        records = sorted(document.records.get(section.name, []), key=lambda r: _rank(r[KEY]))
        if section.model is AdminAction:
            records = _as_restored(records, actor)
        objs = _restore_section(section, records, maps, namespace)
        created[section.name] = [o.pk for o in objs]
    state = document.header.get("namespace_state") or {}
    namespace.current_turn = int(state.get("current_turn") or 0)
    last = state.get("last_activity_at")
    namespace.last_activity_at = parse_datetime(last) if isinstance(last, str) else None
    namespace.save(update_fields=["current_turn", "last_activity_at"])
    index_messages(Message.objects.filter(pk__in=created["messages"]).select_related("turn"))
    index_events(Event.objects.filter(pk__in=created["events"]))
    index_nodes(created["graph_nodes"])
    return created


def dump_unrestore(
    *, namespace: Namespace, created: dict[str, list[int]], before: dict[str, Any]
) -> None:
    """Remove what a restore created; refused when memory was added since (the admin log's
    later entries, e.g. the commit's own, stay)."""
    for section in MEMORY_SECTIONS:
        mine = set(created.get(section.name, []))
        if rows(section, namespace).exclude(pk__in=mine).exists():
            raise Conflict(
                "the namespace has memory added after the dump was restored; undo would lose it",
                code="namespace_changed",
                details={"section": section.name},
            )
    # Children first; PROTECT references (turn → block, event → block) are gone by then.
    for section in reversed(SECTIONS):
        if section.model is Event:
            Event.objects.filter(namespace=namespace).update(superseded_by=None)
        if section.model is AdminAction:
            rows(section, namespace).filter(pk__in=created.get(section.name, [])).delete()
            continue
        rows(section, namespace).delete()
    last = before.get("last_activity_at")
    namespace.current_turn = int(before.get("current_turn") or 0)
    namespace.last_activity_at = parse_datetime(last) if isinstance(last, str) else None
    namespace.save(update_fields=["current_turn", "last_activity_at"])
