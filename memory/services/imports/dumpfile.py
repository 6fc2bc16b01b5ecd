"""The JSONL namespace dump file: a header line, then one line per canonical-dump record.

Line 1: `{"type": "header", "format": "stratagate.namespace-dump.v1", "namespace": …,
"exported_at": …, "counts": {…}, "namespace_state": {current_turn, last_activity_at}}`.
Then `{"type": "<section>", "_key": "<key>", …fields}` per row, sections in dependency order
(memory.selectors.dump.SECTIONS). Restoring it into an empty namespace reproduces the canonical
dump (services.imports.restore). Secrets are redacted on the way out (SPEC §15.3) unless the
operator asks for a raw dump (`export_memory --no-redact`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from django.utils import timezone

from memory.errors import Invalid
from memory.models import Namespace
from memory.selectors.dump import (
    KEY,
    SECTIONS,
    iter_dump,
    key_maps,
    namespace_header,
    redact_value,
)
from memory.services.imports.parser import check_storable, too_deep

DUMP_FORMAT: Final = "stratagate.namespace-dump.v1"
_SECTION_NAMES: Final = frozenset(s.name for s in SECTIONS)


def dump_lines(namespace: Namespace, *, redacted: bool = True) -> Iterator[str]:
    """The JSONL dump, line by line (each line ends with a newline)."""
    namespace.refresh_from_db()
    maps = key_maps(namespace)
    header = {
        "type": "header",
        "format": DUMP_FORMAT,
        "namespace": namespace.name,
        "exported_at": timezone.now().isoformat(),
        "redacted": redacted,
        "counts": {name: len(ids) for name, ids in maps.items()},
        "namespace_state": namespace_header(namespace),
    }
    yield json.dumps(header, ensure_ascii=False) + "\n"
    for section, record in iter_dump(namespace, maps):
        line = {"type": section, **(redact_value(record) if redacted else record)}
        yield json.dumps(line, ensure_ascii=False, sort_keys=False) + "\n"


@dataclass
class DumpDocument:
    header: dict[str, Any]
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.records.values())


def parse_dump(text: str) -> DumpDocument:
    """Read a JSONL dump; errors name the line."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise Invalid("the dump is empty", code="invalid_dump")
    document: DumpDocument | None = None
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise Invalid(
                f"line {number} of the dump is not valid JSON: {exc.msg} at column {exc.colno}",
                code="invalid_import_json",
                details={"line": number, "column": exc.colno, "problem": exc.msg},
            ) from exc
        except RecursionError as exc:
            raise too_deep() from exc
        check_storable(record, f"line {number}")
        if not isinstance(record, dict):
            raise Invalid(f"line {number} of the dump is not an object", code="invalid_dump")
        kind = record.pop("type", None)
        if document is None:
            if kind != "header" or record.get("format") != DUMP_FORMAT:
                raise Invalid(
                    f"the first line must be the {DUMP_FORMAT} header", code="invalid_dump"
                )
            document = DumpDocument(header=record)
            continue
        if kind not in _SECTION_NAMES or not isinstance(record.get(KEY), str):
            raise Invalid(
                f"line {number} has an unknown record type {str(kind)[:40]!r} or no key",
                code="invalid_dump",
                details={"line": number},
            )
        document.records.setdefault(str(kind), []).append(record)
    assert document is not None
    return document
