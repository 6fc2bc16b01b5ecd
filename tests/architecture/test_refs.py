"""One home for the evidence-ref grammar (SPEC §9.1): `memory/engine/gate.py` spells refs
(`Ref.event(12)` → `event:12`, `Ref.block(4, 2)` → `block:4:L2`) and parses them (`parse_ref`);
product code never spells one by hand, in Python or in a template.

Admin-log targets (`admin_action(target=f"event:{pk}")`) are deliberately not refs: they name
what an admin changed in their own `kind:key` vocabulary (`user:<name>`, `job:<id>`, `settings`;
a block without a level), which `selectors/processing_view/admin_log.py` reads back."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "memory" / "engine" / "gate.py"
PACKAGES = ("memory", "graphui", "proxy", "stratagate_site")
KINDS = "event|node|fact|raw|block"
# The start of a ref being built: `event:` alone (an f-string's `{…}` or a `+` to come) or
# followed by a placeholder (`%s`, `{}`).
_PREFIX = re.compile(rf"^(?:{KINDS}):(?:$|\{{\d*\}}|%[sdr])", re.IGNORECASE)
# A whole ref written out as a literal.
_LITERAL = re.compile(r"^(?:(?:event|node|fact|raw):\d+|block:\d+:L\d)$", re.IGNORECASE)
# Templates and scripts: `event:{{ id }}`, `event:${id}`, `"event:" + id`.
_MARKUP = re.compile(rf"\b(?:{KINDS}):(?:\{{\{{|\$\{{|[\"'`]\s*\+)", re.IGNORECASE)


def _admin_targets(tree: ast.AST) -> set[int]:
    """The `target=` values of `admin_action(...)` calls: admin-log targets, not refs."""
    return {
        id(keyword.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "admin_action"
        for keyword in node.keywords
        if keyword.arg == "target"
    }


def _spells_a_ref(node: ast.AST) -> bool:
    if isinstance(node, ast.JoinedStr):  # f"event:{pk}": judged by its literal head
        head = node.values[0] if node.values else None
        return isinstance(head, ast.Constant) and bool(_PREFIX.match(str(head.value)))
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(_PREFIX.match(node.value) or _LITERAL.match(node.value))
    return False


def hand_built_refs(source: str) -> list[int]:
    """Lines of `source` that spell an evidence ref by hand."""
    tree = ast.parse(source)
    skipped = _admin_targets(tree) | {  # and an f-string's parts, judged with the f-string
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    return sorted(
        {node.lineno for node in ast.walk(tree) if id(node) not in skipped and _spells_a_ref(node)}
    )


def product_sources() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != HOME and "migrations" not in path.parts
    ]


def markup_sources() -> list[Path]:
    templates = sorted((ROOT / "templates").rglob("*.html"))
    scripts = [p for p in sorted((ROOT / "static").rglob("*.js")) if "vendor" not in p.parts]
    return [*templates, *scripts]


def test_product_code_spells_refs_only_through_the_ref_constructors():
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in product_sources()
        for line in hand_built_refs(path.read_text())
    ]
    assert offenders == [], "build refs with memory.engine.gate.Ref, e.g. str(Ref.event(pk))"


def test_templates_and_scripts_never_spell_a_ref():
    offenders = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in markup_sources()
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if _MARKUP.search(line)
    ]
    assert offenders == []


@pytest.mark.parametrize(
    "source",
    [
        'ref = f"event:{event.pk}"',
        'ref = f"block:{block.pk}:L{level}"',
        "ref = f'Raw:{m.id}'",
        'ref = "node:" + str(node.pk)',
        'ref = "fact:%s" % fact.pk',
        'ref = "event:{}".format(pk)',
        'ref = "block:{0}:L{1}".format(pk, level)',
        'MISSING = "event:999"',
        'MISSING = "block:4:L2"',
        'admin_action("x", target=f"event:{pk}", other=f"event:{pk}")',
    ],
)
def test_the_scan_catches_a_hand_built_ref(source):
    assert hand_built_refs(source) == [1]


@pytest.mark.parametrize(
    "source",
    [
        "ref = str(Ref.event(event.pk))",
        'admin_action("expand_block", actor=a, target=f"block:{pk}", namespace_id=1, details={})',
        'target = f"{kind}:{key}"',
        'title = f"event #{pk}"',
        'help = \'refs such as "event:12" or "block:4:L2"\'',
        'name = "raw: bytes"',
        'label = f"event: {name}"',
    ],
)
def test_the_scan_leaves_other_strings_alone(source):
    assert hand_built_refs(source) == []


@pytest.mark.parametrize(
    ("line", "caught"),
    [
        ('<a data-ref="event:{{ e.id }}">', True),
        ("const ref = `block:${id}:L${level}`;", True),
        ('const ref = "node:" + id;', True),
        ("{% blocktranslate with id=a.target_id %}event #{{ id }}{% endblocktranslate %}", False),
        ("<code>{{ hit.ref }}</code>", False),
    ],
)
def test_the_markup_scan(line, caught):
    assert bool(_MARKUP.search(line)) is caught
