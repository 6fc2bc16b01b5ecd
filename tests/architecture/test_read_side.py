"""Reads flow one way (docs/ARCHITECTURE.md, "Layers"): services → recall → selectors →
search, models, engine. A lower layer never imports a higher one, not even inside a function,
no module of the product hides a circle behind a function-level import, and the product never
imports its evaluation or demo code (only their management commands do).

One selector is a leaf below the others: `memory.selectors.graph_state`, the graph-state read,
imports only models and engine (and the standard library and Django), so search may use it
for its node documents; search imports nothing else of selectors."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# layer → the packages it must never import
FORBIDDEN = {
    "memory.selectors": ("memory.services", "memory.recall", "memory.api", "graphui", "proxy"),
    "memory.recall": ("memory.services", "memory.api", "graphui", "proxy"),
    "memory.search": ("memory.services", "memory.recall", "memory.selectors", "memory.api"),
    "memory.models": ("memory.services", "memory.recall", "memory.selectors", "memory.api"),
}
# layer → the modules it may import although FORBIDDEN bans their package
EXCEPT = {"memory.search": ("memory.selectors.graph_state",)}
# The leaf selector and what alone it may import of our own code.
LEAF = "memory.selectors.graph_state"
LEAF_MAY_IMPORT = ("memory.models", "memory.engine")
APART = ("memory.evaluation", "memory.demo")
# Function-level imports that are not circles: Django's start-up hook and migrations, which
# must import the code of their time lazily.
LAZY_ALLOWED = ("memory/apps.py", "memory/migrations/")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, module: str) -> list[tuple[int, str, bool]]:
    """(line, imported module, inside a function?) for every import of `source`, relative ones
    resolved against `module`; `from memory import services` counts as `memory.services`."""
    tree = ast.parse(source)
    inner = {
        id(node)
        for scope in ast.walk(tree)
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(scope)
    }
    found: list[tuple[int, str, bool]] = []
    for node in ast.walk(tree):
        nested = id(node) in inner
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, nested) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".")[: -node.level]
                base = ".".join([*package, *([base] if base else [])])
            found.append((node.lineno, base, nested))
            found += [(node.lineno, f"{base}.{alias.name}", nested) for alias in node.names]
    return found


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def banned(name: str, layer: str) -> bool:
    return any(_within(name, b) for b in FORBIDDEN[layer]) and not any(
        _within(name, allowed) for allowed in EXCEPT.get(layer, ())
    )


def offences(path: Path) -> list[str]:
    module = module_name(path)
    layer = next((layer for layer in FORBIDDEN if _within(module, layer)), None)
    if layer is None:
        return []
    return [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for line, name, _ in imports(path.read_text(), module)
        if banned(name, layer)
    ]


def product_files() -> list[Path]:
    return [
        path
        for package in ("memory", "graphui", "proxy", "stratagate_site")
        for path in sorted((ROOT / package).rglob("*.py"))
    ]


def test_no_layer_imports_upward():
    assert [hit for path in product_files() for hit in offences(path)] == []


def leaf_offences(source: str) -> list[str]:
    """What the leaf selector imports beyond models, engine, the standard library and Django."""
    return [
        f"{line}: {name}"
        for line, name, _ in imports(source, LEAF)
        if not any(_within(name, allowed) for allowed in LEAF_MAY_IMPORT)
        and name.split(".")[0] not in {*sys.stdlib_module_names, "__future__", "django"}
    ]


def test_the_leaf_selector_imports_only_models_and_engine():
    path = ROOT / (LEAF.replace(".", "/") + ".py")
    assert leaf_offences(path.read_text()) == []


@pytest.mark.parametrize(
    "source",
    [
        "from memory.selectors.out import Out\n",
        "from memory.search import search_nodes\n",
        "from . import graph\n",
        "import networkx\n",
    ],
)
def test_the_leaf_guard_sees_imports_beyond_models_and_engine(source):
    assert leaf_offences(source)


def test_the_product_never_imports_evaluation_or_demo_code():
    users = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in product_files()
        if not _within(module_name(path), "memory.management")
        and not any(_within(module_name(path), apart) for apart in APART)
        for line, name, _ in imports(path.read_text(), module_name(path))
        if any(_within(name, apart) for apart in APART)
    ]
    assert users == []


def test_no_function_level_imports_of_our_own_modules():
    hidden = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in product_files()
        if not str(path.relative_to(ROOT)).startswith(LAZY_ALLOWED)
        for line, name, nested in imports(path.read_text(), module_name(path))
        if nested and name.split(".")[0] in ("memory", "graphui", "proxy", "stratagate_site")
    ]
    assert hidden == []


@pytest.mark.parametrize(
    ("source", "module"),
    [
        ("from memory.services.settings import settings_update\n", "memory.selectors.x"),
        ("def f():\n    from memory.services import jobs\n", "memory.selectors.x"),
        ("import memory.services.jobs\n", "memory.selectors.x"),
        ("from ..services import jobs\n", "memory.selectors.x"),
        ("from memory import services\n", "memory.recall.x"),
        ("from memory.selectors.graph import node_states\n", "memory.search.x"),
        ("from memory.selectors import graph_state\n", "memory.search.x"),  # name the module
        ("from ..selectors.graph_view import graph_view\n", "memory.search.x"),
    ],
)
def test_the_guard_sees_every_spelling_of_an_upward_import(source, module):
    layer = next(layer for layer in FORBIDDEN if _within(module, layer))
    assert [name for _, name, _ in imports(source, module) if banned(name, layer)]


@pytest.mark.parametrize(
    "source",
    [
        "from memory.selectors.graph_state import item_states, source_statuses\n",
        "import memory.selectors.graph_state\n",
        "from ..selectors.graph_state import item_states\n",
    ],
)
def test_search_may_import_the_leaf_selector(source):
    assert not [
        name for _, name, _ in imports(source, "memory.search.x") if banned(name, "memory.search")
    ]
