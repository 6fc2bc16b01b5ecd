"""Turns a typed graph view into vis-network's `{nodes, edges, options}` (DESIGN §1: pyvis builds
the data and options, our own endpoint serves them and our own script draws them; pyvis' HTML,
which pulls a CDN, is never used). The only module that imports pyvis.

Labels are plain text: vis-network draws them on a canvas, and no node or edge gets a `title`
(hover pop-up) or a multi-line/HTML font mode, so nothing from memory is ever parsed as markup.
Type is shown by shape *and* colour (and the legend says which is which).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from pyvis.network import Network

from memory.selectors.graph_view import HISTORICAL, GraphViewOut, ViewNodeOut

LABEL_CHARS = 32
# Measured on the 2,000-node benchmark (150 nodes, 430 edges shown): 50 iterations from the
# seeded positions look as tidy as 120 and take ~0.25 s in Chromium instead of ~0.7 s.
STABILIZATION_ITERATIONS = 50
HUB_SIZE = 22
GOLDEN_ANGLE = math.pi * (3 - math.sqrt(5))


@dataclass(frozen=True)
class TypeStyle:
    shape: str  # a vis-network shape with the label below it, so size can show importance
    colour: str
    border: str


TYPE_STYLES: dict[str, TypeStyle] = {
    "person": TypeStyle("dot", "#8fa8ff", "#1b45d8"),
    "project": TypeStyle("square", "#7fd1a0", "#127a3f"),
    "organization": TypeStyle("diamond", "#f6c26b", "#8a5a00"),
    "tool": TypeStyle("triangle", "#c3b1f5", "#5b3fd1"),
    "place": TypeStyle("star", "#f5a3b8", "#a3123f"),
}
UNKNOWN_STYLE = TypeStyle("hexagon", "#d5d9e0", "#5f6b7c")
EDGE_CURRENT = "#5f6b7c"
EDGE_HISTORICAL = "#a3abb8"


def type_style(node_type: str) -> TypeStyle:
    return TYPE_STYLES.get(node_type, UNKNOWN_STYLE)


def short_label(name: str) -> str:
    """The canvas label: the name, cut to LABEL_CHARS characters (the panel shows all of it)."""
    name = " ".join(name.split()) or "—"
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


def node_size(degree: int) -> int:
    """Radius by number of edges, on an absolute scale (so a 2-edge node does not look like a
    hub in a small graph): 10 px alone, 13 with one edge, 22 with 16, at most 30."""
    return min(30, round(10 + 3 * math.sqrt(degree)))


def edge_label(relation: str, state: str) -> str:
    if state == HISTORICAL:
        return _("%(relation)s (historical)") % {"relation": relation}
    return relation


def seed_positions(
    nodes: list[ViewNodeOut], links: list[tuple[int, int]]
) -> dict[int, tuple[int, int]]:
    """Starting positions that put each node next to its most important placed neighbour, and
    unconnected groups on a sunflower spiral, so the browser's physics only has to tidy up.
    Deterministic and O(nodes + edges); numpy-free (networkx' layouts need numpy)."""
    order = {node.id: i for i, node in enumerate(sorted(nodes, key=lambda n: n.rank))}
    neighbours: dict[int, list[int]] = {n: [] for n in order}
    for origin, target in links:
        if origin != target:
            neighbours[origin].append(target)
            neighbours[target].append(origin)
    placed: dict[int, tuple[float, float]] = {}
    children: dict[int, int] = {}
    roots = 0
    for node_id in sorted(order, key=order.__getitem__):
        anchors = [n for n in neighbours[node_id] if n in placed]
        if not anchors:
            radius = 260 * math.sqrt(roots)
            placed[node_id] = (
                radius * math.cos(roots * GOLDEN_ANGLE),
                radius * math.sin(roots * GOLDEN_ANGLE),
            )
            roots += 1
            continue
        anchor = min(anchors, key=order.__getitem__)
        k = children.get(anchor, 0)
        children[anchor] = k + 1
        ring, slot = divmod(k, 10)
        angle = (slot + ring / 2) * 2 * math.pi / 10 + order[anchor]
        ax, ay = placed[anchor]
        reach = 90 * (ring + 1)
        placed[node_id] = (ax + reach * math.cos(angle), ay + reach * math.sin(angle))
    return {n: (round(x), round(y)) for n, (x, y) in placed.items()}


def _options(net: Network, node_count: int) -> None:
    """vis-network options through pyvis' option objects (they serialise to vis' schema)."""
    net.force_atlas_2based(
        gravity=-60, central_gravity=0.012, spring_length=110, spring_strength=0.06, damping=0.5
    )
    # Fewer iterations for bigger views: each costs in proportion to the nodes and edges.
    net.options.physics.stabilization.iterations = max(
        20, round(STABILIZATION_ITERATIONS * math.sqrt(150 / max(node_count, 150)))
    )
    net.options.physics.stabilization.updateInterval = 40
    net.options.edges.smooth.enabled = False  # straight lines: cheapest to draw and simulate
    net.options.edges.color.inherit = False
    net.options.edges.color.color = EDGE_CURRENT
    net.options.edges.color.highlight = "#1d2330"
    net.options.edges.font = {"size": 10, "color": "#5f6b7c", "strokeWidth": 3,
                              "strokeColor": "#ffffff"}  # fmt: skip
    net.options.interaction.hideEdgesOnDrag = node_count > 300
    net.options.layout = {"improvedLayout": False, "randomSeed": 7}
    net.options.nodes = {
        "borderWidth": 1,
        "borderWidthSelected": 3,
        "font": {"size": 13, "face": "system-ui, sans-serif", "color": "#1d2330",
                 "strokeWidth": 3, "strokeColor": "#ffffff"},
    }  # fmt: skip
    net.options.groups = {
        name: {"shape": style.shape, "color": _colour(style)} for name, style in TYPE_STYLES.items()
    }


def _colour(style: TypeStyle) -> dict[str, Any]:
    return {
        "background": style.colour,
        "border": style.border,
        "highlight": {"background": style.colour, "border": "#1d2330"},
    }


def render_graph(view: GraphViewOut) -> dict[str, Any]:
    """`{nodes, edges, options}` for vis-network. Nodes carry `group` (their type), `degree`,
    `facts` (current facts) and, when the label was shortened, the full `name`; edges carry
    `state` (current | historical) and historical ones are dashed and say so in their label."""
    net = Network(directed=True)
    _options(net, len(view.nodes))
    focus = set(view.focus)
    positions = seed_positions(view.nodes, [(e.from_, e.to) for e in view.edges])
    for node in view.nodes:
        style = type_style(node.type)
        label = short_label(node.name)
        extra: dict[str, Any] = {"name": node.name} if label != node.name else {}
        if node.type not in TYPE_STYLES:
            extra["color"] = _colour(style)
        if node.id in focus:
            extra["borderWidth"] = 3
        if node_size(node.degree) >= HUB_SIZE:
            # Hubs get bigger labels, readable when a large view is fitted on screen.
            extra["font"] = {"size": round(node_size(node.degree) * 0.8)}
        x, y = positions[node.id]
        net.add_node(
            node.id,
            label=label,
            shape=style.shape,
            group=node.type,
            size=node_size(node.degree),
            x=x,
            y=y,
            degree=node.degree,
            facts=node.current_facts,
            **extra,
        )
    for edge in view.edges:
        historical = edge.state == HISTORICAL
        net.add_edge(
            edge.from_,
            edge.to,
            id=edge.id,
            label=edge_label(edge.relation, edge.state),
            state=edge.state,
            **({"dashes": True, "color": EDGE_HISTORICAL} if historical else {}),
        )
    nodes, edges, _heading, _height, _width, options = net.get_network_data()
    return {"nodes": nodes, "edges": edges, "options": json.loads(options)}


def legend() -> list[str]:
    """The node types the page's legend lists (its shapes and colours match TYPE_STYLES)."""
    return list(TYPE_STYLES)
