"""The layering DESIGN §4 asks for: API operations and UI views parse, call a selector or a
service, and render. They never query the ORM themselves, and the engine never imports Django."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EDGES = [*sorted((ROOT / "memory" / "api").glob("*.py")), *sorted((ROOT / "graphui").rglob("*.py"))]


def _orm_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "objects"
    ]


def test_api_operations_and_ui_views_never_touch_the_orm():
    assert [hit for path in EDGES for hit in _orm_calls(path)] == []


def test_the_engine_is_plain_python():
    offenders = []
    for path in sorted((ROOT / "memory" / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] == "django"]
    assert offenders == []


def test_one_definition_of_the_visible_statuses():
    from memory.engine.lifecycle import EVENT_STATUSES
    from memory.models import EventStatus

    assert list(EventStatus.values) == list(EVENT_STATUSES)
    repeats = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "memory").rglob("*.py"))
        if "(EventStatus.ACTIVE, EventStatus.SUPERSEDED)" in path.read_text()
    ]
    assert repeats == []
