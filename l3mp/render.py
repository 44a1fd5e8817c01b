"""Draw the world graph (or a part of it) as a PNG or SVG picture, for people who would rather look than read."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.errors import L3mpError
from l3mp.world.graph import WorldGraph

FORMATS = (".png", ".svg")
DEFAULT_MAX_NODES = 150
FAMILIES = (("room", "rooms", "#e9c46a"), ("agent", "agents", "#e76f51"),
            ("fixture", "fixtures", "#2a9d8f"), ("item", "items", "#8ab4f8"))
OTHER = ("other", "other", "#c8c8c8")
RING = 1.7  # distance between rings of a radial cluster, in inches
SPACING = 1.15  # least distance between neighbours on a ring, in inches
MARGIN = 1.0  # space between clusters, in inches
MAX_INCHES = 60.0


class RenderError(L3mpError):
    """The picture cannot be drawn as asked (too many nodes, unknown format)."""


@dataclass(frozen=True)
class Scene:
    """What to draw: the entities, the facts among them, and each entity's family."""

    entities: list[str]
    facts: list[Fact]
    families: dict[str, tuple[str, str, str]]


def render_graph(
    graph: WorldGraph,
    domain: Domain,
    out: str | Path,
    *,
    entities: Iterable[str] | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
    title: str | None = None,
) -> Path:
    """Draw `graph` (or only `entities` and the facts among them) into `out` (.png or .svg)."""
    out = Path(out)
    if out.suffix.lower() not in FORMATS:
        raise RenderError(f"cannot draw into {out}: the file name must end in .png or .svg")
    scene = build_scene(graph, domain, entities)
    if len(scene.entities) > max_nodes:
        raise RenderError(
            f"{len(scene.entities)} entities are too many to draw legibly (the limit is {max_nodes}); draw the part "
            "around some entities instead (l3mp render --entity NAME --depth N) or raise the limit (--max-nodes)"
        )
    if not scene.entities:
        raise RenderError("there is nothing to draw: the graph (or the chosen part of it) has no entity")
    _draw(scene, layout(scene), out, title or f"{len(scene.entities)} entities, {len(scene.facts)} facts")
    return out


def build_scene(graph: WorldGraph, domain: Domain, entities: Iterable[str] | None = None) -> Scene:
    """The entities to draw (all, or `entities`), the facts among them, and their families."""
    chosen = sorted(graph.entities() if entities is None else set(entities))
    families = {e: family(domain, graph.entity_type(e)) for e in chosen}
    return Scene(chosen, sorted(graph.facts_within(chosen)), families)


def family(domain: Domain, type_: str | None) -> tuple[str, str, str]:
    """The (root type, plural label, colour) of the first type family `type_` belongs to."""
    for fam in FAMILIES:
        if type_ and domain.has_type(fam[0]) and domain.is_subtype(type_, fam[0]):
            return fam
    return OTHER


# ---- layout: each hub (a room) is the centre of a radial tree of what hangs off it ----
def layout(scene: Scene) -> dict[str, tuple[float, float]]:
    """Positions in inches: one radial cluster per hub, clusters packed in rows."""
    links = _undirected(scene)
    parent_of = _forest(links, _hubs(scene, links))
    children: dict[str, list[str]] = {n: [] for n in scene.entities}
    roots = []
    for node in scene.entities:
        parent = parent_of[node]
        (roots if parent is None else children[parent]).append(node)
    clusters = [_radial(root, children) for root in roots]
    return _pack(sorted(clusters, key=len, reverse=True))


def _undirected(scene: Scene) -> nx.Graph:
    links = nx.Graph()
    links.add_nodes_from(scene.entities)
    for fact in scene.facts:
        for other in fact.args[1:]:
            if other != fact.args[0]:
                links.add_edge(fact.args[0], other)
    return links


def _hubs(scene: Scene, links: nx.Graph) -> list[str]:
    """Rooms if there are any; else the best-connected entity of each connected part."""
    rooms = [n for n in scene.entities if scene.families[n][0] == "room"]
    hubs = list(rooms)
    for part in nx.connected_components(links):
        if part.isdisjoint(rooms):
            hubs.append(max(sorted(part), key=links.degree))
    return hubs


def _forest(links: nx.Graph, hubs: list[str]) -> dict[str, str | None]:
    """Breadth-first from all hubs at once: each entity hangs off its nearest hub."""
    parent_of: dict[str, str | None] = dict.fromkeys(hubs)
    frontier = list(hubs)
    while frontier:
        nxt = []
        for node in frontier:
            for other in sorted(links.neighbors(node)):
                if other not in parent_of:
                    parent_of[other] = node
                    nxt.append(other)
        frontier = nxt
    return parent_of


