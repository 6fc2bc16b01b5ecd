"""The current namespace has one name in every template: `ns` (graphui.context.layout gives it
from the URL; pages without a namespace have none)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_templates_and_scripts_call_the_current_namespace_ns() -> None:
    other = re.compile(r"\bui_ns\b|\bcurrent_ns\b|\bnamespace_name\b")
    users = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("templates", "static/graphui", "graphui")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in (".html", ".js", ".py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if other.search(line)
    ]
    assert users == []