def _radial(root: str, children: dict[str, list[str]]) -> dict[str, tuple[float, float]]:
    """A radial tree around (0, 0): rings by depth, sectors sized by the leaves under each node."""
    leaves: dict[str, int] = {}

    def count(node: str) -> int:
        leaves[node] = sum(count(c) for c in children[node]) or 1
        return leaves[node]

    count(root)
    narrowest: dict[int, float] = {}

    def sectors(node: str, depth: int, angle: float) -> None:
        narrowest[depth] = min(narrowest.get(depth, angle), angle)
        for child in children[node]:
            sectors(child, depth + 1, angle * leaves[child] / leaves[node])

    sectors(root, 0, 2 * math.pi)
    radius = {0: 0.0}
    for depth in range(1, len(narrowest)):
        radius[depth] = max(radius[depth - 1] + RING, SPACING / narrowest[depth])
    pos: dict[str, tuple[float, float]] = {}

    def place(node: str, start: float, end: float, depth: int) -> None:
        angle = (start + end) / 2
        pos[node] = (radius[depth] * math.cos(angle), radius[depth] * math.sin(angle))
        per_leaf = (end - start) / leaves[node]
        for child in children[node]:
            place(child, start, start + per_leaf * leaves[child], depth + 1)
            start += per_leaf * leaves[child]

    place(root, 0.0, 2 * math.pi, 0)
    return pos


def _pack(clusters: list[dict[str, tuple[float, float]]]) -> dict[str, tuple[float, float]]:
    """Lay clusters out left to right in rows of about sqrt(n)."""
    per_row = max(1, math.ceil(math.sqrt(len(clusters))))
    pos: dict[str, tuple[float, float]] = {}
    y = 0.0
    for start in range(0, len(clusters), per_row):
        row = clusters[start:start + per_row]
        radii = [max((math.hypot(px, py) for px, py in c.values()), default=0.0) + MARGIN for c in row]
        height = max(radii)
        x = 0.0
        for cluster, r in zip(row, radii, strict=True):
            x += r
            pos.update({n: (x + px, y - height + py) for n, (px, py) in cluster.items()})
            x += r
        y -= 2 * height
    return pos


# ---- drawing -------------------------------------------------------------------------------
def _draw(scene: Scene, pos: dict[str, tuple[float, float]], out: Path, title: str) -> None:
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    width = min(MAX_INCHES, max(6.0, max(xs) - min(xs) + 2 * MARGIN))
    height = min(MAX_INCHES, max(4.0, max(ys) - min(ys) + 2 * MARGIN + 0.8))
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_xlim(min(xs) - MARGIN, max(xs) + MARGIN)
    ax.set_ylim(min(ys) - MARGIN, max(ys) + MARGIN)
    ax.set_aspect("equal", adjustable="box")
    _draw_edges(ax, scene, pos)
    _draw_nodes(ax, scene, pos)
    used = {scene.families[n] for n in scene.entities}
    ax.legend(handles=[Patch(color=f[2], label=f[1]) for f in (*FAMILIES, OTHER) if f in used],
              loc="upper right", fontsize=8, frameon=False)
    fig.suptitle(title, fontsize=11)
    fig.text(0.01, 0.005, caption(scene), fontsize=8, ha="left", va="bottom")
    with rc_context({"svg.fonttype": "none"}):  # SVG text stays text: searchable, and smaller
        fig.savefig(out, dpi=120)


def caption(scene: Scene) -> str:
    """The 0-ary facts, which belong to no node."""
    world = [str(f) for f in scene.facts if not f.args]
    return "0-ary facts: " + (" ".join(world) if world else "none")


def _draw_edges(ax, scene: Scene, pos: dict[str, tuple[float, float]]) -> None:
    labels: dict[tuple[str, str], list[str]] = {}
    for fact in scene.facts:
        for i, other in enumerate(fact.args[1:], start=1):
            name = fact.predicate if len(fact.args) == 2 else f"{fact.predicate}[{i}]"
            labels.setdefault((fact.args[0], other), []).append(name)
    drawn = nx.DiGraph(list(labels))
    drawn.add_nodes_from(scene.entities)
    nx.draw_networkx_edges(drawn, pos, ax=ax, edge_color="#777777", width=0.8, arrowsize=8, node_size=200)
    nx.draw_networkx_edge_labels(drawn, pos, ax=ax, font_size=6, font_color="#444444", rotate=False,
                                 edge_labels={e: ", ".join(sorted(v)) for e, v in labels.items()},
                                 bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.7})


def _draw_nodes(ax, scene: Scene, pos: dict[str, tuple[float, float]]) -> None:
    unary: dict[str, list[str]] = {}
    for fact in scene.facts:
        if len(fact.args) == 1:
            unary.setdefault(fact.args[0], []).append(fact.predicate)
    for node in scene.entities:
        x, y = pos[node]
        hub = scene.families[node][0] == "room"
        ax.scatter([x], [y], s=520 if hub else 180, c=scene.families[node][2], edgecolors="#333333",
                   linewidths=0.6, zorder=3)
        ax.annotate(node, (x, y), xytext=(0, -9 if hub else -6), textcoords="offset points", ha="center",
                    va="top", fontsize=8 if hub else 6.5, fontweight="bold" if hub else "normal", zorder=4,
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.75})
        if unary.get(node):
            ax.annotate("\n".join(sorted(unary[node])), (x, y), xytext=(0, -17 if hub else -14),
                        textcoords="offset points", ha="center", va="top", fontsize=5.5, style="italic",
                        color="#9b2226", zorder=4)
